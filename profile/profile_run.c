// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "profile_run.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exit_codes.h"
#include "options.h"
#include "profile_report.h"
#include "runner.h"
#include "trace_run.h"
#include "report.h"
#include "version.h"
#include "xalloc.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

static int locked_read(struct pf_run *r, struct pf_snapshot *s)
{
	int err;

	pthread_mutex_lock(&r->lock);
	err = pf_session_read(&r->sess, s);
	pthread_mutex_unlock(&r->lock);
	return err;
}

/* A scrape: a fresh reading, whatever the once-a-second loop is doing. */
static char *render_metrics(void *arg, bool openmetrics)
{
	struct pf_run *r = arg;
	struct pf_snapshot s;
	char *text;

	if (locked_read(r, &s))
		return NULL;
	pthread_mutex_lock(&r->lock);	/* facts: peaks, written each second */
	text = openmetrics ? pf_openmetrics_text(&s, &r->facts) :
			     pf_metrics_text(&s, &r->facts);
	pthread_mutex_unlock(&r->lock);
	pf_snapshot_free(&s);
	return text;
}

/* Closed rings free their slots at once: a machine whose processes open
 * short-lived rings by the hundred a second (-a) would otherwise fill
 * every slot before the workload of interest opens its ring. The notes
 * are waited for here, not in the run loop, which sleeps up to a second.
 * The first ring left out is said on stderr at once, not only in the
 * report (/metrics counts it as uringcheck_profile_missed_total). */
static void *collector(void *arg)
{
	struct pf_run *r = arg;
	struct pollfd p[2] = {
		{ .fd = pf_session_notes_fd(&r->sess), .events = POLLIN },
		{ .fd = r->wake_fd, .events = POLLIN },	/* stop */
	};

	while (!r->stop) {
		int first;

		/* the timeout: notes that did not fit in the ring buffer
		 * (pf_session_collect then looks at every slot) */
		poll(p, 2, 200);
		pthread_mutex_lock(&r->lock);
		first = pf_session_collect(&r->sess);
		pthread_mutex_unlock(&r->lock);
		if (first == 1)
			fprintf(stderr, "uringcheck: profile: a ring went unprofiled: all "
				"--profile-rings=%u slots hold rings still open%s; such rings "
				"are counted (uringcheck_profile_missed_total{what=\"rings_unprofiled\"} "
				"in /metrics, and the report)\n", r->max_rings,
				r->sess.slots_freed ? "" : " (closed rings' slots are not freed "
				"on this kernel: io_ring_exit_work is not in /proc/kallsyms)");
	}
	return NULL;
}

/* --profile-rings unset: 32 for one program; with -a, whose rings are
 * every process's, as many as PF_ALL_TABLES_MB of per-CPU tables hold
 * (about 23 KB per ring and CPU: 1400 rings on 2 CPUs, 45 on 64), 32 to
 * 4096. The tables cannot grow once loaded (per-CPU arrays), so they are
 * sized here. */
#define PF_ALL_TABLES_MB	64

static uint32_t rings_for(const struct uc_options *o)
{
	long cpus = libbpf_num_possible_cpus();
	uint64_t per_ring = sizeof(struct pf_ring_stats) + PF_MAX_OPS * sizeof(struct pf_op_stats);
	uint64_t n;

	if (o->profile_rings > 0)
		return (uint32_t)o->profile_rings;
	if (!o->all)
		return 32;
	n = ((uint64_t)PF_ALL_TABLES_MB << 20) / (per_ring * (uint64_t)(cpus > 0 ? cpus : 1));
	return n < 32 ? 32 : n > 4096 ? 4096 : (uint32_t)n;
}

int pf_run_begin(struct pf_run *r, const struct uc_options *o, FILE *live)
{
	struct pf_config c = {
		.all = o->all,
		.max_rings = rings_for(o),
		.sample = (uint32_t)o->profile_sample,
		.verbose = o->verbose,
	};

	memset(r, 0, sizeof(*r));
	r->opt = o;
	/* the baseline first: a bad one ends the run before it costs one */
	if (o->diff) {
		char err[256];

		if (pf_baseline_load(o->diff, &r->base, err, sizeof(err))) {
			fprintf(stderr, "uringcheck: --diff=%s: %s\n", o->diff, err);
			return -1;
		}
		r->diffing = true;
	}
	pthread_mutex_init(&r->lock, NULL);
	if (pf_session_start(&r->sess, &c)) {
		pf_summary_free(&r->base);
		pf_session_stop(&r->sess);
		return -1;
	}
	r->facts.paths = r->sess.paths;
	r->facts.ncpus = online_cpus();
	r->facts.max_rings = c.max_rings;
	r->max_rings = c.max_rings;
	r->interval_s = o->interval;
	r->live = live;
	r->start_ns = now_ns();
	r->next_tick_ns = r->start_ns + 1000000000ull;
	r->next_interval_ns = r->start_ns + (uint64_t)o->interval * 1000000000ull;
	if (pf_session_read(&r->sess, &r->last) ||
	    pf_session_read(&r->sess, &r->interval)) {
		pf_summary_free(&r->base);
		pf_session_stop(&r->sess);
		return -1;
	}
	r->wake_fd = eventfd(0, EFD_CLOEXEC);
	if (r->wake_fd < 0 || pthread_create(&r->collector, NULL, collector, r)) {
		if (r->wake_fd >= 0)
			close(r->wake_fd);
		fprintf(stderr, "uringcheck: cannot start the profile's collector thread\n");
		pf_session_stop(&r->sess);
		return -1;
	}
	r->collecting = true;
	if (o->metrics) {
		r->metrics = pf_metrics_start(o->metrics, render_metrics, r);
		if (!r->metrics) {
			pf_run_free(r);
			return -1;
		}
		fprintf(stderr, "uringcheck: serving metrics on port %u (--metrics=%s), "
			"path /metrics\n", pf_metrics_port(r->metrics), o->metrics);
	}
	if (r->interval_s)
		pf_live_header(r->live);
	return 0;
}

