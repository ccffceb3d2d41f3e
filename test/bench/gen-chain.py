#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate the benchmark's call-chain library: N functions of varied frame
shapes that call each other through a table, in an order fixed by a seed.

    gen-chain.py OUT.c [--funcs N] [--seed S]

The output needs no C library (it is linked -nostdlib -shared), so the same
file builds with every toolchain generation and the host harness loads it.
Exported:

    uint64_t chain_run(int which, int depth, uint64_t x, void (*leaf)(void *), void *arg);
        Calls `depth` chain functions, the k-th of them chosen by
        chain_seq[which][k], and calls leaf(arg) from the deepest one.
    extern const int chain_nseq, chain_seqlen;

Frame shapes (picked per function by the seed, so the FDE and FRE mix is
like real code rather than 2000 copies of one prologue):
    plain     a frame-pointer frame and nothing else
    saves     1..5 values kept live across the call: callee-saved pushes,
              one FRE per push on x86_64, a longer aarch64 prologue
    array     a volatile local array of 16..6000 bytes (1-, 2- and 4-byte
              FRE data words)
    vla       a variable-length array (the CFA is FP-based past the alloca)
    long      a long body with the call placed after a loop, several early
              returns (shrink-wrapped epilogues: more FREs before the call
              site, 2-byte FRE start offsets)
    aligned   an over-aligned local (stack realignment, no DRAP)
