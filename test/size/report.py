#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""report.py DIR -- print make size's tables from DIR (build/size; see
test/size/run.sh), and write DIR/readme.md, the README's block.

Paragraphs, in order: the three images a kernel links (images.py) with the
substitutions made to the README's text; the core's configurations and
libgcc's unwinder; the worst-case stacks (the walk's, and the dump path's
from DIR/dump.txt); the targets, met or missed; where step 1's .text and
.rodata go; one line per figure ("size: ...", "stack: ...").
"""
import json
import os
import re
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from images import ARCHES, COUNTED, IMAGES, LEVELS, NM  # noqa: E402

# The targets of the size work, in bytes (gcc 12, both arches).
TARGETS = {"step1 .text -Os": 8192, "step1 .text -O2": 10240, "step1 .rodata": 2048, "step1 .data": 256,
           "steps123 .text -O2": 14336}
# The dump path's worst-case stack before crash/ (the description and its
# state in one struct; gcc -Os): the new one may be no deeper.  Its
# dump_tu.c is written for today's API, so it cannot be measured again at
# that revision; the walk's stack is (the baseline core, in this run).
DUMP_STACK_BEFORE = {"aarch64": 512, "x86_64": 504}
IMAGE_TEXT = {"core": "the core alone", "step1": "step 1", "steps123": "steps 1-3"}
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def sections(path):
    """(.text bytes, .rodata bytes) of an ELF file, all .text*/.rodata* summed."""
    out = subprocess.run(["readelf", "-SW", path], check=True, capture_output=True, text=True).stdout
    text = rodata = 0
    for m in re.finditer(r"\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)", out):
        name, size = m.group(1), int(m.group(2), 16)
        if name == ".text" or name.startswith(".text."):
            text += size
        elif name == ".rodata" or name.startswith(".rodata."):
            rodata += size
    return text, rodata


def callgraph(ci_path):
    """gcc -fcallgraph-info=su: {node: bytes}, {node: [callees]}, dynamic nodes."""
    nodes, edges, dyn = {}, {}, set()
    for line in open(ci_path):
        m = re.match(r'node: \{ title: "([^"]+)" label: "([^"]*)"', line)
        if m:
            title, label = m.groups()
            sm = re.search(r"(\d+) bytes \((\w+)", label)
            nodes[title] = int(sm.group(1)) if sm else 0
            if sm and sm.group(2) != "static":
                dyn.add(title)
            continue
        m = re.match(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"', line)
        if m:
            edges.setdefault(m.group(1), set()).add(m.group(2))
    return nodes, edges, dyn


def deepest(nodes, edges, root):
    """Deepest path (sum of frames) from root; raises on recursion."""
    memo = {}

    def go(n, stack):
        if n in stack:
            raise ValueError("recursion: " + " -> ".join(stack + [n]))
        if n in memo:
            return memo[n]
        best = (0, [])
        for c in sorted(edges.get(n, ())):
            if c == "__indirect_call":
                continue
            v = go(c, stack + [n])
            if v[0] > best[0]:
                best = v
        r = (nodes.get(n, 0) + best[0], [n] + best[1])
        memo[n] = r
        return r

    return go(root, [])


def short(n):
    return n.split(":", 1)[1] if ":" in n else n


def stack_of(d):
    """(bytes, path, dynamic nodes, bytes at a port callback) of sfu_backtrace in d, or None."""
    ci = os.path.join(d, "core.ci")
    if not os.path.exists(ci):
        return None
    nodes, edges, dyn = callgraph(ci)
    total, path = deepest(nodes, edges, "sfu_backtrace")
    # Deepest stack at the moment the core calls a port callback.
    callers = [n for n in nodes if "__indirect_call" in edges.get(n, ())]
    sub = {k: {c for c in v if c != "__indirect_call"} for k, v in edges.items()}
    at_port = 0
    for n in callers:
        def to(n2, seen=()):
            if n2 == "sfu_backtrace":
                return nodes.get(n2, 0)
            best = None
            for p_, cs in sub.items():
                if n2 in cs and p_ not in seen:
                    v = to(p_, seen + (n2,))
                    if v is not None and (best is None or v > best):
                        best = v
            return None if best is None else best + nodes.get(n2, 0)
        v = to(n)
        if v is not None:
            at_port = max(at_port, v)
    return total, [(n, nodes.get(n, 0)) for n in path], dyn, at_port



def load_images(b):
    path = os.path.join(b, "img", "images.json")
    if not os.path.exists(path):
        sys.exit(f"report.py: no {path} (test/size/images.py)")
    return {(r["label"], r["arch"], r["cc"], r["level"], r["image"]): r for r in json.load(open(path))}


def cell(img, key, col):
    r = img.get(key)
    return "-" if r is None else r["sections"][col]


def print_images(img, base):
    labels = ["new"] + ([base] if base else [])
    notes = {}
    for (label, arch, cc, level, image), r in img.items():
        for n in r["notes"]:
            lst = notes.setdefault((label, image), [])
            if n not in lst:
                lst.append(n)
    print("what a kernel links: three images, each linked alone by ld --gc-sections (test/size/image.ld) from")
    print("objects built with -std=gnu11 -ffreestanding -fno-builtin -fno-stack-protector -fno-pic -fno-pie")
    print("-ffunction-sections -fdata-sections (+ -mno-red-zone on x86_64; nothing else on aarch64: the crash")
    print("path sets its own target options).  Bytes.  gcc 12 gives the published figures, clang 14 follows.")
    print("  core      the core alone, default knobs: the closure of sfu_section_split + sfu_backtrace")
    print("  step1     the README's \"Step 1\" block as written, -I as its text says")
    print("  steps123  steps 1-3 as the README writes them (what its text changes: below)")
    stub = {}
    for (label, arch, cc, level, image), r in img.items():
        if image != "core":
            lo, hi = stub.get((label, image), (r["stub"], r["stub"]))
            stub[(label, image)] = (min(lo, r["stub"]), max(hi, r["stub"]))
    print("The startup stub (test/size/stub.c: _start calling backtrace_here() and the steps' calls, board_putc,")
    print("the kernel's thread array and, for an older step 1, the ex_trap_layouts it names) lies in .stub and is")
    print("not counted: " + ", ".join(f"{image}{'' if label == 'new' else '@' + label} {lo}-{hi}"
                                      for (label, image), (lo, hi) in sorted(stub.items(), key=lambda x: x[0][0] != "new"))
          + " bytes.")
    if base:
        print(f"@{base}: the same images from the tree of {base}: its README's text, its core, its crash path.")
    print()
    hdr = (f"{'image':<9} {'arch':<8} {'opt':<4} {'cc':<6}" + "".join(f" {c:>7}" for c in COUNTED) +
           ("   " + f"{'@' + base:<9}" + "".join(f" {c:>7}" for c in COUNTED) if base else ""))
    print(hdr)
    print("-" * len(hdr))
    for cc in ("gcc", "clang"):
        for image in IMAGES:
            for arch in ARCHES:
                for level in LEVELS:
                    if ("new", arch, cc, level, image) not in img:
                        continue
                    line = f"{image:<9} {arch:<8} {level:<4} {cc:<6}"
                    line += "".join(f" {cell(img, ('new', arch, cc, level, image), c):>7}" for c in COUNTED)
                    if base:
                        line += "   " + " " * 9 + "".join(f" {cell(img, (base, arch, cc, level, image), c):>7}"
                                                       for c in COUNTED)
                    print(line)
    print()
    print("what the images are made of, beside the README's blocks (test/size/images.py):")
    for label in labels:
        for image in ("step1", "steps123"):
            for n in notes.get((label, image), []):
                print(f"  {image}{'' if label == 'new' else '@' + label}: {n}")
    print()


def print_configs(b, base):
    whos = ["new"] + (["base"] if base else [])
    label = {"new": "new", "base": f"@{base}"}
    print("the core's configurations, bare metal: -Os -ffreestanding -nostdlib -fno-pic (+ -mgeneral-regs-only")
    print("on aarch64, -mno-red-zone on x86_64); gcc 12, clang 14.  Bytes.  'all': the object with every public")
    print("function; 'backtrace': after ld --gc-sections from sfu_section_init + sfu_backtrace.  full = V1+V2+V3,")
    print("both byte orders, every ABI; smallest = V3 little-endian, the target's own ABI (no FLEX on aarch64);")
    print("indexed = full with SFU_INDEX and SFU_CACHE.  new = core/; " +
          (f"@{base} = the core of {base}." if base else "no baseline."))
    print()
    hdr = f"{'core':<9} {'arch':<8} {'cc':<6} {'config':<9} {'all .text':>9} {'.rodata':>7} {'backtrace .text':>15} {'.rodata':>7}"
    print(hdr)
    print("-" * len(hdr))
    sizes = {}
    for who in whos:
        for arch in ARCHES:
            for cc in ("gcc", "clang"):
                for cfg in ("full", "smallest", "indexed"):
                    d = os.path.join(b, who, f"{arch}-{cc}-{cfg}")
                    if not os.path.isdir(d):
                        continue
                    t, r = sections(os.path.join(d, "core.o"))
                    bt, br = sections(os.path.join(d, "backtrace.elf"))
                    sizes[(who, arch, cc, cfg)] = (t, bt)
                    print(f"{label[who]:<9} {arch:<8} {cc:<6} {cfg:<9} {t:>9} {r:>7} {bt:>15} {br:>7}")
    print()
    print("libgcc's DWARF unwinder from the installed gcc 12 libgcc_eh.a (-O2, PIC; needs .eh_frame data too):")
    for arch in ARCHES:
        d = os.path.join(b, f"libgcc-{arch}")
        if not os.path.isdir(d):
            continue
        tot_t = tot_r = 0
        parts = []
        for o in ("unwind-dw2.o", "unwind-dw2-fde-dip.o"):
            t, r = sections(os.path.join(d, o))
            tot_t += t
            tot_r += r
            parts.append(f"{o} {t}/{r}")
        print(f"{arch:<8} libgcc {tot_t:>9} {tot_r:>7}   ({', '.join(parts)}  .text/.rodata)")
    print()
    return sizes


def print_stacks(b, base):
    whos = ["new"] + (["base"] if base else [])
    label = {"new": "new", "base": f"@{base}"}
    print("worst-case stack of one sfu_backtrace call (gcc -fstack-usage frames summed along the deepest")
    print("path of -fcallgraph-info=su; x86_64 frames include the return address).  The port's callbacks")
    print("(read, strip_ra, trap) are called through pointers: their own stack comes on top.")
    hdr = f"{'core':<9} {'arch':<8} {'config':<9} {'bytes':>6}  deepest path (bytes per frame)"
    print(hdr)
    print("-" * len(hdr))
    stacks = {}
    for who in whos:
        for arch in ARCHES:
            for cfg in ("full", "smallest", "indexed"):
                st = stack_of(os.path.join(b, who, f"{arch}-gcc-{cfg}"))
                if st is None:
                    continue
                total, path, dyn, at_port = st
                if cfg != "indexed":
                    stacks[(who, arch)] = max(stacks.get((who, arch), 0), total)
                note = "" if not dyn else "  (dynamic, bounded: " + ", ".join(sorted(short(x) for x in dyn)) + ")"
                print(f"{label[who]:<9} {arch:<8} {cfg:<9} {total:>6}  " +
                      " > ".join(f"{short(n)} {by}" for n, by in path) + note)
                if at_port:
                    print(f"{'':<9} {'':<8} {'':<9} {at_port:>6}  (at a port callback, + the callback's own frame)")
    print()
    dump = {}
    path = os.path.join(b, "dump.txt")
    if os.path.exists(path):
        text = open(path).read()
        print("worst-case stack of the dump path (crash/sfu_dump.h + sfu_threads.h + core + port; gcc -Os; the")
        print("user's hooks excluded; test/size/dump_stack.py), per entry:")
        for line in text.strip().split("\n"):
            m = re.match(r"stack: dump (\S+) (\d+)$", line)
            if m:
                dump[m.group(1)] = int(m.group(2))
            elif not line.startswith("stack: "):
                print(line)
        print()
    return stacks, dump


def print_targets(img, base, stacks, dump):
    def fig(label, image, level, col):
        return lambda arch: (img[(label, arch, "gcc", level, image)]["sections"][col]
                             if (label, arch, "gcc", level, image) in img else None)

    none = lambda arch: None  # noqa: E731
    # (what, the limit per arch, the figure, the baseline's figure)
    rows = [(f"step1 .text at {lv} <= {TARGETS['step1 .text ' + lv]}", lambda a, lv=lv: TARGETS["step1 .text " + lv],
             fig("new", "step1", lv, ".text"), fig(base, "step1", lv, ".text")) for lv in LEVELS]
    rows += [(f"step1 {c} at {lv} <= {TARGETS['step1 ' + c]}", lambda a, c=c: TARGETS["step1 " + c],
              fig("new", "step1", lv, c), fig(base, "step1", lv, c)) for c in (".rodata", ".data") for lv in LEVELS]
    rows.append((f"steps123 .text at -O2 <= {TARGETS['steps123 .text -O2']}", lambda a: TARGETS["steps123 .text -O2"],
                 fig("new", "steps123", "-O2", ".text"), fig(base, "steps123", "-O2", ".text")))
    rows.append(("walk stack (-Os) <= @", lambda a: stacks.get(("base", a)), lambda a: stacks.get(("new", a)),
                 lambda a: stacks.get(("base", a))))
    rows.append(("dump stack (-Os) <= before", lambda a: DUMP_STACK_BEFORE[a], lambda a: dump.get(a), none))
    print(f"targets (gcc 12; each figure met or MISSED, by how much; @{base or '-'} beside; the dump stack's")
    print(f"limit is its figure before crash/: {', '.join(f'{a} {v}' for a, v in DUMP_STACK_BEFORE.items())}):")
    for what, limit, new, was in rows:
        parts = []
        for arch in ARCHES:
            v, lim, w = new(arch), limit(arch), was(arch)
            verdict = "-" if v is None or lim is None else ("met" if v <= lim else f"MISSED (+{v - lim})")
            parts.append(f"{arch} {'-' if v is None else v} {verdict}" + ("" if w is None else f" (@ {w})"))
        print(f"  {what:<30} " + ";  ".join(parts))
    for level in LEVELS:
        parts = []
        for arch in ARCHES:
            r, w = img.get(("new", arch, "gcc", level, "step1")), img.get((base, arch, "gcc", level, "step1"))
            parts.append(f"{arch} -" if r is None else f"{arch} {r['state']} in {r['state_in']} " +
                         ("met" if r["state_in"] == ".bss" else "MISSED") +
                         ("" if w is None else f" (@ {w['state']} in {w['state_in']})"))
        print(f"  {'step1 state in .bss at ' + level:<30} " + ";  ".join(parts))
    print()


def definitions(tree):
    """{function name: group} from the headers that define them: core/
    (core), crash/sfu_dump.h and sfu_threads.h (dump), crash/sfu_layout.h
    (layout), port/<arch>/ (port)."""
    groups = {}
    for sub, group in (("core", "core"), ("crash/sfu_dump.h", "dump"), ("crash/sfu_threads.h", "dump"),
                       ("crash/sfu_layout.h", "layout"), ("port/aarch64", "port"), ("port/x86_64", "port")):
        p = os.path.join(tree, sub)
        if os.path.isdir(p):
            files = [os.path.join(p, f) for f in sorted(os.listdir(p)) if f.endswith(".h")]
        else:
            files = [p] if os.path.exists(p) else []
        for f in files:
            text = open(f).read()
            for m in re.finditer(r"^(?:[A-Za-z_]\w*[ \t*]+)+(sfu\w*)\s*\(", text, re.M):
                rest = text[m.end():]
                ends = [i for i in (rest.find(";"), rest.find("{")) if i >= 0]
                if ends and rest[min(ends)] == "{":
                    groups.setdefault(m.group(1), group)
    return groups


def group_of(name, defs):
    base = name.split(".", 1)[0]
    if base in defs:
        return defs[base]
    # Not found in a header (a name the compiler made): by its prefix.
    if base.startswith(("sfu__dump_", "sfu_dump_")):
        return "dump"
    if base.startswith(("sfu_port_", "sfu__port_")) or base in ("sfu_layout_check", "sfu_switch_check"):
        return "layout"
    return "core" if base.startswith("sfu") else "user"


def symbols(elf, arch, section):
    """[(size, name)] of the image's symbols inside its output section, one per address."""
    out = subprocess.run(["readelf", "-SW", elf], check=True, capture_output=True, text=True).stdout
    m = re.search(r"\]\s+%s\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)" % re.escape(section), out)
    if not m:
        return []
    lo, hi = int(m.group(1), 16), int(m.group(1), 16) + int(m.group(2), 16)
    out = subprocess.run([NM[arch], "-S", "--size-sort", elf], check=True, capture_output=True, text=True).stdout
    seen, syms = set(), []
    for line in out.split("\n"):
        f = line.split()
        if len(f) == 4 and lo <= int(f[0], 16) < hi and f[0] not in seen:
            seen.add(f[0])
            syms.append((int(f[1], 16), f[3]))
    return syms