int pf_run_follow(struct pf_run *r, pid_t pid)
{
	return pf_session_follow(&r->sess, pid);
}

static bool push(uint64_t **v, size_t n, uint64_t x)
{
	uint64_t *nv = realloc(*v, (n + 1) * sizeof(**v));

	if (!nv)
		return false;
	*v = nv;
	nv[n] = x;
	return true;
}

static uint64_t total(const struct pf_snapshot *s, size_t field)
{
	uint64_t sum = 0;

	for (uint32_t r = 0; r < s->nrings; r++)
		for (unsigned op = 0; op < PF_MAX_OPS; op++)
			sum += *(const __u64 *)((const char *)&s->rings[r].ops[op] + field);
	return sum;
}

/* Once a second: the second's volume, the io-wq threads alive. */
static void second(struct pf_run *r, struct pf_snapshot *now)
{
	uint64_t sub = total(now, offsetof(struct pf_op_stats, submits)) -
		       total(&r->last, offsetof(struct pf_op_stats, submits));
	uint64_t cmp = total(now, offsetof(struct pf_op_stats, completes)) -
		       total(&r->last, offsetof(struct pf_op_stats, completes));
	uint32_t *seen = xcalloc(now->nrings + 1, sizeof(*seen));	/* one per process at most */
	size_t nseen = 0;

	pthread_mutex_lock(&r->lock);
	/* both series grow together, or the second is not counted */
	if (push(&r->facts.submits_per_s, r->facts.nsecs, sub) &&
	    push(&r->facts.completes_per_s, r->facts.nsecs, cmp))
		r->facts.nsecs++;
	for (uint32_t i = 0; i < now->nrings; i++) {
		size_t k;

		if (now->rings[i].meta.fd == PF_FD_FOLDED)
			continue;	/* no process's */
		for (k = 0; k < nseen && seen[k] != now->rings[i].meta.tgid; k++)
			;
		if (k == nseen) {
			seen[nseen++] = now->rings[i].meta.tgid;
			pf_sample_threads(&r->facts, now->rings[i].meta.tgid);
		}
	}
	pthread_mutex_unlock(&r->lock);
	free(seen);
}

int pf_run_tick(struct pf_run *r)
{
	uint64_t t = now_ns(), next;

	if (t >= r->next_tick_ns) {
		struct pf_snapshot now;

		if (!locked_read(r, &now)) {
			second(r, &now);
			if (r->interval_s && t >= r->next_interval_ns) {
				struct pf_snapshot d;

				if (!pf_snapshot_delta(&now, &r->interval, &d)) {
					pf_live_rows(r->live, &d, (now.ts_ns - r->interval.ts_ns) / 1e9,
						     (t - r->start_ns) / 1e9,
						     r->opt->filter ? &r->opt->filt : NULL);
					pf_snapshot_free(&d);
				}
				pf_snapshot_free(&r->interval);
				pf_snapshot_copy(&r->interval, &now);
				r->next_interval_ns += (uint64_t)r->interval_s * 1000000000ull;
			}
			pf_snapshot_free(&r->last);
			r->last = now;
		}
		r->next_tick_ns += 1000000000ull;
		if (r->next_tick_ns < t)
			r->next_tick_ns = t + 1000000000ull;
	}
	next = r->next_tick_ns;
	return (int)((next - t) / 1000000) + 1;
}

static void stop_collector(struct pf_run *r)
{
	if (!r->collecting)
		return;
	uint64_t one = 1;

	r->stop = true;
	/* if the write fails, it sees the flag within its poll timeout */
	(void)!write(r->wake_fd, &one, sizeof(one));
	pthread_join(r->collector, NULL);
	r->collecting = false;
	close(r->wake_fd);
}

/*
 * A ring is seen closed when the kernel's teardown of it
 * (io_ring_exit_work, in a worker) has ended, which can be tens of ms
 * after the program's close on a loaded machine: the profile of a
 * program that closed its rings and exited would show some of them open.
 * So, at the end, rings of processes that are gone are waited for, up to
 * PF_TEARDOWN_WAIT_MS in all (a teardown held up by a request the kernel
 * cannot cancel is not waited for longer: its ring stays open in the
 * report). Nothing is waited for when every ring left belongs to a live
 * process (-p, -a).
 */
