/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF side of a run: the kernel probed and the variants chosen by
 * load/load.h, then open -> configure -> load -> attach (or join
 * the programs another instance attached, checker/shared.h), this run's
 * session (its slot, event buffer and counters), and teardown. Programs
 * are attached through BPF links held by the instances using them, so
 * they go away with the last of them whatever happens; nothing is pinned.
 */
#ifndef UC_SESSION_H
#define UC_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "kernel_features.h"
#include "options.h"
#include <linux/types.h>
#include "uringcheck.h"
#include "cold_load.h"
#include "early_buffer.h"
#include "hook_misses.h"
#include "shared.h"

struct uringcheck_bpf;
struct ring_buffer;
struct bpf_link;

typedef void (*uc_event_fn)(void *arg, const void *data, size_t size);
typedef void (*uc_ready_fn)(void *arg);

struct uc_session {
	struct uringcheck_bpf *skel;
	struct cold_load cold;		/* a fresh set's other instances */
	struct early_buffer early;	/* ... its event buffer, while made */
	struct ring_buffer *rb;
	int sampler_perf_fd;		/* reap-lag sampler's perf event, -1 */
	int sampler_link_fd;		/* ... its BPF link (-1: ioctl-attached) */
/* Stack-store slots mapped together (session_stack_slot). */
#define UC_STORE_WINDOW_SLOTS 64
	uc_event_fn on_event;
	void *arg;
	double load_ms, attach_ms;
	struct uc_shared shared;	/* the kernel side other instances share */
	bool joined;			/* ... set up by another instance */
	int slot;			/* this run's session */
	int events_fd;			/* its event buffer */
	uint64_t *sleeping;		/* reader_sleeping, mapped */
	size_t sleeping_len;
	bool discarding;		/* draining a reused buffer's leftovers */
	/* mapped for checker/evidence.c (session_map_truth) */
	const unsigned long *consumer_pos;	/* the event buffer's */
	const unsigned long *producer_pos;	/* ... and how far it is written
						 * (session_backlog) */
	size_t events_bytes;			/* ... its size */
	struct uc_session_losses *losses_all, *losses;	/* all, this slot's */
	size_t losses_len;
	const uint64_t *inf_keys;		/* the in-flight table */
	const struct uc_inflight *inf_vals;
	uint32_t inf_mask;
	uint32_t inf_chunk_mask;		/* keys a chunk - 1 */
	size_t inf_len[2];
	/* The session's stack store, mapped a window of slots at a time
	 * (session.c, session_stack_slot) */
	struct uc_store_window {
		const void *base;
		size_t len, skew;	/* skew: the first slot's offset in it */
	} store_windows[UC_STACK_SLOTS / UC_STORE_WINDOW_SLOTS];
	int store_fd;				/* ... this session's own */
	const uint64_t *cursors;		/* stack_cursors, mapped */
	size_t cursors_len;
	const uint64_t *stack_cursor;		/* ... this session's: captures
						 * taken into its store so far */
};

/* @ready (may be NULL) is called with @arg as soon as the programs are
 * loaded or joined and the session slot is claimed, before the buffers
 * are mapped: set-up that needs only the programs can start beside the
 * rest (check_mode.c attaches the target's heap probes on a thread).
 * Returns 0, or -1 after printing a one-line reason (an unsupported
 * kernel named with what it lacks). The kernel is probed only when the
 * programs must be loaded here. */
int session_start(struct uc_session *s, const struct uc_options *o,
		  uc_event_fn fn, void *arg, uc_ready_fn ready);
/* Follow @pid (and, from now on, everything it forks). */
int session_track(struct uc_session *s, pid_t pid);
/* --check -a: follows @pid unless a session follows it already (1 then;
 * -1 on error). */
int session_track_unfollowed(struct uc_session *s, pid_t pid);
/* --check -a: makes this session the one that takes every process that
 * makes a ring while no session follows it (@take), or gives that up.
 * -1 (errno EBUSY, said) if a live instance holds it. */
int session_take_all(struct uc_session *s, bool take);
int session_fd(const struct uc_session *s);
/* Delivers every event available now. */
int session_drain(struct uc_session *s);
/* After the last drain: the event buffer unmapped (its page tables, 2 x
 * 64 MiB by default, would be copied by every fork after it: the
 * probes' closer, the --keep-warm holder). Draining then reads nothing. */
void session_unmap_events(struct uc_session *s);
int session_sleep_begins(struct uc_session *s);
/* How much of the event buffer is written and not read yet, in
 * thousandths of its size (the reader's priority, run/reader_pace.h).
 * Safe from another thread: two atomic loads. */
unsigned session_backlog(const struct uc_session *s);
/* The position in the event buffer of the record being delivered. */
uint64_t session_record_pos(const struct uc_session *s);
/* Takes this session's entries out of the lost-ends table (requests
 * whose end record was lost, bpf/losses.bpf.h): @fn gets each request's
 * seq and the buffer position of its end. Returns how many. */
typedef void (*uc_lost_end_fn)(void *arg, uint64_t seq, uint64_t pos);
int session_take_lost_ends(struct uc_session *s, uc_lost_end_fn fn, void *arg);
/* Is request @seq (struct io_kiocb @req) in the kernel's in-flight table
 * now? */
bool session_in_flight(struct uc_session *s, uint64_t req, uint64_t seq);
/* Slot @index of the session's stack store (struct uc_stack in
 * uringcheck.h, bpf/stacks.bpf.h); its window of slots is mapped on
 * first use. NULL if it cannot be. */
const struct uc_stack *session_stack_slot(struct uc_session *s, uint32_t index);
/* Installs what was learned of call site @k (its session made this
 * session's): its bound and deciders; NULL removes it (bpf/stacks.bpf.h,
 * stack_bounds). 0 on success. */
struct uc_stack_bound_key;
struct uc_stack_site;
int session_stack_bound(struct uc_session *s, struct uc_stack_bound_key *k,
			const struct uc_stack_site *site);
void session_counters(const struct uc_session *s, uint64_t out[UC_STAT__COUNT]);
/*
 * Runs of this session's programs the kernel skipped: a program's run on a
 * CPU where a run of it (or, for the uprobe and perf programs, of any
 * kprobe-type program) is already under way is skipped and counted (its
 * recursion_misses). Under a preemptible kernel (PREEMPT_LAZY, Debian's
 * 7.x) a run preempted mid-way makes every other task's run of it on that
 * CPU skip until it resumes: a submission, an end or a system call then
 * goes unseen. The total so far, over the programs this session runs
 * (its own, or the shared ones it joined); each program's in @by_prog
 * (NULL: not wanted).
 */
uint64_t session_hook_misses(struct uc_session *s, struct uc_hook_misses *by_prog);
/* The per-process uprobe program @name ("uc_heap_release", ...), own or
 * shared, in the form loaded (bpf/uprobe_forms.bpf.h): its descriptor,
 * -1 if none; *@multi: its uprobe_multi form. */
int session_uprobe_prog(const struct uc_session *s, const char *name, bool *multi);
void session_stop(struct uc_session *s);
/*
 * --keep-warm: leaves behind a small detached process that holds the
 * shared programs for @seconds, so that the next uringcheck (the next
 * test of a suite) joins them instead of loading and verifying its own.
 * It holds nothing else (no session, no terminal, no pipe), lists itself
 * in /run/uringcheck as a holder, and exits when the time is up: the
 * programs then detach unless a later instance holds them.
 */
void session_keep_warm(struct uc_session *s, long seconds);

#endif
