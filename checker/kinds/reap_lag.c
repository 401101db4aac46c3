// SPDX-License-Identifier: GPL-2.0
/*
 * reap-lag: a CQE sat ready in the CQ ring longer than --reap-lag-ms
 * before the program consumed it; with what a thread was blocked in
 * meanwhile, and (uprobe mode) where it was finally reaped.
 */
#include "builder_common.h"

static void describe(struct uc_finding *f, const struct uc_report *rep)
{
	const struct uc_reap_lag_finding *x = f->src;
	json_object *blocked = NULL;
	char name[32], ring[64];

	uc_finding_title(f, "a CQE (user_data 0x%llx) sat ready on %s for %.1f ms "
			 "before the program consumed it (threshold %.1f ms)",
			 (unsigned long long)x->user_data, kind_ring(rep, x->ring_fd, ring, sizeof(ring)),
			 (double)x->lag_ns / 1e6,
			 (double)x->threshold_ns / 1e6);
	uc_finding_text(f, "  measured from the kernel side: at least %.1f ms, at most "
			"%.1f ms; %u CQE%s waiting when it was first seen late\n",
			(double)x->lag_min_ns / 1e6, (double)x->lag_ns / 1e6, x->pending,
			x->pending == 1 ? "" : "s");
	if (x->blocked_nr >= 0) {
		kind_syscall_name(x->blocked_nr, name, sizeof(name));
		uc_finding_text(f, "  while it waited, thread %u spent %.1f ms in %s()\n",
				x->blocked_tid, (double)x->blocked_ns / 1e6, name);
		blocked = json_object_new_object();
		json_object_object_add(blocked, "syscall", json_object_new_string(name));
		json_object_object_add(blocked, "nr", json_object_new_int(x->blocked_nr));
		json_object_object_add(blocked, "tid", json_object_new_int64(x->blocked_tid));
		json_object_object_add(blocked, "ns", json_object_new_uint64(x->blocked_ns));
	}
	if (x->reap_stack_id)
		uc_finding_show_stack(f, "consumed by the program before this call into "
				      "liburing:", uc_finding_stack(f, "reaped before",
								   x->reap_stack_id, ""));

	uc_finding_evidence(f, "ring_fd", json_object_new_int(x->ring_fd));
	uc_finding_evidence(f, "user_data", uc_json_hex(x->user_data));
	uc_finding_evidence(f, "lag_ns", json_object_new_uint64(x->lag_ns));
	uc_finding_evidence(f, "lag_min_ns", json_object_new_uint64(x->lag_min_ns));
	uc_finding_evidence(f, "threshold_ns", json_object_new_uint64(x->threshold_ns));
	uc_finding_evidence(f, "pending", json_object_new_int64(x->pending));
	uc_finding_evidence(f, "blocked_in", blocked);
}

void report_reap_lag(struct uc_report *rep, const struct uc_reap_lag_finding *x)
{
	struct uc_finding f;
	char ring[64];

	uc_finding_init(&f, &uc_kind_rules[UC_KIND_REAP_LAG], x->tgid);
	uc_finding_headline(&f, "reap-lag %.1f ms on %s in pid %u",
			    (double)x->lag_ns / 1e6, kind_ring(rep, x->ring_fd, ring, sizeof(ring)),
			    x->tgid);
	f.key = x->key;
	f.site_stack = x->reap_stack_id;
	f.describe = describe;
	f.src = x;
	report_finding(rep, &f);
}
