/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a rule of the check mode is given (struct uc_check): the model to
 * read (tracker.h), the loss evidence to ask before reporting
 * (evidence.h), the stack cache, the report.
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
	uint64_t picks;			/* provided buffers seen held */
	uint64_t picks_unresolved;	/* ... whose address was not known */

	struct u64map calls;		/* tid -> system call in progress */
	struct u64map teardowns;	/* teardown id -> records so far */
	struct u64map td_rings;		/* ctx -> what teardowns told of it */
	struct u64map pending_execs;	/* tgid -> left-in-flight finding of
					 * an exec not known to succeed yet */
	struct u64map by_user_data;	/* (ring, user_data) -> latest request
					 * in flight with it (user_data.c) */
};

/* calls.c: munmap-inflight, bufreg-lifetime, bufreg-unmapped, sync-overlap */
void calls_on_call(struct uc_check *ck, const struct uc_call *c);
void calls_on_ret(struct uc_check *ck, const struct uc_call_ret *r);
void calls_on_register(struct uc_check *ck, const struct uc_register *r);
void calls_free(struct uc_check *ck);

/* teardown.c: left-in-flight and dropped */
void teardown_on_dropped(struct uc_check *ck, const struct uc_dropped *d);
void teardown_on_unreaped(struct uc_check *ck, const struct uc_unreaped *u);
void teardown_on_teardown(struct uc_check *ck, const struct uc_teardown *td);
void teardown_exec_result(struct uc_check *ck, uint32_t tgid, bool succeeded);
void teardown_free(struct uc_check *ck);

/* overlap.c: at each new request before its ranges join the set, and
 * for a provided buffer [start, end) @r comes to hold. */
void overlap_check(struct uc_check *ck, struct uc_request *r);
void overlap_check_range(struct uc_check *ck, struct uc_request *r,
			 uint64_t start, uint64_t end);

/* provided_buffers.c: pbuf-reprovided, at a provided buffer's CQE */
void pbuf_on_cqe(struct uc_check *ck, struct uc_request *r, const struct uc_pick *p,
		 uint64_t start, uint64_t end);

/* user_data.c: at each new request, and when a request leaves flight */
void user_data_check(struct uc_check *ck, struct uc_request *r);
void user_data_forget(struct uc_check *ck, const struct uc_request *r);
void user_data_free(void);

/* reap_lag.c */
void reap_lag_on_record(struct uc_check *ck, const struct uc_reap_lag *l);

#endif
