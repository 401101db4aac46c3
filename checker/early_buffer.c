// SPDX-License-Identifier: GPL-2.0
/*
 * A fresh set's event buffer and stack store, made while its programs
 * load. Putting a
 * buffer in the map-in-map waits for an RCU grace period (10-20 ms here,
 * the kernel's synchronize_rcu() after every update of one from user
 * space), which was start-up's largest wait after the verifier: a thread
 * makes the buffer and puts it in slot 0, the slot a fresh set's first
 * session always claims (slots_claim), meanwhile; another does the same
 * with the session's stack store (33 MiB to clear, and a grace period
 * of its own, beside the buffer's). The outer maps are made here for
 * that, as libbpf would make them, and handed to libbpf.
 *
 * Then the thread maps it for the reader, but only once a CPU is free:
 * mapping 32 MiB twice (the ring's wrap-around view) fills 16,384
 * page-table entries, ~4-5 ms of CPU holding the process's mmap lock.
 * Done as soon as it could, it competed with the map-making thread and
 * the two halves of the verifier for the two CPUs; the gate opens when
 * the first half has loaded (that CPU then only waits for the other), or
 * when the buffer is wanted, whichever comes first.
 */
#include "early_buffer.h"

#include <bpf/bpf.h>
#include <linux/types.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "uringcheck.h"

#include "uringcheck.skel.h"

static void *early_buffer_make(void *arg)
{
	struct early_buffer *b = arg;
	uint32_t slot = 0;
	eventfd_t v;

	b->fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "uc_events", 0, 0, b->bytes, NULL);
	if (b->fd >= 0 && bpf_map_update_elem(b->outer, &slot, &b->fd, BPF_ANY)) {
		close(b->fd);
		b->fd = -1;
	}
	if (b->gate >= 0)
		eventfd_read(b->gate, &v);
	if (b->fd >= 0)
		b->rb = ring_buffer__new(b->fd, b->on_record, b->ctx, NULL);
	return NULL;
}

/* A session's stack store: flags as its template's (every inner map of
 * stack_stores must carry them), its size its own. */
int stack_store_create(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts,
		.map_flags = BPF_F_MMAPABLE | BPF_F_INNER_MAP);

	return bpf_map_create(BPF_MAP_TYPE_ARRAY, "uc_stacks", sizeof(uint32_t),
			      sizeof(struct uc_stack), UC_STACK_SLOTS, &opts);
}

static void *early_store_make(void *arg)
{
	struct early_buffer *b = arg;
	uint32_t slot = 0;

	b->store_fd = stack_store_create();
	if (b->store_fd >= 0 &&
	    bpf_map_update_elem(b->store_outer, &slot, &b->store_fd, BPF_ANY)) {
		close(b->store_fd);
		b->store_fd = -1;
	}
	return NULL;
}

/* Makes the map of maps @outer as libbpf would (its template made from
 * the object's inner map, then closed) and hands it to libbpf: libbpf's
 * descriptor, or -1. */
static int preset_outer(struct bpf_map *outer)
{
	const struct bpf_map *inner = bpf_map__inner_map(outer);
	LIBBPF_OPTS(bpf_map_create_opts, tmpl_opts);
	LIBBPF_OPTS(bpf_map_create_opts, opts);
	int fd, tmpl;

	if (!inner)
		return -1;
	tmpl_opts.map_flags = bpf_map__map_flags(inner);
	tmpl = bpf_map_create(bpf_map__type(inner), "uc_tmpl", bpf_map__key_size(inner),
			      bpf_map__value_size(inner), bpf_map__max_entries(inner),
			      &tmpl_opts);
	if (tmpl < 0)
		return -1;
	opts.inner_map_fd = tmpl;
	fd = bpf_map_create(bpf_map__type(outer), bpf_map__name(outer),
			    bpf_map__key_size(outer), bpf_map__value_size(outer),
			    bpf_map__max_entries(outer), &opts);
	close(tmpl);
	if (fd < 0)
		return -1;
	if (bpf_map__reuse_fd(outer, fd)) {
		close(fd);
		return -1;
	}
	close(fd);			/* libbpf holds its own */
	return bpf_map__fd(outer);
}

void early_buffer_start(struct early_buffer *b, struct uringcheck_bpf *skel, long mib,
			ring_buffer_sample_fn on_record, void *ctx)
{
	b->started = false;
	b->store_started = false;
	b->fd = -1;
	b->store_fd = -1;
	b->gate = -1;
	b->rb = NULL;
	b->on_record = on_record;
	b->ctx = ctx;
	b->bytes = (uint32_t)mib << 20;
	b->store_outer = preset_outer(skel->maps.stack_stores);
	if (b->store_outer >= 0)
		b->store_started = !pthread_create(&b->store_thread, NULL,
						   early_store_make, b);
	b->outer = preset_outer(skel->maps.session_events);
	if (b->outer < 0)
		return;
	/* Without a gate (no eventfd) the mapping is made as soon as it can. */
	b->gate = eventfd(0, EFD_CLOEXEC);
	b->started = !pthread_create(&b->thread, NULL, early_buffer_make, b);
	if (!b->started && b->gate >= 0) {
		close(b->gate);
		b->gate = -1;
	}
}

int early_buffer_end(struct early_buffer *b, struct ring_buffer **rb, int *store)
{
	if (b->store_started)
		pthread_join(b->store_thread, NULL);
	b->store_started = false;
	*store = b->store_fd;
	b->store_fd = -1;
	if (!b->started)
		return -1;
	if (b->gate >= 0)
		eventfd_write(b->gate, 1);
	pthread_join(b->thread, NULL);
	b->started = false;
	if (b->gate >= 0)
		close(b->gate);
	b->gate = -1;
	*rb = b->rb;
	return b->fd;
}
