// SPDX-License-Identifier: GPL-2.0
/*
 * sync-overlap: a plain system call into bytes an in-flight request
 * holds, the overlap rule with one side outside io_uring. The call is
 * the news (it is what the program did last), the request second.
 */
#include "builder_common.h"

#include <linux/types.h>
#include "uringcheck.h"

static void describe(struct uc_finding *f, const struct uc_report *rep)
{
	const struct uc_sync_finding *x = f->src;
	const struct uc_request_desc *d = &x->req;
	unsigned long long n = x->end - x->start;
	char call[32], b[16];

	kind_syscall_name(x->nr, call, sizeof(call));
	uc_finding_title(f, "%s() %s %llu byte%s that the in-flight %s still %s", call,
			 x->dir == UC_DIR_SINK ? "stored into" : "loaded", n, n == 1 ? "" : "s",
			 uc_opcode_name(d->opcode, b), x->dir == UC_DIR_SINK ? "holds" : "fills");
	uc_finding_text(f, "  system call %s() by thread %u, %lld bytes moved\n", call,
			x->tid, (long long)x->moved);
	uc_finding_show_stack(f, "called at:", uc_finding_stack(f, "called", x->call_stack_id,
					kind_why_no_stack(rep, false)));
	kind_request_text(f, rep, "in flight:", d, "in-flight request submitted");
	uc_finding_text(f, "  shared bytes: [0x%llx, 0x%llx)\n", (unsigned long long)x->start,
			(unsigned long long)x->end);
	if (x->dir == UC_DIR_SINK && d->direction == UC_DIR_SINK)
		uc_finding_text(f, "  Both the call and the request store into these bytes; "
				"what remains depends on which one finishes last.\n");
	else if (x->dir == UC_DIR_SINK)
		uc_finding_text(f, "  The call stores into bytes the request still sends: "
				"what it sends depends on timing.\n");
	else
		uc_finding_text(f, "  The call sends bytes the request is still filling: "
				"what it sent depends on timing.\n");

	uc_finding_evidence(f, "call", json_object_new_string(call));
	uc_finding_evidence(f, "tid", json_object_new_int64(x->tid));
	uc_finding_evidence(f, "direction", json_object_new_string(kind_dir_name(x->dir)));
	uc_finding_evidence(f, "moved", json_object_new_int64(x->moved));
	uc_finding_evidence(f, "shared", uc_json_range(x->start, x->end));
	uc_finding_evidence(f, "in_flight", kind_request_json(d));
}

static void headline(struct uc_finding *f)
{
	const struct uc_sync_finding *x = f->src;
	char call[32], b[16];

	uc_finding_headline(f, "sync-overlap %s/%s %llu bytes in pid %u",
			    kind_syscall_name(x->nr, call, sizeof(call)),
			    uc_opcode_name(x->req.opcode, b),
			    (unsigned long long)(x->end - x->start), x->tgid);
}

void report_sync_overlap(struct uc_report *rep, const struct uc_sync_finding *x)
{
	struct uc_finding f;

	uc_finding_init(&f, &uc_kind_rules[UC_KIND_SYNC_OVERLAP], x->tgid);
	f.headline_fn = headline;
	f.key = x->key;
	f.site_stack = x->call_stack_id;
	f.spans_loss = x->spans_loss;
	f.describe = describe;
	f.src = x;
	report_finding(rep, &f);
}
