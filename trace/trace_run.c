// SPDX-License-Identifier: GPL-2.0
#include "trace_run.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "events_export.h"
#include "options.h"
#include "finding.h"
#include "report.h"
#include "timeline.h"

static void on_record(void *arg, const void *rec, size_t size)
{
	struct tr_run *r = arg;

	if (r->timeline)
		tl_record(r->timeline, rec, size);
	if (r->events)
		ev_export_record(r->events, rec, size);
}

int tr_run_begin(struct tr_run *r, const struct uc_options *o)
{
	struct tr_config c = {
		.all = o->all,
		.sample = (uint32_t)o->sample,
		.buffer_mb = (uint32_t)o->trace_buffer_mb,
		.verbose = o->verbose,
	};
	char err[512];

	memset(r, 0, sizeof(*r));
	if (!o->trace && !o->events)
		return 0;
	r->timeline_path = o->trace;
	r->events_path = o->events;
	if (o->trace && !(r->timeline = tl_open(o->trace, err, sizeof(err)))) {
		fprintf(stderr, "uringcheck: %s\n", err);
		return -1;
	}
	if (o->events && !(r->events = ev_export_open(o->events, err, sizeof(err)))) {
		fprintf(stderr, "uringcheck: %s\n", err);
		return -1;
	}
	if (tr_session_start(&r->sess, &c, on_record, r)) {
		tr_session_stop(&r->sess);
		return -1;
	}
	r->active = true;
	return 0;
}

int tr_run_follow(struct tr_run *r, pid_t pid)
{
	return r->active ? tr_session_follow(&r->sess, pid) : 0;
}

void tr_run_drain(struct tr_run *r)
{
	if (r->active)
		tr_session_drain(&r->sess);
}

/* The request a finding is about: its evidence's "request" (or the
 * "in_flight" one), by user_data. */
static bool finding_user_data(const struct uc_finding *f, uint64_t *ud)
{
	static const char *const keys[] = { "request", "in_flight" };
	json_object *r, *u;

	for (size_t i = 0; f->evidence && i < 2; i++)
		if (json_object_object_get_ex(f->evidence, keys[i], &r) &&
		    json_object_object_get_ex(r, "user_data", &u)) {
			*ud = strtoull(json_object_get_string(u), NULL, 0);
			return true;
		}
	return false;
}

void tr_run_finding(void *arg, const struct uc_finding *f, const char *text)
{
	struct tr_run *r = arg;
	struct timespec ts;
	uint64_t ud = 0;
	bool has_ud;

	if (!r->active || !r->timeline)
		return;
	/* the records up to now first: the request must be on its lane */
	tr_session_drain(&r->sess);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	has_ud = finding_user_data(f, &ud);
	tl_finding(r->timeline, ts.tv_sec * 1000000000ull + ts.tv_nsec, f->pid, has_ud, ud,
		   f->rule->name, text);
}

static const char *const type_names[TR__COUNT] = {
	[TR_RING] = "ring", [TR_SUBMIT] = "submit", [TR_POLL_ARM] = "poll-arm",
	[TR_PUNT] = "punt", [TR_COMPLETE] = "complete", [TR_SYS_ENTER] = "syscall-enter",
	[TR_SYS_EXIT] = "syscall-exit", [TR_THREAD] = "thread",
};

int tr_run_end(struct tr_run *r, FILE *out, uint32_t pid)
{
	uint64_t lost[TR__COUNT], total, rows = 0;
	struct timespec ts;
	int err = 0;

	if (!r->active)
		return 0;
	tr_session_drain(&r->sess);
	total = tr_session_lost(&r->sess, lost);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (r->timeline) {
		struct tl_stats st;

		if (tl_close(r->timeline, ts.tv_sec * 1000000000ull + ts.tv_nsec, lost,
			     total, &st))
			err = -1;
		r->timeline = NULL;
		/* bytes per request: what the encoding costs (docs/trace.md, Size) */
		fprintf(out, "==%u==uringcheck: trace: %llu requests, %llu records, %s "
			"(%.1f MB, %.0f bytes per request)%s\n", pid,
			(unsigned long long)st.requests, (unsigned long long)r->sess.records,
			r->timeline_path, st.bytes / 1e6,
			st.requests ? (double)st.bytes / st.requests : 0.0,
			err ? ": WRITE FAILED" : "");
	}
	if (r->events) {
		int e = ev_export_close(r->events, &rows, total);

		fprintf(out, "==%u==uringcheck: events: %llu rows, %s%s\n", pid,
			(unsigned long long)rows, r->events_path, e ? ": WRITE FAILED" : "");
		err |= e;
	}
	if (total) {
		/* never silent: the files lack these, and say so too */
		fprintf(out, "==%u==WARNING: uringcheck: trace: %llu records lost (buffer "
			"full; raise --trace-buffer or use --sample):", pid,
			(unsigned long long)total);
		for (int t = 1; t < TR__COUNT; t++)
			if (lost[t])
				fprintf(out, " %s %llu", type_names[t], (unsigned long long)lost[t]);
		fputc('\n', out);
	}
	tr_session_stop(&r->sess);
	r->active = false;
	return err;
}
