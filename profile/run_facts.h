/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a profile run knows besides the kernel's tables: its window, the
 * per-second volume, the io-wq threads sampled from /proc, and, when the
 * checker ran too, its findings and losses. The report and the doctor
 * read both.
 */
#ifndef UC_PF_RUN_FACTS_H
#define UC_PF_RUN_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pf_peak {
	uint32_t tgid;
	uint32_t workers;		/* most iou-wrk-* threads alive at once */
	uint32_t sqpoll;		/* iou-sqp-* threads */
};

/* Kinds the checker reports (reports/report.h), by name and count. */
struct pf_hazard_count {
	const char *kind;
	const char *severity;		/* "error" or "warning" */
	uint64_t n;
};

struct pf_run_facts {
	double window_s;		/* from attach to the final reading */
	int ncpus;			/* online CPUs */
	bool paths;			/* poll/punt attribution available */
	unsigned max_rings;		/* --profile-rings */
	/* requests submitted/completed in each second of the run */
	uint64_t *submits_per_s, *completes_per_s;
	size_t nsecs;
	struct pf_peak *peaks;
	size_t npeaks;
	/* the checker, when --check ran with --profile */
	bool checked;
	struct pf_hazard_count *hazards;	/* one per kind, however many */
	int nhazards;
	uint64_t check_events_lost;
};

/* Records @tgid's live io-wq/SQPOLL threads now (from /proc/TGID/task). */
void pf_sample_threads(struct pf_run_facts *f, uint32_t tgid);
void pf_run_facts_free(struct pf_run_facts *f);

#endif
