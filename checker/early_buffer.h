/* SPDX-License-Identifier: GPL-2.0 */
/* A fresh set's event buffer, made and mapped while its programs load
 * (early_buffer.c says why and when). */
#ifndef UC_EARLY_BUFFER_H
#define UC_EARLY_BUFFER_H

#include <bpf/libbpf.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct uringcheck_bpf;

struct early_buffer {
	pthread_t thread;
	bool started;
	int outer;			/* session_events (libbpf's copy of it) */
	uint32_t bytes;
	int fd;				/* the buffer in slot 0, -1: none */
	/* Written to when a CPU is free for the mapping (cold_load.h,
	 * loaded_fd), or when the buffer is wanted: until then the thread
	 * waits with it unmapped. */
	int gate;
	struct ring_buffer *rb;		/* its mapping, once made */
	ring_buffer_sample_fn on_record;
	void *ctx;
};

/* Starts making the buffer for @skel's session_events, slot 0, on a thread,
 * if it can (quiet on failure: the buffer is then made after the load).
 * @on_record and @ctx: its reader, as for ring_buffer__new(). */
void early_buffer_start(struct early_buffer *b, struct uringcheck_bpf *skel, long mib,
			ring_buffer_sample_fn on_record, void *ctx);
/* The buffer, -1 if there is none; its mapping in *@rb, if made. Opens
 * the gate and waits for the thread. */
int early_buffer_end(struct early_buffer *b, struct ring_buffer **rb);

#endif