def elf_sections(path):
    """{name: (flags, bytes)} of an ELF64 little-endian relocatable object."""
    data = open(path, "rb").read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    heads = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = heads[shstrndx]
    secs = {}
    for name, typ, flags, _, off, size, _, _, _, _ in heads:
        at = names[4] + name
        n = data[at:data.index(b"\0", at)].decode()
        secs[n] = (flags, b"" if typ == 8 else data[off:off + size])  # SHT_NOBITS
    return secs


def relocations(path):
    """{section: [(target, addend, type)]} from readelf -rW of an object."""
    out = subprocess.run(["readelf", "-rW", path], check=True, capture_output=True, text=True).stdout
    rel, cur = {}, None
    for line in out.split("\n"):
        m = re.match(r"Relocation section '\.rela(\S+)'", line)
        if m:
            cur = rel.setdefault(m.group(1), [])
            continue
        m = re.match(r"\s*[0-9a-f]+\s+[0-9a-f]+\s+(\S+)\s+[0-9a-f]+\s+(\S+)\s*([+-])\s*([0-9a-f]+)", line)
        if m and cur is not None:
            add = int(m.group(4), 16) * (-1 if m.group(3) == "-" else 1)
            cur.append((m.group(2), add, m.group(1)))
    return rel


def rodata_owners(objs, kept):
    """{function: bytes of .rodata it refers to} for the functions in kept
    (all in objs[0]): each constant by the first kept function whose
    relocations name it, each string of a merged string section once, and
    the strings a referred table points to with the table; the constants of
    the other objects (the README's other blocks) as theirs."""
    secs, rel = elf_sections(objs[0]), relocations(objs[0])
    SHF_STRINGS = 0x20
    owner, seen = {}, set()

    def take(fn, target, addend, typ):
        sec = target if target.startswith(".") else ".rodata." + target
        if sec not in secs or not sec.startswith((".rodata", ".data.rel.ro")):
            return
        flags, data = secs[sec]
        if flags & SHF_STRINGS:
            # x86_64's PC-relative references carry the -4 of the field's end.
            off = addend + (4 if typ in ("R_X86_64_PC32", "R_X86_64_PLT32") else 0)
            if (sec, off) in seen or not 0 <= off < len(data):
                return
            seen.add((sec, off))
            end = data.find(b"\0", off)
            owner[fn] = owner.get(fn, 0) + (end if end >= 0 else len(data)) - off + 1
        elif sec not in seen:
            seen.add(sec)
            owner[fn] = owner.get(fn, 0) + len(data)
            for t, a, ty in rel.get(sec, ()):
                take(fn, t, a, ty)

    for sec in sorted(rel):
        # .text.NAME, and the parts gcc moves out: .text.unlikely.NAME
        # (NAME.cold in the image), .text.hot.NAME, .text.startup.NAME.
        m = re.fullmatch(r"\.text\.(?:(?:unlikely|hot|startup)\.)?(.+)", sec)
        fn = m.group(1) if m else None
        if fn in kept or f"{fn}.cold" in kept:
            for t, a, ty in rel[sec]:
                take(fn, t, a, ty)
    for obj in objs[1:]:
        owner[f"({os.path.basename(obj)[:-2]}.c data)"] = sum(
            len(data) for n, (_, data) in elf_sections(obj).items() if n.startswith((".rodata", ".data.rel.ro")))
    return owner


