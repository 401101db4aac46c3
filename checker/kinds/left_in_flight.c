// SPDX-License-Identifier: GPL-2.0
/*
 * left-in-flight: requests left in flight, and CQEs left unconsumed, at
 * one teardown (docs/hazards.md §4). The kernel cancels them, so this is
 * untidiness, a warning unless --fail-on names it. Requests that hold
 * memory are listed by submit site; the others, and the CQEs, are
 * counts. A fatal signal gets one line: the crash is the news.
 */
#define _GNU_SOURCE
#include "builder_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/types.h>
#include "uringcheck.h"

static const char *teardown_text(uint32_t reason, int32_t detail, int fd,
				 char *buf, size_t len)
{
	switch (reason) {
	case UC_TD_EXIT:
		snprintf(buf, len, "the process exited (status %d)", detail);
		break;
	case UC_TD_SIGNAL:
		snprintf(buf, len, "the process was killed by signal %d (%s)", detail,
			 sigabbrev_np(detail) ? sigabbrev_np(detail) : "?");
		break;
	case UC_TD_CLOSE:
		snprintf(buf, len, "ring fd %d was closed", fd);
		break;
	case UC_TD_EXEC:
		snprintf(buf, len, "the process called exec");
		break;
	default:
		snprintf(buf, len, "teardown");
	}
	return buf;
}

/* Where the program let go of the ring or process. */
static const char *teardown_title(uint32_t reason)
{
	return reason == UC_TD_CLOSE ? "closed at:" :
	       reason == UC_TD_EXEC ? "exec called at:" : "exited at:";
}

/* uc_finding_title or uc_finding_text: where a piece of text goes. */
typedef void (*appender)(struct uc_finding *f, const char *fmt, ...);

/* "POLL_ADD x4, NOP x1" */
static void add_nomem(struct uc_finding *f, appender add, const struct uc_left_finding *x)
{
	char b[16];

	for (uint32_t i = 0; i < x->nnomem_ops; i++)
		add(f, "%s%s x%llu", i ? ", " : "", uc_opcode_name(x->nomem_ops[i].opcode, b),
		    (unsigned long long)x->nomem_ops[i].count);
	if (x->nnomem_ops == UC_LEFT_NOMEM_OPS)
		add(f, ", ...");
}

/* "  unconsumed: READ user_data 0x5 res 4096, NOP user_data 0x0 res 0, ..." */
static void add_cqes(struct uc_finding *f, const struct uc_left_finding *x)
{
	char b[16];

	if (!x->ncqes)
		return;
	uc_finding_text(f, "  unconsumed: ");
	for (uint32_t i = 0; i < x->ncqes; i++) {
		const struct uc_left_cqe *c = &x->cqes[i];

		uc_finding_text(f, "%s%s user_data 0x%llx res %d", i ? ", " : "",
				c->opcode >= 0 ? uc_opcode_name(c->opcode, b) : "CQE",
				(unsigned long long)c->user_data, c->res);
	}
	uc_finding_text(f, "%s\n", x->unconsumed > x->ncqes ? ", ..." : "");
}

/* The header line after "left-in-flight: ": what was left and when; in
 * the one-line form, also what they were. */
static void add_title(struct uc_finding *f, const struct uc_left_finding *x, const char *why)
{
	uint64_t total = x->held + x->nomem;
	char b[16];

	if (total)
		uc_finding_title(f, "%llu request%s still in flight", (unsigned long long)total,
				 total == 1 ? "" : "s");
	if (total && x->unconsumed)
		uc_finding_title(f, " and ");
	if (x->unconsumed) {
		uc_finding_title(f, "%llu completion%s never consumed",
				 (unsigned long long)x->unconsumed, x->unconsumed == 1 ? "" : "s");
		if (x->overflowed)
			uc_finding_title(f, " (%s%llu on the overflow list)", x->overflow_capped ?
					 "at least " : "", (unsigned long long)x->overflowed);
	}
	if (!total && !x->unconsumed)
		uc_finding_title(f, "the CQ head was %u entries past the tail", x->head_past_tail);
	uc_finding_title(f, " when %s", why);
	if (!f->brief)
		return;
	if (x->nnomem_ops || x->ngroups) {
		uc_finding_title(f, " (");
		for (uint32_t i = 0; i < x->ngroups; i++)
			uc_finding_title(f, "%s%s x%llu", i ? ", " : "",
					 uc_opcode_name(x->groups[i].opcode, b),
					 (unsigned long long)x->groups[i].count);
		if (x->ngroups && x->nnomem_ops)
			uc_finding_title(f, ", ");
		add_nomem(f, uc_finding_title, x);
		uc_finding_title(f, ")");
	}
	if (x->head_past_tail)
		uc_finding_title(f, "; the program moved its CQ head %u entries past the tail (it "
				 "consumed completions that were never posted)", x->head_past_tail);
}

