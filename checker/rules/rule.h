/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A rule of the check mode: what it is given (struct uc_check: the model
 * to read, the loss evidence to ask before it reports, the stack cache,
 * the report) and the hooks it may fill (struct uc_check_rule). The dispatcher
 * (dispatch.c) runs the hooks of every rule in the table (rules.c) in
 * table order, each with the rule's own state from its init().
 *
 * Adding a rule: its file here with its `const struct uc_check_rule
 * uc_rule_NAME`, one line in rules.c, its tests and its docs
 * (docs/design.md). A rule includes this header and the services it
 * uses; it never calls another rule.
 */
#ifndef UC_RULE_H
#define UC_RULE_H

#include <stdbool.h>
#include <stdint.h>

#include "evidence.h"
#include "stacks.h"
#include "tracker.h"

struct uc_report;

struct uc_check {
	struct uc_tracker model;
	struct uc_evidence ev;		/* the kernel's truth, when lossy */
	struct uc_stacks stacks;
	struct uc_report *report;
	uint64_t events;		/* records read so far */
	uint64_t reap_lag_ns;		/* reap-lag's threshold, for the report */

	/* anomalies, printed at exit when non-zero */
	uint64_t malformed;
	uint64_t rings_unreadable;	/* teardowns whose ring counters were
					 * implausible (dropped not judged) */
	uint64_t drops_unjudged;	/* rings whose shared SQ drop counter
					 * rose beyond the kernel's own drops
					 * (written by the program, or an
					 * SQPOLL thread's): not judged */
	uint64_t mmsg_unjudged;		/* recvmmsg/sendmmsg messages moved
					 * past UC_MMSG_MAX, not judged */
	uint64_t mmsg_cut;		/* ... messages judged on their first
					 * UC_MMSG_IOV_MAX iovecs only */
	uint64_t sync_unreturned;	/* sync calls that met in-flight bytes
					 * whose return was never seen: not
					 * judged (rules/calls.c) */
	uint64_t picks;			/* provided buffers seen held */
	uint64_t picks_unresolved;	/* ... whose address was not known */

	/* free-inflight's watch for a chunk's next owner (heap_watch.h):
	 * the table (NULL: not mapped), whether this run's allocation
	 * probes are attached, the findings whose chunk was not watched */
	struct uc_heap_watches *heap_watches;
	bool heap_owners;
	uint64_t heap_unwatched;
};

/* Every hook is optional; @st is what init() returned. */
struct uc_check_rule {
	const char *name;
	void *(*init)(struct uc_check *ck);
	/* A new request, in flight now, before its ranges join its address
	 * space's set: judged against exactly what was in flight before. */
	void (*on_submit)(void *st, struct uc_check *ck, struct uc_request *r);
	/* A buffer-select request's provided buffer [start, end): held from
	 * now on (p->flags & UC_PICK_HELD, before the model attaches it) or
	 * held up to its CQE (before the model lets it go). */
	void (*on_pick)(void *st, struct uc_check *ck, struct uc_request *r,
			const struct uc_pick *p, uint64_t start, uint64_t end);
	/* A request leaves flight (before the model forgets it). */
	void (*on_end)(void *st, struct uc_check *ck, const struct uc_request *r);
	/* A watched system call enters, returns; io_uring_register's result
	 * for the ring (the tracepoint, after the call's entry). */
	void (*on_call)(void *st, struct uc_check *ck, const struct uc_call *c);
	void (*on_call_ret)(void *st, struct uc_check *ck, const struct uc_call_ret *r);
	void (*on_register)(void *st, struct uc_check *ck, const struct uc_register *r);
	/* An exec of @tgid replaced the image, or returned (failed). */
	void (*on_exec)(void *st, struct uc_check *ck, uint32_t tgid, bool succeeded);
	/* A record the model keeps nothing of: a teardown's listings
	 * (UC_EV_DROPPED, UC_EV_UNREAPED), its close (UC_EV_TEARDOWN), a
	 * reap-lag (UC_EV_REAP_LAG), a heap release (UC_EV_HEAP_RELEASE)
	 * and its chunk handed out again (UC_EV_HEAP_ALLOC), a stack
	 * pointer above a stack range (UC_EV_FRAME_GONE); its size
	 * checked. */
	void (*on_record)(void *st, struct uc_check *ck, const struct uc_hdr *h);
	/* The run's last records read: what a rule still holds is reported
	 * now (before the verdict). */
	void (*finish)(void *st, struct uc_check *ck);
	void (*free)(void *st, struct uc_check *ck);
};

#endif
