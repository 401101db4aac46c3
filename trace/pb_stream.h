/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writing a Perfetto trace as a stream: each TracePacket is appended as
 * one field 1 of the Trace message (trace/uringcheck_perfetto.proto), so
 * the file is a valid Trace at every packet boundary and nothing but the
 * last 256 KiB is held in memory. The rare packets (the first, track
 * descriptors) are packed by protobuf-c; the events, a few per request,
 * are written field by field (trace/pb_wire.h). One packet sequence, written
 * the compact way Perfetto's own writers do (docs/trace.md, "Size"):
 * event names, annotation names and short string values are interned on
 * it, timestamps are deltas on an incremental clock, and counter values
 * drawn at an event's time ride on that event (extra_counter_values)
 * instead of a packet each.
 */
#ifndef UC_PB_STREAM_H
#define UC_PB_STREAM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pb_wire.h"
#include "u64map.h"

#define PB_MAX_ANNOTS 12
#define PB_MAX_FLOWS 4
#define PB_MAX_COUNTERS 4		/* extra counter values on one event */

struct pb_names;

struct pb_stream {
	FILE *f;
	uint64_t packets, bytes;
	uint64_t last_ts;		/* the incremental clock's last value */
	bool started;
	bool failed;			/* a write failed: said at close */
	struct pb_names *names;		/* interned strings */
	/* iids of names by their address (names are literals or stay put) */
	struct { const char *name; uint64_t iid; } annot_cache[32], name_cache[64];
	struct u64map hex_iids;		/* "0x..." string value -> its iid */
	uint64_t next_string_iid;
	uint64_t default_track, default_counters[PB_MAX_COUNTERS];
	int n_default_counters;
	/* the event being built: its annotations already in wire form (a
	 * TrackEvent's field 4 each), the rest written at the emit */
	int ev_type;
	uint64_t ev_track, ev_name_iid;
	bool ev_has_name, ev_has_counter;
	int64_t ev_counter;
	struct pbw_buf annots;
	int n_annots;
	uint64_t flows[PB_MAX_FLOWS], term_flows[PB_MAX_FLOWS];
	int n_flows, n_term_flows;
	uint64_t counter_tracks[PB_MAX_COUNTERS];
	int64_t counter_values[PB_MAX_COUNTERS];
	int n_counters;
	/* names interned by the event being built, sent with it: the
	 * InternedData fields 2, 3 and 29, in wire form */
	struct pbw_buf new_names, new_anames, new_strings;
	struct pbw_buf body;		/* the TrackEvent, at the emit */
	struct pbw_buf array;		/* an array annotation's elements */
	struct pbw_buf out;		/* packets not yet handed to the file */
};

/* The sequence's defaults: @track, the track of an event that names none
 * (an event on it leaves its uuid out); @counters (@n of them, at most
 * PB_MAX_COUNTERS), the extra counter tracks of an event that names none
 * (an event whose extra counters are these, in this order, leaves their
 * uuids out). The tracks are described later, before their first use. */
int pb_open(struct pb_stream *s, const char *path, uint64_t track, const uint64_t *counters,
	    int n);
int pb_close(struct pb_stream *s);

/* Track descriptors: a process, a thread, or a named child track (a
 * counter track if @counter). */
void pb_process_track(struct pb_stream *s, uint64_t uuid, int pid, const char *name);
void pb_thread_track(struct pb_stream *s, uint64_t uuid, int pid, int tid, const char *name);
void pb_child_track(struct pb_stream *s, uint64_t uuid, uint64_t parent, const char *name,
		    bool counter);

/* An event: begin, add annotations and flows, then emit. An event's and
 * an annotation's name is a string literal, as Perfetto's own macros
 * require, or a string that stays at its address unchanged while the
 * stream is open (a table of names): its address is the key of a cache
 * in front of the interning. A name made for the one event (on the
 * stack) goes through pb_event_begin_text. */
/* @type: Perfetto's TrackEvent.Type (PB_SLICE_BEGIN ...). */
enum { PB_SLICE_BEGIN = 1, PB_SLICE_END = 2, PB_INSTANT = 3, PB_COUNTER = 4 };
void pb_event_begin(struct pb_stream *s, int type, uint64_t track, const char *name);
void pb_event_begin_text(struct pb_stream *s, int type, uint64_t track, const char *name);
void pb_annot_uint(struct pb_stream *s, const char *name, uint64_t v);
void pb_annot_int(struct pb_stream *s, const char *name, int64_t v);
/* A string as it is (free text: a report); one of a few fixed strings,
 * interned; a value shown as "0x..." (interned: user_data repeats).
 * Every value is copied at the call. */
void pb_annot_str(struct pb_stream *s, const char *name, const char *v);
void pb_annot_istr(struct pb_stream *s, const char *name, const char *v);
void pb_annot_hex(struct pb_stream *s, const char *name, uint64_t v);
/* Arrays (DebugAnnotation.array_values): @n values of each. */
void pb_annot_hex_array(struct pb_stream *s, const char *name, const uint64_t *v, int n);
void pb_annot_uint_array(struct pb_stream *s, const char *name, const uint64_t *v, int n);
void pb_flow(struct pb_stream *s, uint64_t id, bool terminating);
void pb_counter(struct pb_stream *s, int64_t v);
/* A value of counter track @track at the event's time, carried by the
 * event (any type) instead of a counter event of its own. */
void pb_extra_counter(struct pb_stream *s, uint64_t track, int64_t v);
void pb_event_emit(struct pb_stream *s, uint64_t ts);

#endif
