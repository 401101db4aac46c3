/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace mode's BPF object (bpf/trace.bpf.c): loaded through
 * load/load.h with the trace's settings; follows processes and hands
 * each record to a callback in order.
 */
#ifndef UC_TR_SESSION_H
#define UC_TR_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "trace.h"

struct trace_bpf;
struct ring_buffer;

typedef void (*tr_record_fn)(void *arg, const void *rec, size_t size);

struct tr_session {
	struct trace_bpf *skel;
	struct ring_buffer *rb;
	tr_record_fn fn;
	void *arg;
	int ncpus;
	uint64_t records;
};

struct tr_config {
	bool all;			/* -a */
	uint32_t sample;		/* --sample: one request in N */
	uint32_t buffer_mb;		/* ring buffer, a power of two */
	int verbose;
};

int tr_session_start(struct tr_session *s, const struct tr_config *c,
		     tr_record_fn fn, void *arg);
int tr_session_follow(struct tr_session *s, pid_t pid);
/* Hands over what is in the buffer; returns the number of records. */
int tr_session_drain(struct tr_session *s);
/* Records lost because the buffer was full, per enum tr_type; the total. */
uint64_t tr_session_lost(struct tr_session *s, uint64_t lost[TR__COUNT]);
void tr_session_stop(struct tr_session *s);

#endif
