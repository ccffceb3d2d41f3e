#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Print the size and stack table from build/size (see test/size/run.sh)."""
import os
import re
import subprocess
import sys

TEXT_SMALL = 2048  # aarch64 -Os smallest config
TEXT_FULL = 4096   # aarch64 -Os full config
STACK = 256        # worst-case stack of one sfu_backtrace


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


def main():
    b = sys.argv[1] if len(sys.argv) > 1 else "build/size"
    base = None
    if os.path.exists(os.path.join(b, "base-rev")):
        base = open(os.path.join(b, "base-rev")).read().strip()
    whos = ["new"] + (["base"] if base else [])
    label = {"new": "new", "base": f"@{base}"}
    print("sfu code size, bare metal: -Os -ffreestanding -nostdlib -fno-pic (+ -mgeneral-regs-only on aarch64,")
    print("-mno-red-zone on x86_64); gcc 12, clang 14.  Bytes.  'all': the object with every public function;")
    print("'backtrace': after ld --gc-sections from sfu_section_init + sfu_backtrace (what a panic handler links).")
    print("full = V1+V2+V3, both byte orders, every ABI; smallest = V3 little-endian, the target's own ABI (no FLEX")
    print("on aarch64); indexed = full with SFU_INDEX and SFU_CACHE.  new = core/; " +
          (f"@{base} = the core of {base}." if base else "no baseline."))
    print()
    hdr = f"{'core':<9} {'arch':<8} {'cc':<6} {'config':<9} {'all .text':>9} {'.rodata':>7} {'backtrace .text':>15} {'.rodata':>7}"
    print(hdr)
    print("-" * len(hdr))
    sizes = {}
    for who in whos:
        for arch in ("aarch64", "x86_64"):
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
    for arch in ("aarch64", "x86_64"):
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
    print("worst-case stack of one sfu_backtrace call (gcc -fstack-usage frames summed along the deepest")
    print("path of -fcallgraph-info=su; x86_64 frames include the return address).  The port's callbacks")
    print("(read, strip_ra, trap) are called through pointers: their own stack comes on top.")
    hdr = f"{'core':<9} {'arch':<8} {'config':<9} {'bytes':>6}  deepest path (bytes per frame)"
    print(hdr)
    print("-" * len(hdr))
    stacks = {}
    for who in whos:
        for arch in ("aarch64", "x86_64"):
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
    print(f"figures (gcc -Os; today = {base or 'n/a'}):")
    print(f"  {'figure':<44} {'today':>7} {'new':>7}  target")
    for arch in ("aarch64", "x86_64"):
        for cfg, col, tgt, what in (("smallest", 1, TEXT_SMALL, "backtrace path"), ("full", 0, TEXT_FULL, "all")):
            today = sizes.get(("base", arch, "gcc", cfg), (None, None))[col]
            new = sizes.get(("new", arch, "gcc", cfg), (None, None))[col]
            t = f"<= {tgt}: " + ("met" if new is not None and new <= tgt else "MISSED") if arch == "aarch64" else ""
            print(f"  {'.text ' + cfg + ' (' + what + ') ' + arch:<44} {today if today is not None else '-':>7} "
                  f"{new if new is not None else '-':>7}  {t}")
        today, new = stacks.get(("base", arch)), stacks.get(("new", arch))
        print(f"  {'worst-case stack ' + arch:<44} {today if today is not None else '-':>7} "
              f"{new if new is not None else '-':>7}  <= {STACK}: " + ("met" if new is not None and new <= STACK else "MISSED"))
    print()
    for who in whos:
        tag = "" if who == "new" else label[who]
        for arch in ("aarch64", "x86_64"):
            for cfg, col in (("smallest", 1), ("full", 0)):
                v = sizes.get((who, arch, "gcc", cfg))
                if v:
                    print(f"size: {cfg}{tag} {arch} {v[col]}")
            if who == "new":
                v = sizes.get((who, arch, "gcc", "indexed"))
                if v:
                    print(f"size: indexed {arch} {v[0]}")
        for arch in ("aarch64", "x86_64"):
            if (who, arch) in stacks:
                print(f"stack: {arch}{tag} {stacks[(who, arch)]}")


if __name__ == "__main__":
    main()
