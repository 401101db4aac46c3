#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# results.tsv of testsuite/liburing/run.sh as a Markdown table (for
# docs/liburing.md):  table.py RESULTS.tsv [changed]
import sys

rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
only_changed = len(sys.argv) > 2 and sys.argv[2] == "changed"
print("| test | plain | wrapped | findings (kind:count, repeats included) | plain s | wrapped s | ratio |")
print("|------|-------|---------|------------------------------------------|--------:|----------:|------:|")
for name, sp, sw, tp, tw, ratio, kinds, verdict in rows:
    if only_changed and verdict == "ok":
        continue
    mark = " **changed**" if verdict != "ok" else ""
    print("| %s | %s | %s%s | %s | %.2f | %.2f | %.1f |" % (
        name, sp, sw, mark, kinds.replace("|", "/"), float(tp), float(tw), float(ratio)))
