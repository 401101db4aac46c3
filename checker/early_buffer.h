/* SPDX-License-Identifier: GPL-2.0 */
/* A fresh set's event buffer and stack store, made (the buffer mapped)
 * while its programs load (early_buffer.c says why and when). */
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
	/* The stack store in slot 0 of stack_stores, made on a thread of
	 * its own (its grace period runs beside the buffer's). */
	pthread_t store_thread;
	bool store_started;
	int store_outer;		/* stack_stores (libbpf's copy of it) */
	int store_fd;			/* -1: none */
};

/* A session's stack store (bpf/stacks.bpf.h): UC_STACK_SLOTS captures,
 * mappable. A descriptor, or -1 with errno set. */
int stack_store_create(void);

/* Starts making the buffer for @skel's session_events, slot 0, and the
 * store for its stack_stores, slot 0, on threads, if it can (quiet on
 * failure: they are then made after the load).
 * @on_record and @ctx: its reader, as for ring_buffer__new(). */
void early_buffer_start(struct early_buffer *b, struct uringcheck_bpf *skel, long mib,
			ring_buffer_sample_fn on_record, void *ctx);
/* The buffer, -1 if there is none; its mapping in *@rb, if made; the
 * store in *@store (-1: none). Opens the gate and waits for the threads. */
int early_buffer_end(struct early_buffer *b, struct ring_buffer **rb, int *store);

#endif
