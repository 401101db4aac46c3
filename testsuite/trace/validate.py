#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# validate.py TRACE PB2_DIR [workload|paths|""] [EVENTS.csv]
#
# Checks a --trace file without a browser: it parses as a Perfetto Trace
# (through Python classes protoc generated from trace/uringcheck_perfetto.proto
# into PB2_DIR), and its structure holds: interned names and tracks are
# defined before use, slices nest on every track, every flow that begins
# ends. It decodes the compact encoding as Perfetto's reader does:
# timestamps as deltas on the incremental clock of the first packet's
# snapshot, the sequence's default track and extra counter tracks,
# interned names and string values, counter values carried by other
# events. With a workload name, the requests of that known program appear
# with the right paths (testsuite/trace/workload.c, testsuite/profile/paths.c).
# With the --events CSV of the same run (the same records, written without
# any of that encoding), every submission, completion and io_uring_enter
# there must decode from the trace at the same nanosecond with the same
# values. Prints what it found; exits 1 with the first broken rule.
import sys
from collections import Counter, defaultdict

sys.path.insert(0, sys.argv[2])
import uringcheck_perfetto_pb2 as pb  # noqa: E402

BEGIN, END, INSTANT, COUNTER = 1, 2, 3, 4


def fail(msg):
    print("validate: " + msg)
    sys.exit(1)


MONOTONIC, DELTAS = 3, 64

trace = pb.Trace()
trace.ParseFromString(open(sys.argv[1], "rb").read())
names, anames, strings, tracks = {}, {}, {}, {}
stacks = defaultdict(list)          # track -> open slices [(name, annotations)]
flows_open, flows_ended = set(), set()


def value(a):
    """An annotation's (or an array element's) value, interned strings
    looked up."""
    for f in ("uint_value", "int_value", "string_value"):
        if a.HasField(f):
            return getattr(a, f)
    if a.HasField("string_value_iid"):
        if a.string_value_iid not in strings:
            fail("string value iid %d not interned" % a.string_value_iid)
        return strings.get(a.string_value_iid)
    return None


slices = []                          # (track name, slice name, begin annots, end annots)
instants = []                        # (track name, name, annots)
events = []                          # (ts, track name, type, name, annots)
counters = defaultdict(list)         # track name -> [(ts, value)]
first = True
clock, default_clock, default_track, default_counters = None, None, None, []

for p in trace.packet:
    if first:
        if p.sequence_flags != 1:
            fail("the first packet does not clear the sequence's state")
        snap = {c.clock_id: c for c in p.clock_snapshot.clocks}
        if DELTAS not in snap or not snap[DELTAS].is_incremental or MONOTONIC not in snap:
            fail("the first packet does not declare the incremental clock")
        if snap[DELTAS].timestamp != snap[MONOTONIC].timestamp:
            fail("the incremental clock does not start on CLOCK_MONOTONIC")
        clock = snap[DELTAS].timestamp
        d = p.trace_packet_defaults
        default_clock = d.timestamp_clock_id
        if default_clock != DELTAS:
            fail("timestamps are not deltas by default")
        if d.track_event_defaults.HasField("track_uuid"):
            default_track = d.track_event_defaults.track_uuid
        default_counters = list(d.track_event_defaults.extra_counter_track_uuids)
        first = False
    elif p.HasField("clock_snapshot") or p.HasField("trace_packet_defaults"):
        fail("clock or defaults changed after the first packet")
    if p.trusted_packet_sequence_id != 1:
        fail("a packet off the sequence (id %d)" % p.trusted_packet_sequence_id)
    for n in p.interned_data.event_names:
        names[n.iid] = n.name
    for n in p.interned_data.debug_annotation_names:
        anames[n.iid] = n.name
    for n in p.interned_data.debug_annotation_string_values:
        if n.iid in strings:
            fail("string value iid %d interned twice" % n.iid)
        strings[n.iid] = n.str.decode()
    ts = None
    if p.HasField("timestamp"):
        if p.HasField("timestamp_clock_id"):
            if p.timestamp_clock_id != MONOTONIC:
                fail("a timestamp on clock %d" % p.timestamp_clock_id)
            ts = p.timestamp            # absolute, the deltas' base unchanged
        else:
            clock += p.timestamp
            ts = clock
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
    if ts is None:
        fail("an event without a timestamp")
    track = e.track_uuid if e.HasField("track_uuid") else default_track
    if track not in tracks:
        fail("event on undefined track %s" % track)
    if e.HasField("name_iid") and e.name_iid not in names:
        fail("event name iid %d not interned" % e.name_iid)
    ann = {}
    for a in e.debug_annotations:
        if a.name_iid not in anames:
            fail("annotation name iid %d not interned" % a.name_iid)
        if a.array_values:
            ann[anames[a.name_iid]] = [value(v) for v in a.array_values]
        else:
            ann[anames[a.name_iid]] = value(a)
    cuuids = list(e.extra_counter_track_uuids) or default_counters
    if len(cuuids) < len(e.extra_counter_values):
        fail("more extra counter values than counter tracks")
    for u, v in zip(cuuids, e.extra_counter_values):
        if u not in tracks:
            fail("counter value for undefined track %d" % u)
        counters[tracks[u]].append((ts, v))
    if e.type == COUNTER:
        counters[tracks[track]].append((ts, e.counter_value))
    for f in e.flow_ids:
        if f in flows_ended:
            fail("flow %d continues after it ended" % f)
        flows_open.add(f)
    for f in e.terminating_flow_ids:
        if f not in flows_open:
            fail("flow %d ends without a beginning" % f)
        flows_ended.add(f)
    name = names.get(e.name_iid, "")
    tname = tracks[track]
    events.append((ts, tname, e.type, name, ann))
    if e.type == BEGIN:
        stacks[track].append((name, ann))
    elif e.type == END:
        if not stacks[track]:
            fail("slice end without a begin on track %s" % tname)
        bname, bann = stacks[track].pop()
        slices.append((tname, bname, bann, ann))
    elif e.type == INSTANT:
        instants.append((tname, name, ann))