def print_groups(indent, what, total, items, defs, rest):
    """One line of totals by group (items: [(bytes, name)]), then one per group."""
    by = {}
    for size, name in items:
        by.setdefault(group_of(name, defs), []).append((size, name))
    tot = {g: sum(s for s, _ in v) for g, v in by.items()}
    order = sorted(by, key=lambda g: (-tot[g], g))
    print(f"{indent}{what} {total} = " + " + ".join(f"{g} {tot[g]}" for g in order) +
          f" + {rest} {total - sum(tot.values())}")
    for g in order:
        print(f"{indent}  {g:<7}{tot[g]:>6}: " + ", ".join(f"{n} {s}" for s, n in sorted(by[g], key=lambda x: (-x[0], x[1]))))


def print_where(b, img):
    defs = definitions(ROOT)
    print("where step1's (and steps123's at -O2) .text and .rodata go (gcc 12): .text by the image's symbols")
    print("(nm -S --size-sort), .rodata by the function whose code refers to it (relocations of the object;")
    print("a table's strings with the table), grouped by the header that defines each function: core (core/),")
    print("dump (crash/sfu_dump.h, sfu_threads.h), layout (crash/sfu_layout.h: the checked reads, trap and")
    print("switch layouts), port (port/<arch>/), user (the README's own code and data); names no header")
    print("defines (the compiler's) by prefix, sfu_dump_*/sfu__dump_*: dump, sfu_port_*/sfu__port_*/")
    print("sfu_layout_check/sfu_switch_check: layout, other sfu*: core.")
    for image, levels in (("step1", LEVELS), ("steps123", ("-O2",))):
        for arch in ARCHES:
            for level in levels:
                r = img.get(("new", arch, "gcc", level, image))
                if r is None:
                    continue
                d = os.path.join(b, "img", "new", f"{arch}-gcc{level}", image)
                text = symbols(os.path.join(d, "image.elf"), arch, ".text")
                print(f"  {image} {arch} {level}:")
                print_groups("    ", ".text", r["sections"][".text"], text, defs, "alignment")
                objs = [os.path.join(d, "step1.o")] + ([os.path.join(d, "blocks.o")] if image == "steps123" else [])
                ro = rodata_owners(objs, set(n for _, n in text))
                print_groups("    ", ".rodata", r["sections"][".rodata"], [(s, n) for n, s in ro.items()], defs,
                             "merged strings, alignment")
    print()


