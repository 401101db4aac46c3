/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reader's CPU priority, set by how far behind it is.
 *
 * uringcheck's reader shares the machine's CPUs with the target. A burst
 * of its work (a report's first symbolization, which inflates compressed
 * debug sections; a call site's first unwind) ran for 5-7 ms on the one
 * CPU an SQPOLL thread left free, while the target's woken thread waited
 * for it: liburing's min-timeout-wait missed its 9-12 ms window in about
 * one wrapped run in six, never plainly. A higher nice value did not stop
 * the scheduler from running the reader first (nice 19: 3 misses in 40
 * runs). So while nothing it must read is at risk, the reader runs as
 * SCHED_IDLE: a thread of the target that wants the CPU gets it at once
 * (0 misses in 80 runs).
 *
 * Only a reader with little to read goes idle: fewer than PACE_RATE_MAX
 * records a second over the last PACE_WINDOW_MS, and a backlog near
 * empty. A target that makes records faster (fio: hundreds of thousands
 * a second) keeps it at its own priority, where it reads as before. An
 * idle reader gets next to no CPU on a busy machine, so it cannot be
 * trusted to notice that it fell behind: a watchdog thread at the
 * reader's own priority looks at the modes' backlog (struct
 * uc_mode_ops.backlog) every PACE_WATCH_MS while the reader is idle, and
 * gives the reader its own policy back once the buffers fill towards
 * what they hold (the stack store, 4,096 captures, is the first to: a
 * target capturing at 250,000 a second goes round it in 16 ms), or once
 * the loop has made no pass for PACE_STALE_MS while something waited
 * unread or while it was not waiting at all (a pass that long is work
 * the idle policy starves: a call site's first unwind reads nothing more
 * from the buffers, yet a later capture's bound depends on it). On a
 * machine kept busy by others (a parallel test suite) the idle reader
 * would otherwise wait for a free CPU indefinitely, with a report to
 * write or a process's mappings to read before it exits. It then stays
 * up for a cool-down that doubles each time. The target never inherits
 * the idle policy: it is forked before the loop.
 *
 * Nothing is changed unless the starting policy is SCHED_OTHER and can be
 * restored (without CAP_SYS_NICE, RLIMIT_NICE may forbid the way back),
 * nor while a mode cannot say its backlog.
 */
#ifndef UC_READER_PACE_H
#define UC_READER_PACE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "mode.h"

/* Backlog thresholds, in thousandths of what a mode's buffers hold. */
#define PACE_BUSY_PERMILLE	UC_BACKLOG_BUSY	/* at or above: own policy */
#define PACE_IDLE_PERMILLE	10	/* below, after the cool-down: idle */
#define PACE_WATCH_MS		5	/* the watchdog's period while idle */
#define PACE_STALE_MS		50	/* no pass this long, with something unread
					 * or not waiting: raised */
#define PACE_WINDOW_MS		100	/* the record rate is measured over */
#define PACE_RATE_MAX		20000	/* records a second: above, not idle */
#define PACE_COOLDOWN_MS	1000	/* the first cool-down, doubled ... */
#define PACE_COOLDOWN_MAX_MS	60000	/* ... up to this */

/* The modes' largest backlog in thousandths, -1 if one cannot tell. */
typedef int (*pace_backlog_fn)(void *ctx);

struct reader_pace {
	bool enabled;		/* the policy is managed (until pace_end) */
	bool was_enabled;	/* ... it was, this run (for --stats) */
	pid_t tid;		/* the reader's thread */
	int base_nice;		/* its starting nice value */
	pace_backlog_fn backlog;
	void *ctx;
	/* under lock: */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t watchdog;
	bool stop;
	bool low;		/* SCHED_IDLE now */
	uint64_t cooldown_ms;	/* the next cool-down */
	uint64_t idle_after;	/* CLOCK_MONOTONIC ms: not idle before */
	uint64_t window_start;	/* the rate's window: since (ms) ... */
	uint64_t window_records;	/* ... this many records read */
	bool calm;		/* the last full window was below the rate */
	unsigned raised;	/* times the backlog raised it */
	uint64_t passes;	/* the loop's passes (pace_update calls) */
	bool waiting;		/* the loop is waiting for input (atomic) */
};

/* From the reader's thread, before its loop: @on is --idle-reader. */
void pace_init(struct reader_pace *p, bool on, pace_backlog_fn fn, void *ctx);

/*
 * The decision alone, for the unit test: whether the reader should run
 * idle, given that it does (@low), its backlog (@permille, -1: a mode
 * cannot tell), whether its cool-down is over (@cooled) and whether it
 * reads few records (@calm).
 */
bool pace_want_low(bool low, int permille, bool cooled, bool calm);

/* From the reader's thread after each pass of its loop, with the modes'
 * largest backlog (-1: one cannot tell) and the records the pass read. */
void pace_update(struct reader_pace *p, int permille, unsigned records);

/* From the reader's thread, around its wait for input: a pass that does
 * not return to it for PACE_STALE_MS while idle is raised. */
void pace_waiting(struct reader_pace *p, bool waiting);

/* The loop ended: the watchdog stops and the reader is back at its own
 * policy (the closing reads and the report are the run's result). */
void pace_end(struct reader_pace *p);

#endif
