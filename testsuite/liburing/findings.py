#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Summarizes one uringcheck --json file for testsuite/liburing/run.sh.
#
#   findings.py FILE.json TESTDIR
#
# Line 1: the findings by kind, repeats included, "kind:N ...", with the
#         suppressed ones as "supp:kind:N" and lossy counters as "!name:N";
#         "-" when there is nothing.
# Line 2: the kinds with an error-severity finding (space-separated), or "-".
# Then one line per unique overlap / munmap-inflight / bufreg-lifetime
# finding: "KIND<TAB>HEADLINE<TAB>SITE1<TAB>SITE2", each site the innermost
# frame in the test's own sources (TESTDIR/*.c), else the innermost frame
# with a file.
import json
import os
import sys

HAZARDS = ("overlap", "munmap-inflight", "bufreg-lifetime")
LOSSY = ("events_lost", "requests_untracked", "rings_untracked",
         "processes_unfollowed", "teardown_records_lost", "ranges_lost")


def site(stack, own):
    frames = stack.get("frames") or []
    if not frames:
        return "(no stack: %s)" % stack.get("no_stack", "?")
    best = None
    for f in frames:
        fn = f.get("file")
        if not fn:
            continue
        if os.path.basename(fn) in own:
            best = f
            break
        if best is None:
            best = f
    if best is None:
        best = frames[0]
        return "%s+%s" % (best.get("module"), best.get("module_offset"))
    return "%s:%s (%s)" % (os.path.basename(best["file"]), best.get("line", 0),
                           best.get("function") or "?")


def main():
    path, testdir = sys.argv[1], sys.argv[2]
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError):
        print("no-json")
        print("-")
        return
    own = {n for n in os.listdir(testdir) if n.endswith(".c")}
    summ = doc.get("summary", {})
    parts = ["%s:%d" % (k, v) for k, v in summ.get("findings", {}).items() if v]
    parts += ["supp:%s:%d" % (k, v) for k, v in summ.get("suppressed", {}).items() if v]
    parts += ["!%s:%d" % (k, v) for k, v in summ.get("counters", {}).items()
              if k in LOSSY and v]
    print(" ".join(parts) or "-")
    errs = sorted({f["kind"] for f in doc.get("findings", [])
                   if f.get("severity") == "error"})
    print(" ".join(errs) or "-")
    for f in doc.get("findings", []):
        if f["kind"] not in HAZARDS:
            continue
        stacks = f.get("stacks", [])
        # the call or the later request, then the (other) request it hit
        second = next((s for s in stacks[1:] if "request" in s.get("role", "")),
                      stacks[1] if len(stacks) > 1 else None)
        sites = [site(stacks[0], own) if stacks else "-",
                 site(second, own) if second else "-"]
        print("\t".join([f["kind"], f.get("headline", ""), sites[0], sites[1]]))


main()
