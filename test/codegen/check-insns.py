#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check-insns.py ARCH OBJDUMP-OUTPUT

Reads `objdump -d --no-show-raw-insn` of an object and prints one line per
instruction that would fault in a CPU state a kernel's crash path may be in:

  fp     an FP/SIMD/SSE/x87 register operand: traps with aarch64
         CPACR_EL1.FPEN = 0, x86_64 CR4.OSFXSR = 0 or CR0.EM = 1;
  align  (aarch64) a load or store of 2, 4, 8 or 16 bytes that is shown to
         be unaligned: SP-based with an offset that is not a multiple of
         the width (SP is 16-aligned), or two accesses through the same
         base register (not redefined between them, no branch target
         between them) that need different alignments of that register
         (say a 4-byte load at [x2, #16] and a 2-byte store at [x2, #21]:
         both cannot be aligned).  That is the shape of byte loads and
         stores merged into wide ones, which gcc does unless told
         -mstrict-align.  Register-offset accesses cannot be judged
         statically; the MMU-off firmware runs under QEMU 10+ catch the
         rest.  With the MMU off every access is Device memory and an
         unaligned one faults.

Exit status 0 when nothing was found, 1 otherwise, 2 on bad usage.
"""
import re
import sys

X86_FP = re.compile(r'%(?:[xyz]mm\d+|mm\d|st(?:\(\d\))?)\b|%k[0-7]\b')
A64_FP = re.compile(r'(?<![\w.])(?:[vqdshb]\d{1,2})(?:\.\w+)?(?![\w])|\{\s*v\d')
A64_MEM = re.compile(r'\[(?P<base>x\d+|sp)(?:,\s*(?P<second>[^\]]+))?\](?P<wb>!?)(?:,\s*#(?P<post>-?(?:0x)?[0-9a-f]+))?')
A64_LDST = re.compile(r'^(?:ld|st)(?:a?x?r|ur|tr|lar|lr|ap|np|p|xp|axp|nxr|axr|lxr)?')


def width_of(mnem, ops):
    """Access width of an aarch64 load/store, or None if it is not one."""
    if not (mnem.startswith('ld') or mnem.startswith('st')):
        return None
    if mnem.startswith('st') and not A64_LDST.match(mnem):
        return None
    first = ops.split(',')[0].strip()
    if mnem.endswith('b') and not mnem.endswith('ab'):
        return 1
    if mnem.endswith('h'):
        return 2
    if mnem.endswith('sw'):
        return 4
    if first.startswith('w'):
        return 4
    if first.startswith('x') or first in ('xzr',):
        return 8
    if first.startswith('q'):
        return 16
    return 8


def imm(text):
    text = text.strip().lstrip('#')
    try:
        return int(text, 0)
    except ValueError:
        return None


def a64_regnum(tok):
    m = re.match(r'^([xw])(\d+)$', tok.strip())
    if m:
        return 'x' + m.group(2)
    return 'sp' if tok.strip() in ('sp', 'wsp') else None


def egcd_ok(r1, w1, r2, w2):
    """Can a value be r1 mod w1 and r2 mod w2 (w powers of two)?"""
    g = min(w1, w2)
    return r1 % g == r2 % g


class A64State:
    """Alignment constraints on base registers since their last write."""

    def __init__(self):
        self.cons = {}

    def reset(self, reg=None):
        if reg is None:
            self.cons = {}
        else:
            self.cons.pop(reg, None)

    def access(self, base, off, width):
        """Record base + off accessed with width; False if shown unaligned."""
        need = (-off) % width
        if base == 'sp':
            return need == 0
        for r, w in self.cons.get(base, []):
            if not egcd_ok(need, width, r, w):
                return False
        self.cons.setdefault(base, []).append((need, width))
        return True


STORES = re.compile(r'^st')
NO_DEST = ('cmp', 'cmn', 'tst', 'ccmp', 'ccmn', 'fcmp', 'msr', 'ret', 'hint', 'nop', 'isb', 'dsb',
           'dmb', 'brk', 'hlt', 'svc', 'hvc', 'smc', 'prfm', 'br', 'blr', 'b', 'cbz', 'cbnz', 'tbz', 'tbnz')


def check_a64(mnem, ops, st):
    problems = []
    bare = re.sub(r'<[^>]*>', '', ops).split('//')[0]
    # Branches and ADR/ADRP name code addresses in bare hex ("b d00"),
    # never FP registers.
    branch = mnem in ('b', 'bl', 'cbz', 'cbnz', 'tbz', 'tbnz', 'adr', 'adrp') or mnem.startswith('b.')
    if not branch and A64_FP.search(bare):
        problems.append('fp')
    width = width_of(mnem, bare)
    m = A64_MEM.search(bare)
    if width and m:
        base = m.group('base')
        second = (m.group('second') or '').strip()
        if width > 1 and (second == '' or second.startswith('#')):
            off = imm(second) if second else 0
            if off is not None and not st.access(base, off, width):
                problems.append('align')
        if m.group('wb') or m.group('post') is not None:
            st.reset(base)
    # Registers this instruction writes lose their constraints.
    if mnem in ('bl', 'blr'):
        for i in list(range(19)) + [30]:
            st.reset('x%d' % i)
    elif mnem not in NO_DEST and not branch and not STORES.match(mnem):
        dests = bare.split(',')[:2 if mnem.startswith('ldp') else 1]
        for d in dests:
            r = a64_regnum(d)
            if r:
                st.reset(r)
    elif STORES.match(mnem) and re.match(r'^st[la]?x', mnem):
        r = a64_regnum(bare.split(',')[0])  # store-exclusive status register
        if r:
            st.reset(r)
    return problems


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ('aarch64', 'x86_64'):
        print(__doc__, file=sys.stderr)
        return 2
    arch = sys.argv[1]
    func = '?'
    bad = 0
    with open(sys.argv[2]) as f:
        lines = f.read().splitlines()
    # Branch targets: constraints do not survive a merge of paths.
    targets = set()
    for line in lines:
        t = re.match(r'^\s+[0-9a-f]+:\s+(?:b(?:\.\w+)?|bl|cbn?z|tbn?z)\s+(?:[^,]*,\s*)*([0-9a-f]+)\s+<', line)
        if t:
            targets.add(int(t.group(1), 16))
    st = A64State()
    if True:
        for line in lines:
            line = line.rstrip('\n')
            head = re.match(r'^[0-9a-f]+ <(.+)>:$', line)
            if head:
                func = head.group(1)
                st.reset()
                continue
            ins = re.match(r'^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$', line)
            if not ins:
                continue
            if int(ins.group(1), 16) in targets:
                st.reset()
            mnem, ops = ins.group(2), ins.group(3)
            if arch == 'x86_64':
                problems = ['fp'] if X86_FP.search(ops) or mnem.startswith(('fxsave', 'fxrstor', 'xsave', 'xrstor', 'emms')) else []
            else:
                problems = check_a64(mnem, ops, st)
            for p in problems:
                print('%s: %s: %s %s' % (p, func, mnem, ops))
                bad += 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
