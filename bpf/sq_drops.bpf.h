/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dropped (the SQ side): what the kernel itself discarded, never what the
 * program wrote. The ring's sq_dropped counter lives in memory the
 * program maps and may write (liburing's defer test sets it to 1000 by
 * hand, to check that drain does not trust it), so a teardown's reading
 * of it is no verdict. The kernel discards an SQE only while it takes
 * SQEs, inside the io_uring_enter that submits them: the counter is read
 * as that call enters and as it returns, and a rise in between is
 * credited to the ring as the kernel's (ring_info.sq_dropped_kernel,
 * sent at teardown). A rise outside any such call was written by the
 * program, or made by an SQPOLL thread, which takes SQEs without a
 * system call: user space says so and judges neither (checker/rules/
 * teardown.c).
 *
 * Cost: only calls that submit (to_submit > 0) of followed processes pay
 * the ring lookup and two reads of the counter.
 */
#ifndef __SQ_DROPS_BPF_H
#define __SQ_DROPS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "uringcheck.h"
#include "enter_ring.bpf.h"
#include "enter_state.bpf.h"
#include "rings.bpf.h"

static __always_inline __u32 ring_sq_dropped(__u64 ring)
{
	struct io_rings *r = BPF_CORE_READ((struct io_ring_ctx *)ring, rings);

	return r ? BPF_CORE_READ(r, sq_dropped) : 0;
}

/* io_uring_enter(fd, to_submit, min_complete, flags, ...) enters. */
static __always_inline void drops_enter(struct enter_state *es, __u32 fd, __u32 to_submit,
					__u32 flags)
{
	__u64 ring;

	if (!es)
		return;
	es->drop_ring = 0;
	if (!to_submit)
		return;		/* takes no SQE: drops none */
	ring = enter_ring(fd, flags);
	if (!ring || !bpf_map_lookup_elem(&rings, &ring))
		return;
	es->drop_ring = ring;
	es->drop_before = ring_sq_dropped(ring);
}

/* ... and returns: a rise since its entry is the kernel's, except the
 * part another thread's call already credited (mark: the value the last
 * credited rise reached, when it lies inside this call's rise; a mark
 * outside it is from before a program reset the counter). */
static __always_inline void drops_exit(struct enter_state *es)
{
	struct ring_info *ri;
	__u64 ring;
	__u32 now, from;

	if (!es || !(ring = es->drop_ring))
		return;
	es->drop_ring = 0;
	ri = bpf_map_lookup_elem(&rings, &ring);
	if (!ri)
		return;
	now = ring_sq_dropped(ring);
	if ((__s32)(now - es->drop_before) <= 0)
		return;
	from = es->drop_before;
	if ((__s32)(ri->sq_dropped_mark - from) > 0 && (__s32)(now - ri->sq_dropped_mark) >= 0)
		from = ri->sq_dropped_mark;
	if ((__s32)(now - from) > 0) {
		ri->sq_dropped_kernel += now - from;
		ri->sq_dropped_mark = now;
	}
}

#endif /* __SQ_DROPS_BPF_H */
