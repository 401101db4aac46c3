// SPDX-License-Identifier: GPL-2.0
/*
 * The profile as JSON (docs/profile.md), built with json-c: 64-bit
 * counters go in as integers (json_object_new_uint64), never as doubles.
 */
#define _GNU_SOURCE
#include "profile_report.h"

#include <string.h>

#include "opcode_names.h"

static void add_u64(json_object *o, const char *k, uint64_t v)
{
	json_object_object_add(o, k, json_object_new_uint64(v));
}

static json_object *hist_json(const __u64 *h, int nb)
{
	json_object *a = json_object_new_array();
	int last = -1;

	for (int b = 0; b < nb; b++)
		if (h[b])
			last = b;
	for (int b = 0; b <= last; b++)
		json_object_array_add(a, json_object_new_uint64(h[b]));
	return a;
}

static json_object *op_json(unsigned op, const struct pf_op_stats *t, bool paths)
{
	json_object *o = json_object_new_object(), *lat = json_object_new_object();
	char name[16];

	json_object_object_add(o, "opcode", json_object_new_string(uc_opcode_name(op, name)));
	json_object_object_add(o, "opcode_number", json_object_new_int(op));
	add_u64(o, "submitted", t->submits);
	add_u64(o, "completed", t->completes);
	add_u64(o, "errors", t->errors);
	add_u64(o, "bytes", t->bytes);
	if (paths) {
		json_object *p = json_object_new_object();
		uint64_t timed = t->completes - t->unseen;

		add_u64(p, "inline", timed - t->polled - t->punted);
		add_u64(p, "poll_armed", t->polled);
		add_u64(p, "punted", t->punted);
		add_u64(p, "punted_forced", t->forced);
		json_object_object_add(o, "paths", p);
	}
	add_u64(o, "short_writes", t->short_writes);
	add_u64(o, "submitted_before_profile", t->unseen);
	add_u64(o, "ended_without_cqe", t->silent);
	add_u64(lat, "p50", (uint64_t)pf_op_quantile(t, 0.5));
	add_u64(lat, "p90", (uint64_t)pf_op_quantile(t, 0.9));
	add_u64(lat, "p99", (uint64_t)pf_op_quantile(t, 0.99));
	add_u64(lat, "max", t->lat_max_ns);
	add_u64(lat, "sum", t->lat_sum_ns);
	json_object_object_add(lat, "log2_histogram", hist_json(t->lat_hist, PF_LAT_BUCKETS));
	json_object_object_add(o, "latency_ns", lat);
	return o;
}

static json_object *ring_json(const struct pf_snapshot *s, const struct pf_ring_view *rv,
			      bool paths)
{
	const struct pf_ring_stats *st = &rv->st;
	json_object *o = json_object_new_object(), *ops = json_object_new_array();
	json_object *en = json_object_new_object(), *cq = json_object_new_object();
	json_object *errs = json_object_new_array(), *reg = json_object_new_array();
	char a[24];

	json_object_object_add(o, "fd", json_object_new_int(rv->meta.fd));
	snprintf(a, sizeof(a), "0x%llx", (unsigned long long)rv->meta.ctx);
	json_object_object_add(o, "address", json_object_new_string(a));
	json_object_object_add(o, "pid", json_object_new_int(rv->meta.tgid));
	json_object_object_add(o, "comm", json_object_new_string(rv->meta.comm));
	add_u64(o, "sq_entries", rv->meta.sq_entries);
	add_u64(o, "cq_entries", rv->meta.cq_entries);
	add_u64(o, "setup_flags", rv->meta.setup_flags);
	json_object_object_add(o, "created_during_profile",
			       json_object_new_boolean(rv->meta.created_ns != 0));
	/* its context freed before the end of the profile */
	json_object_object_add(o, "closed", json_object_new_boolean(rv->meta.closed_ns != 0));
	if (rv->meta.fd == PF_FD_FOLDED)
		add_u64(o, "folded_rings", s->folded_rings);
	for (unsigned op = 0; op < PF_MAX_OPS; op++)
		if (rv->ops[op].submits || rv->ops[op].completes)
			json_object_array_add(ops, op_json(op, &rv->ops[op], paths));
	json_object_object_add(o, "opcodes", ops);
	add_u64(en, "calls", st->enters);
	add_u64(en, "submitting_calls", st->enters_submitting);
	add_u64(en, "sqes_submitted", st->enter_sqes);
	add_u64(en, "waiting_calls", st->enters_waiting);
	add_u64(en, "sqpoll_wakeups", st->sq_wakeups);
	json_object_object_add(o, "io_uring_enter", en);
	add_u64(cq, "overflowed", st->cq_overflows);
	add_u64(cq, "auxiliary", st->aux_cqes);
	add_u64(cq, "waits", st->cqring_waits);
	json_object_object_add(cq, "wait_min_events_log2_histogram",
			       hist_json(st->wait_hist, PF_WAIT_BUCKETS));
	json_object_object_add(o, "cqes", cq);
	add_u64(o, "requests_evicted", st->evicted);
	for (size_t e = 0; e < s->nerrs; e++) {
		const struct pf_errno_view *ev = &s->errs[e];
		json_object *x;
		char name[16];

		if (ev->ring != rv->slot)
			continue;
		x = json_object_new_object();
		json_object_object_add(x, "opcode",
				       json_object_new_string(uc_opcode_name(ev->opcode, name)));
		json_object_object_add(x, "errno", json_object_new_string(
			strerrorname_np(ev->err) ? strerrorname_np(ev->err) : "?"));
		json_object_object_add(x, "errno_number", json_object_new_int(ev->err));
		add_u64(x, "count", ev->n);
		json_object_array_add(errs, x);
	}
	json_object_object_add(o, "errors", errs);
	for (unsigned op = 0; op < PF_REG_OPS; op++) {
		json_object *x;

		if (!st->reg_count[op])
			continue;
		x = json_object_new_object();
		json_object_object_add(x, "opcode", json_object_new_int(op));
		add_u64(x, "calls", st->reg_count[op]);
		add_u64(x, "time_ns", st->reg_ns[op]);
		json_object_array_add(reg, x);
	}
	json_object_object_add(o, "registration", reg);
	add_u64(o, "registration_errors", st->register_errors);
	return o;
}

