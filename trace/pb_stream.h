/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writing a Perfetto trace as a stream: each TracePacket is packed with
 * protobuf-c (trace/uringcheck_perfetto.proto) and appended as one field 1
 * of the Trace message, so the file is a valid Trace at every packet
 * boundary and nothing is held in memory. One packet sequence; event and
 * annotation names are interned on it.
 */
#ifndef UC_PB_STREAM_H
#define UC_PB_STREAM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "uringcheck_perfetto.pb-c.h"

typedef Perfetto__Protos__TrackEvent pb_event;
typedef Perfetto__Protos__DebugAnnotation pb_annot;

#define PB_MAX_ANNOTS 12
#define PB_MAX_FLOWS 4

struct pb_names;

struct pb_stream {
	FILE *f;
	uint64_t packets, bytes;
	bool started;
	bool failed;			/* a write failed: said at close */
	struct pb_names *names;		/* interned strings */
	/* the event being built */
	pb_event ev;
	pb_annot annots[PB_MAX_ANNOTS], *annot_ptrs[PB_MAX_ANNOTS];
	char annot_text[PB_MAX_ANNOTS][64];
	uint64_t flows[PB_MAX_FLOWS], term_flows[PB_MAX_FLOWS];
	/* names interned by the event being built, sent with it */
	Perfetto__Protos__EventName new_names[2], *new_name_ptrs[2];
	Perfetto__Protos__DebugAnnotationName new_anames[PB_MAX_ANNOTS],
		*new_aname_ptrs[PB_MAX_ANNOTS];
	int n_new_names, n_new_anames;
};

int pb_open(struct pb_stream *s, const char *path);
int pb_close(struct pb_stream *s);

/* Track descriptors: a process, a thread, or a named child track (a
 * counter track if @counter). */
void pb_process_track(struct pb_stream *s, uint64_t uuid, int pid, const char *name);
void pb_thread_track(struct pb_stream *s, uint64_t uuid, int pid, int tid, const char *name);
void pb_child_track(struct pb_stream *s, uint64_t uuid, uint64_t parent, const char *name,
		    bool counter);

/* An event: begin, add annotations and flows, then emit. */
void pb_event_begin(struct pb_stream *s, int type, uint64_t track, const char *name);
void pb_annot_uint(struct pb_stream *s, const char *name, uint64_t v);
void pb_annot_int(struct pb_stream *s, const char *name, int64_t v);
void pb_annot_str(struct pb_stream *s, const char *name, const char *v);
void pb_annot_hex(struct pb_stream *s, const char *name, uint64_t v);
void pb_flow(struct pb_stream *s, uint64_t id, bool terminating);
void pb_counter(struct pb_stream *s, int64_t v);
void pb_event_emit(struct pb_stream *s, uint64_t ts);

#endif
