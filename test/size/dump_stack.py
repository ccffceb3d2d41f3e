#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""dump_stack.py DIR... -- worst-case stack of the dump path (crash/sfu_dump.h).

Each DIR holds dump.ci (gcc -fcallgraph-info=su of test/size/dump_tu.c,
whose description writes the crash record) and is named <arch>-...  For
each public entry of the dump layer (sfu_dump_stack, sfu_dump_regs,
sfu_dump_trap, sfu_dump_threads, sfu_dump_threads_iter, sfu_dump_check,
sfu_dump_cause, sfu_dump_record_wire; and sfu_dump_record_print, the next
boot's, on a line of its own) it sums -fstack-usage frames along
the deepest path of direct calls, and at every call through a pointer adds
what that call can cost: the port's callbacks and the layout check the
description points to (sfu_port_read, sfu_port_trap, sfu_port_strip_ra,
sfu_layout_check, each with its own deepest path) where the walk or the
dump calls them; nothing where the
dump calls the user's hooks (the output hook, the name and frame hooks,
the thread iterator), which are excluded by definition.  Prints the path
and, per arch, "stack: dump <arch> <bytes>", with the part of it that is
the dump layer's own frames and the part that is the core's walk.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import callgraph, short  # noqa: E402

ENTRIES = (
    "sfu_dump_stack", "sfu_dump_regs", "sfu_dump_trap", "sfu_dump_threads", "sfu_dump_threads_iter", "sfu_dump_check",
    "sfu_dump_cause", "sfu_dump_record_wire")
# Not on the crash path (the next boot's): printed on its own line.
BOOT = ("sfu_dump_record_print",)
PORT = ("sfu_port_read", "sfu_port_trap", "sfu_port_strip_ra", "sfu_layout_check")
# The dump layer's functions that call through a pointer the user's hooks
# only (output, name, frame, iterator); every other indirect call is the
# core's or the dump's call of a port callback.
USER_HOOK_CALLERS = ("sfu__dump_put", "sfu__dump_name", "sfu__dump_cursor_frame", "sfu__dump_thread_start")
# Which callbacks a function's calls through a pointer can reach (every
# `->trap(`, `->trap_check(` of core/ and crash/ is in these): the trap
# callback from the core's step out of a trap frame and the dump's
# question whether a frame is the vector code's; the layout check from the
# description's check; anywhere else the read and the strip.  A function
# not named here that calls through a pointer gets READ_STRIP.
CALLBACKS_OF = {
    "sfu__from_trap": ("sfu_port_trap",),
    "sfu__dump_is_stub": ("sfu_port_trap",),
    "sfu__dump_prepare": ("sfu_layout_check",),
    "sfu__dump_rules": ("sfu_layout_check",),
    # the crash record's writer, the description's record_fn
    "sfu__dump_rec": ("sfu_dump_record_event",),
}
READ_STRIP = ("sfu_port_read", "sfu_port_strip_ra")


def node_of(nodes, name):
    for n in nodes:
        if short(n) == name:
            return n
    return None


def main():
    for d in sys.argv[1:]:
        arch = os.path.basename(d).split("-")[0]
        nodes, edges, dyn = callgraph(os.path.join(d, "dump.ci"))
        memo = {}

        def deep(n, stack=()):
            """(bytes, path) of the deepest path from n, port callbacks added."""
            if n in stack:
                raise ValueError("recursion: " + " -> ".join(short(x) for x in stack + (n,)))
            if n in memo:
                return memo[n]
            best = (0, [])
            for c in sorted(edges.get(n, ())):
                if c == "__indirect_call":
                    if short(n) in USER_HOOK_CALLERS:
                        continue
                    for p in CALLBACKS_OF.get(short(n).split(".")[0], READ_STRIP):
                        pn = node_of(nodes, p)
                        if pn is None:
                            continue  # not in this port (x86_64 signs nothing)
                        v = deep(pn, stack + (n,))
                        if v[0] > best[0]:
                            best = v
                    continue
                v = deep(c, stack + (n,))
                if v[0] > best[0]:
                    best = v
            r = (nodes.get(n, 0) + best[0], [(n, nodes.get(n, 0))] + best[1])
            memo[n] = r
            return r

        worst = (0, [], "")
        for e in BOOT:
            en = node_of(nodes, e)
            if en is None:
                raise SystemExit(f"dump_stack.py: {e} not in {d}/dump.ci")
            total, path = deep(en)
            print(f"{arch:<8} {e:<17} {total:>5}  (at the next boot, not the crash path)  " +
                  " > ".join(f"{short(n)} {b}" for n, b in path))
            print(f"stack: record-print {arch} {total}")
        for e in ENTRIES:
            en = node_of(nodes, e)
            if en is None:
                raise SystemExit(f"dump_stack.py: {e} not in {d}/dump.ci")
            total, path = deep(en)
            own = sum(b for n, b in path if short(n).startswith(("sfu_dump", "sfu__dump")))
            port = sum(b for n, b in path if short(n).startswith("sfu_port") or short(n).startswith("sfu__port"))
            core = total - own - port
            note = ""
            bad = [short(n) for n, _ in path if n in dyn]
            if bad:
                note = "  (dynamic frames: " + ", ".join(bad) + ")"
            print(f"{arch:<8} {e:<17} {total:>5}  (dump layer {own}, core {core}, port callback {port})  " +
                  " > ".join(f"{short(n)} {b}" for n, b in path) + note)
            if total > worst[0]:
                worst = (total, path, e, own, core, port)
        if not any(node_of(nodes, p) for p in PORT):
            raise SystemExit(f"dump_stack.py: no port callback in {d}/dump.ci")
        print(f"stack: dump {arch} {worst[0]}")
        print(f"stack: dump-own {arch} {worst[3]}")


if __name__ == "__main__":
    main()
