// SPDX-License-Identifier: GPL-2.0
/*
 * The trace's compact encoding (trace/pb_stream.c) read back with
 * protobuf-c and decoded by the rules Perfetto's reader applies: deltas on
 * the incremental clock of the first packet's snapshot, an earlier time
 * absolute on CLOCK_MONOTONIC without moving the deltas' base, the
 * sequence's default track and extra counter tracks, interned string
 * values sent once. The workloads' traces never go back in time, so the
 * absolute fallback is tested here. The events are written field by
 * field (trace/pb_wire.h), not by protobuf-c: every packet must be the
 * bytes protobuf-c packs from what it reads back, so the hand-written
 * encoder is checked by the library (field numbers, wire types, order,
 * negative and long values). Prints "ok" and exits 0, or the first
 * disagreement and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pb_stream.h"
#include "uringcheck_perfetto.pb-c.h"

#define T_BEGIN		PB_SLICE_BEGIN
#define T_END		PB_SLICE_END
#define T_INSTANT	PB_INSTANT
#define T_COUNTER	PB_COUNTER

static int fails;

#define CHECK(c, ...) do { if (!(c)) { printf("FAIL %s:%d: ", __FILE__, __LINE__); \
	printf(__VA_ARGS__); printf("\n"); fails++; } } while (0)

static uint64_t varint(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;

	for (int sh = 0; *p < end && sh < 64; sh += 7) {
		uint8_t b = *(*p)++;

		v |= (uint64_t)(b & 0x7f) << sh;
		if (!(b & 0x80))
			break;
	}
	return v;
}

/* Every packet of the file (@len bytes) against protobuf-c's packing of
 * what it reads back: the same bytes. Returns the packets seen. */
static int packets_as_protobuf_c_packs(const uint8_t *buf, long len)
{
	const uint8_t *p = buf, *end = buf + len;
	int n = 0;

	while (p < end) {
		uint64_t tag = varint(&p, end), plen = varint(&p, end);
		Perfetto__Protos__TracePacket *pk;
		uint8_t again[8192];
		size_t alen;

		CHECK(tag == 0x0a && plen <= (uint64_t)(end - p),
		      "packet %d: tag 0x%llx, %llu bytes", n, (unsigned long long)tag,
		      (unsigned long long)plen);
		if (tag != 0x0a || plen > (uint64_t)(end - p))
			return n;
		pk = perfetto__protos__trace_packet__unpack(NULL, plen, p);
		CHECK(pk, "packet %d does not decode", n);
		if (pk) {
			alen = perfetto__protos__trace_packet__get_packed_size(pk);
			CHECK(alen == plen && alen <= sizeof(again) &&
			      (perfetto__protos__trace_packet__pack(pk, again),
			       !memcmp(again, p, plen)),
			      "packet %d: %llu bytes written, protobuf-c packs %zu others", n,
			      (unsigned long long)plen, alen);
			perfetto__protos__trace_packet__free_unpacked(pk, NULL);
		}
		p += plen;
		n++;
	}
	return n;
}