def print_lines(img, sizes, stacks, dump, base):
    for label in ["new"] + ([base] if base else []):
        tag = "" if label == "new" else "@" + label
        for cc in ("gcc", "clang"):
            for image in IMAGES:
                for arch in ARCHES:
                    for level in LEVELS:
                        r = img.get((label, arch, cc, level, image))
                        if r is None:
                            continue
                        name = image + ("" if cc == "gcc" else "/" + cc) + tag
                        for c in COUNTED:
                            print(f"size: {name} {arch} {level} {c} {r['sections'][c]}")
    for who in ["new"] + (["base"] if base else []):
        tag = "" if who == "new" else "@" + base
        for arch in ARCHES:
            for cfg in ("full", "smallest", "indexed"):
                v = sizes.get((who, arch, "gcc", cfg))
                if v:
                    print(f"size: all-{cfg}{tag} {arch} -Os .text {v[0]}")
                    print(f"size: backtrace-{cfg}{tag} {arch} -Os .text {v[1]}")
    for who in ["new"] + (["base"] if base else []):
        tag = "" if who == "new" else "@" + base
        for arch in ARCHES:
            if (who, arch) in stacks:
                print(f"stack: {arch}{tag} {stacks[(who, arch)]}")
    for arch in ARCHES:
        if arch in dump:
            print(f"stack: dump {arch} {dump[arch]}")


