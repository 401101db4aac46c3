// SPDX-License-Identifier: GPL-2.0
/*
 * The static binary loads no shared library: every dlopen() in it comes
 * here (the link's --wrap=dlopen, Makefile, STATIC=1) and fails.
 *
 * Why: glibc's dlopen in a static program maps the library with its own
 * libc.so beside the static one, two heaps and two sets of locks, and
 * needs that libc to be exactly the one linked in; on another machine it
 * is not. The only caller left is libdw's debuginfod client, which asks
 * for libdebuginfod.so.1 when a file's debug info is not on the machine
 * (our own callers, libmicrohttpd for --metrics and libstdc++'s
 * demangler, are compiled out or linked in under UC_STATIC). It takes a
 * NULL as "no debuginfod": the frame is symbolized as far as the local
 * files allow, as when no server is named. What is left out is said by
 * --version and, when DEBUGINFOD_URLS asks for a server, at start-up
 * (static_build.c). dlerror() has nothing to say about this refusal;
 * libdw does not ask.
 */
#include <stddef.h>

void *__wrap_dlopen(const char *file, int mode);

void *__wrap_dlopen(const char *file, int mode)
{
	(void)file;
	(void)mode;
	return NULL;
}
