#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Print the benchmark table from build/bench/out (see test/bench/run.sh).

Inputs per tag (V1-libgcc, V2-libunwind, ...):
  TAG.time            CHECK / SECTION / INDEX / TIME lines of the timing run
  cg.TAG.PID.N        callgrind dumps, one per (unwinder, depth)
  TAG.qemu            aarch64 under qemu-aarch64 (emulated time only)
  Vn-aarch64.count    COUNT / INSNS lines of count.c under qemu -singlestep
  base-rev            the baseline commit, if it was measured

Ends with one line per figure, to compare across commits:
  bench: <unwinder> <config> <instructions per frame>
"""
import glob
import os
import re
import sys

DEPTH = 64         # the figures are at this depth
TARGET_COLD = 450  # x86_64, V3, no index, no cache
TARGET_INDEX = 150 # with an index in caller memory
TARGET_CACHE = 60  # warm cache hits
TARGET_FDES = 2000
BREAKDOWN = ("sfu", "sfu+fdeidx", "sfu+rowidx", "sfu+cache", "sfu/small")  # where their instructions go
BREAKDOWN_TOP = 10

ORDER = ["fp", "sfu", "sfu+fdeidx", "sfu+rowidx", "sfu+cache", "sfu+cache/read", "sfu+rowidx/read", "sfu/unsafe",
         "sfu/small", "sfu/small+cache", "base", "base+cache", "libgcc", "libunwind"]


def kv(line):
    return dict(re.findall(r"(\w+)=(\S+)", line))


def new_run():
    return {"time": {}, "ir": {}, "dump": {}, "sections": [], "checks": [], "index": {}}


def load(outdir):
    runs = {}
    for path in sorted(glob.glob(os.path.join(outdir, "*.time")) + glob.glob(os.path.join(outdir, "*.qemu"))):
        tag = os.path.basename(path).rsplit(".", 1)[0]
        r = runs.setdefault(tag, new_run())
        for line in open(path):
            if line.startswith("TIME "):
                d = kv(line)
                r["time"][(d["unw"], int(d["depth"]))] = float(d["ns_per_frame"])
            elif line.startswith("SECTION "):
                r["sections"].append(line.split(None, 1)[1].strip())
            elif line.startswith("CHECK "):
                r["checks"].append(line.strip())
            elif line.startswith("INDEX "):
                d = kv(line)
                r["index"][d["unw"]] = int(d["bytes"])
    for path in glob.glob(os.path.join(outdir, "cg.*")):
        m = re.match(r"cg\.(.+)\.\d+\.\d+$", os.path.basename(path))
        if not m:
            continue
        tag = m.group(1)
        desc = total = None
        for line in open(path):
            if line.startswith("desc: Trigger: Client Request: "):
                desc = line.split("Client Request: ", 1)[1].strip()
            elif line.startswith("totals:"):
                total = int(line.split()[1])
        if desc and total is not None:
            d = kv(desc)
            r = runs.setdefault(tag, new_run())
            r["ir"][(d["unw"], int(d["depth"]))] = (total, int(d["frames"]))
            r["dump"][(d["unw"], int(d["depth"]))] = path
    counts = {}
    for path in glob.glob(os.path.join(outdir, "*-aarch64.count")):
        g = os.path.basename(path).split("-", 1)[0]
        frames, insns = {}, {}
        for line in open(path):
            d = kv(line)
            if line.startswith("COUNT "):
                frames[d["build"]] = int(d["frames"])
            elif line.startswith("INSNS "):
                insns[d["build"]] = int(d["insns"])
        if frames.get("sfu") and "sfu" in insns and "sfn" in insns:
            counts[g] = (insns["sfu"] / frames["sfu"], insns["sfn"] / frames["sfn"], frames["sfu"])
    base = None
    bp = os.path.join(outdir, "base-rev")
    if os.path.exists(bp):
        base = open(bp).read().strip()
    return runs, counts, base


def core_functions(path):
    """(first line, name) of each function defined in a core header, in order:
    an unindented line naming an sfu function and not ending a declaration."""
    out = []
    for n, line in enumerate(open(path), 1):
        m = re.match(r"(?:[A-Z_]+\s+|static\s+|const\s+|struct\s+)*\w+[\s*]+(sfu_?\w*)\s*\(", line)
        if m and not line.rstrip().endswith(";"):
            out.append((n, m.group(1)))
    return out


def breakdown(path):
    """Self cost of one callgrind dump (written with --compress-strings=no
    --compress-pos=no) summed per function: lines of the core (core/sfu*.h)
    per function of that file whose body they are in (so inlined code counts
    where its lines are), anything else per the compiled function it ran in."""
    funcs = {}
    cost = {}
    fl = cur = fn = None
    skip = False
    for line in open(path):
        if line.startswith("fl="):
            fl = cur = line[3:].strip()
        elif line.startswith(("fi=", "fe=")):
            cur = line[3:].strip()
        elif line.startswith("fn="):
            fn, cur = line[3:].strip(), fl
        elif line.startswith("calls="):
            skip = True            # the next cost line is the call's inclusive cost
        elif line[:1].isdigit():
            if skip:
                skip = False
                continue
            pos, ir = line.split()[:2]
            if cur and re.search(r"core/sfu\w*[.]h$", cur) and os.path.exists(cur):
                if cur not in funcs:
                    funcs[cur] = core_functions(cur)
                name = "?"
                for first, f in funcs[cur]:
                    if first > int(pos):
                        break
                    name = f
            else:
                name = f"{os.path.basename(cur or '?')}:{re.sub(r'[.].*', '', fn or '?')}"
            cost[name] = cost.get(name, 0) + int(ir)
    return cost


def fmt(v, spec):
    if v is None:
        w = re.match(r"\d*", spec).group(0)
        return "-".rjust(int(w)) if w else "-"
    return format(v, spec)


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else "build/bench/out"
    runs, counts, base = load(outdir)
    gens = sorted({t.split("-", 1)[0] for t in runs if not t.endswith("aarch64-libgcc")})
    results = {}
    print("sfu benchmark: x86_64 host, unwinding from the leaf of one call chain through randomly chosen")
    print("functions; every unwinder walks the same stack in the same run and returned the same PCs.")
    print("instr/frame: callgrind Ir of one warm call / frames.  ns/frame: median of timed batches.")
    print("xFP: ratio to the frame-pointer walk of the same binary and run.")
    print("sfu: the speed knob on (SFU_FAST=1), every other default (cold: no cache, no index); +fdeidx / +rowidx:")
    print("with an FDE / row index in caller memory; +cache: the row cache (1024 slots, warm); /read: the port")
    print("read inlined (SFU_READ); /unsafe: SFU_SAFE_CODEGEN=0; /small: the small shape (SFU_FAST=0, the default")
    print("without an index or the cache), cold and cached; base: the core of " + (base or "(no baseline)") +
          ", cold and cached.")
    for g in gens:
        r = runs.get(f"{g}-libgcc", {})
        for s in r.get("sections", []):
            if "libchain" in s:
                d = kv(s)
                print(f"  {g}: {os.path.relpath(s.split()[0])}: SFrame version {d.get('version')}, "
                      f"{d.get('fdes')} FDEs, {d.get('size')} bytes" +
                      "".join(f"; {u} index {b} bytes" for u, b in sorted(r.get("index", {}).items())))
                break
    print()
    hdr = f"{'gen':<4} {'unwinder':<16} {'depth':>5} {'frames':>6} {'instr/frame':>11} {'xFP':>7} {'ns/frame':>9} {'xFP':>7}"
    print(hdr)
    print("-" * len(hdr))
    for g in gens:
        depths = sorted({d for tag in runs if tag.startswith(g + "-") for (_, d) in runs[tag]["time"]} |
                        {d for tag in runs if tag.startswith(g + "-") for (_, d) in runs[tag]["ir"]})
        for d in depths:
            for u in ORDER:
                # fp/sfu rows from the libgcc binary; libunwind from its own.
                tag = f"{g}-libunwind" if u == "libunwind" else f"{g}-libgcc"
                r = runs.get(tag)
                if not r:
                    continue
                ir = r["ir"].get((u, d))
                ns = r["time"].get((u, d))
                if ir is None and ns is None:
                    continue
                fp_ir = r["ir"].get(("fp", d))
                fp_ns = r["time"].get(("fp", d))
                ipf = ir[0] / ir[1] if ir else None
                fp_ipf = fp_ir[0] / fp_ir[1] if fp_ir else None
                frames = ir[1] if ir else d
                results[(g, u, d)] = ipf
                print(f"{g:<4} {u:<16} {d:>5} {frames:>6} {fmt(ipf, '11.1f')} "
                      f"{fmt(ipf / fp_ipf if ipf and fp_ipf else None, '7.1f')} "
                      f"{fmt(ns, '9.2f')} {fmt(ns / fp_ns if ns and fp_ns else None, '7.1f')}")
            print()

    aa = [t for t in runs if t.endswith("aarch64-libgcc")]
    if aa:
        checked = all(any(c.startswith(f"CHECK depth={d} ok") for c in runs[t]["checks"])
                      for t in aa for (_, d) in runs[t]["time"])
        print("aarch64 under qemu-aarch64 (user-mode emulation): the PC check " +
              ("passed for every generation and depth;" if checked else "DID NOT RUN for every depth;"))
        print("emulated ns/frame only, NOT comparable to hardware or to the x86_64 rows.")
        cols = [u for u in ORDER if any((u, d) in runs[t]["time"] for t in aa for d in (16, 64, 256))]
        print(f"{'gen':<4} {'depth':>5} " + " ".join(f"{u:>16}" for u in cols) + "   (ns/frame)")
        for t in sorted(aa):
            g = t.split("-", 1)[0]
            for d in sorted({d for (_, d) in runs[t]["time"]}):
                print(f"{g:<4} {d:>5} " + " ".join(fmt(runs[t]["time"].get((u, d)), "16.1f") for u in cols))
        print()

    # The figures, today beside new.
    g3 = "V3" if "V3" in gens else (gens[-1] if gens else None)
    lines = []
    if g3:
        def v(u, g=g3):
            return results.get((g, u, DEPTH))

        def idx(u):
            return runs.get(f"{g3}-libgcc", {}).get("index", {}).get(u)

        print(f"figures (x86_64, {g3}, depth {DEPTH}, instructions per frame; today = {base or 'n/a'}):")
        hdr = f"  {'figure':<42} {'today':>8} {'new':>8}  target"
        print(hdr)

        def row(name, today, new, target, note=""):
            ok = "-" if new is None else ("met" if new <= target else f"MISSED (x{new / target:.1f})")
            print(f"  {name:<42} {fmt(today, '8.1f')} {fmt(new, '8.1f')}  <= {target}: {ok}{note}")

        row("cold, no index, no cache", v("base"), v("sfu"), TARGET_COLD)
        for u, label in (("sfu+fdeidx", "cold, FDE index"), ("sfu+rowidx", "cold, row index"),
                         ("sfu+rowidx/read", "cold, row index, inlined read")):
            b = idx(u.split("/")[0])
            row(label, None, v(u), TARGET_INDEX, f"  ({b} bytes)" if b else "")
        row("cached (warm hits)", v("base+cache"), v("sfu+cache"), TARGET_CACHE)
        row("cached, inlined read", None, v("sfu+cache/read"), TARGET_CACHE)
        print()
        cold, small, cached, small_cached = v("sfu"), v("sfu/small"), v("sfu+cache"), v("sfu/small+cache")
        if cold and small and cached and small_cached:
            print(f"the speed knob (x86_64, {g3}, depth {DEPTH}, instructions per frame, both at -O2): cold "
                  f"{small:.1f} small, {cold:.1f} fast ({small - cold:+.1f}); cached {small_cached:.1f} small,")
            print(f"{cached:.1f} fast ({small_cached - cached:+.1f})")
            print()
    if g3:
        print(f"where the instructions go (x86_64, {g3}, depth {DEPTH}, per frame; callgrind's cost per source line,")
        print("summed per function of the core (core/sfu*.h), inlined code counted where its lines are; other files per")
        print("compiled function, e.g. sfu_tu.c:bench_read, the port's read):")
        for u in BREAKDOWN:
            path = runs.get(f"{g3}-libgcc", {}).get("dump", {}).get((u, DEPTH))
            if not path:
                print(f"  {u}: no callgrind dump")
                continue
            cost = breakdown(path)
            frames = runs[f"{g3}-libgcc"]["ir"][(u, DEPTH)][1]
            top = sorted(cost.items(), key=lambda kv_: -kv_[1])
            shown = top[:BREAKDOWN_TOP]
            rest = sum(c for _, c in top[BREAKDOWN_TOP:])
            parts = [f"{n} {c / frames:.1f}" for n, c in shown] + [f"the rest {rest / frames:.1f}"]
            text = f"  {u} ({sum(cost.values()) / frames:.1f}): " + ", ".join(parts)
            while len(text) > 110:
                cut = text.rfind(", ", 0, 110)
                print(text[:cut + 1])
                text = "      " + text[cut + 2:]
            print(text)
        print()
    print("safe code generation (SFU_SAFE_CODEGEN=1 against =0, cold walk, instructions per frame):")
    safe = {}
    for g in gens:
        w, wo = results.get((g, "sfu", DEPTH)), results.get((g, "sfu/unsafe", DEPTH))
        if w and wo:
            print(f"  x86_64  {g}: {w:8.1f} with, {wo:8.1f} without (callgrind)")
            safe["x86_64"] = (w, wo)
    for g in sorted(counts):
        w, wo, n = counts[g]
        print(f"  aarch64 {g}: {w:8.1f} with, {wo:8.1f} without (qemu-aarch64 -singlestep, {n} frames)")
        safe["aarch64"] = (w, wo)
    print()

    fdes_ok = True
    for g in gens:
        for s in runs.get(f"{g}-libgcc", {}).get("sections", []):
            if "libchain" in s:
                fdes_ok = fdes_ok and int(kv(s).get("fdes", "0")) >= TARGET_FDES
    print(f"chain library FDEs >= {TARGET_FDES}: {'yes' if fdes_ok else 'NO'}")
    for g in gens:
        for u, unw, cfg in (("fp", "fp", g), ("libgcc", "libgcc", g), ("libunwind", "libunwind", g),
                            ("sfu", "sfu", f"cold-{g}"), ("sfu+fdeidx", "sfu", f"fdeidx-{g}"),
                            ("sfu+rowidx", "sfu", f"rowidx-{g}"), ("sfu+rowidx/read", "sfu", f"rowidx+read-{g}"),
                            ("sfu+cache", "sfu", f"cached-{g}"), ("sfu+cache/read", "sfu", f"cached+read-{g}"),
                            ("sfu/small", "sfu", f"small-cold-{g}"), ("sfu/small+cache", "sfu", f"small-cached-{g}"),
                            ("base", f"sfu@{base}", f"cold-{g}"), ("base+cache", f"sfu@{base}", f"cached-{g}")):
            x = results.get((g, u, DEPTH))
            if x is not None:
                lines.append(f"bench: {unw} {cfg} {x:.1f}")
    for arch in ("x86_64", "aarch64"):
        if arch in safe:
            lines.append(f"bench: sfu safe-codegen-cost {arch} {safe[arch][0]:.1f} {safe[arch][1]:.1f}")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
