/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --trace=FILE (a Perfetto timeline) and --events=FILE (CSV or JSON
 * lines): the trace's BPF session feeding both writers, beside whichever
 * mode runs (check, profile, both; -p and -a too).
 */
#ifndef UC_TR_RUN_H
#define UC_TR_RUN_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "trace_session.h"

struct uc_options;
struct timeline;
struct ev_export;

struct tr_run {
	bool active;
	struct tr_session sess;
	struct timeline *timeline;		/* --trace */
	struct ev_export *events;	/* --events */
	const char *timeline_path, *events_path;
};

/* Nothing to do (r->active false) unless --trace or --events; -1 with a
 * message on a failure. */
int tr_run_begin(struct tr_run *r, const struct uc_options *o);
int tr_run_follow(struct tr_run *r, pid_t pid);
/* Hands the buffered records to the writers; call often. */
void tr_run_drain(struct tr_run *r);
/* A checker finding (struct uc_report's finding_hook): drawn on the
 * request it is about, at the moment it was reported. */
struct uc_finding;
void tr_run_finding(void *arg, const struct uc_finding *f, const char *text);
/* Last records, the losses into the files and on @out (==PID== lines),
 * closes. Returns -1 if a file could not be written. */
int tr_run_end(struct tr_run *r, FILE *out, uint32_t pid);

#endif
