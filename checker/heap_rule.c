// SPDX-License-Identifier: GPL-2.0
/*
 * free-inflight (docs/hazards.md): a glibc malloc chunk given back while
 * an in-flight request holds bytes of it. The kernel side
 * (bpf/heap_release.bpf.h) sends each free, and each realloc that moved
 * or shrank its chunk, made while the process held memory in flight,
 * with the bytes given back as the chunk's header gives them; here they
 * are judged against the requests in flight at that moment, as an unmap
 * is (calls.c): a request that ended before the release is not in the
 * set any more, whether or not its CQE was reaped.
 *
 * Which processes: the target is probed before it starts
 * (heap_rule_follow), through the libc.so.6 this program maps; each
 * process is looked at again when it creates its first ring
 * (heap_rule_process): its own libc.so.6 probed if it is another file, a
 * process that forked from the target probed from then on, and one
 * without glibc's libc.so.6 (a static binary, another libc) or with
 * another allocator mapped told in one line, never judged by guess.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>

#include "describe.h"
#include "heap_probes.h"
#include "heap_rule.h"
#include "tracker.h"
#include "xalloc.h"
#include "../reports/dedup.h"
#include "../reports/report.h"
#include "kinds/kind_reports.h"

#define HEAP_ATTACHED	1
#define HEAP_LOOKED	2	/* its maps were looked at */

static struct u64map procs;	/* tgid -> HEAP_* bits */
static bool procs_init;

static uintptr_t proc_bits(uint32_t tgid)
{
	if (!procs_init) {
		u64map_init(&procs);
		procs_init = true;
	}
	return (uintptr_t)u64map_get(&procs, tgid);
}

static void proc_set(uint32_t tgid, uintptr_t bits)
{
	u64map_put(&procs, tgid, (void *)(proc_bits(tgid) | bits));
}

void heap_rule_follow(pid_t pid, FILE *out)
{
	char libc[PATH_MAX];

	if (!heap_probes_active())
		return;
	/* The target has not run yet: the libc it will map is this
	 * program's (checked again at its first ring). */
	if (heap_find_libc(0, libc, sizeof(libc), NULL, 0) == 1 &&
	    !heap_probes_attach(pid, libc, out))
		proc_set(pid, HEAP_ATTACHED);
}

void heap_rule_process(struct uc_tracker *t, uint32_t tgid)
{
	char libc[PATH_MAX], other[NAME_MAX + 1];
	FILE *out = t->report->out;
	uintptr_t bits;
	int found;

	if (!heap_probes_active() || ((bits = proc_bits(tgid)) & HEAP_LOOKED))
		return;
	proc_set(tgid, HEAP_LOOKED);
	found = heap_find_libc(tgid, libc, sizeof(libc), other, sizeof(other));
	if (found < 0)
		return;		/* gone already: nothing more of it to judge */
	if (!found) {
		fprintf(out, "==%u==uringcheck: note: pid %u maps no glibc libc.so.6 (a "
			"static binary or another libc): heap releases (free-inflight) "
			"are not judged in it\n", tgid, tgid);
		return;
	}
	if (other[0])
		fprintf(out, "==%u==uringcheck: note: pid %u maps %s: memory its "
			"allocator hands out is not judged (free-inflight judges glibc's "
			"malloc only)\n", tgid, tgid, other);
	/* Its own libc file, or a process the target forked. */
	if (!(bits & HEAP_ATTACHED) || !heap_probes_attached(libc))
		if (!heap_probes_attach(tgid, libc, out))
			proc_set(tgid, HEAP_ATTACHED);
}

/* ---- judging ------------------------------------------------------------ */

struct free_scan {
	struct uc_tracker *t;
	const struct uc_heap_release *h;
	const struct uc_request *last;
	uint64_t withheld;
	bool fetched;
};

static void free_hit(struct itree_node *n, void *arg)
{
	struct free_scan *s = arg;
	const struct uc_heap_release *h = s->h;
	const struct uc_request *r = n->owner;
	struct uc_free_finding f;
	bool spans_loss;

	if (r == s->last)
		return;		/* one finding per request */
	s->last = r;
	if (evidence_judge(s->t, r, &spans_loss) == UC_WITHHELD) {
		s->withheld++;
		return;
	}
	/* Its stack only now: a release that hits nothing (most of them)
	 * never reads the store. */
	if (!s->fetched)
		stacks_fetch(&s->t->stacks, h->stack_id);
	s->fetched = true;
	memset(&f, 0, sizeof(f));
	f.tgid = h->hdr.tgid;
	f.tid = h->hdr.tid;
	f.how = h->how;
	f.chunk = h->chunk;
	f.usable = h->usable;
	f.mmapped = h->head & 2;
	f.rel_start = h->start;
	f.rel_end = h->end;
	f.new_ptr = h->new_ptr;
	f.start = n->start > h->start ? n->start : h->start;
	f.end = n->end < h->end ? n->end : h->end;
	f.free_stack_id = h->stack_id;
	f.spans_loss = spans_loss;
	describe_request(&f.req, r, n->start, n->end);
	f.key = uc_key_mix(uc_key_mix(1000 + h->how,
				      stacks_site_key(&s->t->stacks, h->stack_id)),
			   stacks_site_key(&s->t->stacks, r->sub.stack_id));
	report_free_inflight(s->t->report, &f);
}

void heap_on_release(struct uc_tracker *t, const struct uc_heap_release *h)
{
	struct uc_aspace *as = u64map_get(&t->aspaces, h->hdr.tgid);
	struct free_scan s = { .t = t, .h = h };

	if (h->end <= h->start)
		return;
	evidence_refresh(t);
	if (as)
		itree_query(&as->ranges, h->start, h->end, free_hit, &s);
	report_withheld(t->report, UC_KIND_FREE_INFLIGHT, s.withheld);
}

void heap_rule_free(void)
{
	if (procs_init)
		u64map_free(&procs);
	procs_init = false;
	heap_probes_stop();
}
