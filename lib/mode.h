/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a mode is to the run loop (run/run.c).
 *
 * A run watches one target (spawned, or attached with -p/-a) with one or
 * more modes at once: check (checker/check_mode.c), profile
 * (profile/profile_mode.c) and trace (trace/trace_mode.c). The loop knows
 * no mode by name: it calls each active mode's operations in this order,
 *
 *   begin       load its BPF side; the target exists (blocked) but has
 *               not run yet
 *   follow      watch this process (and what it forks from now on)
 *   fd          a descriptor that becomes readable when there is work
 *               (or -1: the mode is polled)
 *   tick/drain  in the loop: tick returns how many milliseconds the mode
 *               may wait (its periodic work is done there), drain takes
 *               what its kernel side buffered and returns how many
 *               records that was (the reader's pace counts them)
 *   backlog     (optional) how close its buffers are to losing
 *               something, for the reader's priority: after each drain,
 *               and from a watchdog thread
 *   finish      the target is gone (or the attach ended): last records,
 *               closing readings
 *   report      its text on @out and its findings into the run's report;
 *               -1 if one of its own files could not be written
 *   (the run prints the report's summary)
 *   footer      lines that close the run's text, after the summary
 *               (optional)
 *   free
 *
 * Modes share one report (struct uc_report: text, --json, --sarif) and
 * tell each other only through struct uc_run: the profile's doctor reads
 * the checker's counts there, the trace draws the checker's findings.
 */
#ifndef UC_MODE_H
#define UC_MODE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct uc_options;
struct uc_report;
struct uc_json_counter;

/* The run as every mode sees it. */
struct uc_run {
	const struct uc_options *opt;
	struct uc_report *rep;		/* every mode's findings */
	FILE *log;			/* --log-file or stderr, as opened */
	const char *exe;		/* the target's path (spawned runs) */
	pid_t pid;			/* the target, the -p process, 0 for -a */
	bool spawned;			/* started by us, not attached */
	int status;			/* the target's, after finish (spawned) */
	char what[512];			/* names the run in the profile's report */
	/* between modes */
	bool checking;			/* the check mode runs */
	uint64_t check_events_lost;	/* its losses, for the doctor */
	uint32_t rings_seen;		/* rings of followed processes the
					 * check and profile modes saw (each
					 * adds at finish): none, and a -p
					 * process with children, is a hint */
	bool doctor_failed;		/* --fail-on=doctor:SEV was met */
};

/* A backlog (uc_mode_ops.backlog) at which the reader must catch up. */
#define UC_BACKLOG_BUSY	50	/* thousandths */

struct uc_mode_ops {
	const char *name;
	int (*begin)(void **state, struct uc_run *run);
	int (*follow)(void *state, pid_t pid);
	int (*fd)(void *state);
	int (*tick)(void *state);
	int (*drain)(void *state);
	void (*finish)(void *state, struct uc_run *run);
	int (*report)(void *state, struct uc_run *run, FILE *out);
	void (*footer)(void *state, struct uc_run *run, FILE *out);
	/* --json's "counters" (optional): fills up to @max, returns how many */
	int (*json_counters)(void *state, struct uc_json_counter *c, int max);
	/* how far its reader is behind (optional): thousandths of what its
	 * buffers hold before something is lost, rounded up (anything
	 * unread is at least 1). The run idles the reader
	 * while every mode says it is near 0 (run/reader_pace.h); a mode
	 * without it keeps it at its own priority. Called from the run's
	 * watchdog thread too, while the loop runs: it must only read what
	 * is safe to read concurrently (atomic loads). */
	unsigned (*backlog)(void *state);
	/* after the report files are written (optional): keep-warm and the like */
	void (*stop)(void *state, struct uc_run *run);
	void (*free)(void *state);
};

extern const struct uc_mode_ops check_mode_ops;
extern const struct uc_mode_ops profile_mode_ops;
extern const struct uc_mode_ops trace_mode_ops;

#endif