def readme_block(img, base):
    """The README's block: the three images by gcc 12, beside the baseline."""
    out = ["What a kernel links for the steps above, as written: each linked alone into a minimal image by",
           "gcc 12 with `--gc-sections` and a kernel's flags (`-ffreestanding -fno-builtin -fno-pic",
           "-ffunction-sections -fdata-sections`; x86_64 `-mno-red-zone`), its startup code not counted.",
           "Bytes" + (f"; in brackets, the same steps as the README of {base} wrote them." if base else "."),
           "Beside them the core alone (`sfu_section_split` and `sfu_backtrace`).  clang 14, the core's",
           "configurations, the stack and the bytes of each function:",
           "[docs/measurements.md](docs/measurements.md).", "",
           "| what | arch | | .text | .rodata | .data | .bss |", "|---|---|---|---:|---:|---:|---:|"]
    for image in ("step1", "steps123", "core"):
        for arch in ARCHES:
            for level in LEVELS:
                r = img.get(("new", arch, "gcc", level, image))
                if r is None:
                    continue
                was = img.get((base, arch, "gcc", level, image)) if base else None
                cells = [f"{r['sections'][c]}" + (f" ({was['sections'][c]})" if was else "") for c in COUNTED]
                out.append(f"| {IMAGE_TEXT[image]} | {arch} | {level} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def main():
    b = sys.argv[1] if len(sys.argv) > 1 else "build/size"
    base = None
    if os.path.exists(os.path.join(b, "base-rev")):
        base = open(os.path.join(b, "base-rev")).read().strip()
    img = load_images(b)
    print_images(img, base)
    sizes = print_configs(b, base)
    stacks, dump = print_stacks(b, base)
    print_targets(img, base, stacks, dump)
    print_where(b, img)
    print_lines(img, sizes, stacks, dump, base)
    open(os.path.join(b, "readme.md"), "w").write(readme_block(img, base))


if __name__ == "__main__":
    main()
