// SPDX-License-Identifier: GPL-2.0
/*
 * reap-lag (docs/hazards.md): the kernel side measures how long CQEs wait
 * to be reaped (bpf/reap_lag.bpf.h) and sends a record when a wait passes
 * the threshold; it goes to the report, one per reap site.
 */
#include "rule.h"
#include "kinds/kind_reports.h"
#include "../../reports/dedup.h"

static void on_record(void *st, struct uc_check *ck, const struct uc_hdr *h)
{
	const struct uc_reap_lag *l = (const void *)h;
	struct uc_ring *ring = u64map_get(&ck->model.rings, l->ctx);
	struct uc_reap_lag_finding f;

	if (h->type != UC_EV_REAP_LAG)
		return;
	f = (struct uc_reap_lag_finding){
		.tgid = l->hdr.tgid,
		.ring_fd = ring ? ring->fd : -1,
		.user_data = l->user_data,
		.lag_ns = l->lag_ns,
		.lag_min_ns = l->lag_min_ns,
		.threshold_ns = ck->reap_lag_ns,
		.pending = l->pending,
		.reap_stack_id = l->reap_stack_id,
		.blocked_nr = l->blocked_nr,
		.blocked_tid = l->blocked_tid,
		.blocked_ns = l->blocked_ns,
	};

	stacks_ref(&ck->stacks, l->reap_stack_id);
	/* One report per reap site, or per ring when there is no site. */
	f.key = stacks_site_key(&ck->stacks, l->reap_stack_id);
	if (!f.key)
		f.key = uc_key_mix(l->hdr.tgid, l->ctx);
	report_reap_lag(ck->report, &f);
	stacks_unref(&ck->stacks, l->reap_stack_id);
}

const struct uc_check_rule uc_rule_reap_lag = {
	.name = "reap_lag",
	.on_record = on_record,
};