static void describe_text(struct uc_finding *f, const struct uc_report *rep, const char *why,
			  const int *group_stack, int teardown_stack)
{
	const struct uc_left_finding *x = f->src;
	char b[16], ring[64];

	add_title(f, x, why);
	if (f->brief) {
		/* A crash is its own news: one line. Otherwise which CQEs and
		 * where the program let go, so it can be found. */
		if (x->reason == UC_TD_SIGNAL)
			return;
		add_cqes(f, x);
		uc_finding_show_stack(f, teardown_title(x->reason), teardown_stack);
		return;
	}
	for (uint32_t i = 0; i < x->ngroups; i++) {
		const struct uc_left_group *g = &x->groups[i];

		uc_finding_text(f, "  %llu x %s on %s holding %llu bytes, in flight "
				"for %.3f ms, user_data", (unsigned long long)g->count,
				uc_opcode_name(g->opcode, b),
				kind_ring(rep, g->ring_fd, ring, sizeof(ring)),
				(unsigned long long)g->bytes,
				(double)(x->teardown_ts - g->oldest_ts) / 1e6);
		for (uint64_t k = 0; k < g->count && k < 4; k++)
			uc_finding_text(f, " 0x%llx", (unsigned long long)g->user_data[k]);
		uc_finding_text(f, "%s\n", g->count > 4 ? " ..." : "");
		uc_finding_show_stack(f, "submitted at:", group_stack[i]);
	}
	if (x->nomem) {
		uc_finding_text(f, "  and %llu that hold no memory: ",
				(unsigned long long)x->nomem);
		add_nomem(f, uc_finding_text, x);
		uc_finding_text(f, "\n");
	}
	add_cqes(f, x);
	uc_finding_show_stack(f, teardown_title(x->reason), teardown_stack);
	if (x->head_past_tail)
		uc_finding_text(f, "  The program moved its CQ head %u entries past the tail "
				"(it consumed completions that were never posted).\n",
				x->head_past_tail);
	uc_finding_text(f, "  The kernel cancels them now. Their buffers stay the kernel's "
			"until it does: reusing or freeing one before is a hazard. Cancel and "
			"reap requests before tearing down to make this report go away.\n");
}

static json_object *groups_json(const struct uc_left_finding *x)
{
	json_object *a = json_object_new_array();
	char b[16];

	for (uint32_t i = 0; i < x->ngroups; i++) {
		json_object *g = json_object_new_object();

		json_object_object_add(g, "opcode", json_object_new_string(
					       uc_opcode_name(x->groups[i].opcode, b)));
		json_object_object_add(g, "ring_fd", json_object_new_int(x->groups[i].ring_fd));
		json_object_object_add(g, "count", json_object_new_uint64(x->groups[i].count));
		json_object_object_add(g, "bytes", json_object_new_uint64(x->groups[i].bytes));
		json_object_array_add(a, g);
	}
	return a;
}

