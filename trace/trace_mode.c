// SPDX-License-Identifier: GPL-2.0
/*
 * The trace mode as the run loop sees it (lib/mode.h): --trace and
 * --events, whose records are read often and handed to their writers
 * (trace_run.c), with the checker's findings drawn on their requests
 * when the checker runs too.
 */
#define _GNU_SOURCE
#include <stdlib.h>

#include "mode.h"
#include "trace_run.h"
#include "xalloc.h"
#include "../reports/report.h"

static int trace_begin(void **state, struct uc_run *run)
{
	struct tr_run *r = xcalloc(1, sizeof(*r));

	*state = r;
	if (tr_run_begin(r, run->opt))
		return -1;
	if (run->checking) {	/* hazards drawn on their requests */
		run->rep->finding_hook = tr_run_finding;
		run->rep->finding_arg = r;
	}
	return 0;
}

static int trace_follow(void *state, pid_t pid)
{
	return tr_run_follow(state, pid);
}

static int trace_fd(void *state)
{
	return -1;
}

/* Records keep coming: read them at least every 10 ms. */
static int trace_tick(void *state)
{
	return 10;
}

static int trace_drain(void *state)
{
	tr_run_drain(state);
	return 0;
}

static void trace_finish(void *state, struct uc_run *run)
{
}

/* The last records, the losses, the files closed: -1 if one could not be
 * written. */
static int trace_report(void *state, struct uc_run *run, FILE *out)
{
	run->rep->finding_hook = NULL;
	return tr_run_end(state, out, (uint32_t)run->pid);
}

static void trace_free(void *state)
{
	free(state);
}

const struct uc_mode_ops trace_mode_ops = {
	.name = "trace",
	.begin = trace_begin,
	.follow = trace_follow,
	.fd = trace_fd,
	.tick = trace_tick,
	.drain = trace_drain,
	.finish = trace_finish,
	.report = trace_report,
	.free = trace_free,
};