for t, s in stacks.items():
    if s:
        fail("%d slices left open on track %s" % (len(s), tracks[t]))
if flows_open - flows_ended:
    fail("%d flows never end" % len(flows_open - flows_ended))

# one instant per system call for the CQEs it saw consumed: the first CQ
# index (every index if not in a row) and each user_data
consumed = 0
for tname, name, a in instants:
    if name != "CQEs consumed":
        continue
    uds = a.get("user_data", [])
    if not isinstance(uds, list) or not uds or \
       not all(isinstance(u, str) and u.startswith("0x") for u in uds):
        fail("CQEs consumed: user_data %s" % uds)
    idx = a.get("cq_indexes", [a.get("cq_index", 0) + i for i in range(len(uds))])
    if len(idx) != len(uds) or idx[0] != a.get("cq_index"):
        fail("CQEs consumed: cq_index %s, cq_indexes %s" % (a.get("cq_index"), idx))
    consumed += len(uds)

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
    if consumed < 5:
        fail("CQE consumption not shown")
elif mode == "paths":
    if paths[("NOP", "inline")] != 100 or paths[("NOP", "punted")] != 10 or \
       paths[("FSYNC", "punted")] != 10 or paths[("READ", "poll-armed")] != 10:
        fail("paths.c's requests not on their paths: %s" % dict(paths))
    # a flow for each request that left the inline path (30), none for
    # an inline one: it would join its slice to itself
    if len(flows_ended) != 30:
        fail("%d flows, want one for each of the 30 poll-armed or punted requests" %
             len(flows_ended))
if len(sys.argv) > 4:
    # the same run's CSV: every row below decodes from the trace, exactly
    import csv
    rows = list(csv.DictReader(open(sys.argv[4], newline="")))
    at = defaultdict(list)
    for ts, tname, typ, name, ann in events:
        at[ts].append((tname, typ, name, ann))
    cat = {k: dict(v) for k, v in counters.items()}
    checked = Counter()

    def find(row, typ, pred, what):
        for ev in at.get(int(row["timestamp_ns"]), []):
            if ev[1] == typ and pred(ev[0], ev[2], ev[3]):
                checked[what] += 1
                return ev
        fail("%s at %s not in the trace as written: %s" % (what, row["timestamp_ns"], row))

    def same(ann, key, col, conv=int):
        return col == "" or ann.get(key, 0 if conv is int else "") == conv(col)

    for r in rows:
        t = r["event_type"]
        if t == "SUBMIT":
            find(r, BEGIN, lambda tn, n, a: tn.startswith("requests ") and n == r["opcode"] and
                 a.get("user_data") == hex(int(r["user_data"])) and same(a, "fd", r["fd"]) and
                 same(a, "len", r["len"]) and same(a, "offset", r["offset"]), "submit")
        elif t == "COMPLETE" and r["req_ptr"] and r["latency_ns"]:
            find(r, END, lambda tn, n, a: tn.startswith("requests ") and
                 a.get("res") == int(r["result"]) and
                 a.get("latency_ns") == int(r["latency_ns"]), "completion")
        elif t == "ENTER":
            find(r, BEGIN, lambda tn, n, a: n == "io_uring_enter" and
                 a.get("to_submit") == int(r["to_submit"]) and
                 a.get("min_complete") == int(r["min_complete"]), "io_uring_enter")
            ring = [k for k in cat if k.endswith(": in flight")]
            if r["sq_depth"] and len(ring) == 1:
                base = ring[0][:-len(": in flight")]
                ts = int(r["timestamp_ns"])
                for track, col in (("SQ depth", "sq_depth"), ("CQ depth", "cq_depth")):
                    got = cat.get(track, {}).get(ts)
                    if got != int(r[col]):
                        fail("%s at %d: %s, the events say %s" % (track, ts, got, r[col]))
                    checked["%s (%s)" % (track, base)] += 1
    if not checked["submit"]:
        fail("no submission to compare")
    print("matches the event file: %s" % dict(checked))
print("validate: ok")
