/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Program counter -> source frames, inlined calls expanded.
 *
 * Names and lines come from DWARF (the binary's own, or separate debug
 * info found by build-id under the debug roots or by .gnu_debuglink;
 * never debuginfod or any network), else from the ELF symbol tables,
 * else the frame is only "module+offset".
 */
#ifndef UC_SYMBOLIZE_H
#define UC_SYMBOLIZE_H

#include <stdbool.h>
#include <stdint.h>

#include "proc_maps.h"

struct uc_frame {
	uint64_t pc;			/* the address as captured (not pc-1) */
	const char *function;		/* NULL if unknown; C++ demangled */
	const char *file;		/* NULL if no line info; as recorded in
					 * DWARF (absolute for gcc's output) */
	int line, column;		/* 0 if unknown */
	const char *module;		/* basename of the mapped file ("[vdso]",
					 * "[anon]"), NULL if pc is unmapped */
	uint64_t module_offset;		/* pc - load bias: the address in the
					 * ELF file (what addr2line -e wants);
					 * for non-ELF mappings the file
					 * offset */
	bool inlined;			/* this function's code was inlined into
					 * the next frame, which is at the same
					 * pc; its line is the inlined call */
	bool has_debuginfo;		/* function/line came from DWARF */
};

/*
 * Describes @pc in snapshot @m as up to @max frames, innermost first:
 * each inlined function the pc is in (inlined = true), then the function
 * that really holds the code. Returns the number of frames (>= 1 when
 * @max >= 1; a pc nothing is known about yields one frame with only pc
 * set). @return_address: @pc is a return address (any unwound frame but
 * the first), so pc - 1 is looked up to land in the call instruction.
 *
 * Strings stay valid while @m is referenced. @m may be NULL.
 */
int uc_symbolize(struct uc_maps *m, uint64_t pc, bool return_address,
		 struct uc_frame *frames, int max);

/* Directories searched for separate debug info, ':'-separated, elfutils
 * syntax: "" is the binary's own directory, a relative entry is below it
 * (.gnu_debuglink only), an absolute one is a debug root holding
 * .build-id/xx/yyyy.debug and a mirror of the binary's directory.
 * Default ":.debug:/usr/lib/debug". */
void uc_symbolize_set_debuginfo_path(const char *path);
const char *uc_symbolize_debuginfo_path(void);

/* Lets go of the libdw sessions kept for snapshots of the same content
 * to come (dwfl_session.c); those of live snapshots stay theirs. */
void uc_symbolize_forget_sessions(void);
/* Sessions built so far, and snapshots that found one of the same
 * content to share instead (for the unit tests). */
void uc_symbolize_session_counts(unsigned long *built, unsigned long *shared);

#endif
