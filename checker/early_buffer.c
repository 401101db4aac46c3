// SPDX-License-Identifier: GPL-2.0
/*
 * A fresh set's event buffer, made while its programs load. Putting a
 * buffer in the map-in-map waits for an RCU grace period (10-20 ms here,
 * the kernel's synchronize_rcu() after every update of one from user
 * space), which was start-up's largest wait after the verifier: a thread
 * makes the buffer and puts it in slot 0, the slot a fresh set's first
 * session always claims (slots_claim), meanwhile. The outer map is made
 * here for that, as libbpf would make it, and handed to libbpf.
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
#include <sys/eventfd.h>
#include <unistd.h>

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

void early_buffer_start(struct early_buffer *b, struct uringcheck_bpf *skel, long mib,
			ring_buffer_sample_fn on_record, void *ctx)
{
	struct bpf_map *outer = skel->maps.session_events;
	const struct bpf_map *inner = bpf_map__inner_map(outer);
	LIBBPF_OPTS(bpf_map_create_opts, opts);
	int fd, tmpl;

	b->started = false;
	b->fd = -1;
	b->gate = -1;
	b->rb = NULL;
	b->on_record = on_record;
	b->ctx = ctx;
	b->bytes = (uint32_t)mib << 20;
	if (!inner)
		return;
	tmpl = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "uc_events_tmpl", 0, 0,
			      bpf_map__max_entries(inner), NULL);
	if (tmpl < 0)
		return;
	opts.inner_map_fd = tmpl;
	fd = bpf_map_create(bpf_map__type(outer), bpf_map__name(outer),
			    bpf_map__key_size(outer), bpf_map__value_size(outer),
			    bpf_map__max_entries(outer), &opts);
	close(tmpl);
	if (fd < 0)
		return;
	if (bpf_map__reuse_fd(outer, fd)) {
		close(fd);
		return;
	}
	close(fd);			/* libbpf holds its own */
	b->outer = bpf_map__fd(outer);
	/* Without a gate (no eventfd) the mapping is made as soon as it can. */
	b->gate = eventfd(0, EFD_CLOEXEC);
	b->started = !pthread_create(&b->thread, NULL, early_buffer_make, b);
	if (!b->started && b->gate >= 0) {
		close(b->gate);
		b->gate = -1;
	}
}

int early_buffer_end(struct early_buffer *b, struct ring_buffer **rb)
{
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
