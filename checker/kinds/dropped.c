// SPDX-License-Identifier: GPL-2.0
/*
 * dropped: SQEs the kernel discarded, or CQEs it could not post at all
 * (its io_rings counters): the program waits for completions that will
 * never come.
 */
#include "builder_common.h"

static void describe(struct uc_finding *f, const struct uc_report *rep)
{
	const struct uc_kernel_drop_finding *x = f->src;

	char ring[64];

	uc_finding_title(f, "the kernel threw away work on %s",
			 kind_ring(rep, x->ring_fd, ring, sizeof(ring)));
	if (x->sq_dropped)
		uc_finding_text(f, "  %u SQE%s discarded without running (sq_dropped): the SQ "
				"array held an index past the ring's end\n", x->sq_dropped,
				x->sq_dropped == 1 ? "" : "s");
	if (x->cq_overflow)
		uc_finding_text(f, "  %u CQE%s lost (cq_overflow): the CQ ring was full and "
				"the overflow list could not take them\n", x->cq_overflow,
				x->cq_overflow == 1 ? "" : "s");
	uc_finding_text(f, "  The program waits for completions that will never come.\n");

	uc_finding_evidence(f, "ring_fd", json_object_new_int(x->ring_fd));
	uc_finding_evidence(f, "sq_dropped", json_object_new_int64(x->sq_dropped));
	uc_finding_evidence(f, "cq_overflow", json_object_new_int64(x->cq_overflow));
}

void report_kernel_drop(struct uc_report *rep, const struct uc_kernel_drop_finding *x)
{
	struct uc_finding f;
	char ring[64];

	uc_finding_init(&f, &uc_kind_rules[UC_KIND_DROPPED], x->tgid);
	uc_finding_headline(&f, "dropped %u SQE%s, %u CQE%s by the kernel on %s in "
			    "pid %u", x->sq_dropped, x->sq_dropped == 1 ? "" : "s",
			    x->cq_overflow, x->cq_overflow == 1 ? "" : "s",
			    kind_ring(rep, x->ring_fd, ring, sizeof(ring)), x->tgid);
	f.key = x->key;
	f.describe = describe;
	f.src = x;
	report_finding(rep, &f);
}
