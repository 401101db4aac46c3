// SPDX-License-Identifier: GPL-2.0
/*
 * The profile mode as the run loop sees it (lib/mode.h): a profile run
 * (profile_run.c) read once a second, judged by the doctor at the end,
 * its verdicts told through the run's report beside the checker's
 * findings (and told what the checker found, when it ran).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mode.h"
#include "options.h"
#include "profile_run.h"
#include "xalloc.h"
#include "../reports/report.h"

static int profile_begin(void **state, struct uc_run *run)
{
	struct pf_run *r = xcalloc(1, sizeof(*r));

	*state = r;
	if (pf_run_begin(r, run->opt, run->log)) {
		free(r);
		*state = NULL;
		return -1;
	}
	return 0;
}

static int profile_follow(void *state, pid_t pid)
{
	return pf_run_follow(state, pid);
}

static int profile_fd(void *state)
{
	return -1;	/* read on its tick */
}

static int profile_tick(void *state)
{
	return pf_run_tick(state);
}

static int profile_drain(void *state)
{
	return 0;	/* counted in the kernel: nothing buffered */
}

static void profile_finish(void *state, struct uc_run *run)
{
	struct uc_report *rep = run->rep;
	struct pf_hazard_count *h = NULL;
	int n = 0;

	if (run->checking) {	/* the doctor is told what the checker found */
		h = xcalloc(uc_kinds_count(), sizeof(*h));
		for (int k = 0; k < uc_kinds_count(); k++)
			h[n++] = (struct pf_hazard_count){
				.kind = uc_kind_name(k), .n = rep->count[k],
				.severity = rep->fail_on & UC_KIND_BIT(k) ? "error" : "warning" };
	}
	pf_run_finish(state, h, n, run->check_events_lost);
	free(h);
	run->rings_seen += ((struct pf_run *)state)->final.nrings;
}

static int profile_report(void *state, struct uc_run *run, FILE *out)
{
	pf_run_report(state, out, run->what);
	/* A finding about the whole run (-a's fidelity note) carries
	 * uringcheck's own pid, as every other whole-run line does. */
	pf_run_to_report(state, run->rep, (uint32_t)(run->pid ? run->pid : getpid()));
	if (run->opt->fail_doctor && pf_run_doctor_level(state) >= run->opt->fail_doctor)
		run->doctor_failed = true;
	return 0;
}

/* The gate says why it fails the run: a CI log without a reason for
 * its red is no use. */
static void profile_footer(void *state, struct uc_run *run, FILE *out)
{
	if (run->doctor_failed)
		fprintf(out, "uringcheck: --fail-on=doctor:%s: the doctor's findings fail "
			"the run (exit status %ld)\n",
			run->opt->fail_doctor == UC_FAIL_DOCTOR_NOTE ? "note" : "warning",
			run->opt->error_exitcode);
}

static void profile_free(void *state)
{
	if (!state)
		return;
	pf_run_free(state);
	free(state);
}

const struct uc_mode_ops profile_mode_ops = {
	.name = "profile",
	.begin = profile_begin,
	.follow = profile_follow,
	.fd = profile_fd,
	.tick = profile_tick,
	.drain = profile_drain,
	.finish = profile_finish,
	.report = profile_report,
	.footer = profile_footer,
	.free = profile_free,
};
