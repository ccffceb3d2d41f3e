#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""measurements.py PART TABLE [DOC] - put a table of make bench or make size
into docs/measurements.md (or another page: make size's README block).

PART is bench or size; TABLE the table the part's report printed
(build/bench/table.txt, build/size/table.txt, or build/size/readme.md, a
Markdown block); DOC the page (default docs/measurements.md).  The part's
block, between the lines "<!-- PART: begin -->" and "<!-- PART: end -->", is
replaced by the table (a .md TABLE as it is, any other in a text fence) and
a line saying when, on what and by what command it was measured; the rest
of the page (what is measured, how to read it) is left as it is.  Left out of
a text table: the development paragraphs (the targets: "figures (...)",
"targets (...)"; where each byte goes: "where ...") and the
one-line-per-figure summary.  So the figures in a page are always the last
run's, never copied by hand.

make size publishes its figures beside those of a named baseline commit
(SIZE_BASE_REV), measured in the same run.  A bench table that compares
with a baseline commit (BENCH_BASE_REV) is a development note, not the
user's page: it is refused (exit 1), and the page keeps its block.
"""
import datetime
import os
import platform
import re
import subprocess
import sys


def machine():
    cpu = platform.machine()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        gcc = subprocess.run(["gcc", "-dumpfullversion"], capture_output=True, text=True).stdout.strip()
    except OSError:
        gcc = "?"
    return f"{cpu}, {os.cpu_count()} cores, Linux {platform.release()}, host gcc {gcc}"


def user_part(text):
    """The table without what serves the project's own work: the paragraphs
    of development targets ("figures (...)", "targets (...)") and of where
    each byte goes ("where ...") and the one-line-per-figure summary scripts
    read ("size: ...", "stack: ...", "bench: ...")."""
    paras = re.split(r"\n\s*\n", text.strip("\n"))
    keep = []
    for p in paras:
        if p.startswith(("figures (", "targets (", "where ")):
            continue
        p = "\n".join(l for l in p.split("\n") if not re.match(r"(size|stack|bench): ", l))
        if p.strip():
            keep.append(p)
    return "\n\n".join(keep)


def main():
    if len(sys.argv) not in (3, 4) or sys.argv[1] not in ("bench", "size"):
        sys.exit("usage: measurements.py bench|size TABLE [DOC]")
    part, table = sys.argv[1], sys.argv[2]
    doc = sys.argv[3] if len(sys.argv) == 4 else "docs/measurements.md"
    markdown = table.endswith(".md")
    text = open(table).read().strip("\n") if markdown else user_part(open(table).read())
    if part == "bench" and re.search(r"\b(base|baseline|today = )\b.*\b[0-9a-f]{7,40}\b|@[0-9a-f]{7,40}\b", text):
        print(f"measurements.py: {table} compares with a baseline commit; {doc} not rewritten "
              f"(make bench with BENCH_BASE_REV= writes it)", file=sys.stderr)
        sys.exit(1)
    page = open(doc).read()
    begin, end = f"<!-- {part}: begin -->", f"<!-- {part}: end -->"
    if page.count(begin) != 1 or page.count(end) != 1 or page.index(begin) > page.index(end):
        sys.exit(f"measurements.py: {doc} has no single {begin} ... {end} block")
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    body = text if markdown else f"```text\n{text}\n```"
    block = f"{begin}\nMeasured by `make {part}` on {when}: {machine()}.\n\n{body}\n{end}"
    a, b = page.index(begin), page.index(end) + len(end)
    new = page[:a] + block + page[b:]
    tmp = doc + ".tmp"
    open(tmp, "w").write(new)
    os.replace(tmp, doc)
    print(f"measurements.py: {doc}: the {part} block rewritten")


main()