static json_object *nomem_json(const struct uc_left_finding *x)
{
	json_object *a = json_object_new_array();
	char b[16];

	for (uint32_t i = 0; i < x->nnomem_ops; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "opcode", json_object_new_string(
					       uc_opcode_name(x->nomem_ops[i].opcode, b)));
		json_object_object_add(o, "count", json_object_new_uint64(x->nomem_ops[i].count));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *cqes_json(const struct uc_left_finding *x)
{
	json_object *a = json_object_new_array();
	char b[16];

	for (uint32_t i = 0; i < x->ncqes; i++) {
		const struct uc_left_cqe *c = &x->cqes[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "opcode", c->opcode >= 0 ?
				       json_object_new_string(uc_opcode_name(c->opcode, b)) : NULL);
		json_object_object_add(o, "user_data", uc_json_hex(c->user_data));
		json_object_object_add(o, "res", json_object_new_int(c->res));
		json_object_array_add(a, o);
	}
	return a;
}

static void describe(struct uc_finding *f, const struct uc_report *rep)
{
	const struct uc_left_finding *x = f->src;
	int *group_stack = calloc(x->ngroups ? x->ngroups : 1, sizeof(int));
	int teardown_stack = -1;
	char why[96];

	if (!group_stack)
		return;
	teardown_text(x->reason, x->detail, x->ring_fd, why, sizeof(why));
	/* No stack for a group: the SQPOLL thread submitted it, unless
	 * capture is off altogether. */
	for (uint32_t i = 0; i < x->ngroups; i++)
		group_stack[i] = uc_finding_stack(f, "group submitted", x->groups[i].stack_id,
				kind_why_no_stack(rep, !x->groups[i].stack_id && !rep->stacks_off));
	if (x->teardown_stack_id)
		teardown_stack = uc_finding_stack(f, "teardown", x->teardown_stack_id, "");
	describe_text(f, rep, why, group_stack, teardown_stack);
	free(group_stack);

	uc_finding_evidence(f, "teardown", json_object_new_string(why));
	uc_finding_evidence(f, "requests", json_object_new_uint64(x->held + x->nomem));
	uc_finding_evidence(f, "holding_memory", json_object_new_uint64(x->held));
	uc_finding_evidence(f, "holding_none", json_object_new_uint64(x->nomem));
	uc_finding_evidence(f, "cqes_unconsumed", json_object_new_uint64(x->unconsumed));
	uc_finding_evidence(f, "cqes_overflowed", json_object_new_uint64(x->overflowed));
	uc_finding_evidence(f, "cq_head_past_tail", json_object_new_int64(x->head_past_tail));
	uc_finding_evidence(f, "groups", groups_json(x));
	uc_finding_evidence(f, "no_memory", nomem_json(x));
	uc_finding_evidence(f, "cqes_first", cqes_json(x));
}

void report_left_in_flight(struct uc_report *rep, const struct uc_left_finding *x)
{
	uint64_t total = x->held + x->nomem;
	struct uc_finding f;
	char why[96];

	teardown_text(x->reason, x->detail, x->ring_fd, why, sizeof(why));
	uc_finding_init(&f, &uc_kind_rules[UC_KIND_LEFT_IN_FLIGHT], x->tgid);
	if (total && x->unconsumed)
		uc_finding_headline(&f, "left-in-flight %llu request%s and %llu CQE%s when %s "
				    "in pid %u", (unsigned long long)total, total == 1 ? "" : "s",
				    (unsigned long long)x->unconsumed,
				    x->unconsumed == 1 ? "" : "s", why, x->tgid);
	else if (!total && !x->unconsumed)
		uc_finding_headline(&f, "left-in-flight CQ head %u past the tail when %s in "
				    "pid %u", x->head_past_tail, why, x->tgid);
	else
		uc_finding_headline(&f, "left-in-flight %llu %s%s when %s in pid %u",
				    (unsigned long long)(total ? total : x->unconsumed),
				    total ? "request" : "CQE",
				    (total ? total : x->unconsumed) == 1 ? "" : "s", why, x->tgid);
	f.key = x->key;
	f.site_stack = x->ngroups ? x->groups[0].stack_id : 0;
	/* A crash, or nothing holding memory: one line, no stacks of the
	 * requests, no SUMMARY. */
	f.brief = x->reason == UC_TD_SIGNAL || !x->held;
	f.describe = describe;
	f.src = x;
	report_finding(rep, &f);
}
