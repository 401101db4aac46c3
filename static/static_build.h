/* SPDX-License-Identifier: GPL-2.0 */
/*
 * make STATIC=1 (Makefile, README "A static binary"): what the static
 * binary leaves out, in one place for --version, the refusals and the
 * notes. Each left-out feature loads a shared library at run time, which
 * a static glibc program cannot do safely (the library would bring a
 * second libc), so the static binary never tries (no_dlopen.c).
 */
#ifndef UC_STATIC_BUILD_H
#define UC_STATIC_BUILD_H

#ifdef UC_STATIC

#include <stdio.h>

/* --version's line. */
#define UC_STATIC_LEAVES_OUT							\
	"static build: no --metrics (libmicrohttpd is loaded at run time); "	\
	"no debuginfod (libdw's client is loaded at run time), debug info is "	\
	"found on this machine only; sudo's user and groups from /etc/passwd "	\
	"and /etc/group only"

/* Says once, on stderr, what an environment asks for that this binary
 * cannot give (DEBUGINFOD_URLS); nothing when it asks for nothing. */
void static_build_notes(FILE *err);

#endif /* UC_STATIC */
#endif
