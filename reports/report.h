/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Findings and how they are told: the report text (in the voice of the
 * sanitizers: a ==PID==ERROR header, the evidence, a SUMMARY line), the
 * counts per kind, and the exit status policy.
 */
#ifndef UC_REPORT_H
#define UC_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Stable kind names: used in reports, options and (later) suppressions. */
enum uc_kind {
	UC_KIND_OVERLAP,
	UC_KIND__COUNT,
};

const char *uc_kind_name(enum uc_kind k);

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
};

struct uc_overlap_finding {
	uint32_t tgid;
	uint64_t start, end;		/* shared bytes */
	struct uc_request_desc inflight;	/* submitted first */
	struct uc_request_desc incoming;	/* submitted second */
};

struct uc_report {
	FILE *out;
	unsigned int max_reports;	/* printed in full; the rest counted */
	uint64_t count[UC_KIND__COUNT];
	uint64_t printed;
	uint64_t not_printed;
};

void report_init(struct uc_report *rep, FILE *out, unsigned int max_reports);
void report_overlap(struct uc_report *rep, const struct uc_overlap_finding *f);
uint64_t report_total(const struct uc_report *rep);

/* Run-level problems are never silent: one line each, "==PID==WARNING". */
void report_warning(struct uc_report *rep, uint32_t pid, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The closing block: counts per kind; printed when anything was found. */
void report_summary(struct uc_report *rep, uint32_t pid);

/*
 * The run's exit status: @error_exitcode when something was found,
 * otherwise the target's own (@target_status, already 128+N for a
 * signal death).
 */
int report_exit_status(const struct uc_report *rep, int target_status,
		       int error_exitcode);

#endif
