/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stacks in reports, ASan's layout:
 *
 *     #0 0x55d0c0a1b2c3 in copy_file examples/copy.c:42
 *     #1 0x55d0c0a1b400 in fill_buf examples/copy.c:30 (inlined)
 *     #2 0x55d0c0a1b400 in main examples/copy.c:77
 *     #3 0x7f3a1c0273c9 in io_uring_submit (liburing.so.2.3+0x33c9)
 *     #4 0x7f3a1c0281a2 in liburing.so.2.3+0x41a2
 *     #5 0x7f3a1c030000 in <unknown module>
 *
 * Every frame is a numbered line, inlined ones included; an inlined
 * function is marked " (inlined)" like perf does (ASan does not mark it)
 * and shares its pc with the function it was inlined into, the next
 * line. A function without line info shows (module+offset); no symbol
 * at all shows module+offset, offset being the address in the ELF file.
 * The module is the basename of the file /proc/PID/maps named (symlinks
 * resolved: liburing.so.2.3, not liburing.so.2).
 */
#ifndef UC_PRINT_STACK_H
#define UC_PRINT_STACK_H

#include <stdint.h>
#include <stdio.h>

#include "proc_maps.h"
#include "unwind.h"

struct uc_print_opts {
	/* Removed from the front of source paths (ASan's
	 * strip_path_prefix), e.g. the build directory. NULL: none. */
	const char *strip_prefix;
	/* At most this many lines; 0: no limit. */
	int max_lines;
	/* If not NULL, set to 1 when a frame's file could not be opened
	 * (the note below was printed), else 0. */
	int *unopened;
	/* The copy was cut at the bytes its call site needed before
	 * (UC_STACK_CUT): if the unwind ran off it, a note says so and
	 * *@cut_short (if not NULL) is set to 1. */
	int copy_cut;
	int *cut_short;
};

/* Prints the frames of @pcs (from uc_unwind) symbolized in @m (may be
 * NULL: addresses only). @opts may be NULL. Returns the lines printed;
 * an empty stack prints a uc_print_no_stack line. Where a frame lies in
 * a file the snapshot could not open (module+offset, and no CFI to
 * unwind it by), the stack ends with that frame (what the unwinder found
 * above it is a guess) and one more line names the file and why it goes
 * unnamed, instead of leaving a short stack unexplained:
 *     (no symbols from /srv/app/bin/server: its file could not be opened
 *      ...)                                                        */
int uc_print_stack(FILE *out, struct uc_maps *m, const uint64_t *pcs,
		   int npcs, const struct uc_print_opts *opts);

/* A capture straight to text: uc_unwind then uc_print_stack. */
int uc_print_capture(FILE *out, struct uc_maps *m,
		     const struct uc_user_regs *regs, const void *stack,
		     size_t len, const struct uc_print_opts *opts);

/* Where there is no user stack, one indented sentence instead:
 *     <no user stack: none captured: --stack-size=0>   */
void uc_print_no_stack(FILE *out, const char *reason);

#endif
