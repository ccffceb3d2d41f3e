#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""compare.py PROG_OUT RECORD_OUT GDB_OUT - gdb's frames from the core
against sfu's own trace, for test/core/run.sh and test/firmware/run.sh.

PROG_OUT    crash_host's stdout: "sfu T #k PC SP", sfu's trace of each
            thread T as the program walked it; "-": the record's frames
            are sfu's trace (the firmware wrote them from its walk);
            "log:LOG": a firmware's serial log, whose dumps are sfu's
            trace: each record thread's frames must be a stretch of its
            dump's (the dump after the line "thread N NAME: ..." or, from a
            table with no id, "thread NAME: ...", the log's
            first dump for "main"), PC and, where the dump prints one
            (SFU_DUMP_SP), SP: from frame #0, from #1 (a dump of
            sfu_dump_stack, whose own frame is in no block), or from the
            frame marked (interrupted) (the block of the code a trap frame
            stopped), to the dump's end (or 32 frames) or to the frame
            marked (exception) (the block of the handler, which goes on in
            the next one)
RECORD_OUT  `sfu-crash RECORD`: the record's threads ("thread T ...",
            "stack window ..., N whole frames", "    #k pc PC sp SP")
GDB_OUT     gdb's `thread apply all -ascending frame apply all -q printf
            "F %#lx %#lx\\n", $pc, $sp`, a line "BT", then `thread apply all
            -ascending bt`; optionally a line "REGS", then `thread apply all
            -ascending info registers`: every register the record knows of a
            thread must be the value gdb shows under its name (the core's
            NT_PRSTATUS in the Linux layout, read back field by field)

A thread whose trace sfu completed (its block ends with the outermost
frame, SFU_END, or goes on in the next block through a trap frame) must
show in gdb exactly its frames, PC and SP, and nothing after them: no
frame gdb makes up past the end, no "Backtrace stopped" line.  Any other
thread (a walk stopped by an error or a cap, 32 frames kept of more, a
window cut by the budget) must show at least its first min(n, whole + 1)
frames as sfu has them: frame k + 1 is unwound from frame k's stack, so a
window holding frames 0 .. whole - 1 gives gdb frames 0 .. whole; past
them gdb goes its own way (said in a "#" line), as it does past sfu's
stop where sfu knows no more; fewer only where gdb stops on a stack it
judges corrupt itself.  Prints "# ..." lines per thread and a last
line "ok THREADS FRAMES" or "FAIL why"; exit status 0 or 1.
"""
import re
import sys


def log_dumps(text):
    """{name: [[(pc, sp or None, marker), ...], ...]}: every dump of each
    thread name in a firmware log ("main": outside any thread)."""
    dumps, name, cur = {}, "main", None
    for line in text.replace("\r", "").splitlines():
        # "thread N NAME: ...", or "thread NAME: ..." from a table with
        # no id (SFU_DUMP_ID absent: ThreadX's ring).
        m = re.match(r"^thread (?:\d+ )?(\S+): ", line)
        if m:
            name = m[1]
            continue
        if line == "backtrace:":
            cur = []
            continue
        m = re.match(r"^  #\d+ +(0x[0-9a-f]+) .*?(?: sp (0x[0-9a-f]+))?( \((?:exception|interrupted|user)\))?$", line)
        if m and cur is not None:
            cur.append((int(m[1], 16), int(m[2], 16) if m[2] else None, (m[3] or "").strip(" ()")))
            continue
        if line.startswith("backtrace: ") and cur is not None:
            dumps.setdefault(name, []).append(cur)
            cur, name = None, "main"
    return dumps


def stretch_of(dump, rec):
    """True if rec [(pc, sp)] is a stretch of dump, as the blocks are."""
    starts = [0, 1] + [k for k, f in enumerate(dump) if f[2] == "interrupted"]
    for k in starts:
        seg = dump[k:k + len(rec)]
        if len(seg) != len(rec):
            continue
        if any(a[0] != b[0] or (a[1] is not None and a[1] != b[1]) for a, b in zip(seg, rec)):
            continue
        end = k + len(rec)
        if len(rec) == 32 or end == len(dump) or dump[end - 1][2] == "exception":
            return True
    return False


def check_log(dumps, names, record):
    """None if every record thread's frames are a stretch of a dump of its
    name, else why not."""
    for t in sorted(record):
        ds = dumps.get(names[t])
        if not ds:
            return f"thread {t} ({names[t]}): no dump of it in the log"
        if not any(stretch_of(d, record[t]) for d in ds):
            return (f"thread {t} ({names[t]}): the record's frames {[(hex(a), hex(b)) for a, b in record[t]]} "
                    f"are in no dump of it: {[[(hex(a), b and hex(b), c) for a, b, c in d] for d in ds]}")
    return None


def main():
    logpath = sys.argv[1][4:] if sys.argv[1].startswith("log:") else None
    prog, rec, gdb = (open(p).read() if p != "-" and not p.startswith("log:") else None for p in sys.argv[1:4])
    sfu = {}
    for m in re.finditer(r"^sfu (\d+) #(\d+) (0x[0-9a-f]+) (0x[0-9a-f]+)$", prog or "", re.M):
        sfu.setdefault(int(m[1]), []).append((int(m[3], 16), int(m[4], 16)))
    record, whole, cut, names, complete, regs = {}, {}, {}, {}, {}, {}
    t = None
    for line in rec.splitlines():
        m = re.match(r"^  registers known:(.*)$", line)
        if m and t:
            regs[t] = {k: int(v, 16) for k, v in re.findall(r" (\w+)=(0x[0-9a-f]+)", m[1])}
            continue
        m = re.match(r'^thread (\d+) "([^"]*)" .*?: (\d+) frames?, (.*)$', line)
        if m:
            t = int(m[1])
            record[t] = []
            names[t] = m[2]
            complete[t] = m[4].startswith("goes on") or m[4].endswith("(SFU_END)")
            continue
        m = re.match(r"^  stack window 0x[0-9a-f]+, (\d+) of (\d+) bytes, (\d+) whole frames? \((.*)\)$", line)
        if m and t:
            whole[t], cut[t] = int(m[3]), m[4]
            if int(m[1]) < int(m[2]):
                complete[t] = False
            continue
        m = re.match(r"^    #(\d+) pc (0x[0-9a-f]+) sp (0x[0-9a-f]+)", line)
        if m and t:
            record[t].append((int(m[2], 16), int(m[3], 16)))
    for t in record:
        if len(record[t]) >= 32:
            complete[t] = False
    frames, stopped, gregs = {}, {}, {}
    t, part = None, "F"
    for line in gdb.splitlines():
        if line in ("BT", "REGS"):
            part = line
            continue
        m = re.match(r"^(\w+) +(0x[0-9a-f]+) ", line)
        if m and t and part == "REGS":
            gregs.setdefault(t, {})[m[1]] = int(m[2], 16)
            continue
        m = re.match(r"^Thread \d+ \(LWP (\d+)\):", line)
        if m:
            t = int(m[1])
            if part == "F":
                frames[t] = []
            continue
        m = re.match(r"^F (0x[0-9a-f]+|0) (0x[0-9a-f]+|0)$", line)
        if m and t and part == "F":
            frames[t].append((int(m[1], 16), int(m[2], 16)))
            continue
        if part == "BT" and t and line.startswith("Backtrace stopped:"):
            stopped[t] = line
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
        g = frames[t]
        if complete[t]:
            print(f"# thread {t}: sfu {n} frames, complete; gdb {len(g)} frames"
                  + (f", then \"{stopped[t]}\"" if t in stopped else ""))
            # A never-run task that starts at its entry function with a
            # return address of 0 (FreeRTOS's first context): sfu ends
            # there, the zero return address at its stack's top; gdb shows
            # that 0 as one more frame (aarch64: at the same SP, then
            # "previous frame identical"; x86_64: at the CFA) and stops.
            if (len(g) == n + 1 and n >= 1 and g[n][0] == 0 and g[n][1] >= record[t][n - 1][1]
                    and (t not in stopped or "previous frame identical" in stopped[t])):
                g = g[:n]
                stopped.pop(t, None)
            if len(g) != n or t in stopped:
                print(f"FAIL thread {t}: gdb shows {len(g)} frames"
                      + (f" and \"{stopped[t]}\"" if t in stopped else "") + f" where sfu's complete trace has {n}")
                return 1
            want = n
        else:
            want = min(n, whole[t] + 1)
            past = len(g) - want
            print(f"# thread {t}: sfu {n} frames, window holds {whole[t]} ({cut[t]}), gdb {len(g)} frames"
                  + (f" ({past} past sfu's stop)" if past > 0 else "")
                  + (f", then \"{stopped[t]}\"" if t in stopped else ""))
            # Fewer only where gdb itself judged the stack corrupt (a frame
            # record that points at itself: sfu takes one more step
            # before its own check stops it).
            if len(g) < want and not (len(g) >= 1 and t in stopped and "corrupt stack" in stopped[t]):
                print(f"FAIL thread {t}: gdb shows {len(g)} frames, the record says {want}")
                return 1
            want = min(want, len(g))
        for k, (a, b) in enumerate(zip(g[:want], record[t])):
            if a != b:
                print(f"FAIL thread {t} frame {k}: gdb pc {a[0]:#x} sp {a[1]:#x}, sfu pc {b[0]:#x} sp {b[1]:#x}")
                return 1
        total += want
        if gregs:
            have = gregs.get(t, {})
            bad = [f"{k}={v:#x} (gdb {have.get(k, 'none')})" for k, v in regs.get(t, {}).items()
                   if k in have and have[k] != v]
            if bad or not regs.get(t):
                print(f"FAIL thread {t}: registers in gdb are not the record's: {' '.join(bad) or 'none known'}")
                return 1
            print(f"# thread {t}: {len(regs[t])} registers the record knows, as gdb shows them")
    print(f"ok {len(sfu)} {total}")
    return 0


sys.exit(main())
