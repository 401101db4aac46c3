#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# validate.py TRACE PB2_DIR [workload|paths]
#
# Checks a --trace file without a browser: it parses as a Perfetto Trace
# (through Python classes protoc generated from trace/uringcheck_perfetto.proto
# into PB2_DIR), and its structure holds: interned names and tracks are
# defined before use, slices nest on every track, every flow that begins
# ends. With a workload name, the requests of that known program appear
# with the right paths (testsuite/trace/workload.c, testsuite/profile/paths.c).
# Prints what it found; exits 1 with the first broken rule.
import sys
from collections import Counter, defaultdict

sys.path.insert(0, sys.argv[2])
import uringcheck_perfetto_pb2 as pb  # noqa: E402

BEGIN, END, INSTANT, COUNTER = 1, 2, 3, 4


def fail(msg):
    print("validate: " + msg)
    sys.exit(1)


trace = pb.Trace()
trace.ParseFromString(open(sys.argv[1], "rb").read())
names, anames, tracks = {}, {}, {}
stacks = defaultdict(list)          # track -> open slices [(name, annotations)]
flows_open, flows_ended = set(), set()
slices = []                          # (track name, slice name, begin annots, end annots)
instants = []                        # (track name, name, annots)
first = True

for p in trace.packet:
    if first:
        if p.sequence_flags != 1:
            fail("the first packet does not clear the sequence's state")
        first = False
    for n in p.interned_data.event_names:
        names[n.iid] = n.name
    for n in p.interned_data.debug_annotation_names:
        anames[n.iid] = n.name
    if p.HasField("track_descriptor"):
        d = p.track_descriptor
        if d.HasField("parent_uuid") and d.parent_uuid not in tracks:
            fail("track %d names an undefined parent %d" % (d.uuid, d.parent_uuid))
        tracks[d.uuid] = d.name or d.thread.thread_name or d.process.process_name
    if not p.HasField("track_event"):
        continue
    e = p.track_event
    if p.sequence_flags != 2:
        fail("an event packet does not declare it needs the interned state")
    if e.track_uuid not in tracks:
        fail("event on undefined track %d" % e.track_uuid)
    if e.HasField("name_iid") and e.name_iid not in names:
        fail("event name iid %d not interned" % e.name_iid)
    ann = {}
    for a in e.debug_annotations:
        if a.name_iid not in anames:
            fail("annotation name iid %d not interned" % a.name_iid)
        for f in ("uint_value", "int_value", "string_value"):
            if a.HasField(f):
                ann[anames[a.name_iid]] = getattr(a, f)
    for f in e.flow_ids:
        if f in flows_ended:
            fail("flow %d continues after it ended" % f)
        flows_open.add(f)
    for f in e.terminating_flow_ids:
        if f not in flows_open:
            fail("flow %d ends without a beginning" % f)
        flows_ended.add(f)
    name = names.get(e.name_iid, "")
    tname = tracks[e.track_uuid]
    if e.type == BEGIN:
        stacks[e.track_uuid].append((name, ann))
    elif e.type == END:
        if not stacks[e.track_uuid]:
            fail("slice end without a begin on track %s" % tname)
        bname, bann = stacks[e.track_uuid].pop()
        slices.append((tname, bname, bann, ann))
    elif e.type == INSTANT:
        instants.append((tname, name, ann))

for t, s in stacks.items():
    if s:
        fail("%d slices left open on track %s" % (len(s), tracks[t]))
if flows_open - flows_ended:
    fail("%d flows never end" % len(flows_open - flows_ended))

reqs = [(s[1], s[3]) for s in slices if s[0].startswith("requests ")]
paths = Counter((n.replace(" (next CQE)", ""), a.get("path")) for n, a in reqs)
inst = Counter(n for _, n, _ in instants)
print("packets %d, tracks %d, request slices %d, flows %d, paths %s, instants %s" %
      (len(trace.packet), len(tracks), len(reqs), len(flows_ended), dict(paths), dict(inst)))

mode = sys.argv[3] if len(sys.argv) > 3 else ""
if mode == "workload":
    want = {("NOP", "inline"): 4, ("READ", "poll-armed"): 1, ("FSYNC", "punted"): 1,
            ("RECV", "poll-armed"): 4}
    for k, n in want.items():
        if paths[k] < n:
            fail("expected %d %s %s slices, found %d" % (n, k[0], k[1], paths[k]))
    if inst["link chain"] != 5:
        fail("expected 5 link chain members, found %d" % inst["link chain"])
    if inst["poll armed"] < 1 or inst["punted to io-wq"] < 1:
        fail("no poll-armed or punted instant")
    if not any(n.startswith("ran ") for _, n, _ in instants):
        fail("no request shown on a worker track")
    recv = [a for n, a in reqs if n.startswith("RECV")]
    if sum(1 for a in recv if a.get("res") == 3) != 3:
        fail("the multishot recv does not have one slice per message")
    if not any(n == "io_uring_enter" for _, n, _, _ in slices):
        fail("no io_uring_enter slice")
    if inst["CQE consumed"] < 5:
        fail("CQE consumption not shown")
elif mode == "paths":
    if paths[("NOP", "inline")] != 100 or paths[("NOP", "punted")] != 10 or \
       paths[("FSYNC", "punted")] != 10 or paths[("READ", "poll-armed")] != 10:
        fail("paths.c's requests not on their paths: %s" % dict(paths))
print("validate: ok")
