// SPDX-License-Identifier: GPL-2.0
/*
 * stack-inflight: a request's buffer in its thread's own stack, below the
 * stack pointer that thread showed later (docs/hazards.md). Where the
 * thread was when the frame was seen gone is the news, the request (and
 * its submission stack) second.
 */
#define _GNU_SOURCE	/* sigabbrev_np */
#include "builder_common.h"

#include <signal.h>
#include <string.h>
#include <linux/types.h>
#include "uringcheck.h"

/* "read", "signal 10 (SIGUSR1)" */
static const char *seen_at(const struct uc_stack_finding *x, char *buf, size_t len)
{
	char b[32];

	if (x->where == UC_FRAME_SIGNAL) {
		const char *abbrev = sigabbrev_np(x->nr);

		snprintf(buf, len, "delivery of signal %d%s%s%s", x->nr,
			 abbrev ? " (SIG" : "", abbrev ? abbrev : "", abbrev ? ")" : "");
	} else {
		snprintf(buf, len, "%s()", kind_syscall_name(x->nr, b, sizeof(b)));
	}
	return buf;
}

static void describe(struct uc_finding *f, const struct uc_report *rep)
{
	const struct uc_stack_finding *x = f->src;
	const struct uc_request_desc *d = &x->req;
	char b[16], at[64];

	uc_finding_title(f, "stack frame left while %s still uses %llu bytes of it",
			 uc_opcode_name(d->opcode, b),
			 (unsigned long long)(x->end - x->start));
	uc_finding_text(f, "  thread %u's stack pointer at %s: 0x%llx, above the "
			"request's bytes\n", x->tid, seen_at(x, at, sizeof(at)),
			(unsigned long long)x->sp);
	uc_finding_show_stack(f, "frame gone, seen at:",
			      uc_finding_stack(f, "seen", x->seen_stack_id,
					       kind_why_no_stack(rep, false)));
	kind_request_text(f, rep, "in flight:", d, "request submitted");
	uc_finding_text(f, "  bytes in no live frame: [0x%llx, 0x%llx) (below "
			"sp - %d, the red zone), in the thread's own stack "
			"[0x%llx, 0x%llx)\n", (unsigned long long)x->start,
			(unsigned long long)x->end, UC_RED_ZONE,
			(unsigned long long)x->lo, (unsigned long long)x->hi);
	if (d->direction == UC_DIR_SINK)
		uc_finding_text(f, "  The kernel may store into the frames of the "
				"functions called since: locals and return addresses "
				"are overwritten when the request completes.\n");
	else
		uc_finding_text(f, "  The kernel may load from the frames of the "
				"functions called since: what it sends is undefined.\n");

	uc_finding_evidence(f, "tid", json_object_new_int64(x->tid));
	uc_finding_evidence(f, "sp", json_object_new_int64((int64_t)x->sp));
	uc_finding_evidence(f, "seen_at", json_object_new_string(
				    x->where == UC_FRAME_SIGNAL ? "signal" : "syscall"));
	uc_finding_evidence(f, "seen_nr", json_object_new_int64(x->nr));
	uc_finding_evidence(f, "stack_mapping", uc_json_range(x->lo, x->hi));
	uc_finding_evidence(f, "left", uc_json_range(x->start, x->end));
	uc_finding_evidence(f, "request", kind_request_json(d));
}

static void headline(struct uc_finding *f)
{
	const struct uc_stack_finding *x = f->src;
	char b[16];

	uc_finding_headline(f, "stack-inflight %s %llu bytes below thread %u's stack "
			    "pointer in pid %u", uc_opcode_name(x->req.opcode, b),
			    (unsigned long long)(x->end - x->start), x->tid, x->tgid);
}

void report_stack_inflight(struct uc_report *rep, const struct uc_stack_finding *x)
{
	struct uc_finding f;

	uc_finding_init(&f, &uc_kind_rules[UC_KIND_STACK_INFLIGHT], x->tgid);
	f.headline_fn = headline;
	f.key = x->key;
	f.site_stack = x->seen_stack_id;
	f.spans_loss = x->spans_loss;
	f.describe = describe;
	f.src = x;
	report_finding(rep, &f);
}