#define PF_TEARDOWN_WAIT_MS	500
#define PF_TEARDOWN_POLL_MS	5

static void wait_teardowns(struct pf_run *r)
{
	struct pollfd p = { .fd = pf_session_notes_fd(&r->sess), .events = POLLIN };
	/* by the clock: each look at the slots takes time of its own */
	uint64_t deadline = now_ns() + PF_TEARDOWN_WAIT_MS * 1000000ull;

	if (!r->sess.slots_freed)
		return;		/* no teardown is seen on this kernel */
	while (now_ns() < deadline) {
		unsigned closing;

		pthread_mutex_lock(&r->lock);
		closing = pf_session_rings_closing(&r->sess);
		pthread_mutex_unlock(&r->lock);
		if (!closing)
			return;
		poll(&p, 1, PF_TEARDOWN_POLL_MS);
		pthread_mutex_lock(&r->lock);
		pf_session_collect(&r->sess);
		pthread_mutex_unlock(&r->lock);
	}
}

void pf_run_finish(struct pf_run *r, const struct pf_hazard_count *hazards, int nhazards,
		   uint64_t check_events_lost)
{
	/* the last notes too: a ring closed at exit is a retired row (the
	 * lock: /metrics may be reading) */
	stop_collector(r);
	pthread_mutex_lock(&r->lock);
	pf_session_collect(&r->sess);
	pthread_mutex_unlock(&r->lock);
	wait_teardowns(r);
	if (locked_read(r, &r->final))
		memset(&r->final, 0, sizeof(r->final));
	r->facts.window_s = (r->final.ts_ns - r->start_ns) / 1e9;
	/* the last partial second counts too: a short run has one */
	second(r, &r->final);
	if (hazards && nhazards > 0) {
		r->facts.hazards = xcalloc((size_t)nhazards, sizeof(*hazards));
		memcpy(r->facts.hazards, hazards, (size_t)nhazards * sizeof(*hazards));
		r->facts.nhazards = nhazards;
	}
	r->facts.checked = hazards != NULL;
	r->facts.check_events_lost = check_events_lost;
	doctor_run(&r->final, &r->facts, &r->verdicts, &r->nverdicts);
	if (r->diffing) {	/* this run, read as the baseline was */
		json_object *p = pf_run_json(r), *f = pf_run_findings_json(r);
		char err[256];

		if (pf_summary_from_json(p, f, &r->now, err, sizeof(err))) {
			fprintf(stderr, "uringcheck: --diff: this run: %s\n", err);
			r->diffing = false;
		}
		json_object_put(p);
		json_object_put(f);
	}
}

void pf_run_report(struct pf_run *r, FILE *out, const char *what)
{
	const struct uc_filter *filt = r->opt->filter ? &r->opt->filt : NULL;

	if (r->opt->compact)
		pf_compact_text(out, &r->final, &r->facts, filt, what);
	else
		pf_report_text(out, &r->final, &r->facts, filt, what);
	if (r->diffing)
		pf_diff_text(out, &r->base, &r->now, r->opt->diff, filt);
	pf_report_doctor(out, r->nverdicts);
}

int pf_run_doctor_level(const struct pf_run *r)
{
	int level = 0;

	for (size_t i = 0; i < r->nverdicts; i++) {
		int l = !strcmp(r->verdicts[i].rule->severity, "warning") ?
			UC_FAIL_DOCTOR_WARNING : UC_FAIL_DOCTOR_NOTE;

		if (l > level)
			level = l;
	}
	return level;
}

json_object *pf_run_json(struct pf_run *r)
{
	return pf_report_json(&r->final, &r->facts);
}

json_object *pf_run_findings_json(struct pf_run *r)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < r->nverdicts; i++)
		json_object_array_add(a, pf_verdict_json(&r->verdicts[i]));
	return a;
}

void pf_run_free(struct pf_run *r)
{
	stop_collector(r);
	pf_metrics_stop(r->metrics);
	r->metrics = NULL;
	pf_session_stop(&r->sess);
	pf_snapshot_free(&r->last);
	pf_snapshot_free(&r->interval);
	pf_snapshot_free(&r->final);
	doctor_free(r->verdicts, r->nverdicts);
	r->verdicts = NULL;
	r->nverdicts = 0;
	pf_run_facts_free(&r->facts);
	pf_summary_free(&r->base);
	pf_summary_free(&r->now);
	pthread_mutex_destroy(&r->lock);
}

void pf_run_to_report(struct pf_run *r, struct uc_report *rep, uint32_t pid)
{
	for (size_t i = 0; i < r->nverdicts; i++) {
		struct uc_finding f;

		doctor_finding(&r->verdicts[i], pid, &f);
		report_finding(rep, &f);
	}
	json_object_put(rep->profile_json);
	rep->profile_json = pf_run_json(r);
	if (r->diffing)		/* docs/json.md: an addition, with --diff only */
		json_object_object_add(rep->profile_json, "diff",
				       pf_diff_json(&r->base, &r->now, r->opt->diff));
}
