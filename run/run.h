/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one run loop (run.c): a target spawned or attached, watched by the
 * modes given, reported, and the exit status worked out.
 */
#ifndef UC_RUN_H
#define UC_RUN_H

struct uc_options;
struct uc_mode_ops;
struct uc_run_as;

/* Runs @o's target (or attaches to -p/-a) under @modes, in that order.
 * @exe is the target's path as found on PATH. Returns the exit status. */
int run(const struct uc_options *o, const struct uc_mode_ops *const *modes, int nmodes,
	const char *exe, const struct uc_run_as *ra);

#endif
