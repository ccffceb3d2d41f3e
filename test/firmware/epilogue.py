#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""epilogue.py OBJDUMP IMAGE PC... -- the PCs that are NOT in an aarch64
epilogue's tail, one per line (none: every PC is).

clang 14 writes no CFI for aarch64 epilogues (LLVM 15 brought asynchronous
unwind tables to AArch64): once an epilogue has restored the frame record
(`ldp x29, x30, ...`; without a frame pointer, x30 in any pair or alone) or
popped the frame (`add sp, sp, ...`, a load post-indexed on sp: `ldp x30,
x19, [sp], #16`), the rows of both SFrame producers that read its CFI (GNU
as, sfu-gen) still describe the frame, and a walk interrupted there is
wrong.  test/firmware accepts failing timer traces of clang 14's aarch64
images at such PCs only.  A PC is in an epilogue's tail when, in its
function, the instructions from it on reach a `ret` within 4 instructions
with no branch or call before it, and the frame record was restored or the
frame popped before it (the instruction at a PC has not run) within the
same tail, no branch or call between that instruction and it."""
import re
import subprocess
import sys


def main():
    objdump, image, pcs = sys.argv[1], sys.argv[2], [int(p, 16) for p in sys.argv[3:]]
    out = subprocess.run([objdump, "-d", "--no-show-raw-insn", image], capture_output=True, text=True,
                         check=True).stdout
    insns = []  # (addr, text), in address order, per function (None between functions)
    for line in out.splitlines():
        m = re.match(r"^\s*([0-9a-f]+):\s+(.*)$", line)
        if m:
            insns.append((int(m.group(1), 16), m.group(2).strip()))
        elif re.match(r"^[0-9a-f]+ <.*>:$", line):
            insns.append(None)
    at = {ins[0]: i for i, ins in enumerate(insns) if ins}
    branch = re.compile(r"^(b|bl|blr|br|b\.\w+|cbz|cbnz|tbz|tbnz)\s")
    restore = re.compile(r"^(ldp\s+x29,\s*x30|ldp\s+x30,|ldp\s+\w+,\s*x30,|add\s+sp,\s*sp|ldr\s+x30"
                         r"|ldp?\s+[^\[]*\[sp\],\s*#)")
    for pc in pcs:
        i = at.get(pc)
        ok = False
        if i is not None:
            # Forward: a ret within 4 instructions, nothing that branches.
            for k in range(i, min(i + 4, len(insns))):
                ins = insns[k]
                if ins is None or branch.match(ins[1]):
                    break
                if ins[1].startswith("ret"):
                    # Backward: the frame record restored or the frame
                    # popped before pc, no branch in between.
                    for j in range(i - 1, max(i - 5, -1), -1):
                        ins = insns[j]
                        if ins is None or branch.match(ins[1]):
                            break
                        if restore.match(ins[1]):
                            ok = True
                            break
                    break
        if not ok:
            print("0x%x" % pc)


if __name__ == "__main__":
    main()