json_object *pf_report_json(const struct pf_snapshot *s, const struct pf_run_facts *f)
{
	json_object *o = json_object_new_object(), *rings = json_object_new_array();
	json_object *procs = json_object_new_array(), *per = json_object_new_object();
	json_object *sub = json_object_new_array(), *cmp = json_object_new_array();
	json_object *fid = json_object_new_object();

	json_object_object_add(o, "window_s", json_object_new_double(f->window_s));
	json_object_object_add(o, "paths_attributed", json_object_new_boolean(f->paths));
	for (uint32_t r = 0; r < s->nrings; r++)
		json_object_array_add(rings, ring_json(s, &s->rings[r], f->paths));
	json_object_object_add(o, "rings", rings);
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct pf_proc_view *p = &s->procs[i];
		json_object *x = json_object_new_object();
		uint32_t peak = 0;

		for (size_t k = 0; k < f->npeaks; k++)
			if (f->peaks[k].tgid == p->tgid)
				peak = f->peaks[k].workers;
		json_object_object_add(x, "pid", json_object_new_int(p->tgid));
		add_u64(x, "io_uring_setup_calls", p->p.setups);
		add_u64(x, "iowq_workers_seen", p->p.workers);
		add_u64(x, "iowq_workers_peak", peak);
		add_u64(x, "iowq_oncpu_ns", p->p.worker_oncpu_ns);
		add_u64(x, "sqpoll_threads", p->p.sqpoll_threads);
		add_u64(x, "sqpoll_oncpu_ns", p->p.sqpoll_oncpu_ns);
		json_object_array_add(procs, x);
	}
	json_object_object_add(o, "processes", procs);
	for (size_t i = 0; i < f->nsecs; i++) {
		json_object_array_add(sub, json_object_new_uint64(f->submits_per_s[i]));
		json_object_array_add(cmp, json_object_new_uint64(f->completes_per_s[i]));
	}
	json_object_object_add(per, "submitted", sub);
	json_object_object_add(per, "completed", cmp);
	json_object_object_add(o, "per_second", per);
	add_u64(fid, "rings_unprofiled", s->stats[PF_STAT_RINGS_UNPROFILED]);
	add_u64(fid, "rings_folded", s->folded_rings);
	add_u64(fid, "profile_rings", f->max_rings);	/* the slots it had */
	add_u64(fid, "requests_unprofiled", s->stats[PF_STAT_REQS_UNPROFILED]);
	add_u64(fid, "threads_not_recorded", s->stats[PF_STAT_THREADS_FULL]);
	add_u64(fid, "processes_not_followed", s->stats[PF_STAT_PROCS_FULL]);
	add_u64(fid, "errors_not_by_errno", s->stats[PF_STAT_ERRNO_FULL]);
	json_object_object_add(o, "fidelity", fid);
	return o;
}

json_object *pf_verdict_json(const struct doctor_verdict *v)
{
	json_object *o = json_object_new_object();
	char head[256];

	snprintf(head, sizeof(head), "%s: %s", v->rule->name, v->title);
	json_object_object_add(o, "kind", json_object_new_string(v->rule->name));
	json_object_object_add(o, "rule_type", json_object_new_string("doctor"));
	json_object_object_add(o, "severity", json_object_new_string(v->rule->severity));
	json_object_object_add(o, "pid", json_object_new_int(v->pid));
	json_object_object_add(o, "headline", json_object_new_string(head));
	json_object_object_add(o, "evidence", json_object_get(v->evidence));
	json_object_object_add(o, "fix", json_object_new_string(v->rule->fix));
	json_object_object_add(o, "count", json_object_new_int(1));
	return o;
}
