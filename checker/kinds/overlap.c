// SPDX-License-Identifier: GPL-2.0
/*
 * overlap: two in-flight requests share bytes and at least one stores
 * into them (docs/hazards.md). The newer request is the news, the one
 * in flight the evidence.
 */
#include "builder_common.h"

#include <linux/types.h>
#include "uringcheck.h"

static void describe(struct uc_finding *f, const struct uc_report *rep)
{
	const struct uc_overlap_finding *x = f->src;
	const struct uc_request_desc *a = &x->inflight, *b = &x->incoming;
	unsigned long long n = x->end - x->start;
	char ba[16], bb[16];

	uc_finding_title(f, "%s and %s in flight on the same %llu byte%s",
			 uc_opcode_name(b->opcode, bb), uc_opcode_name(a->opcode, ba), n,
			 n == 1 ? "" : "s");
	kind_request_text(f, rep, "request", b, "request submitted");
	kind_request_text(f, rep, "overlaps in-flight", a, "in-flight request submitted");
	/* Requests are stamped with the start of the io_uring_enter call that
	 * submitted them (bpf/uringcheck.bpf.c), and share its stack. */
	if (a->provided || b->provided)
		uc_finding_text(f, "    (a provided buffer the kernel picked: both requests "
				"held these bytes at once)\n");
	else if (a->sqpoll && b->sqpoll && uc_stack_id_is_call(a->stack_id) &&
		 a->stack_id == b->stack_id)
		/* SQPOLL: the stack is the call that published them */
		uc_finding_text(f, "    (both published by one io_uring_submit call)\n");
	else if ((uc_stack_id_is_call(a->stack_id) && a->stack_id == b->stack_id) ||
		 (!a->sqpoll && a->tid == b->tid && a->submit_ts == b->submit_ts))
		uc_finding_text(f, "    (both submitted by one io_uring_enter call)\n");
	else
		uc_finding_text(f, "    (in flight for %.3f ms when the request above was "
				"submitted)\n", (double)(b->submit_ts - a->submit_ts) / 1e6);
	uc_finding_text(f, "  shared bytes: [0x%llx, 0x%llx)\n",
			(unsigned long long)x->start, (unsigned long long)x->end);
	if (a->direction == UC_DIR_SINK && b->direction == UC_DIR_SINK)
		uc_finding_text(f, "  Both requests store into these bytes; what remains "
				"depends on which one the kernel completes last.\n");
	else
		uc_finding_text(f, "  The %s stores into bytes the %s still loads from; "
				"what it sends depends on timing.\n",
				a->direction == UC_DIR_SINK ? uc_opcode_name(a->opcode, ba)
							    : uc_opcode_name(b->opcode, bb),
				a->direction == UC_DIR_SINK ? uc_opcode_name(b->opcode, bb)
							    : uc_opcode_name(a->opcode, ba));

	uc_finding_evidence(f, "request", kind_request_json(b));
	uc_finding_evidence(f, "in_flight", kind_request_json(a));
	uc_finding_evidence(f, "shared", uc_json_range(x->start, x->end));
}

static void headline(struct uc_finding *f)
{
	const struct uc_overlap_finding *x = f->src;
	char ba[16], bb[16];

	uc_finding_headline(f, "overlap %s/%s %llu bytes in pid %u",
			    uc_opcode_name(x->incoming.opcode, bb),
			    uc_opcode_name(x->inflight.opcode, ba),
			    (unsigned long long)(x->end - x->start), x->tgid);
}

void report_overlap(struct uc_report *rep, const struct uc_overlap_finding *x)
{
	struct uc_finding f;

	uc_finding_init(&f, &uc_kind_rules[UC_KIND_OVERLAP], x->tgid);
	f.headline_fn = headline;
	f.key = x->key;
	f.site_stack = x->incoming.stack_id;
	f.spans_loss = x->spans_loss;
	f.describe = describe;
	f.src = x;
	report_finding(rep, &f);
}