"""
import argparse
import random

SHAPES = ["plain", "saves", "array", "vla", "long", "aligned"]
WEIGHTS = [3, 4, 3, 1, 3, 1]


def emit_function(out, i, rng):
    shape = rng.choices(SHAPES, WEIGHTS)[0]
    name = f"f{i}"
    k = rng.randrange(1, 1 << 16) | 1
    call = f"chain_tab[c->seq[d - 1]](c, d - 1, x * {k}u + {i}u)"
    out.append(f"/* {shape} */")
    out.append(f"static NOINLINE uint64_t {name}(struct ctx *c, int d, uint64_t x)")
    out.append("{")
    if shape == "plain":
        out.append("\tuint64_t r;")
        out.append("\tif (d == 0) { c->leaf(c->arg); return x; }")
        out.append(f"\tr = {call};")
        out.append(f"\treturn r ^ {i}u;")
    elif shape == "saves":
        n = rng.randrange(1, 6)
        vs = [f"v{j}" for j in range(n)]
        for j, v in enumerate(vs):
            out.append(f"\tuint64_t {v} = x * {rng.randrange(3, 999)}u + {j}u;")
        out.append("\tuint64_t r;")
        for v in vs:
            out.append(f"\tOPAQUE({v});")
        out.append("\tif (d == 0) { c->leaf(c->arg); r = x; }")
        out.append(f"\telse r = {call};")
        for v in vs:
            out.append(f"\tOPAQUE({v});")
        out.append("\treturn r " + "".join(f" + {v} * {j + 3}u" for j, v in enumerate(vs)) + ";")
    elif shape == "array":
        size = rng.choice([16, 40, 100, 200, 300, 1000, 4000, 6000])
        out.append(f"\tvolatile uint8_t a[{size}];")
        out.append("\tuint64_t r;")
        out.append(f"\ta[x % {size}u] = (uint8_t)x;")
        out.append("\tif (d == 0) { c->leaf(c->arg); r = x; }")
        out.append(f"\telse r = {call};")
        out.append(f"\treturn r + a[(x >> 3) % {size}u];")
    elif shape == "vla":
        out.append("\tsize_t n = 8u + (size_t)(x & 63u);")
        out.append("\tvolatile uint8_t a[n];")
        out.append("\tuint64_t r;")
        out.append("\ta[n - 1] = (uint8_t)x;")
        out.append("\tif (d == 0) { c->leaf(c->arg); r = x; }")
        out.append(f"\telse r = {call};")
        out.append("\treturn r + a[n - 1];")
    elif shape == "long":
        loops = rng.randrange(2, 6)
        out.append("\tuint64_t r = x, t;")
        out.append("\tint j;")
        for m in range(loops):
            # c->never is 0 at run time, which the compiler cannot know: an
            # epilogue mid-function that the walk never takes.
            out.append(f"\tif ((c->never & {1 << m}u) && (x & {rng.randrange(1, 255)}u) == {rng.randrange(0, 255)}u)")
            out.append(f"\t\treturn x + {m}u; /* early exit */")
            out.append(f"\tfor (j = 0; j < (int)(x & 7u); j++) {{ t = r * {rng.randrange(3, 9999)}u; OPAQUE(t); r ^= t >> {rng.randrange(1, 31)}; }}")
        out.append("\tif (d == 0) { c->leaf(c->arg); return r; }")
        out.append(f"\tt = {call};")
        out.append(f"\tfor (j = 0; j < (int)(t & 3u); j++) {{ r += t * {rng.randrange(3, 9999)}u; OPAQUE(r); }}")
        out.append("\treturn r ^ t;")
    elif shape == "aligned":
        al = rng.choice([32, 64, 128])
        out.append(f"\tvolatile uint64_t a[4] __attribute__((aligned({al})));")
        out.append("\tuint64_t r;")
        out.append("\ta[x & 3u] = x;")
        out.append("\tif (d == 0) { c->leaf(c->arg); r = x; }")
        out.append(f"\telse r = {call};")
        out.append("\treturn r + a[(x >> 2) & 3u];")
    out.append("}")
    out.append("")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--funcs", type=int, default=2400)
    ap.add_argument("--seed", type=int, default=20240605)
    ap.add_argument("--seqlen", type=int, default=300)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    n = args.funcs

    out = []
    out.append("/* Generated by test/bench/gen-chain.py "
               f"--funcs {n} --seed {args.seed}: do not edit. */")
    out.append("#include <stddef.h>")
    out.append("#include <stdint.h>")
    out.append("#define NOINLINE __attribute__((noinline, noclone))")
    out.append("/* Keep a value in a register across the call (callee-saved). */")
    out.append('#define OPAQUE(v) __asm__ volatile("" : "+r"(v))')
    out.append("struct ctx { const uint16_t *seq; void (*leaf)(void *); void *arg; unsigned never; };")
    out.append("typedef uint64_t (*chain_fn)(struct ctx *, int, uint64_t);")
    out.append("static const chain_fn chain_tab[];")
    out.append("")
    for i in range(n):
        emit_function(out, i, rng)
    out.append("static const chain_fn chain_tab[] = {")
    for i in range(n):
        out.append(f"\tf{i},")
    out.append("};")
    # Three independent random sequences, one per depth in the harness.
    nseq = 3
    out.append(f"const int chain_nseq = {nseq}, chain_seqlen = {args.seqlen};")
    out.append(f"static const uint16_t chain_seq[{nseq}][{args.seqlen}] = {{")
    for _ in range(nseq):
        seq = [rng.randrange(n) for _ in range(args.seqlen)]
        out.append("\t{" + ", ".join(str(s) for s in seq) + "},")
    out.append("};")
    out.append("")
    out.append("NOINLINE uint64_t chain_run(int which, int depth, uint64_t x, void (*leaf)(void *), void *arg)")
    out.append("{")
    out.append("\tstruct ctx c;")
    out.append("\tuint64_t r;")
    out.append(f"\tif (which < 0 || which >= {nseq} || depth < 1 || depth > {args.seqlen})")
    out.append("\t\treturn 0;")
    out.append("\tc.seq = chain_seq[which];")
    out.append("\tc.leaf = leaf;")
    out.append("\tc.arg = arg;")
    out.append("\tc.never = (unsigned)(x >> 63); /* 0 for every x the harness passes */")
    out.append("\tr = chain_tab[c.seq[depth - 1]](&c, depth - 1, x);")
    out.append("\tOPAQUE(r); /* not a tail call */")
    out.append("\treturn r;")
    out.append("}")
    with open(args.out, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
