#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""compare.py PROG_OUT RECORD_OUT GDB_OUT - gdb's frames from the core
against sfu's own trace, for test/core/run.sh.

PROG_OUT    crash_host's stdout: "sfu T #k PC SP", sfu's trace of each
            thread T as the program walked it; "-": the record's frames
            are sfu's trace (the firmware wrote them from its walk);
            "log:LOG": a firmware's serial log, whose dumps are sfu's
            trace: each record thread's PCs must be its dump's (the dump
            after the line "thread N NAME: ...", the log's first dump for
            "main"), from frame #0 or from the frame marked (interrupted)
            where the record starts at the interrupted code; the dump
            prints no SP: the record's are the SPs of that same walk
RECORD_OUT  `sfu-crash RECORD`: the record's threads ("thread T ...",
            "stack window ..., N whole frames", "    #k pc PC sp SP")
GDB_OUT     gdb's `thread apply all frame apply all printf "F %#lx %#lx\\n",
            $pc, $sp` ("Thread N (LWP T):" then one F line per frame)

The record must hold the program's frames (the first 32) unchanged.  gdb
must show, for thread T, exactly min(n, whole + 1) frames, n the record's
frames and whole the frames whose stack the window holds: frame k + 1 is
unwound from frame k's stack, so a window holding frames 0 .. whole - 1
gives gdb frames 0 .. whole and then "Cannot access memory" (a window cut
by the budget shortens gdb's trace exactly there).  Every frame gdb shows
must have sfu's PC and SP.  One more frame is allowed past those, at PC 0
only: where the stack lies in a section of the image without contents
(a firmware's .stack), gdb reads the last frame's saved return address,
which the window does not hold, from the image's zeros.  Prints "# ..." lines per thread and a last line
"ok THREADS FRAMES" or "FAIL why"; exit status 0 or 1.
"""
import re
import sys


def log_dumps(text):
    """{name: [(pc, interrupted), ...]}: the first dump of each thread
    name in a firmware log ("main": outside any thread)."""
    dumps, name, cur = {}, "main", None
    for line in text.replace("\r", "").splitlines():
        m = re.match(r"^thread \d+ (\S+): ", line)
        if m:
            name = m[1]
            continue
        if line == "backtrace:":
            cur = []
            continue
        m = re.match(r"^  #\d+ +(0x[0-9a-f]+) ", line)
        if m and cur is not None:
            cur.append((int(m[1], 16), line.endswith("(interrupted)")))
            continue
        if line.startswith("backtrace: ") and cur is not None:
            dumps.setdefault(name, cur)
            cur, name = None, "main"
    return dumps


def check_log(dumps, names, record):
    """None if every record thread's PCs are its dump's, else why not."""
    for t in sorted(record):
        d = dumps.get(names[t])
        if d is None:
            return f"thread {t} ({names[t]}): no dump of it in the log"
        pcs = [pc for pc, _ in d]
        rec = [pc for pc, _ in record[t]]
        # From #0 or the interrupted frame, to the dump's end (or 32
        # frames), or from #0 to the frame before the vector code's (a
        # panic in a handler: the interrupted code is the next block).
        cuts = [k for k, (_, i) in enumerate(d) if i]
        starts = [0] + cuts
        ends = [len(pcs)] + [k - 1 for k in cuts[:1]]
        if not any(pcs[k:k + len(rec)] == rec and (len(rec) == 32 or k + len(rec) in ends) for k in starts):
            return f"thread {t} ({names[t]}): the record's PCs {[hex(p) for p in rec]} are not its dump's {[hex(p) for p in pcs]}"
    return None


def main():
    logpath = sys.argv[1][4:] if sys.argv[1].startswith("log:") else None
    prog, rec, gdb = (open(p).read() if p != "-" and not p.startswith("log:") else None for p in sys.argv[1:4])
    sfu = {}
    for m in re.finditer(r"^sfu (\d+) #(\d+) (0x[0-9a-f]+) (0x[0-9a-f]+)$", prog or "", re.M):
        sfu.setdefault(int(m[1]), []).append((int(m[3], 16), int(m[4], 16)))
    record, whole, cut, names = {}, {}, {}, {}
    t = None
    for line in rec.splitlines():
        m = re.match(r'^thread (\d+) "([^"]*)"', line)
        if m:
            t = int(m[1])
            record[t] = []
            names[t] = m[2]
            continue
        m = re.match(r"^  stack window 0x[0-9a-f]+, \d+ of \d+ bytes, (\d+) whole frames? \((.*)\)$", line)
        if m and t:
            whole[t], cut[t] = int(m[1]), m[2]
            continue
        m = re.match(r"^    #(\d+) pc (0x[0-9a-f]+) sp (0x[0-9a-f]+)", line)
        if m and t:
            record[t].append((int(m[2], 16), int(m[3], 16)))
    frames = {}
    t = None
    for line in gdb.splitlines():
        m = re.match(r"^Thread \d+ \(LWP (\d+)\):", line)
        if m:
            t = int(m[1])
            frames[t] = []
            continue
        m = re.match(r"^F (0x[0-9a-f]+|0) (0x[0-9a-f]+|0)$", line)
        if m and t:
            frames[t].append((int(m[1], 16), int(m[2], 16)))
    if prog is None:
        sfu = dict(record)
    if logpath is not None:
        why = check_log(log_dumps(open(logpath, errors="replace").read()), names, record)
        if why:
            print(f"FAIL {why}")
            return 1
    if not sfu or set(sfu) != set(record) or set(record) != set(frames):
        print(f"FAIL threads: program {sorted(sfu)}, record {sorted(record)}, gdb {sorted(frames)}")
        return 1
    total = 0
    for t in sorted(sfu):
        n = len(record[t])
        if record[t] != sfu[t][:32]:
            print(f"FAIL thread {t}: the record's frames are not the program's")
            return 1
        want = min(n, whole[t] + 1)
        g = frames[t]
        extra = ""
        if len(g) == want + 1 and g[-1][0] == 0:
            g = g[:-1]
            extra = " (+1 at pc 0: the image's zeros past the window)"
        print(f"# thread {t}: sfu {n} frames, window holds {whole[t]} ({cut[t]}), gdb {len(g)} frames{extra}")
        if len(g) != want:
            print(f"FAIL thread {t}: gdb shows {len(g)} frames, the record says {want}")
            return 1
        for k, (a, b) in enumerate(zip(g, record[t])):
            if a != b:
                print(f"FAIL thread {t} frame {k}: gdb pc {a[0]:#x} sp {a[1]:#x}, sfu pc {b[0]:#x} sp {b[1]:#x}")
                return 1
        total += len(g)
    print(f"ok {len(sfu)} {total}")
    return 0


sys.exit(main())
