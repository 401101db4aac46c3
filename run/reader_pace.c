// SPDX-License-Identifier: GPL-2.0
/* The reader's CPU priority, by its backlog (reader_pace.h). */
#define _GNU_SOURCE
#include "reader_pace.h"

#include <errno.h>
#include <linux/capability.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The reader thread's policy, set from it or from the watchdog (by its
 * thread id: both calls take one on Linux). */
static int set_idle(struct reader_pace *p, bool idle)
{
	struct sched_param sp = { 0 };

	if (sched_setscheduler(p->tid, idle ? SCHED_IDLE : SCHED_OTHER, &sp))
		return -1;
	return idle ? 0 : setpriority(PRIO_PROCESS, (id_t)p->tid, p->base_nice);
}

/*
 * May this thread go back from SCHED_IDLE to SCHED_OTHER at @nice? With
 * CAP_SYS_NICE, or where RLIMIT_NICE allows that nice value (sched(7)).
 * Asked before going idle: a reader that could not come back would read
 * on the idle policy's crumbs for the whole run.
 */
static bool can_come_back(int nice)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = { { 0 } };
	struct rlimit r;

	if (!syscall(SYS_capget, &h, d) &&
	    (d[CAP_SYS_NICE / 32].effective & (1u << (CAP_SYS_NICE % 32))))
		return true;
	return !getrlimit(RLIMIT_NICE, &r) &&
	       (r.rlim_cur == RLIM_INFINITY || (long)r.rlim_cur >= 20 - nice);
}

bool pace_want_low(bool low, int permille, bool cooled, bool calm)
{
	if (permille < 0 || !calm)
		return false;
	if (low)
		return permille < PACE_BUSY_PERMILLE;
	return cooled && permille < PACE_IDLE_PERMILLE;
}

/* Under the lock: the decision applied. */
static void apply(struct reader_pace *p, int permille)
{
	uint64_t now = now_ms();
	bool want = pace_want_low(p->low, permille, now >= p->idle_after, p->calm);

	if (want == p->low || set_idle(p, want))
		return;		/* the same, or tried again later */
	if (!want && permille >= PACE_BUSY_PERMILLE) {
		/* Raised by its backlog: it stays up a while, longer each time. */
		p->idle_after = now + p->cooldown_ms;
		if (p->cooldown_ms < PACE_COOLDOWN_MAX_MS)
			p->cooldown_ms *= 2;
		p->raised++;
	}
	p->low = want;
	if (want)
		pthread_cond_signal(&p->wake);	/* the watchdog watches now */
}

/* Sleeps while the reader is at its own policy; while it is idle, looks
 * at the backlog every PACE_WATCH_MS and raises it when it is behind. */
static void *watchdog(void *arg)
{
	struct reader_pace *p = arg;
	unsigned stale = 0;	/* periods in a row with no pass of the
				 * reader's loop, and something unread or
				 * the loop not waiting for input */
	uint64_t passes = 0;

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		struct timespec ts;
		int b;

		if (!p->low) {
			stale = 0;
			pthread_cond_wait(&p->wake, &p->lock);
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += PACE_WATCH_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&p->wake, &p->lock, &ts);
		if (p->stop || !p->low)
			continue;
		pthread_mutex_unlock(&p->lock);
		b = p->backlog(p->ctx);
		pthread_mutex_lock(&p->lock);
		stale = (b > 0 || !__atomic_load_n(&p->waiting, __ATOMIC_RELAXED)) &&
				p->passes == passes ? stale + 1 : 0;
		passes = p->passes;
		if (!p->low)
			continue;
		if (b < 0)
			apply(p, -1);
		else if (b >= PACE_BUSY_PERMILLE || stale * PACE_WATCH_MS >= PACE_STALE_MS)
			apply(p, PACE_BUSY_PERMILLE);	/* up, with a cool-down */
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

void pace_init(struct reader_pace *p, bool on, pace_backlog_fn fn, void *ctx)
{
	pthread_condattr_t ca;

	*p = (struct reader_pace){ .cooldown_ms = PACE_COOLDOWN_MS, .backlog = fn,
				   .ctx = ctx, .tid = gettid(), .window_start = now_ms() };
	if (!on || !fn || sched_getscheduler(0) != SCHED_OTHER)
		return;
	errno = 0;
	p->base_nice = getpriority(PRIO_PROCESS, 0);
	if (errno || !can_come_back(p->base_nice))
		return;
	pthread_mutex_init(&p->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->wake, &ca);
	pthread_condattr_destroy(&ca);
	/* Made now, while this thread is at its own policy: the watchdog
	 * keeps it (and the blocked signals of the run loop). */
	if (pthread_create(&p->watchdog, NULL, watchdog, p)) {
		pthread_cond_destroy(&p->wake);
		pthread_mutex_destroy(&p->lock);
		return;
	}
	p->enabled = p->was_enabled = true;
}

/* The record rate over the last full window: calm below PACE_RATE_MAX. */
static void count(struct reader_pace *p, unsigned records)
{
	uint64_t now = now_ms(), span;

	p->window_records += records;
	span = now - p->window_start;
	if (span < PACE_WINDOW_MS)
		return;
	p->calm = p->window_records * 1000 / span < PACE_RATE_MAX;
	p->window_start = now;
	p->window_records = 0;
}

void pace_update(struct reader_pace *p, int permille, unsigned records)
{
	if (!p->enabled)
		return;
	pthread_mutex_lock(&p->lock);
	p->passes++;
	count(p, records);
	apply(p, permille);
	pthread_mutex_unlock(&p->lock);
}

void pace_waiting(struct reader_pace *p, bool waiting)
{
	if (p->enabled)
		__atomic_store_n(&p->waiting, waiting, __ATOMIC_RELAXED);
}

void pace_end(struct reader_pace *p)
{
	if (!p->enabled)
		return;
	pthread_mutex_lock(&p->lock);
	apply(p, -1);
	p->stop = true;
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->watchdog, NULL);
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->lock);
	if (p->low)
		set_idle(p, false);	/* apply() could not: once more */
	p->enabled = false;
}