int main(void)
{
	static const uint64_t counters[3] = { 1, 2, 3 };
	char path[] = "/tmp/test_pb_stream.XXXXXX";
	struct pb_stream s;
	struct timespec now;
	uint64_t t0, want[4], clock = 0;
	Perfetto__Protos__Trace *tr;
	Perfetto__Protos__TracePacket *p;
	uint8_t *buf;
	long len;
	FILE *f;
	int fd = mkstemp(path);

	if (fd < 0)
		return perror("mkstemp"), 1;
	close(fd);
	clock_gettime(CLOCK_MONOTONIC, &now);
	t0 = now.tv_sec * 1000000000ull + now.tv_nsec + 1000000000ull;
	want[0] = t0 + 100;
	want[1] = t0 + 300;
	want[2] = t0 + 200;	/* earlier than the packet before it */
	want[3] = t0 + 400;
	if (pb_open(&s, path, 5, counters, 3))
		return perror("pb_open"), 1;
	pb_event_begin(&s, T_BEGIN, 5, "A");		/* the default track */
	pb_annot_hex(&s, "user_data", 0x10);
	pb_extra_counter(&s, 1, 7);			/* the default counters */
	pb_extra_counter(&s, 2, 8);
	pb_extra_counter(&s, 3, 9);
	pb_event_emit(&s, want[0]);
	pb_event_begin(&s, T_INSTANT, 9, "B");
	pb_annot_hex(&s, "user_data", 0x10);		/* interned: no new string */
	pb_annot_istr(&s, "path", "inline");
	pb_event_emit(&s, want[1]);
	pb_event_begin(&s, T_END, 5, NULL);
	pb_event_emit(&s, want[2]);
	pb_event_begin(&s, T_INSTANT, 9, "B");
	pb_extra_counter(&s, 2, 1);			/* not the defaults' order */
	pb_annot_istr(&s, "path", "inline");
	pb_event_emit(&s, want[3]);
	/* the rest of what the timeline writes: each kind of value and
	 * field, negative and 10-byte numbers, a report longer than a packet
	 * on the stack, more annotations than an event keeps */
	pb_event_begin(&s, T_BEGIN, 300, "READ");
	pb_annot_int(&s, "fd", -1);
	pb_annot_int(&s, "res", INT64_MIN);
	pb_annot_uint(&s, "offset", UINT64_MAX);
	pb_annot_hex(&s, "sqe_flags", 0);
	pb_flow(&s, 0x0102030405060708ull, false);
	pb_flow(&s, 1, true);
	pb_flow(&s, 2, true);
	pb_event_emit(&s, want[3] + 1);
	pb_event_begin(&s, T_COUNTER, 4, NULL);
	pb_counter(&s, -5);
	pb_event_emit(&s, want[3] + 2);
	pb_event_begin(&s, T_COUNTER, 4, NULL);
	pb_counter(&s, 0);
	pb_extra_counter(&s, 1, 3);
	pb_extra_counter(&s, 2, -3);
	pb_event_emit(&s, want[3] + 200);
	{
		char report[3000];

		memset(report, 'r', sizeof(report) - 1);
		report[sizeof(report) - 1] = 0;
		pb_event_begin(&s, T_INSTANT, 9, "uringcheck: overlap");
		pb_annot_str(&s, "report", report);
		pb_event_emit(&s, want[3] - 50);	/* absolute */
	}
	pb_event_begin(&s, T_INSTANT, 9, "many");
	for (uint64_t i = 0; i < PB_MAX_ANNOTS + 3; i++)
		pb_annot_uint(&s, "n", i);
	pb_event_emit(&s, want[3] + 300);
	{
		static const uint64_t uds[3] = { 0x10, 0xabc, 0x10 }, idx[2] = { 7, 300 };

		pb_event_begin(&s, T_INSTANT, 9, "CQEs consumed");
		pb_annot_hex_array(&s, "user_data", uds, 3);
		pb_annot_uint_array(&s, "cq_indexes", idx, 2);
		pb_event_emit(&s, want[3] + 400);
	}
	if (pb_close(&s))
		return perror("pb_close"), 1;

	f = fopen(path, "rb");
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = malloc(len);
	if (fread(buf, 1, len, f) != (size_t)len)
		return perror("fread"), 1;
	fclose(f);
	unlink(path);
	CHECK(packets_as_protobuf_c_packs(buf, len) == 11, "not 11 packets");
	tr = perfetto__protos__trace__unpack(NULL, len, buf);
	CHECK(tr && tr->n_packet == 11, "%zu packets, want 11", tr ? tr->n_packet : 0);
	if (!tr || tr->n_packet != 11)
		return 1;

	/* the first packet: state cleared, the clocks, the defaults */
	p = tr->packet[0];
	CHECK(p->sequence_flags == 1, "first packet's flags %u", p->sequence_flags);
	CHECK(p->clock_snapshot && p->clock_snapshot->n_clocks == 3, "no snapshot of 3 clocks");
	for (size_t i = 0; p->clock_snapshot && i < p->clock_snapshot->n_clocks; i++) {
		Perfetto__Protos__ClockSnapshot__Clock *c = p->clock_snapshot->clocks[i];

		if (c->clock_id == 64) {
			CHECK(c->is_incremental, "clock 64 not incremental");
			clock = c->timestamp;
		}
	}
	CHECK(clock && clock < want[0], "clock 64 starts at %llu", (unsigned long long)clock);
	CHECK(p->trace_packet_defaults && p->trace_packet_defaults->timestamp_clock_id == 64,
	      "the default clock is not 64");
	CHECK(p->trace_packet_defaults && p->trace_packet_defaults->track_event_defaults &&
	      p->trace_packet_defaults->track_event_defaults->track_uuid == 5 &&
	      p->trace_packet_defaults->track_event_defaults->n_extra_counter_track_uuids == 3,
	      "the track defaults are not 5 and 1, 2, 3");

	/* the times as a reader computes them */
	for (int i = 0; i < 4; i++) {
		uint64_t ts;

		p = tr->packet[i + 1];
		CHECK(p->trusted_packet_sequence_id == 1 && p->sequence_flags == 2,
		      "event %d: sequence %u flags %u", i, p->trusted_packet_sequence_id,
		      p->sequence_flags);
		if (p->has_timestamp_clock_id) {
			CHECK(p->timestamp_clock_id == 3, "event %d: clock %u", i,
			      p->timestamp_clock_id);
			ts = p->timestamp;
		} else {
			clock += p->timestamp;
			ts = clock;
		}
		CHECK(ts == want[i], "event %d at %llu, want %llu", i, (unsigned long long)ts,
		      (unsigned long long)want[i]);
		CHECK(p->has_timestamp_clock_id == (i == 2), "event %d: absolute %d", i,
		      p->has_timestamp_clock_id);
	}

	/* defaults left out, strings interned once */
	p = tr->packet[1];
	CHECK(!p->track_event->has_track_uuid, "the default track was written");
	CHECK(p->track_event->n_extra_counter_values == 3 &&
	      !p->track_event->n_extra_counter_track_uuids,
	      "the default counters: %zu values, %zu uuids",
	      p->track_event->n_extra_counter_values,
	      p->track_event->n_extra_counter_track_uuids);
	CHECK(p->interned_data && p->interned_data->n_debug_annotation_string_values == 1 &&
	      !strncmp((char *)p->interned_data->debug_annotation_string_values[0]->str.data,
		       "0x10", 4), "0x10 not interned with its first use");
	CHECK(p->track_event->debug_annotations[0]->has_string_value_iid &&
	      !p->track_event->debug_annotations[0]->string_value, "user_data sent inline");
	p = tr->packet[2];
	CHECK(p->track_event->has_track_uuid && p->track_event->track_uuid == 9,
	      "track 9 left out");
	CHECK(p->track_event->debug_annotations[0]->string_value_iid ==
	      tr->packet[1]->track_event->debug_annotations[0]->string_value_iid,
	      "0x10 interned twice");
	CHECK(p->interned_data && p->interned_data->n_debug_annotation_string_values == 1,
	      "only \"inline\" is new on the second event");
	p = tr->packet[4];
	CHECK(p->track_event->n_extra_counter_track_uuids == 1 &&
	      p->track_event->extra_counter_track_uuids[0] == 2,
	      "a counter off the defaults' order lost its uuid");
	CHECK(!p->interned_data, "\"inline\" sent again");

	/* values as written */
	p = tr->packet[5];
	CHECK(p->track_event->n_debug_annotations == 4 &&
	      p->track_event->debug_annotations[0]->int_value == -1 &&
	      p->track_event->debug_annotations[1]->int_value == INT64_MIN &&
	      p->track_event->debug_annotations[2]->uint_value == UINT64_MAX,
	      "fd -1, res INT64_MIN, offset UINT64_MAX not read back");
	CHECK(p->track_event->n_flow_ids == 1 &&
	      p->track_event->flow_ids[0] == 0x0102030405060708ull &&
	      p->track_event->n_terminating_flow_ids == 2 &&
	      p->track_event->terminating_flow_ids[1] == 2, "flows not read back");
	CHECK(p->track_event->track_uuid == 300 && p->interned_data &&
	      p->interned_data->n_event_names == 1 &&
	      !strcmp(p->interned_data->event_names[0]->name, "READ"), "READ not interned");
	p = tr->packet[6];
	CHECK(p->track_event->has_counter_value && p->track_event->counter_value == -5,
	      "counter -5 not read back");
	p = tr->packet[7];
	CHECK(p->track_event->n_extra_counter_values == 2 &&
	      p->track_event->extra_counter_values[1] == -3 &&
	      !p->track_event->n_extra_counter_track_uuids,
	      "the defaults' first two counters kept their uuids");
	p = tr->packet[8];
	CHECK(p->has_timestamp_clock_id && p->timestamp == want[3] - 50 &&
	      p->track_event->n_debug_annotations == 1 &&
	      strlen(p->track_event->debug_annotations[0]->string_value) == 2999,
	      "the long report not read back at its absolute time");
	p = tr->packet[9];
	CHECK(p->track_event->n_debug_annotations == PB_MAX_ANNOTS &&
	      p->track_event->debug_annotations[PB_MAX_ANNOTS - 1]->uint_value ==
	      PB_MAX_ANNOTS - 1, "%zu annotations kept, want the first %d",
	      p->track_event->n_debug_annotations, PB_MAX_ANNOTS);
	CHECK(!p->has_timestamp_clock_id && p->timestamp == 100,
	      "the deltas' base moved by the absolute packet (delta %llu)",
	      (unsigned long long)p->timestamp);

	/* arrays: hex values interned (0x10 from the first event, 0xabc new
	 * here, once), numbers as they are */
	p = tr->packet[10];
	{
		Perfetto__Protos__DebugAnnotation *u = p->track_event->debug_annotations[0],
			*c = p->track_event->debug_annotations[1];
		uint64_t iid10 = tr->packet[1]->track_event->debug_annotations[0]->string_value_iid;

		CHECK(p->track_event->n_debug_annotations == 2 && u->n_array_values == 3 &&
		      c->n_array_values == 2, "arrays of 3 and 2 not read back");
		CHECK(u->n_array_values == 3 && u->array_values[0]->string_value_iid == iid10 &&
		      u->array_values[2]->string_value_iid == iid10 &&
		      u->array_values[1]->string_value_iid != iid10,
		      "the user_data array's iids");
		CHECK(p->interned_data && p->interned_data->n_debug_annotation_string_values == 1 &&
		      p->interned_data->debug_annotation_string_values[0]->str.len == 5 &&
		      !memcmp(p->interned_data->debug_annotation_string_values[0]->str.data,
			      "0xabc", 5) &&
		      p->interned_data->debug_annotation_string_values[0]->iid ==
		      u->array_values[1]->string_value_iid, "0xabc not interned once");
		CHECK(c->n_array_values == 2 && c->array_values[1]->uint_value == 300,
		      "cq_indexes not read back");
	}

	perfetto__protos__trace__free_unpacked(tr, NULL);
	free(buf);
	if (fails)
		return 1;
	printf("ok\n");
	return 0;
}
