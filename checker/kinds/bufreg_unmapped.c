// SPDX-License-Identifier: GPL-2.0
/*
 * bufreg-unmapped: memory backing a registered buffer was released while
 * it stays registered. The kernel keeps the old pages pinned, so a later
 * READ_FIXED/WRITE_FIXED on that index reads or writes memory the
 * program no longer sees there (docs/hazards.md). A warning: nothing is
 * in flight on the index yet.
 */
#include "builder_common.h"

/* The bytes of the registered buffer that the call released. */
static uint64_t released(const struct uc_bufreg_unmap_finding *x)
{
	uint64_t s = x->reg_start > x->call_start ? x->reg_start : x->call_start;
	uint64_t e = x->reg_end < x->call_end ? x->reg_end : x->call_end;

	return e - s;
}

static void describe(struct uc_finding *f, const struct uc_report *rep)
{
	const struct uc_bufreg_unmap_finding *x = f->src;
	const char *call = kind_unmap_call(x->nr, x->advice);
	char ring[64];

	uc_finding_title(f, "%s of [0x%llx, 0x%llx) releases %llu bytes of registered "
			 "buffer %u of %s", call, (unsigned long long)x->call_start,
			 (unsigned long long)x->call_end, (unsigned long long)released(x),
			 x->index, kind_ring(rep, x->ring_fd, ring, sizeof(ring)));
	uc_finding_text(f, "  %s by thread %u\n", call, x->tid);
	uc_finding_show_stack(f, "called at:", uc_finding_stack(f, "called", x->call_stack_id,
					kind_why_no_stack(rep, false)));
	uc_finding_text(f, "  registered buffer %u: [0x%llx, 0x%llx) (%llu bytes)\n", x->index,
			(unsigned long long)x->reg_start, (unsigned long long)x->reg_end,
			(unsigned long long)(x->reg_end - x->reg_start));
	if (x->reg_stack_id)
		uc_finding_show_stack(f, "registered at:",
				      uc_finding_stack(f, "registered", x->reg_stack_id, ""));
	uc_finding_text(f, "  The kernel keeps the old pages pinned while the buffer stays "
			"registered: a later\n  READ_FIXED/WRITE_FIXED on index %u uses them, "
			"not what the program maps there now.\n  Unregister or update the "
			"index before releasing its memory.\n", x->index);

	uc_finding_evidence(f, "call", json_object_new_string(call));
	uc_finding_evidence(f, "tid", json_object_new_int64(x->tid));
	uc_finding_evidence(f, "ring_fd", json_object_new_int(x->ring_fd));
	uc_finding_evidence(f, "index", json_object_new_int64(x->index));
	uc_finding_evidence(f, "released", uc_json_range(x->call_start, x->call_end));
	uc_finding_evidence(f, "registered", uc_json_range(x->reg_start, x->reg_end));
}

void report_bufreg_unmapped(struct uc_report *rep, const struct uc_bufreg_unmap_finding *x)
{
	struct uc_finding f;

	uc_finding_init(&f, &uc_kind_rules[UC_KIND_BUFREG_UNMAPPED], x->tgid);
	uc_finding_headline(&f, "bufreg-unmapped %s of registered buffer %u (%llu bytes) "
			    "in pid %u", kind_unmap_call(x->nr, x->advice), x->index,
			    (unsigned long long)released(x), x->tgid);
	f.key = x->key;
	f.site_stack = x->call_stack_id;
	f.describe = describe;
	f.src = x;
	report_finding(rep, &f);
}
