// SPDX-License-Identifier: GPL-2.0
/*
 * The trace's compact encoding (trace/pb_stream.c) read back with
 * protobuf-c and decoded by the rules Perfetto's reader applies: deltas on
 * the incremental clock of the first packet's snapshot, an earlier time
 * absolute on CLOCK_MONOTONIC without moving the deltas' base, the
 * sequence's default track and extra counter tracks, interned string
 * values sent once. The workloads' traces never go back in time, so the
 * absolute fallback is tested here. Prints "ok" and exits 0, or the first
 * disagreement and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pb_stream.h"

#define T_BEGIN		PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN
#define T_END		PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END
#define T_INSTANT	PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT

static int fails;

#define CHECK(c, ...) do { if (!(c)) { printf("FAIL %s:%d: ", __FILE__, __LINE__); \
	printf(__VA_ARGS__); printf("\n"); fails++; } } while (0)

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
	tr = perfetto__protos__trace__unpack(NULL, len, buf);
	CHECK(tr && tr->n_packet == 5, "%zu packets, want 5", tr ? tr->n_packet : 0);
	if (!tr || tr->n_packet != 5)
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

	perfetto__protos__trace__free_unpacked(tr, NULL);
	free(buf);
	if (fails)
		return 1;
	printf("ok\n");
	return 0;
}
