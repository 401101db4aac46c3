// SPDX-License-Identifier: GPL-2.0
/*
 * munmap-inflight: munmap/mremap/madvise over bytes an in-flight request
 * holds (docs/hazards.md). The call is the news, the request second.
 */
#include "builder_common.h"

#include <linux/types.h>
#include "uringcheck.h"

static void describe(struct uc_finding *f, const struct uc_report *rep)
{
	const struct uc_unmap_finding *x = f->src;
	const struct uc_request_desc *d = &x->req;
	bool partial = x->start > d->start || x->end < d->end;
	const char *call = kind_unmap_call(x->nr, x->advice);
	char b[16];

	uc_finding_title(f, "%s of [0x%llx, 0x%llx) while %s still uses %llu bytes of it",
			 call, (unsigned long long)x->call_start,
			 (unsigned long long)x->call_end, uc_opcode_name(d->opcode, b),
			 (unsigned long long)(x->end - x->start));
	uc_finding_text(f, "  %s by thread %u\n", call, x->tid);
	uc_finding_show_stack(f, "called at:", uc_finding_stack(f, "called", x->call_stack_id,
					kind_why_no_stack(rep, false)));
	kind_request_text(f, rep, "in flight:", d, "request submitted");
	uc_finding_text(f, "  bytes released under it: [0x%llx, 0x%llx)\n",
			(unsigned long long)x->start, (unsigned long long)x->end);
	if (d->direction == UC_DIR_SINK && partial)
		uc_finding_text(f, "  Only part of the range went away: the kernel may still "
				"store into the part that remains and then complete the "
				"request with -EFAULT, so memory changed although the CQE "
				"says it failed.\n");
	else if (d->direction == UC_DIR_SINK)
		uc_finding_text(f, "  The kernel may store into memory the program has "
				"released (or that is mapped again by then).\n");
	else
		uc_finding_text(f, "  The kernel may load from memory the program has "
				"released: what it sends is undefined.\n");

	uc_finding_evidence(f, "call", json_object_new_string(call));
	uc_finding_evidence(f, "tid", json_object_new_int64(x->tid));
	uc_finding_evidence(f, "released", uc_json_range(x->call_start, x->call_end));
	uc_finding_evidence(f, "shared", uc_json_range(x->start, x->end));
	uc_finding_evidence(f, "request", kind_request_json(d));
}

static void headline(struct uc_finding *f)
{
	const struct uc_unmap_finding *x = f->src;
	char b[16];

	uc_finding_headline(f, "munmap-inflight %s under %s %llu bytes in pid %u",
			    kind_unmap_call(x->nr, x->advice), uc_opcode_name(x->req.opcode, b),
			    (unsigned long long)(x->end - x->start), x->tgid);
}

void report_unmap(struct uc_report *rep, const struct uc_unmap_finding *x)
{
	struct uc_finding f;

	uc_finding_init(&f, &uc_kind_rules[UC_KIND_MUNMAP_INFLIGHT], x->tgid);
	f.headline_fn = headline;
	f.key = x->key;
	f.site_stack = x->call_stack_id;
	f.spans_loss = x->spans_loss;
	f.describe = describe;
	f.src = x;
	report_finding(rep, &f);
}
