// SPDX-License-Identifier: GPL-2.0
/*
 * uringcheck: run a program and report the io_uring buffer hazards it
 * causes, or profile or trace its io_uring use. This file parses the
 * options (lib/options.c), checks what must hold before any BPF is
 * loaded (the target exists; run/preflight.c: capabilities, /sys,
 * io_uring; lib/pidns.c: the PID namespace), picks the modes and
 * hands over to the one run loop (run.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "exit_codes.h"
#include "options.h"
#include "mode.h"
#include "policy.h"
#include "pidns.h"
#include "preflight.h"
#include "run.h"
#include "runner.h"
#include "user_files.h"
#include "version.h"
#include "../reports/kind_registry.h"
#include "kinds/kinds.h"
#include "../static/static_build.h"

/* Like execvp's search, to fail fast (before loading BPF) on a typo.
 * The path found is kept in @found (for the uprobe mode). */
static int find_program(const char *name, char *found, size_t len)
{
	const char *path = getenv("PATH");
	char buf[4096];
	int err = ENOENT;

	snprintf(found, len, "%s", name);
	if (strchr(name, '/'))
		return access(name, X_OK) ? errno : 0;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s%s%s", (int)n, path, n ? "/" : "", name);
		if (!access(buf, X_OK)) {
			struct stat st;

			if (!stat(buf, &st) && S_ISREG(st.st_mode)) {
				snprintf(found, len, "%s", buf);
				return 0;
			}
		} else if (errno == EACCES) {
			err = EACCES;
		}
		path += n + (path[n] == ':');
	}
	return err;
}

/* --help's kinds sentence; the parser knows no kind (lib/options.h). */
static void kind_names(char *buf, size_t len, bool errors)
{
	uc_kinds_names(buf, len, errors ? UC_SEV_ERROR : UC_SEV_WARNING);
}

static const struct uc_options_kinds option_kinds = {
	.names = kind_names,
	.list = uc_kinds_list,
	.fail_default = uc_kinds_fail_default,
	.parse = uc_kinds_parse,
};

int main(int argc, char **argv)
{
	const struct uc_mode_ops *modes[3];
	struct uc_options opt;
	struct uc_run_as run_as;
	char exe[4096] = "", why[1024];
	int nmodes = 0, e;

	kinds_register();	/* options, suppressions and reports name kinds */
	runner_ignore_sigpipe();
	options_set_kinds(&option_kinds);
	options_defaults(&opt);
	switch (options_parse(&opt, argc, argv)) {
	case OPT_EXIT_OK:
		options_free(&opt);
		return 0;
	case OPT_EXIT_VERSION:
		print_version(stdout);
		options_free(&opt);
		return 0;
	case OPT_EXIT_USAGE:
		options_free(&opt);
		return UC_EXIT_USAGE;
	case OPT_RUN:
		break;
	}
#ifdef UC_STATIC
	static_build_notes(stderr);
#endif

	e = opt.target_argv ? find_program(opt.target_argv[0], exe, sizeof(exe)) : 0;
	if (e) {
		fprintf(stderr, "uringcheck: cannot run '%s': %s\n",
			opt.target_argv[0], strerror(e));
		options_free(&opt);
		return UC_EXIT_NOT_FOUND;
	}
	if (preflight(opt.target_argv != NULL, why, sizeof(why)) ||
	    pidns_detect(why, sizeof(why))) {
		fprintf(stderr, "uringcheck: %s\n", why);
		options_free(&opt);
		return UC_EXIT_TOOL_ERROR;
	}
	if (run_as_from_env(&run_as, opt.as_root)) {
		options_free(&opt);
		return UC_EXIT_USAGE;
	}
	e = policy_check(&opt, &run_as);
	if (e) {
		run_as_free(&run_as);
		options_free(&opt);
		return e;
	}
	/* From here on, the user's files are opened as the user. */
	uf_set_user(&(struct uc_user){ .sudo = run_as.sudo, .uid = run_as.uid,
				       .gid = run_as.gid, .groups = run_as.groups,
				       .ngroups = run_as.ngroups });

	/* The modes, in the order they report: the checker's findings first,
	 * the profile (whose doctor is told of them), the trace last. */
	if (!opt.profile || opt.check)
		modes[nmodes++] = &check_mode_ops;
	if (opt.profile)
		modes[nmodes++] = &profile_mode_ops;
	if (opt.trace || opt.events)
		modes[nmodes++] = &trace_mode_ops;
	e = run(&opt, modes, nmodes, exe, &run_as);
	run_as_free(&run_as);
	options_free(&opt);
	return e;
}
