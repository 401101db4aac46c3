// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "runtime_frames.h"

#include <stddef.h>
#include <string.h>

/*
 * One line per start-up function. in_libc: only in the C library's own
 * module (a program may well have a function of that name); otherwise in
 * any module (a static program holds the C library's code itself, and
 * _start comes from crt1.o in every executable).
 */
static const struct {
	const char *function;
	bool in_libc;
} runtime_frames[] = {
	{ "_start", false },
	{ "__libc_start_call_main", false },	/* glibc 2.34+ */
	{ "__libc_start_main", false },		/* glibc, musl */
	{ "__libc_start_main_impl", false },	/* glibc 2.34+ */
	{ "__libc_start_main_alias_2", false },	/* glibc 2.34+ symbol alias */
	{ "libc_start_main_stage2", false },	/* musl */
	{ "start_thread", true },		/* glibc's pthread entry */
	{ "clone3", true },
	{ "clone", true },
	{ "__clone", true },
	{ "__clone3", true },
	{ "start", true },			/* musl's pthread entry */
	{ "start_c11", true },			/* musl's thrd_create entry */
};

/* The C library's module: glibc's libc.so.6 (libc-2.NN.so before 2.34),
 * musl's libc.so or ld-musl-ARCH.so.1. */
static bool libc_module(const char *module)
{
	return module && (!strncmp(module, "libc.so", 7) || !strncmp(module, "libc-", 5) ||
			  !strncmp(module, "ld-musl-", 8));
}

bool uc_runtime_frame(const char *function, const char *module)
{
	/* a shared library's symbol table may add its version: "name@@V" */
	size_t len = function ? strcspn(function, "@") : 0;

	if (!len)
		return false;
	for (size_t i = 0; i < sizeof(runtime_frames) / sizeof(runtime_frames[0]); i++)
		if (strlen(runtime_frames[i].function) == len &&
		    !strncmp(function, runtime_frames[i].function, len))
			return !runtime_frames[i].in_libc || libc_module(module);
	return false;
}
