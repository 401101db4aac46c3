/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the event buffer could not take, kept where it cannot be lost
 * (struct uc_session_losses in uringcheck.h says how user space uses it).
 *
 * Only the loss path runs here: a full buffer is the rare case, and the
 * per-record fast path pays nothing but the DONE record's producer
 * position read (end_slot in request_ends.bpf.h).
 */
#ifndef __LOSSES_BPF_H
#define __LOSSES_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "uringcheck.h"
#include "session.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);	/* read by user space */
	__uint(max_entries, UC_MAX_SESSIONS);
	__type(key, __u32);
	__type(value, struct uc_session_losses);
} session_losses SEC(".maps");

/* Drained by user space as it goes; entries allocated only when a DONE
 * is lost (no preallocation: nothing to pay at load time). Sized by user
 * space like the in-flight table: only requests whose submission user
 * space received have their ends kept, so there are never more. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 262144);
	__type(key, struct uc_lost_end_key);
	__type(value, __u64);		/* producer position before it */
} lost_ends SEC(".maps");

/* The lost end's key, assembled here rather than on the stack: this runs
 * at the bottom of call chains whose stack 6.1 limits to 512 bytes. */
struct lost_end_scratch {
	struct uc_lost_end_key key;
	__u64 pos;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lost_end_scratch);
} lost_key_scratch SEC(".maps");

/*
 * Types whose loss may leave user space believing a request is in flight,
 * or give it a wrong range, when it is not: an exit or exec (the address
 * space is gone), a ring creation (a new ring at a freed ring's address
 * resets its registered buffers), a registration or its result.
 */
static __always_inline bool loss_breeds_doubt(__u32 type)
{
	return type == UC_EV_EXIT || type == UC_EV_EXEC ||
	       type == UC_EV_RING_CREATE || type == UC_EV_REGISTER ||
	       type == UC_EV_CALL || type == UC_EV_CALL_RET ||
	       type == UC_EV_PICK || type == UC_EV_PROVIDE || type == UC_EV_CHANNEL;
}

static __always_inline void note_loss(__u32 sid, __u32 type)
{
	struct uc_session_losses *l = bpf_map_lookup_elem(&session_losses, &sid);

	stat_inc(sid, UC_STAT_RINGBUF_LOST);
	if (!l)
		return;
	__sync_fetch_and_add(&l->by_type[type & (UC_EV_TYPES - 1)], 1);
	if (loss_breeds_doubt(type))
		__sync_fetch_and_add(&l->doubt, 1);
	/* Last: user space reads the total to know something changed. */
	__sync_fetch_and_add(&l->events, 1);
}

/* The DONE record of request @seq did not fit; @pos: the producer
 * position read before it was tried (at or before the moment of loss, so
 * every record reserved after the loss lies at or past it). */
static __always_inline void note_lost_end(__u32 sid, __u64 seq, __u64 pos)
{
	struct uc_session_losses *l = bpf_map_lookup_elem(&session_losses, &sid);
	struct lost_end_scratch *x;
	__u32 zero = 0;

	stat_inc(sid, UC_STAT_RINGBUF_LOST);
	x = bpf_map_lookup_elem(&lost_key_scratch, &zero);
	if (!l || !x)
		return;
	x->key.seq = seq;
	x->key.session = sid;
	x->key.pad = 0;
	x->pos = pos;
	__sync_fetch_and_add(&l->by_type[UC_EV_DONE], 1);
	if (bpf_map_update_elem(&lost_ends, &x->key, &x->pos, BPF_NOEXIST))
		__sync_fetch_and_add(&l->doubt, 1);	/* no room: unknowable */
	else
		__sync_fetch_and_add(&l->ends_recorded, 1);
	__sync_fetch_and_add(&l->events, 1);
}

#endif /* __LOSSES_BPF_H */
