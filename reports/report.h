/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the checker reports and how the run ends: one struct per hazard
 * kind (filled by checker/), the report state (counts, dedup,
 * suppressions, the findings kept for --json and --sarif), the closing
 * summary and the exit status policy.
 *
 * Each report_KIND() turns its struct into a struct uc_finding
 * (reports/finding.h, builders in reports/kinds/) and hands it to
 * report_finding(), which tells it in every format.
 */
#ifndef UC_REPORT_H
#define UC_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "dedup.h"
#include "finding.h"
#include "json.h"
#include "suppressions.h"

#define UC_KIND_BIT(k)	(1u << (k))
#define UC_KINDS_ALL	((1u << UC_KIND__COUNT) - 1)
/* Kinds that fail the run unless --fail-on says otherwise. */
#define UC_KINDS_FAIL_DEFAULT (UC_KIND_BIT(UC_KIND_OVERLAP) | \
	UC_KIND_BIT(UC_KIND_BUFREG_LIFETIME) | UC_KIND_BIT(UC_KIND_MUNMAP_INFLIGHT) | \
	UC_KIND_BIT(UC_KIND_DROPPED) | UC_KIND_BIT(UC_KIND_SYNC_OVERLAP))

/* The kinds' names (reports/rules.c). */
const char *uc_kind_name(enum uc_kind k);
/* The kind named @name (or an old name for it: unreaped-cqe is now part
 * of left-in-flight); -1 if none. */
int uc_kind_lookup(const char *name);
/* Lists the valid kind names on @out, space-separated. */
void uc_kinds_print(FILE *out);
/* Parses "overlap,dropped", "all" or "none" into a kind mask; -1 and a
 * message naming the valid kinds on an unknown name. */
int uc_kinds_parse(const char *list, unsigned int *mask, const char *option);

/* What a report says about one request. */
struct uc_request_desc {
	uint64_t seq;
	uint64_t user_data;
	uint64_t start, end;		/* the range involved */
	uint64_t submit_ts;		/* ns, CLOCK_MONOTONIC */
	uint32_t tgid, tid;
	int ring_fd;			/* -1 if unknown */
	uint16_t buf_index;
	uint8_t opcode;
	uint8_t direction;		/* enum uc_direction */
	bool fixed_buf;
	bool vectored;
	bool sqpoll;			/* submitted by the SQPOLL thread */
	uint32_t nr_ranges;
	uint64_t stack_id;		/* submission stack, 0: none */
	bool provided;			/* a provided buffer the kernel picked */
	uint16_t bgid, bid;		/* ... its group and buffer id */
};

struct uc_overlap_finding {
	uint32_t tgid;
	uint64_t start, end;		/* shared bytes */
	struct uc_request_desc inflight;	/* submitted first */
	struct uc_request_desc incoming;	/* submitted second */
	bool spans_loss;		/* confirmed although events were lost */
	uint64_t key;			/* dedup: kind + call sites, 0: none */
};

/* registered-buffer lifetime: an unregister/update while users are live */
#define UC_MAX_LIVE_SHOWN 8
struct uc_bufreg_finding {
	uint32_t tgid, tid;
	int ring_fd;
	uint32_t reg_opcode;		/* IORING_(UN)REGISTER_* */
	uint32_t index;
	uint64_t reg_start, reg_end;	/* the registered buffer, 0/0 unknown */
	uint64_t call_stack_id;		/* the unregister/update call */
	uint64_t reg_stack_id;		/* where the buffer was registered */
	uint32_t nr_live;
	struct uc_request_desc live[UC_MAX_LIVE_SHOWN];
	bool spans_loss;		/* confirmed although events were lost */
	uint64_t key;			/* dedup: kind + call sites, 0: none */
};

/* munmap/mremap/madvise over bytes an in-flight request holds */
struct uc_unmap_finding {
	uint32_t tgid, tid;
	uint32_t nr;			/* syscall */
	uint64_t call_start, call_end;	/* what the call removed */
	uint64_t start, end;		/* shared with the request */
	uint64_t advice;		/* madvise */
	uint64_t call_stack_id;
	struct uc_request_desc req;	/* range: the whole request range */
	bool spans_loss;		/* confirmed although events were lost */
	uint64_t key;			/* dedup: kind + call sites, 0: none */
};

/* a request submitted with the pointer user_data of one still in flight
 * on the same ring */
struct uc_ud_reuse_finding {
	uint32_t tgid;
	struct uc_request_desc inflight, incoming;
	uint64_t key;
};

