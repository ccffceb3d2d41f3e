#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""images.py OUT LABEL=TREE ... -- build the images make size measures.

For each TREE (a checkout: README.md, core/, crash/ or port/common/,
examples/), each arch (aarch64, x86_64), compiler (gcc, clang), level
(-Os, -O2) and image, it writes the sources, compiles them with a kernel's
freestanding flags, links them with ld --gc-sections and test/size/image.ld,
and keeps OUT/LABEL/<arch>-<cc><level>/<image>/ (image.elf, the sources,
result.json: the sizes of .text .rodata .data .bss, what was substituted,
where the state lies).  The images:

  core      the core alone, default knobs: test/size/core_tu.c linked from
            sfu_section_split and sfu_backtrace (ld -e, -u)
  step1     the README's "Step 1" block as written, one file, -I as the
            README's step 1 says, with test/size/stub.c (the entry calls
            backtrace_here(); board_putc; not counted: image.ld puts it in
            .stub)
  steps123  steps 1-3 as the README writes them, in two files as a kernel
            would hold them:
              the step-1 file: the step-1 block, with what the README's
              prose says to change (step 3: "Include X instead of Y", the
              description `{ ..._FIELDS(...), .threads = ... }`), the kernel
              declarations inserted after its #include (kernel_stub.h and
              the extern declarations of the other file's objects, as a
              kernel's header gives them), and one function size_steps()
              making the calls the prose names (step 2's sfu_dump_trap,
              step 3's thread dump);
              the blocks file: the step-2 block and step 3's switch-layout
              and thread-table blocks, after the sfu header and
              kernel_stub.h;
            the stub's entry calls backtrace_here() and size_steps().

Substitutions, all listed in each result.json and in make size's legend:
  - x86_64: the README's step-2 block is aarch64's (SFU_AARCH64_PT_REGS);
    its macro call becomes the x86_64 form the prose names,
    SFU_X86_64_PT_REGS(start, end, struct regs), with the block's start and
    end; the README's switch layout is x86_64's, and for aarch64 it is the
    line of examples/aarch64-virt/thread.c (the README names no aarch64
    switch layout).
  - an older README (before crash/): its step-1 block names step 2's
    ex_trap_layouts (the stub defines it, zeroed, not counted: the image
    links the trap code as that README's step 1 did); its thread table is
    static, so it goes into the step-1 file beside the call; its prose names
    no sfu_dump_trap, which is called all the same, so that both revisions'
    steps123 make the same calls.
A README whose text no longer has a block or a form this script reads
stops it with the reason (exit 1); so does any build or link that fails,
and any allocated section of an image that is not .stub .text .rodata
.data .bss.
"""
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ARCHES = ("aarch64", "x86_64")
COMPILERS = ("gcc", "clang")
LEVELS = ("-Os", "-O2")
IMAGES = ("core", "step1", "steps123")
COUNTED = (".text", ".rodata", ".data", ".bss")
MACRO = {"aarch64": "AARCH64", "x86_64": "X86_64"}
BOARD = {"aarch64": "aarch64-virt", "x86_64": "x86_64-pc"}
# A kernel's flags (Linux, the hobby kernels): freestanding, no builtins,
# no stack protector, no PIC, every function and object in its own section
# for --gc-sections.  x86_64 kernels keep no red zone; aarch64 needs no
# -mgeneral-regs-only (the crash path sets its own target options).
CFLAGS = ["-std=gnu11", "-ffreestanding", "-fno-builtin", "-fno-stack-protector", "-fno-pic", "-fno-pie",
          "-ffunction-sections", "-fdata-sections", "-Wall"]
ARCH_FLAGS = {"aarch64": [], "x86_64": ["-mno-red-zone"]}
CC = {("aarch64", "gcc"): ["aarch64-linux-gnu-gcc"], ("x86_64", "gcc"): ["gcc"],
      ("aarch64", "clang"): ["clang", "--target=aarch64-none-elf"],
      ("x86_64", "clang"): ["clang", "--target=x86_64-none-elf"]}
LD = {"aarch64": "aarch64-linux-gnu-ld", "x86_64": "ld"}
NM = {"aarch64": "aarch64-linux-gnu-nm", "x86_64": "nm"}
# What the step-1 file may name that the blocks file defines, and how a
# kernel's header declares it.
EXTERNS = {
    "ex_trap_layouts": "extern const struct sfu_trap_layout ex_trap_layouts[];",
    "ex_switch_layout": "extern const struct sfu_switch_layout ex_switch_layout;",
    "ex_thread_table": "extern const struct sfu_dump_table ex_thread_table;",
}


class Refused(Exception):
    """The README (or a build) is not what this script can measure."""


def norm(s):
    return " ".join(s.split())


def snippets(prose):
    """The `code` spans of a prose text, whitespace made single."""
    return [norm(s) for s in re.findall(r"`([^`]+)`", prose)]


def call_span(text, at):
    """The end of the call whose name starts at `at` (balanced parentheses)."""
    i = text.index("(", at)
    depth = 0
    for j in range(i, len(text)):
        depth += {"(": 1, ")": -1}.get(text[j], 0)
        if depth == 0:
            return j + 1
    raise Refused("unbalanced parentheses in: " + text[at:at + 80])


def top_args(call):
    """The top-level arguments of NAME(a, b(c, d), e)."""
    inner = call[call.index("(") + 1:-1]
    args, depth, cur = [], 0, ""
    for ch in inner:
        if ch == "," and depth == 0:
            args.append(cur.strip())
            cur = ""
            continue
        depth += {"(": 1, ")": -1}.get(ch, 0)
        cur += ch
    args.append(cur.strip())
    return args


class Readme:
    """The steps of a README.md's "sfu in your kernel", as its text has them."""

    def __init__(self, tree):
        self.tree = tree
        path = os.path.join(tree, "README.md")
        try:
            text = open(path).read()
        except OSError as e:
            raise Refused(f"{path}: {e}")
        parts = re.split(r"^(### .*)$", text, flags=re.M)
        self.steps = {}
        for i in range(1, len(parts), 2):
            m = re.match(r"### Step (\d)\b", parts[i])
            if m:
                self.steps[int(m.group(1))] = parts[i + 1]
        for n in (1, 2, 3):
            if n not in self.steps:
                raise Refused(f"{path}: no \"### Step {n}\" section")
        self.path = path
        self._step1()
        self._step2()
        self._step3()

    def blocks(self, n, must, what):
        found = [b for b in re.findall(r"```c\n(.*?)\n```", self.steps[n], re.S) if must in b]
        if len(found) != 1:
            raise Refused(f"{self.path}, Step {n}: {len(found)} C blocks with {must!r} ({what}); one expected")
        return found[0]

    def prose(self, n):
        return norm(re.sub(r"```.*?```", " ", self.steps[n], flags=re.S))

    def _step1(self):
        b = self.blocks(1, "sfu_dump_stack(&dump)", "the panic backtrace")
        incs = re.findall(r'^#include "([^"]+)"', b, re.M)
        if len(incs) != 1:
            raise Refused(f"{self.path}, Step 1: the block has {len(incs)} #include lines; one expected")
        self.header = incs[0]
        m = re.search(r"built with `((?:-I\s*<sfu>/\S+\s*)+)`", self.prose(1))
        if not m:
            raise Refused(f"{self.path}, Step 1: no \"built with `-I <sfu>/...`\" in its text")
        self.incdirs = re.findall(r"-I\s*<sfu>/(\S+)", m.group(1))
        m = re.search(r"^static\s+(?:const\s+)?struct\s+sfu_dump\s+dump\s*=\s*(\{\s*)?(SFU_DUMP_\w+)\(", b, re.M)
        if not m:
            raise Refused(f"{self.path}, Step 1: no `static ... struct sfu_dump dump = SFU_DUMP_...(...)` "
                          "or `= { SFU_DUMP_..._FIELDS(...), ... }` in the block")
        if m.group(1):
            # A brace initializer: the description is all of it.
            depth, i = 0, m.start(1)
            for i in range(m.start(1), len(b)):
                depth += {"{": 1, "}": -1}.get(b[i], 0)
                if depth == 0:
                    break
            self.desc = b[m.start(1):i + 1]
        else:
            self.desc = b[m.start(2):call_span(b, m.start(2))]
        # The object the dumps write (zeroed state, or an older README's
        # whole description): the block's one static object that is not const.
        st = [s for q, s in re.findall(r"^static\s+(const\s+)?struct\s+\w+\s+(\w+)", b, re.M) if not q]
        if len(st) != 1:
            raise Refused(f"{self.path}, Step 1: {len(st)} writable static objects in the block; one expected")
        self.state = st[0]
        self.step1 = b

    def _step2(self):
        b = self.blocks(2, "struct sfu_trap_layout", "the trap layouts")
        m = re.search(r"SFU_(AARCH64|X86_64)_PT_REGS\(", b)
        if not m:
            raise Refused(f"{self.path}, Step 2: its block has no SFU_<ARCH>_PT_REGS(...) line")
        self.trap_arch = {"AARCH64": "aarch64", "X86_64": "x86_64"}[m.group(1)]
        self.trap_call = (m.start(), call_span(b, m.start()))
        self.step2 = b
        self.pt_regs = {}
        for s in snippets(self.prose(2)):
            m = re.fullmatch(r"SFU_(AARCH64|X86_64)_PT_REGS\(start, end, (.+)\)", s)
            if m:
                self.pt_regs[m.group(1)] = m.group(2)
        dt = [s for s in snippets(self.prose(2)) if re.fullmatch(r"sfu_dump_trap\(&dump, .*\)", s)]
        self.trap_dump = dt[0] if dt else None

    def _step3(self):
        self.switch = self.blocks(3, "sfu_switch_layout", "the switch layout")
        m = re.search(r"SFU_(AARCH64|X86_64)_SWITCH_PUSHED\(", self.switch)
        if not m:
            raise Refused(f"{self.path}, Step 3: its switch-layout block has no SFU_<ARCH>_SWITCH_PUSHED(...)")
        self.switch_arch = {"AARCH64": "aarch64", "X86_64": "x86_64"}[m.group(1)]
        self.table = self.blocks(3, "struct sfu_dump_table", "the thread table")
        self.table_static = bool(re.search(r"^static\s", self.table, re.M))
        p = self.prose(3)
        m = re.search(r"Include `([\w./]+)` instead of `([\w./]+)`", p)
        self.include_change = (m.group(2), m.group(1)) if m else None
        d = [s for s in snippets(p) if re.fullmatch(r"\{ ?SFU_DUMP_\w+_FIELDS\(.*\}", s)]
        self.desc3 = d[0] if d else None
        c = [s for s in snippets(p) if re.fullmatch(r"sfu_dump_thread\w*\(&dump\b.*\)", s)]
        if len(c) != 1:
            raise Refused(f"{self.path}, Step 3: {len(c)} `sfu_dump_thread...(&dump...)` calls in its text; one expected")
        self.threads_call = c[0]
        if self.desc3 is None and "ex_thread_table" not in self.threads_call:
            raise Refused(f"{self.path}, Step 3: its text gives the table neither to the description "
                          "(`{ SFU_DUMP_..._FIELDS(...), .threads = ... }`) nor to the call")

    # ---- the sources ------------------------------------------------------

    def step1_sources(self):
        """{file: text}, stub defines, notes: the step-1 image."""
        notes, defs = ["the README's block as written"], []
        if re.search(r"\bex_trap_layouts\b", self.step1):
            defs.append("-DSIZE_TRAPS=1")
            notes.append("the block names step 2's ex_trap_layouts: the stub defines it (zeroed, not counted), "
                         "and the image links the trap code as that step 1 did")
        return {"step1.c": self.step1 + "\n"}, defs, notes

    def trap_block(self, arch):
        b = self.step2
        if arch == self.trap_arch:
            return b, []
        form = self.pt_regs.get(MACRO[arch])
        if form is None:
            raise Refused(f"{self.path}, Step 2: its block is {self.trap_arch}'s and its text names no "
                          f"`SFU_{MACRO[arch]}_PT_REGS(start, end, ...)` for {arch}")
        a, e = self.trap_call
        args = top_args(b[a:e])
        new = f"SFU_{MACRO[arch]}_PT_REGS({args[0]}, {args[1]}, {form})"
        return b[:a] + new + b[e:], [f"step 2 ({arch}): the block's {b[a:b.index('(', a)]}(...) is the text's "
                                     f"SFU_{MACRO[arch]}_PT_REGS(start, end, {form}): {new}"]

    def switch_block(self, arch):
        if arch == self.switch_arch:
            return self.switch, []
        path = os.path.join(self.tree, "examples", BOARD[arch], "thread.c")
        try:
            text = open(path).read()
        except OSError as e:
            raise Refused(f"{path}: {e}")
        m = re.search(r"const struct sfu_switch_layout ex_switch_layout\s*=\s*SFU_%s_SWITCH_PUSHED\([^;]*\);"
                      % MACRO[arch], text)
        if not m:
            raise Refused(f"{path}: no `const struct sfu_switch_layout ex_switch_layout = "
                          f"SFU_{MACRO[arch]}_SWITCH_PUSHED(...);` (the README's is {self.switch_arch}'s)")
        rel = os.path.relpath(path, self.tree)
        return m.group(0), [f"step 3 ({arch}): the README's switch layout is {self.switch_arch}'s; "
                            f"{arch}'s is {rel}'s: {norm(m.group(0))}"]

    def steps_sources(self, arch):
        """{file: text}, stub defines, notes: the steps123 image."""
        notes = []
        s1 = self.step1
        header = self.header
        if self.include_change:
            old, new = self.include_change
            if old != header:
                raise Refused(f"{self.path}, Step 3: says include {new} instead of {old}, but step 1 includes {header}")
            s1 = re.sub(r'^#include "%s"' % re.escape(old), f'#include "{new}"', s1, count=1, flags=re.M)
            header = new
            notes.append(f"the step-1 block's #include \"{old}\" is \"{new}\" (step 3's text: include {new} "
                         f"instead of {old})")
        if self.desc3:
            s1 = s1.replace(self.desc, self.desc3, 1)
            notes.append(f"the step-1 block's {self.desc} is step 3's {self.desc3}")
        elif "ex_trap_layouts" not in self.desc:
            raise Refused(f"{self.path}: no step gives the description its trap layouts")
        trap, n = self.trap_block(arch)
        notes += n
        switch, n = self.switch_block(arch)
        notes += n
        blocks = [trap, switch]
        tail = []
        if self.table_static:
            tail.append(self.table)
            notes.append("step 3's thread table is static: it goes into the step-1 file, beside the call")
        else:
            blocks.append(self.table)
        calls = []
        if self.trap_dump:
            calls.append(self.trap_dump)
        else:
            calls.append("sfu_dump_trap(&dump, NULL, frame)")
            notes.append("step 2's text names no sfu_dump_trap; called all the same (sfu_dump_trap(&dump, NULL, "
                         "frame)), so that both revisions make the same calls")
        calls.append(self.threads_call)
        tail.append("/* make size: the calls steps 2 and 3 add (the README's text) */\n"
                    "void size_steps(uint64_t frame);\nvoid size_steps(uint64_t frame)\n{\n" +
                    "".join(f"    (void){c};\n" for c in calls) + "}\n")
        body = s1 + "\n" + "\n".join(tail)
        ext = [d for name, d in EXTERNS.items() if re.search(r"\b%s\b" % name, body)
               and not re.search(r"struct\s+\w+\s+(?:const\s+)?%s\b\s*(\[\s*\])?\s*[=;]" % name, body)]
        decl = ('#include "kernel_stub.h" /* make size: the kernel\'s declarations */\n' + "".join(e + "\n" for e in ext))
        m = re.search(r'^#include "[^"]+".*\n', body, re.M)
        body = body[:m.end()] + decl + body[m.end():]
        notes.append("the step-1 file: after its #include, kernel_stub.h" +
                     (" and " + ", ".join(re.search(r"(\w+)(\[\])?;$", e).group(1) for e in ext) +
                      " declared extern" if ext else "") + " (a kernel's header); size_steps() makes the calls: " +
                     "; ".join(calls))
        other = f'#include "{header}"\n#include "kernel_stub.h"\n\n' + "\n\n".join(blocks) + "\n"
        return {"step1.c": body, "blocks.c": other}, ["-DSIZE_STEPS=1"], notes


def run(cmd, log):
    r = subprocess.run(cmd, capture_output=True, text=True)
    with open(log, "a") as f:
        f.write("$ " + " ".join(cmd) + "\n" + r.stdout + r.stderr)
    if r.returncode != 0:
        raise Refused(" ".join(cmd) + " failed:\n" + "\n".join((r.stdout + r.stderr).strip().split("\n")[:12]))
    return r.stdout


def alloc_sections(elf):
    """{name: size} of the ELF file's allocated sections."""
    out = subprocess.run(["readelf", "-SW", elf], check=True, capture_output=True, text=True).stdout
    secs = {}
    for m in re.finditer(r"\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+[0-9a-f]+\s+(\S*)", out):
        if "A" in m.group(3):
            secs[m.group(1)] = secs.get(m.group(1), 0) + int(m.group(2), 16)
    return secs


def build(job):
    label, tree, arch, cc, level, image, d, sources, defs, notes, incdirs, state = job
    os.makedirs(d, exist_ok=True)
    log = os.path.join(d, "build.log")
    open(log, "w").close()
    flags = CC[(arch, cc)] + CFLAGS + ARCH_FLAGS[arch] + [level]
    objs = []
    for name, text in sources.items():
        src = os.path.join(d, name)
        open(src, "w").write(text)
        obj = os.path.join(d, name[:-2] + ".o")
        run(flags + ["-I" + HERE] + ["-I" + os.path.join(tree, i) for i in incdirs] + ["-c", src, "-o", obj], log)
        objs.append(obj)
    elf = os.path.join(d, "image.elf")
    ld = [LD[arch], "--gc-sections", "--no-warn-rwx-segments", "-T", os.path.join(HERE, "image.ld"), "-o", elf]
    if image == "core":
        ld += ["-e", "sfu_backtrace", "-u", "sfu_section_split"]
    else:
        stub = os.path.join(d, "stub.o")
        run(flags + defs + ["-I" + HERE, "-c", os.path.join(HERE, "stub.c"), "-o", stub], log)
        objs.insert(0, stub)
    run(ld + objs, log)
    secs = alloc_sections(elf)
    other = {k: v for k, v in secs.items() if v and k not in COUNTED + (".stub",)}
    if other:
        raise Refused(f"{elf}: allocated sections neither counted nor the stub's: {other} (test/size/image.ld)")
    where = None
    if state:
        for line in run([NM[arch], elf], log).split("\n"):
            f = line.split()
            if len(f) == 3 and f[2] == state:
                where = {"b": ".bss", "d": ".data", "r": ".rodata"}.get(f[1].lower(), f[1])
        if where is None:
            raise Refused(f"{elf}: no symbol {state} (the step-1 block's state)")
    res = {"label": label, "arch": arch, "cc": cc, "level": level, "image": image,
           "sections": {k: secs.get(k, 0) for k in COUNTED}, "stub": secs.get(".stub", 0),
           "notes": notes, "state": state, "state_in": where}
    json.dump(res, open(os.path.join(d, "result.json"), "w"), indent=1)
    return res


def jobs_for(out, label, tree):
    readme = Readme(tree)
    jobs = []
    for arch in ARCHES:
        for cc in COMPILERS:
            for level in LEVELS:
                for image in IMAGES:
                    d = os.path.join(out, label, f"{arch}-{cc}{level}", image)
                    if image == "core":
                        src = {"core.c": open(os.path.join(HERE, "core_tu.c")).read()}
                        job = (src, [], ["the core alone: sfu_section_split + sfu_backtrace, default knobs"], ["core"], None)
                    elif image == "step1":
                        src, defs, notes = readme.step1_sources()
                        job = (src, defs, notes, readme.incdirs, readme.state)
                    else:
                        src, defs, notes = readme.steps_sources(arch)
                        job = (src, defs, notes, readme.incdirs, readme.state)
                    jobs.append((label, tree, arch, cc, level, image, d) + job)
    return jobs


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: images.py OUT LABEL=TREE ...")
    out = sys.argv[1]
    try:
        jobs = []
        for a in sys.argv[2:]:
            label, tree = a.split("=", 1)
            shutil.rmtree(os.path.join(out, label), ignore_errors=True)
            jobs += jobs_for(out, label, os.path.abspath(tree))
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            results = list(pool.map(build, jobs))
    except Refused as e:
        sys.exit(f"size: {e}")
    json.dump(results, open(os.path.join(out, "images.json"), "w"), indent=1)
    print(f"images.py: {len(results)} images in {out}")


if __name__ == "__main__":
    main()
