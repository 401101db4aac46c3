// SPDX-License-Identifier: GPL-2.0
/*
 * bufreg-lifetime: a registered buffer unregistered or replaced while
 * in-flight requests still use it (docs/hazards.md). The call is the
 * news; the requests are listed after it.
 */
#include "builder_common.h"

static const char *reg_opcode_name(uint32_t op)
{
	switch (op & ~(1u << 31)) {
	case 1: return "IORING_UNREGISTER_BUFFERS";
	case 16: return "IORING_REGISTER_BUFFERS_UPDATE";
	default: return "io_uring_register";
	}
}

static void describe(struct uc_finding *f, const struct uc_report *rep)
{
	const struct uc_bufreg_finding *x = f->src;
	uint32_t shown = x->nr_live < UC_MAX_LIVE_SHOWN ? x->nr_live : UC_MAX_LIVE_SHOWN;
	json_object *reqs = json_object_new_array();

	uc_finding_title(f, "registered buffer %u %s while %u request%s still use%s it",
			 x->index, (x->reg_opcode & ~(1u << 31)) == 1 ? "unregistered" : "replaced",
			 x->nr_live, x->nr_live == 1 ? "" : "s", x->nr_live == 1 ? "s" : "");
	char ring[64];

	uc_finding_text(f, "  %s on %s, thread %u\n", reg_opcode_name(x->reg_opcode),
			kind_ring(rep, x->ring_fd, ring, sizeof(ring)), x->tid);
	uc_finding_show_stack(f, "called at:", uc_finding_stack(f, "called", x->call_stack_id,
					kind_why_no_stack(rep, false)));
	if (x->reg_end)
		uc_finding_text(f, "  registered buffer %u: [0x%llx, 0x%llx) (%llu bytes)\n",
				x->index, (unsigned long long)x->reg_start,
				(unsigned long long)x->reg_end,
				(unsigned long long)(x->reg_end - x->reg_start));
	if (x->reg_stack_id)
		uc_finding_show_stack(f, "registered at:",
				      uc_finding_stack(f, "registered", x->reg_stack_id, ""));
	for (uint32_t i = 0; i < shown; i++) {
		kind_request_text(f, rep, "in flight:", &x->live[i], "live request submitted");
		json_object_array_add(reqs, kind_request_json(&x->live[i]));
	}
	if (x->nr_live > UC_MAX_LIVE_SHOWN)
		uc_finding_text(f, "  ... and %u more\n", x->nr_live - UC_MAX_LIVE_SHOWN);
	uc_finding_text(f, "  The kernel keeps the old pages pinned, so the call succeeds, "
			"but these requests still access the old memory after the program "
			"let it go.\n");

	uc_finding_evidence(f, "call", json_object_new_string(reg_opcode_name(x->reg_opcode)));
	uc_finding_evidence(f, "ring_fd", json_object_new_int(x->ring_fd));
	uc_finding_evidence(f, "tid", json_object_new_int64(x->tid));
	uc_finding_evidence(f, "index", json_object_new_int64(x->index));
	uc_finding_evidence(f, "registered",
			    x->reg_end ? uc_json_range(x->reg_start, x->reg_end) : NULL);
	uc_finding_evidence(f, "live", json_object_new_int64(x->nr_live));
	uc_finding_evidence(f, "requests", reqs);
}

void report_bufreg(struct uc_report *rep, const struct uc_bufreg_finding *x)
{
	struct uc_finding f;

	uc_finding_init(&f, &uc_kind_rules[UC_KIND_BUFREG_LIFETIME], x->tgid);
	uc_finding_headline(&f, "bufreg-lifetime buffer %u with %u live request%s in pid %u",
			    x->index, x->nr_live, x->nr_live == 1 ? "" : "s", x->tgid);
	f.key = x->key;
	f.site_stack = x->call_stack_id;
	f.spans_loss = x->spans_loss;
	f.describe = describe;
	f.src = x;
	report_finding(rep, &f);
}
