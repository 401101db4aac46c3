// SPDX-License-Identifier: GPL-2.0
/*
 * free-inflight: a glibc malloc chunk given back (free, operator delete,
 * a moving or shrinking realloc) over bytes an in-flight request holds
 * (docs/hazards.md). The release is the news, the request second.
 */
#include "builder_common.h"

#include <linux/types.h>
#include "uringcheck.h"

static const char *release_call(uint32_t how)
{
	switch (how) {
	case UC_HEAP_REALLOC_MOVED:
		return "realloc() moving";
	case UC_HEAP_REALLOC_SHRUNK:
		return "realloc() shrinking";
	}
	return "free() of";
}

static const char *release_name(uint32_t how)
{
	return how == UC_HEAP_FREE ? "free()" : "realloc()";
}

static const char *alloc_name(uint32_t fn)
{
	switch (fn) {
	case UC_ALLOC_MALLOC:
		return "malloc";
	case UC_ALLOC_CALLOC:
		return "calloc";
	case UC_ALLOC_REALLOC:
		return "realloc";
	case UC_ALLOC_MEMALIGN:
		return "memalign";
	case UC_ALLOC_POSIX_MEMALIGN:
		return "posix_memalign";
	case UC_ALLOC_VALLOC:
		return "valloc";
	}
	return "an allocation";
}

/* The chunk's next owner, when it was watched (checker/heap_owner.c):
 * named if the chunk was handed out again before the request ended;
 * nothing said if it was not; said unknown if it could not be watched. */
static void next_owner(struct uc_finding *f, const struct uc_report *rep,
		       const struct uc_free_finding *x)
{
	switch (x->owner) {
	case UC_OWNER_FOUND:
		uc_finding_text(f, "  handed out again before the request ended: %s() "
				"returned 0x%llx (%llu usable bytes) to thread %u\n",
				alloc_name(x->alloc_fn), (unsigned long long)x->alloc_ptr,
				(unsigned long long)x->alloc_usable, x->alloc_tid);
		uc_finding_show_stack(f, "re-allocated at:",
				      uc_finding_stack(f, "re-allocated", x->alloc_stack_id,
						       kind_why_no_stack(rep, false)));
		break;
	case UC_OWNER_UNWATCHED:
		uc_finding_text(f, "  whether the chunk was handed out again before the request "
				"ended is not known: no watch slot was free (%d a run)\n",
				UC_HEAP_WATCHES_SESSION);
		break;
	}
}

/* The same in --json: an object, null (watched, not handed out again),
 * "unknown" (not watched); absent without the allocation probes. */
static void next_owner_json(struct uc_finding *f, const struct uc_free_finding *x)
{
	json_object *o;

	switch (x->owner) {
	case UC_OWNER_FOUND:
		o = json_object_new_object();
		json_object_object_add(o, "call", json_object_new_string(alloc_name(x->alloc_fn)));
		json_object_object_add(o, "tid", json_object_new_int64(x->alloc_tid));
		json_object_object_add(o, "chunk", uc_json_range(x->alloc_ptr,
								  x->alloc_ptr + x->alloc_usable));
		uc_finding_evidence(f, "re_allocated", o);
		break;
	case UC_OWNER_NONE:
		uc_finding_evidence(f, "re_allocated", NULL);
		break;
	case UC_OWNER_UNWATCHED:
		uc_finding_evidence(f, "re_allocated", json_object_new_string("unknown"));
		break;
	}
}

static void describe(struct uc_finding *f, const struct uc_report *rep)
{
	const struct uc_free_finding *x = f->src;
	const struct uc_request_desc *d = &x->req;
	char b[16];

	uc_finding_title(f, "%s heap chunk 0x%llx (%llu usable bytes) while %s still "
			 "uses %llu bytes of it", release_call(x->how),
			 (unsigned long long)x->chunk, (unsigned long long)x->usable,
			 uc_opcode_name(d->opcode, b),
			 (unsigned long long)(x->end - x->start));
	uc_finding_text(f, "  %s by thread %u\n", release_name(x->how), x->tid);
	uc_finding_show_stack(f, "called at:", uc_finding_stack(f, "freed", x->free_stack_id,
					kind_why_no_stack(rep, false)));
	kind_request_text(f, rep, "in flight:", d, "request submitted");
	uc_finding_text(f, "  chunk [0x%llx, 0x%llx): %llu usable bytes (glibc malloc, "
			"from its header%s)\n", (unsigned long long)x->chunk,
			(unsigned long long)(x->chunk + x->usable),
			(unsigned long long)x->usable, x->mmapped ? ", mmapped" : "");
	if (x->how != UC_HEAP_FREE)
		uc_finding_text(f, "  realloc returned 0x%llx; bytes given back: "
				"[0x%llx, 0x%llx)\n", (unsigned long long)x->new_ptr,
				(unsigned long long)x->rel_start,
				(unsigned long long)x->rel_end);
	uc_finding_text(f, "  bytes released under the request: [0x%llx, 0x%llx)\n",
			(unsigned long long)x->start, (unsigned long long)x->end);
	next_owner(f, rep, x);
	if (x->owner == UC_OWNER_FOUND && d->direction == UC_DIR_SINK)
		uc_finding_text(f, "  The kernel may store into the new owner's object: it is "
				"overwritten when the request completes.\n");
	else if (x->owner == UC_OWNER_FOUND)
		uc_finding_text(f, "  The kernel may load from the new owner's object: what it "
				"sends is whatever that code wrote.\n");
	else if (d->direction == UC_DIR_SINK)
		uc_finding_text(f, "  The kernel may store into memory malloc can hand to "
				"the next caller: another object is overwritten when the "
				"request completes.\n");
	else
		uc_finding_text(f, "  The kernel may load from memory malloc can hand to "
				"the next caller: what it sends is undefined.\n");

	uc_finding_evidence(f, "call", json_object_new_string(x->how == UC_HEAP_FREE ? "free" : "realloc"));
	uc_finding_evidence(f, "tid", json_object_new_int64(x->tid));
	uc_finding_evidence(f, "chunk", uc_json_range(x->chunk, x->chunk + x->usable));
	uc_finding_evidence(f, "released", uc_json_range(x->rel_start, x->rel_end));
	uc_finding_evidence(f, "shared", uc_json_range(x->start, x->end));
	uc_finding_evidence(f, "request", kind_request_json(d));
	next_owner_json(f, x);
}

static void headline(struct uc_finding *f)
{
	const struct uc_free_finding *x = f->src;
	char b[16];

	uc_finding_headline(f, "free-inflight %s under %s %llu bytes in pid %u",
			    x->how == UC_HEAP_FREE ? "free" : "realloc", uc_opcode_name(x->req.opcode, b),
			    (unsigned long long)(x->end - x->start), x->tgid);
}

void report_free_inflight(struct uc_report *rep, const struct uc_free_finding *x)
{
	struct uc_finding f;

	uc_finding_init(&f, &uc_kind_rules[UC_KIND_FREE_INFLIGHT], x->tgid);
	f.headline_fn = headline;
	f.key = x->key;
	f.site_stack = x->free_stack_id;
	f.spans_loss = x->spans_loss;
	f.describe = describe;
	f.src = x;
	report_finding(rep, &f);
}
