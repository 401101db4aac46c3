// SPDX-License-Identifier: GPL-2.0
/*
 * user-data-reuse: one request context for two in-flight requests
 * (docs/hazards.md): the second submission is the news, the first the
 * evidence.
 */
#include "builder_common.h"

static void describe(struct uc_finding *f, const struct uc_report *rep)
{
	const struct uc_ud_reuse_finding *x = f->src;
	const struct uc_request_desc *a = &x->inflight, *b = &x->incoming;
	char ba[16], bb[16], ring[64];

	uc_finding_title(f, "%s submitted with user_data 0x%llx, a pointer, while %s with "
			 "the same user_data is in flight on %s",
			 uc_opcode_name(b->opcode, bb), (unsigned long long)b->user_data,
			 uc_opcode_name(a->opcode, ba), kind_ring(rep, b->ring_fd, ring, sizeof(ring)));
	kind_request_text(f, rep, "request", b, "request submitted");
	kind_request_text(f, rep, "in flight with the same user_data:", a,
			  "in-flight request submitted");
	uc_finding_text(f, "  Both completions will reach one request context: the program "
			"cannot tell them apart,\n  and if the context is freed and reused, the "
			"stale completion goes to its new owner.\n");

	uc_finding_evidence(f, "user_data", uc_json_hex(b->user_data));
	uc_finding_evidence(f, "request", kind_request_json(b));
	uc_finding_evidence(f, "in_flight", kind_request_json(a));
}

void report_user_data_reuse(struct uc_report *rep, const struct uc_ud_reuse_finding *x)
{
	struct uc_finding f;
	char ba[16], bb[16];

	uc_finding_init(&f, &uc_kind_rules[UC_KIND_USER_DATA_REUSE], x->tgid);
	uc_finding_headline(&f, "user-data-reuse %s/%s in pid %u",
			    uc_opcode_name(x->incoming.opcode, bb),
			    uc_opcode_name(x->inflight.opcode, ba), x->tgid);
	f.key = x->key;
	f.site_stack = x->incoming.stack_id;
	f.describe = describe;
	f.src = x;
	report_finding(rep, &f);
}
