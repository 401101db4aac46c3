// SPDX-License-Identifier: GPL-2.0
/*
 * The reader's priority decision (run/reader_pace.h): idle only below the
 * idle threshold and after the cool-down, raised at the busy threshold,
 * never idle when a mode cannot tell its backlog; and a walk of
 * pace_update over a made-up backlog on this thread's real policy, where
 * each raise by the backlog must double the cool-down, and the watchdog
 * thread must raise an idle reader on its own, when its buffers fill or
 * when the loop makes no pass while something waits unread or while it is
 * not waiting for input, and never a waiting loop with nothing unread
 * (skipped, and said, where this thread could not come back from
 * SCHED_IDLE). Prints "ok" and
 * exits 0, or the first disagreement and exits 1.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

#include "reader_pace.h"

static int bad;
static volatile int fake;	/* the backlog the watchdog reads */

static int fake_backlog(void *ctx)
{
	(void)ctx;
	return fake;
}

static void expect(bool got, bool want, const char *what)
{
	if (got != want) {
		printf("FAIL: %s: got %d, want %d\n", what, got, want);
		bad = 1;
	}
}

/* The cool-down ended by hand, then a calm pass: the reader must be
 * idle again. */
static void idle_again(struct reader_pace *p, const char *what)
{
	pthread_mutex_lock(&p->lock);
	p->idle_after = 0;
	pthread_mutex_unlock(&p->lock);
	pace_update(p, 0, 0);
	expect(sched_getscheduler(0) == SCHED_IDLE, true, what);
}

int main(void)
{
	/* Running at its own priority. */
	expect(pace_want_low(false, 0, true, true), true, "idle backlog, cooled: idle");
	expect(pace_want_low(false, PACE_IDLE_PERMILLE - 1, true, true), true, "just below idle");
	expect(pace_want_low(false, PACE_IDLE_PERMILLE, true, true), false, "at the idle threshold");
	expect(pace_want_low(false, 30, true, true), false, "between the thresholds: stays up");
	expect(pace_want_low(false, 0, false, true), false, "cool-down not over: stays up");
	expect(pace_want_low(false, -1, true, true), false, "a mode cannot tell: stays up");
	expect(pace_want_low(false, 0, true, false), false, "many records a second: stays up");
	/* Running idle. */
	expect(pace_want_low(true, 30, true, true), true, "between the thresholds: stays idle");
	expect(pace_want_low(true, PACE_BUSY_PERMILLE - 1, false, true), true, "just below busy");
	expect(pace_want_low(true, PACE_BUSY_PERMILLE, true, true), false, "at the busy threshold: up");
	expect(pace_want_low(true, 1000, true, true), false, "full: up");
	expect(pace_want_low(true, -1, true, true), false, "a mode cannot tell: up");
	expect(pace_want_low(true, 0, true, false), false, "many records a second: up");

	{
		struct reader_pace p = { .enabled = false };

		pace_update(&p, 0, 0);
		expect(p.low, false, "disabled: never idle");
	}
	{
		struct reader_pace p;

		pace_init(&p, true, fake_backlog, NULL);
		if (!p.enabled) {
			printf("walk skipped: this thread could not leave SCHED_IDLE\n");
		} else {
			pace_update(&p, 0, 0);
			expect(p.low, false, "walk: not idle before a calm window");
			usleep((PACE_WINDOW_MS + 10) * 1000);
			pace_update(&p, 0, 0);
			expect(sched_getscheduler(0) == SCHED_IDLE, true, "walk: idle at 0");
			pace_update(&p, 1000, 0);
			expect(sched_getscheduler(0) == SCHED_OTHER, true, "walk: up when full");
			expect(p.cooldown_ms == 2 * PACE_COOLDOWN_MS, true, "walk: cool-down doubled");
			pace_update(&p, 0, 0);
			expect(p.low, false, "walk: up during the cool-down");
			idle_again(&p, "walk: idle after it");
			pace_update(&p, PACE_BUSY_PERMILLE, 0);
			expect(p.cooldown_ms == 4 * PACE_COOLDOWN_MS, true, "walk: doubled again");
			expect(p.raised == 2, true, "walk: two raises counted");
			/* Idle again, and this thread busy elsewhere: the
			 * watchdog alone must see the backlog and raise it. */
			idle_again(&p, "watchdog: idle first");
			fake = 900;
			usleep(10 * PACE_WATCH_MS * 1000);
			expect(sched_getscheduler(0) == SCHED_OTHER, true, "watchdog: raised it");
			expect(p.raised == 3, true, "watchdog: counted");
			fake = 0;
			/* Idle, waiting for input, nothing unread and no
			 * pass: a quiet target, it stays idle. */
			idle_again(&p, "quiet: idle first");
			pace_waiting(&p, true);
			usleep(4 * PACE_STALE_MS * 1000);
			expect(sched_getscheduler(0) == SCHED_IDLE, true, "quiet: waiting, still idle");
			/* Idle, waiting, something unread (below busy) and no
			 * pass of the loop: stuck, up. */
			fake = 1;
			usleep(4 * PACE_STALE_MS * 1000);
			expect(sched_getscheduler(0) == SCHED_OTHER, true, "stale: raised");
			expect(p.raised == 4, true, "stale: counted");
			fake = 0;
			/* Idle, nothing unread, but a pass that has not come
			 * back to its wait (a first unwind, starved): up. */
			idle_again(&p, "long pass: idle first");
			pace_waiting(&p, false);
			usleep(4 * PACE_STALE_MS * 1000);
			expect(sched_getscheduler(0) == SCHED_OTHER, true, "long pass: raised");
			expect(p.raised == 5, true, "long pass: counted");
			/* ... but not while the loop keeps passing. */
			pthread_mutex_lock(&p.lock);
			p.idle_after = 0;
			pthread_mutex_unlock(&p.lock);
			fake = 0;
			pace_update(&p, 0, 0);
			fake = 1;
			for (int i = 0; i < 4 * PACE_STALE_MS / PACE_WATCH_MS; i++) {
				usleep(PACE_WATCH_MS * 1000);
				pace_update(&p, 1, 0);
			}
			expect(sched_getscheduler(0) == SCHED_IDLE, true, "stale: passing, still idle");
			fake = 0;
			/* Idle, then a window with many records: up. */
			idle_again(&p, "rate: idle first");
			usleep((PACE_WINDOW_MS + 10) * 1000);
			pace_update(&p, 0, PACE_RATE_MAX);
			expect(sched_getscheduler(0) == SCHED_OTHER, true, "rate: up when busy");
			pace_end(&p);
			expect(sched_getscheduler(0) == SCHED_OTHER, true, "end: at its own policy");
		}
	}
	if (!bad)
		printf("ok\n");
	return bad;
}
