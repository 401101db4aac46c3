// SPDX-License-Identifier: GPL-2.0
/*
 * user-data-reuse (docs/hazards.md): a request submitted with the same
 * user_data as a request still in flight on the same ring, when that value
 * points into the process's writable memory (the "user_data is my request
 * context" idiom). Small integers and other tags are shared legitimately
 * and never a finding; nor are members of one link chain (one operation,
 * ordered by the kernel) or requests whose success CQE is suppressed.
 *
 * Judged for the requests the kernel side sends: those that hold user
 * memory, buffer-select requests, and those that hold none but carry a
 * pointer-like user_data (bpf/uringcheck.bpf.c, context_tag(): a NOP,
 * POLL or TIMEOUT reusing a context; not the cancel/remove family).
 *
 * A rule (rule.h): on_submit; on_end forgets a request that left flight.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "describe.h"
#include "rule.h"
#include "xalloc.h"
#include "../../reports/dedup.h"
#include "kinds/kind_reports.h"

#define UC_IOSQE_CQE_SKIP_SUCCESS	(1u << 6)

static uint64_t ud_key(uint64_t ctx, uint64_t user_data)
{
	return uc_key_mix(ctx, user_data);
}

/* A user-space pointer as programs make them: canonical, past the first
 * 64 KiB, 8-byte aligned (a context struct). */
static bool pointer_like(uint64_t v)
{
	return v >= 0x10000 && v < 0x800000000000ULL && !(v & 7);
}

/* Writable mappings of the last process asked about, from /proc. */
struct writable {
	uint32_t tgid;
	uint64_t (*ranges)[2];
	size_t n;
	uint64_t read_at;		/* records read when read */
};

/* The rule's state. */
struct ud_rule {
	struct u64map by_user_data;	/* (ring, user_data) -> latest request
					 * in flight with it */
	struct writable writable;
};

static void read_writable(struct writable *w, uint32_t tgid, uint64_t now)
{
	char path[64], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/maps", tgid);
	w->tgid = tgid;
	w->n = 0;
	w->read_at = now;
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e;
		char perms[5];

		if (sscanf(line, "%llx-%llx %4s", &s, &e, perms) != 3 || perms[1] != 'w')
			continue;
		/* io_uring's own rings: an SQE's address used as the tag
		 * (liburing's poll-cancel-ton) names a slot, not a context */
		if (strstr(line, "[io_uring]"))
			continue;
		w->ranges = xrealloc(w->ranges,
				 (w->n + 1) * sizeof(*w->ranges));
		w->ranges[w->n][0] = s;
		w->ranges[w->n][1] = e;
		w->n++;
	}
	fclose(f);
}

/*
 * Does @v point into writable memory of @tgid? Read from /proc once and
 * again when an address is not found (a mapping made since), at most
 * every 4096 events. A process already gone cannot be asked: its pointer-
 * like value is taken as a pointer.
 */
static bool points_to_writable(struct writable *w, struct uc_check *ck, uint32_t tgid,
			       uint64_t v)
{
	for (int pass = 0; pass < 2; pass++) {
		if (w->tgid != tgid ||
		    (pass && ck->events - w->read_at >= 4096))
			read_writable(w, tgid, ck->events);
		else if (pass)
			break;
		for (size_t i = 0; i < w->n; i++)
			if (v >= w->ranges[i][0] && v < w->ranges[i][1])
				return true;
	}
	if (!w->n)	/* /proc/PID/maps unreadable: the process left */
		return true;
	return false;
}

static void on_submit(void *arg, struct uc_check *ck, struct uc_request *r)
{
	struct ud_rule *st = arg;
	const struct uc_submit *s = &r->sub;
	uint64_t key = ud_key(s->ctx, s->user_data);
	struct uc_request *prev;
	struct uc_ud_reuse_finding f;
	bool spans_loss;

	if (!pointer_like(s->user_data) || (s->sqe_flags & UC_IOSQE_CQE_SKIP_SUCCESS))
		return;
	prev = u64map_put(&st->by_user_data, key, r);
	if (!prev || prev == r || prev->sub.ctx != s->ctx ||
	    prev->sub.user_data != s->user_data)
		return;
	if (prev->sub.chain_seq && prev->sub.chain_seq == s->chain_seq)
		return;		/* one operation, ordered by the kernel */
	if (!points_to_writable(&st->writable, ck, s->hdr.tgid, s->user_data))
		return;
	if (evidence_judge(&ck->ev, prev, &spans_loss) == UC_WITHHELD) {
		report_withheld(ck->report, UC_KIND_USER_DATA_REUSE, 1);
		return;
	}
	memset(&f, 0, sizeof(f));
	f.tgid = s->hdr.tgid;
	describe_request(&f.inflight, prev, prev->ranges[0].addr,
			 prev->ranges[0].addr + prev->ranges[0].len);
	describe_request(&f.incoming, r, r->ranges[0].addr,
			 r->ranges[0].addr + r->ranges[0].len);
	f.key = uc_key_mix(uc_key_mix(stacks_site_key(&ck->stacks, prev->sub.stack_id),
				      stacks_site_key(&ck->stacks, s->stack_id)),
			   prev->sub.opcode << 8 | s->opcode);
	report_user_data_reuse(ck->report, &f);
}

static void on_end(void *arg, struct uc_check *ck, const struct uc_request *r)
{
	struct ud_rule *st = arg;
	uint64_t key = ud_key(r->sub.ctx, r->sub.user_data);

	if (u64map_get(&st->by_user_data, key) == r)
		u64map_del(&st->by_user_data, key);
}

static void *ud_init(struct uc_check *ck)
{
	struct ud_rule *st = xcalloc(1, sizeof(*st));

	u64map_init(&st->by_user_data);
	return st;
}

static void ud_free(void *arg, struct uc_check *ck)
{
	struct ud_rule *st = arg;

	u64map_free(&st->by_user_data);
	free(st->writable.ranges);
	free(st);
}

const struct uc_check_rule uc_rule_user_data = {
	.name = "user_data",
	.init = ud_init,
	.on_submit = on_submit,
	.on_end = on_end,
	.free = ud_free,
};
