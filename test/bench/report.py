#!/usr/bin/env python3
"""Print the benchmark table from build/bench/out (see test/bench/run.sh).

Inputs per tag (V1-libgcc, V2-libunwind, ...):
  TAG.time            CHECK / SECTION / TIME lines of the timing run
  cg.TAG.PID.N        callgrind dumps, one per (unwinder, depth)
  TAG.qemu            aarch64 under qemu-aarch64 (emulated time only)
"""
import glob
import os
import re
import sys

TARGET_NOCACHE = 150
TARGET_CACHE = 40
TARGET_DEPTH = 64
TARGET_FDES = 2000


def kv(line):
    return dict(re.findall(r"(\w+)=(\S+)", line))


def load(outdir):
    runs = {}  # tag -> {"time": {(unw, depth): ns}, "ir": {...}, "sections": [...], "checks": [...]}
    for path in sorted(glob.glob(os.path.join(outdir, "*.time")) + glob.glob(os.path.join(outdir, "*.qemu"))):
        tag = os.path.basename(path).rsplit(".", 1)[0]
        r = runs.setdefault(tag, {"time": {}, "ir": {}, "sections": [], "checks": []})
        for line in open(path):
            if line.startswith("TIME "):
                d = kv(line)
                r["time"][(d["unw"], int(d["depth"]))] = float(d["ns_per_frame"])
            elif line.startswith("SECTION "):
                r["sections"].append(line.split(None, 1)[1].strip())
            elif line.startswith("CHECK "):
                r["checks"].append(line.strip())
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
            runs.setdefault(tag, {"time": {}, "ir": {}, "sections": [], "checks": []})
            runs[tag]["ir"][(d["unw"], int(d["depth"]))] = (total, int(d["frames"]))
    return runs


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else "build/bench/out"
    runs = load(outdir)
    gens = sorted({t.split("-", 1)[0] for t in runs if not t.endswith("aarch64-libgcc")})
    order = ["fp", "sfu", "sfu+cache", "sfu-exp", "sfu-exp+cache", "libgcc", "libunwind"]
    rows = []
    results = {}
    print("sfu benchmark: x86_64 host, unwinding from the leaf of one call chain through randomly chosen")
    print("functions; every unwinder walks the same stack in the same run and returned the same PCs.")
    print("instr/frame: callgrind Ir of one warm call / frames.  ns/frame: median of timed batches.")
    print("xFP: ratio to the frame-pointer walk of the same binary and run.")
    for g in gens:
        for tag in (f"{g}-libgcc", f"{g}-libunwind"):
            for s in runs.get(tag, {}).get("sections", []):
                if "libchain" in s:
                    d = kv(s)
                    print(f"  {g}: {os.path.relpath(s.split()[0])}: SFrame version {d.get('version')}, "
                          f"{d.get('fdes')} FDEs, {d.get('size')} bytes")
                    break
            else:
                continue
            break
    print()
    hdr = f"{'gen':<4} {'unwinder':<14} {'depth':>5} {'frames':>6} {'instr/frame':>11} {'xFP':>7} {'ns/frame':>9} {'xFP':>7}"
    print(hdr)
    print("-" * len(hdr))
    for g in gens:
        depths = sorted({d for tag in runs if tag.startswith(g + "-") for (_, d) in runs[tag]["time"]} |
                        {d for tag in runs if tag.startswith(g + "-") for (_, d) in runs[tag]["ir"]})
        for d in depths:
            for u in order:
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
                print(f"{g:<4} {u:<14} {d:>5} {frames:>6} {fmt(ipf, '11.1f')} "
                      f"{fmt(ipf / fp_ipf if ipf and fp_ipf else None, '7.1f')} "
                      f"{fmt(ns, '9.2f')} {fmt(ns / fp_ns if ns and fp_ns else None, '7.1f')}")
            print()

    aa = [t for t in runs if t.endswith("aarch64-libgcc")]
    if aa:
        checked = all(any(c.startswith(f"CHECK depth={d} ok") for c in runs[t]["checks"])
                      for t in aa for (_, d) in runs[t]["time"])
        print("aarch64 under qemu-aarch64 (user-mode emulation): the PC check " +
              ("passed for every generation and depth;" if checked else "DID NOT RUN for every depth;"))
        print("emulated ns/frame only, NOT comparable to hardware or to the x86_64 rows (no callgrind there).")
        hdr2 = f"{'gen':<4} {'depth':>5} " + " ".join(f"{u:>14}" for u in order if any(
            (u, d) in runs[t]["time"] for t in aa for d in (16, 64, 256)))
        cols = [u for u in order if any((u, d) in runs[t]["time"] for t in aa for d in (16, 64, 256))]
        print(hdr2 + "   (ns/frame)")
        for t in sorted(aa):
            g = t.split("-", 1)[0]
            for d in sorted({d for (_, d) in runs[t]["time"]}):
                print(f"{g:<4} {d:>5} " + " ".join(fmt(runs[t]["time"].get((u, d)), "14.1f") for u in cols))
        print()

    print(f"targets (x86_64, depth {TARGET_DEPTH}, instructions per frame):")
    fdes_ok = True
    for g in gens:
        for s in runs.get(f"{g}-libgcc", {}).get("sections", []):
            if "libchain" in s:
                n = int(kv(s).get("fdes", "0"))
                fdes_ok = fdes_ok and n >= TARGET_FDES
    for g in gens:
        v = results.get((g, "sfu", TARGET_DEPTH))
        line = f"  {g} sfu (no cache)   <= {TARGET_NOCACHE:>3}: {fmt(v, '7.1f')}  "
        line += "-" if v is None else ("met" if v <= TARGET_NOCACHE else f"MISSED (x{v / TARGET_NOCACHE:.1f})")
        print(line)
        for u in ("sfu-exp", "sfu+cache", "sfu-exp+cache"):
            v = results.get((g, u, TARGET_DEPTH))
            if v is None:
                continue
            t = TARGET_CACHE if "cache" in u else TARGET_NOCACHE
            tag = " (experimental header, test/bench/core-proposal.diff)" if "exp" in u else ""
            print(f"  {g} {u:<15} <= {t:>3}: {v:7.1f}  {'met' if v <= t else 'MISSED (x%.1f)' % (v / t)}{tag}")
    print(f"  chain library FDEs >= {TARGET_FDES}: {'yes' if fdes_ok else 'NO'}")


if __name__ == "__main__":
    main()