/* a provided buffer put back in its ring while a request still held it */
struct uc_pbuf_finding {
	uint32_t tgid;
	uint16_t bgid, bid;
	uint32_t again_pos;		/* the ring position it was found at */
	uint32_t avail;			/* entries available to the kernel then */
	int32_t res;			/* the holder's CQE result */
	struct uc_request_desc holder;
	uint64_t key;
};

/* a plain system call (read, write, ...) storing into or loading from
 * bytes an in-flight request holds */
struct uc_sync_finding {
	uint32_t tgid, tid;
	uint32_t nr;			/* the system call */
	uint8_t dir;			/* UC_DIR_SINK: it stores; SOURCE: loads */
	uint64_t start, end;		/* shared bytes */
	int64_t moved;			/* its result: bytes moved */
	uint64_t call_stack_id;
	struct uc_request_desc req;
	bool spans_loss;
	uint64_t key;
};

/* munmap/mremap/madvise/mmap(MAP_FIXED)/brk over memory that backs a
 * registered buffer, with nothing in flight on that index using it */
struct uc_bufreg_unmap_finding {
	uint32_t tgid, tid;
	uint32_t nr;			/* syscall */
	uint64_t advice;		/* madvise */
	uint64_t call_start, call_end;	/* what the call released */
	int ring_fd;
	uint32_t index;
	uint64_t reg_start, reg_end;	/* the registered buffer */
	uint64_t call_stack_id, reg_stack_id;
	uint64_t key;
};

/* requests left in flight at a teardown, grouped by where they came from */
struct uc_left_group {
	uint8_t opcode;
	int ring_fd;
	uint64_t count;
	uint64_t bytes;			/* user memory they hold, summed */
	uint64_t user_data[4];		/* the first few */
	uint64_t oldest_ts;
	uint64_t stack_id;		/* one of the group's submissions */
};

/* requests that hold no user memory: counted per opcode, not listed */
#define UC_LEFT_NOMEM_OPS 8
struct uc_left_nomem {
	uint8_t opcode;
	uint64_t count;
};

/* an unconsumed CQE, as the program would have read it */
#define UC_LEFT_CQES_SHOWN 4
struct uc_left_cqe {
	uint64_t user_data;
	int32_t res;
	int16_t opcode;			/* of the request that posted it, -1: ? */
};

struct uc_left_finding {
	uint32_t tgid;
	uint32_t reason;		/* enum uc_teardown_reason */
	int32_t detail;			/* exit status, signal */
	int ring_fd;			/* UC_TD_CLOSE */
	uint64_t teardown_ts;
	uint64_t held;			/* requests holding memory (in groups) */
	uint32_t ngroups;
	struct uc_left_group *groups;
	uint64_t nomem;			/* requests holding none */
	uint32_t nnomem_ops;
	struct uc_left_nomem nomem_ops[UC_LEFT_NOMEM_OPS];
	uint64_t unconsumed;		/* CQEs posted, never consumed */
	uint64_t overflowed;		/* ... of which on the overflow list */
	bool overflow_capped;		/* at least that many */
	uint32_t head_past_tail;	/* the program moved its CQ head past
					 * the tail by this much (a bug) */
	uint32_t ncqes;			/* the first unconsumed CQEs */
	struct uc_left_cqe cqes[UC_LEFT_CQES_SHOWN];
	uint64_t teardown_stack_id;	/* the close/exit/exec call, or where
					 * the signal took the process */
	uint64_t key;			/* dedup: kind + call sites, 0: none */
};

/* what the kernel itself threw away on a ring (its io_rings counters) */
struct uc_kernel_drop_finding {
	uint32_t tgid;
	int ring_fd;
	uint32_t sq_dropped;		/* SQEs with an invalid index */
	uint32_t cq_overflow;		/* CQEs that could not be posted */
	uint64_t key;
};

struct uc_reap_lag_finding {
	uint32_t tgid;
	int ring_fd;
	uint64_t user_data;
	uint64_t lag_ns, lag_min_ns, threshold_ns;
	uint32_t pending;
	uint64_t reap_stack_id;		/* uprobe mode: where it was reaped */
	int32_t blocked_nr;		/* the system call a thread sat in while
					 * it waited, -1: none seen */
	uint32_t blocked_tid;
	uint64_t blocked_ns;
	uint64_t key;			/* dedup: kind + call sites, 0: none */
};

/* Prints stack @id's frames, or @no_stack as a sentence if there is none. */
typedef void (*uc_stack_printer)(void *ctx, FILE *out, uint64_t id,
				 const char *no_stack);

