/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Judging against the kernel's truth when events were lost.
 *
 * The model in tracker.c is a replay of the event stream. When the event
 * buffer overflows, the replay has holes, and the one hole that turns
 * into false errors is a lost end: a request user space still holds in
 * flight although the kernel finished it. The kernel side keeps every
 * lost end in a table that is not lost (bpf/losses.bpf.h), with the
 * buffer position where the end record would have been. Here that table
 * is drained and each end applied when the replay reaches its position,
 * and every finding is judged before it is reported:
 *
 *   no loss since the in-flight request was submitted     -> confirmed
 *   its end was lost, at a position after this record     -> confirmed
 *   nothing lost since then could hide its end            -> confirmed
 *   it is still in the kernel's in-flight table now       -> confirmed
 *   otherwise                                             -> withheld
 *
 * A confirmed finding whose window saw a loss says so (spans_loss); a
 * withheld one is counted, never an error (docs/lost-events.md).
 *
 * A service: the dispatcher (dispatch.c) tells it each record and each
 * submission, the rules ask it before they report. It reads and updates
 * the model (tracker.h: the marks on a request, the ends it recovers) and
 * knows no rule.
 */
#ifndef UC_EVIDENCE_H
#define UC_EVIDENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "u64map.h"

struct itree_node;
struct uc_session;
struct uc_tracker;
struct uc_request;

struct uc_lost_end {
	uint64_t seq;
	uint64_t pos;			/* where its end record would have been */
};

struct uc_evidence {
	struct uc_session *sess;	/* NULL: no kernel side to ask */
	uint64_t pos;			/* position of the record being read */
	uint64_t events_lost;		/* the session's counters, as last read */
	uint64_t doubt;
	uint64_t swept;			/* ends_recorded at the last drain */
	uint64_t reads;			/* records since the last drain */
	struct u64map lost;		/* seq -> its struct uc_lost_end */
	struct uc_lost_end **due;	/* the same, by position (a heap) */
	size_t ndue, cap;
	/* what it did, for --stats and the summary */
	uint64_t ends_recovered;	/* requests ended from the table */
	uint64_t confirmed_in_table;	/* findings the in-flight table kept */
};

enum uc_verdict {
	UC_CONFIRMED,
	UC_WITHHELD,
};

void evidence_init(struct uc_evidence *ev, struct uc_session *sess);
void evidence_free(struct uc_evidence *ev);
/* Before each record: its position, the loss counters, due ends (which
 * leave the model @t). */
void evidence_on_record(struct uc_evidence *ev, struct uc_tracker *t);
/* Before judging: drain the kernel's table if it grew, apply what is
 * due. Call before walking the in-flight set (it may drop requests). */
void evidence_refresh(struct uc_evidence *ev, struct uc_tracker *t);
/* Marks @r with the loss counters at its submission; _pick: at the pick
 * of the provided buffer it holds. */
void evidence_mark(const struct uc_evidence *ev, struct uc_request *r);
void evidence_mark_pick(const struct uc_evidence *ev, struct uc_request *r);
/* Were events lost since @r was submitted? */
bool evidence_lost_since(const struct uc_evidence *ev, const struct uc_request *r);
/* A held provided buffer @n attached before events were lost: the CQE
 * that gave it back may be among them, so it may be held no more. */
bool evidence_pick_doubtful(const struct uc_evidence *ev, const struct itree_node *n);
/* Was @older in flight when the record being read was produced?
 * *@spans_loss: events were lost since it was submitted. */
enum uc_verdict evidence_judge(struct uc_evidence *ev, const struct uc_request *older,
			       bool *spans_loss);

/* The loss breakdown by record type, for the loss warning ("" if none). */
size_t evidence_loss_text(const struct uc_evidence *ev, char *buf, size_t len);
/* ... and as --json counters (names stored in @names). */
struct uc_json_counter;
int evidence_json_counters(const struct uc_evidence *ev, struct uc_json_counter *c,
			   int max, char names[][40]);

#endif
