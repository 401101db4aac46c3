/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A profile run: the BPF session, the once-a-second reading (per-second
 * volume, io-wq threads, the -i table), /metrics, and the final report
 * with the doctor. The run loop drives it through profile_mode.c.
 */
#ifndef UC_PF_RUN_H
#define UC_PF_RUN_H

#include <json-c/json.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>

#include "diff.h"
#include "doctor.h"
#include "metrics_server.h"
#include "profile_session.h"
#include "run_facts.h"

struct uc_options;

struct pf_run {
	struct pf_session sess;
	struct pf_run_facts facts;
	pthread_mutex_t lock;		/* the session's reads: main and /metrics */
	struct pf_snapshot last;	/* the previous second's reading */
	struct pf_snapshot interval;	/* the last -i boundary's reading */
	uint64_t start_ns, next_tick_ns, next_interval_ns;
	long interval_s;
	FILE *live;			/* where -i tables go */
	struct pf_metrics_server *metrics;
	struct doctor_verdict *verdicts;
	size_t nverdicts;
	struct pf_snapshot final;
	const struct uc_options *opt;
	/* --diff: the baseline, read before the run, and this run's side */
	bool diffing;
	struct pf_summary base, now;
	/* collects closed rings' slots as the kernel side announces them,
	 * under @lock (profile_run.c, collector()) */
	pthread_t collector;
	int wake_fd;			/* eventfd: stop now */
	bool collecting;
	volatile bool stop;
	unsigned max_rings;
};

int pf_run_begin(struct pf_run *r, const struct uc_options *o, FILE *live);
int pf_run_follow(struct pf_run *r, pid_t pid);
/* Call often; does the once-a-second work when a second has passed.
 * Returns the milliseconds until it next has work. */
int pf_run_tick(struct pf_run *r);
/* Takes the final reading and judges it. The checker's findings, when it
 * ran, are in @hazards (NULL: profile alone). */
void pf_run_finish(struct pf_run *r, const struct pf_hazard_count *hazards, int nhazards,
		   uint64_t check_events_lost);
/* The text report of the finished run on @out; @what names the run. */
void pf_run_report(struct pf_run *r, FILE *out, const char *what);
/* The "profile" member and the doctor's finding objects, for --json. */
json_object *pf_run_json(struct pf_run *r);
json_object *pf_run_findings_json(struct pf_run *r);
/* The doctor's verdicts into @rep as findings (text, --json, --sarif;
 * @pid for run-level ones), and the "profile" member of its JSON. */
struct uc_report;
void pf_run_to_report(struct pf_run *r, struct uc_report *rep, uint32_t pid);
/* The highest severity among the doctor's verdicts, as --fail-on's
 * doctor:SEV counts them (UC_FAIL_DOCTOR_*), 0 if none. */
int pf_run_doctor_level(const struct pf_run *r);
void pf_run_free(struct pf_run *r);

#endif
