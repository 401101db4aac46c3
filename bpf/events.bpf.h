/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Records to user space: each session's event buffer, reserving and
 * committing a record in it (waking its reader only when it sleeps), and
 * the header every record starts with.
 */
#ifndef __EVENTS_BPF_H
#define __EVENTS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "pidns.bpf.h"
#include "uringcheck.h"
#include "losses.bpf.h"

/* Per session: its event buffer, created by its instance (any size). */
struct events_template {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 << 10);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, UC_MAX_SESSIONS);
	__type(key, __u32);
	__array(values, struct events_template);
} session_events SEC(".maps");

static __always_inline void *session_rb(__u32 sid)
{
	return bpf_map_lookup_elem(&session_events, &sid);
}

/* No buffer: the session's instance has left (its processes' late ends
 * have no one to go to), nothing is counted against the slot's next
 * owner. A full buffer is counted. */
static __always_inline void *ev_reserve(__u32 sid, __u64 size, __u32 type)
{
	void *rb = session_rb(sid), *e;

	if (!rb)
		return NULL;
	e = bpf_ringbuf_reserve(rb, size, 0);
	if (!e)
		note_loss(sid, type);
	return e;
}

/*
 * Waking the reader. A forced wake-up is an interrupt in the thread that
 * produced the record (an irq_work self-IPI, costly in a VM), so the
 * reader is woken only when it is asleep: it sets reader_sleeping before
 * an idle wait (20 ms at most, run/main.c) and polls every
 * millisecond while events keep coming. The first record produced while
 * it sleeps wakes it, once; every other record is committed without a
 * wake-up. (Per-record and per-threshold policies woke it again and
 * again under load: the largest single cost in the benchmark.)
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);	/* written by the readers */
	__uint(max_entries, UC_MAX_SESSIONS);
	__type(key, __u32);
	__type(value, __u64);
} reader_sleeping SEC(".maps");

static __always_inline __u64 wakeup_flags(__u32 sid)
{
	__u64 *sleeping = bpf_map_lookup_elem(&reader_sleeping, &sid);

	if (sleeping && *sleeping &&
	    __sync_val_compare_and_swap(sleeping, 1, 0) == 1)
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

static __always_inline void ev_submit(__u32 sid, void *e)
{
	bpf_ringbuf_submit(e, wakeup_flags(sid));
}

/* A record assembled elsewhere (a per-CPU scratch buffer), copied in;
 * false if it was lost. */
static __always_inline bool ev_output(__u32 sid, void *data, __u64 size)
{
	void *rb = session_rb(sid);

	if (!rb)
		return false;
	if (bpf_ringbuf_output(rb, data, size, wakeup_flags(sid))) {
		note_loss(sid, ((struct uc_hdr *)data)->type);
		return false;
	}
	return true;
}

/* A header stamped with a clock time the caller already read: on the
 * per-request path each clock read is a measurable share of the cost
 * (a paravirtual clock in VMs), so it is read once per event. */
static __always_inline void fill_hdr_at(struct uc_hdr *h, __u32 type, __u32 tgid,
					__u64 ts)
{
	h->type = type;
	h->tgid = tgid;
	current_tid_into(&h->tid);	/* and the pad, zeroed next */
	h->pad = 0;
	h->ts = ts;
}

/* The clock read after the thread id: nothing but @h lives across the
 * calls (a spilled clock would grow deep frames, bpf/pidns.bpf.h). */
static __always_inline void fill_hdr(struct uc_hdr *h, __u32 type, __u32 tgid)
{
	h->type = type;
	h->tgid = tgid;
	current_tid_into(&h->tid);	/* and the pad, zeroed next */
	h->pad = 0;
	h->ts = bpf_ktime_get_ns();
}

#endif /* __EVENTS_BPF_H */