/* The symbolized frames of stack @id (for suppressions); 0 if none. */
typedef int (*uc_stack_frames)(void *ctx, uint64_t id, struct uc_supp_frame *out,
			       int max);

struct uc_report {
	FILE *out;
	uc_stack_printer print_stack;	/* NULL: stacks not shown */
	uc_stack_frames stack_frames;
	void *stack_ctx;
	struct uc_suppressions supp;
	bool gen_suppressions;
	bool stacks_off;		/* --stack-size=0: say so where one is missing */
	bool want_json;			/* collect findings for --json */
	struct uc_json_list json;	/* finding objects (docs/json.md) */
	bool want_sarif;		/* and for --sarif */
	struct uc_json_list sarif;	/* SARIF result objects */
	const char *srcroot;		/* own sources live under here */
	/* rules outside the hazard kinds, as registered or first seen,
	 * with their counts (never part of the exit status) */
	const struct uc_rule **ext;
	uint64_t *ext_count;
	size_t next;
	uint64_t suppressed[UC_KIND__COUNT];
	/* findings whose evidence events lost could explain: not reported,
	 * never an error (checker/evidence.h) */
	uint64_t withheld[UC_KIND__COUNT];
	/* told of every finding counted (--trace draws them): the finding,
	 * and a text to show with it (its headline, with the first stack's
	 * frames for the first of a kind of repeat) */
	void (*finding_hook)(void *arg, const struct uc_finding *f, const char *text);
	void *finding_arg;
	/* the JSON document's "mode" ("check", "profile", "check+profile"),
	 * how the target came ("attached": 1 -p, 2 -a) and --profile's member */
	const char *mode;
	int attached;
	json_object *profile_json;
	unsigned int max_reports;	/* printed in full; the rest counted */
	unsigned int fail_on;		/* kinds that make the run fail */
	unsigned int enabled;		/* kinds reported at all (--hazards) */
	uint64_t count[UC_KIND__COUNT];
	uint64_t printed;
	uint64_t not_printed;
	uint64_t repeats;		/* same problem again: counted only */
	struct uc_dedup dedup;
	/* suppression verdicts by dedup key: matched block i (key mixed
	 * with i), or none */
	struct uc_dedup supp_yes, supp_no;
};

void report_init(struct uc_report *rep, FILE *out, unsigned int max_reports,
		 unsigned int fail_on);
void report_free(struct uc_report *rep);
void report_overlap(struct uc_report *rep, const struct uc_overlap_finding *f);
void report_bufreg(struct uc_report *rep, const struct uc_bufreg_finding *f);
void report_unmap(struct uc_report *rep, const struct uc_unmap_finding *f);
void report_bufreg_unmapped(struct uc_report *rep, const struct uc_bufreg_unmap_finding *f);
void report_sync_overlap(struct uc_report *rep, const struct uc_sync_finding *f);
void report_user_data_reuse(struct uc_report *rep, const struct uc_ud_reuse_finding *f);
void report_pbuf_reprovided(struct uc_report *rep, const struct uc_pbuf_finding *f);
void report_left_in_flight(struct uc_report *rep, const struct uc_left_finding *f);
void report_kernel_drop(struct uc_report *rep, const struct uc_kernel_drop_finding *f);
void report_reap_lag(struct uc_report *rep, const struct uc_reap_lag_finding *f);
uint64_t report_total(const struct uc_report *rep);
/* @n findings of kind @k could not be confirmed (events were lost). */
void report_withheld(struct uc_report *rep, enum uc_kind k, uint64_t n);

/* Run-level problems are never silent: one line each, "==PID==WARNING". */
void report_warning(struct uc_report *rep, uint32_t pid, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The closing block: counts per kind; printed when anything was found. */
void report_summary(struct uc_report *rep, uint32_t pid);

/* Run-level counters for the JSON summary (lost events, ...). */
struct uc_json_counter {
	const char *name;
	uint64_t value;
};

/* Writes the --json document (docs/json.md). */
void report_write_json(struct uc_report *rep, FILE *out, const char *version,
		       uint32_t pid, char *const *argv, int exit_status,
		       const struct uc_json_counter *c, int nc);

/* Writes the --sarif document (SARIF 2.1.0, docs/sarif.md). */
void report_write_sarif(struct uc_report *rep, FILE *out, const char *version);

/*
 * The run's exit status: @error_exitcode when a kind in fail_on was found,
 * otherwise the target's own (@target_status, already 128+N for a
 * signal death).
 */
int report_exit_status(const struct uc_report *rep, int target_status,
		       int error_exitcode);

#endif
