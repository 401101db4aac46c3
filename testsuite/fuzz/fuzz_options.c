// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the option parser (lib/options.c), command line and
 * URINGCHECK_OPTIONS. The input's first byte is a flag: if its low bit
 * is set, the first NUL-separated word of the rest becomes
 * URINGCHECK_OPTIONS (setenv), otherwise the variable is unset. The
 * remaining words (NUL-separated, at most 64) are the arguments after
 * argv[0]. The parser is set up as run/main.c does (the kinds handed in
 * through options_set_kinds). It must return on every input: --help,
 * --list-kinds and --list-ops print to stdout and return; libFuzzer
 * reports a call to exit() ("fuzz target exited") as a failure.
 *
 *   make fuzz && .output-fuzz/fuzz_options -close_fd_mask=3 testsuite/fuzz/corpus/options
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kind_registry.h"
#include "options.h"
#include "kinds/kinds.h"

#define MAX_WORDS 64

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	char *buf, *p, *end, *argv[MAX_WORDS + 2];
	struct uc_options o;
	int argc = 0;
	uint8_t flags;

	if (!ready) {
		kinds_register();
		options_set_kinds(&option_kinds);
		ready = 1;
	}
	if (!size)
		return 0;
	flags = data[0];
	/* the words, each NUL-terminated (a last one without a NUL too) */
	buf = malloc(size);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = 0;
	p = buf;
	end = buf + size - 1;
	if (flags & 1) {
		/* putenv, not setenv: glibc keeps every value setenv was
		 * given, and the fuzzer gives millions */
		static char *env;
		char *e = malloc(sizeof("URINGCHECK_OPTIONS=") + strlen(p));

		if (!e) {
			free(buf);
			return 0;
		}
		strcpy(e, "URINGCHECK_OPTIONS=");
		strcat(e, p);
		putenv(e);
		free(env);
		env = e;
		p += strlen(p) + 1;
	} else {
		unsetenv("URINGCHECK_OPTIONS");
	}
	argv[argc++] = "uringcheck";
	while (p < end && argc <= MAX_WORDS) {
		argv[argc++] = p;
		p += strlen(p) + 1;
	}
	argv[argc] = NULL;

	options_defaults(&o);
	switch (options_parse(&o, argc, argv)) {
	case OPT_RUN:
		/* what the command reads next: the program and its arguments */
		if (o.target_argv)
			for (char **a = o.target_argv; *a; a++)
				if (*a < buf || *a >= buf + size)
					abort();
		break;
	case OPT_EXIT_OK:
	case OPT_EXIT_VERSION:
	case OPT_EXIT_USAGE:
		break;
	default:
		abort();
	}
	options_free(&o);
	free(buf);
	return 0;
}
