/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The C runtime's start-up frames: the calls below main
 * (__libc_start_call_main, __libc_start_main, _start) and below a
 * thread's start routine (start_thread, clone3). They end nearly every
 * stack, and their source lines say nothing about the program; naming
 * them from the symbol table alone spares a report loading the C
 * library's DWARF when no other frame needs it: with Debian's libc6-dbg,
 * ~40 ms of decompressed debug sections per run that prints a report
 * (docs/stacks.md, "Frames of the C runtime").
 */
#ifndef UC_RUNTIME_FRAMES_H
#define UC_RUNTIME_FRAMES_H

#include <stdbool.h>

/* Whether @function, the symbol a frame of module @module (the mapped
 * file's basename) is in, is a start-up frame of the C runtime. A symbol
 * version after the name ("__libc_start_main@@GLIBC_2.34") is ignored. */
bool uc_runtime_frame(const char *function, const char *module);

#endif
