// SPDX-License-Identifier: GPL-2.0
/*
 * libbpf's messages, for every BPF object uringcheck loads (the checker's
 * and the profile's): shown by -v level, and the first warning of a
 * failed load kept as the cause named in the one-line error.
 */
#include "libbpf_log.h"

#include <bpf/libbpf.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int verbosity;
/* libbpf's first warning of a failed load (which program or map, and
 * why), for the one-line error: "the kernel refused" alone blamed the
 * kernel for a missing kernel config file. */
static char load_cause[512];
/* Two loads can warn at once (cold_load.c). */
static pthread_mutex_t cause_lock = PTHREAD_MUTEX_INITIALIZER;

static void note_cause(const char *fmt, va_list ap)
{
	char line[512];
	size_t n;

	if (load_cause[0])
		return;
	vsnprintf(line, sizeof(line), fmt, ap);
	/* The verifier log is not a cause line; neither is its frame. */
	if (strncmp(line, "libbpf: ", 8) || strstr(line, "PROG LOAD LOG"))
		return;
	n = strcspn(line, "\n");
	line[n] = 0;
	snprintf(load_cause, sizeof(load_cause), "%s", line + 8);
}

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_WARN) {
		va_list copy;

		va_copy(copy, ap);
		pthread_mutex_lock(&cause_lock);
		note_cause(fmt, copy);
		pthread_mutex_unlock(&cause_lock);
		va_end(copy);
	}
	/* -v: warnings; -vv: everything, including the verifier log. */
	if (level == LIBBPF_DEBUG && verbosity < 2)
		return 0;
	if (level == LIBBPF_INFO && verbosity < 2)
		return 0;
	if (level == LIBBPF_WARN && verbosity < 1)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void libbpf_log_setup(int verbose)
{
	verbosity = verbose;
	libbpf_set_print(print_libbpf);
}

const char *libbpf_load_cause(void)
{
	return load_cause[0] ? load_cause : NULL;
}

void libbpf_load_failed(const char *what, const char *release, int err, int verbose)
{
	const char *cause = libbpf_load_cause();

	fprintf(stderr, "uringcheck: cannot load %s on kernel %s: %s%s\n", what, release,
		cause ? cause : strerror(-err),
		verbose >= 2 ? "" : " (-vv shows the verifier log)");
}
