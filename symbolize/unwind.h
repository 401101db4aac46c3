/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Offline unwinding of a user stack captured by BPF.
 *
 * At a hazard-relevant moment the BPF side copies the thread's user
 * registers (struct uc_user_regs) and the bytes of its stack from sp
 * upward. Here, possibly after the process is gone, libdw's DWARF CFI
 * unwinder replays the return-address chain on that copy: stack reads
 * inside [sp, sp + len) come from the copy, reads of code/rodata from the
 * files the maps snapshot kept open, anything else fails (and ends the
 * unwind there).
 *
 * Why libdw and not libunwind: libunwind's remote interface
 * (unw_create_addr_space + our own accessors) makes the accessor's
 * find_proc_info locate the CFI of each mapped file, which means calling
 * dwarf_search_unwind_table / dwarf_find_unwind_table. In Debian 12's
 * libunwind 1.6.2 those are internal: the .so has them
 * (_Ux86_64_dwarf_search_unwind_table) but no installed header declares
 * them and their prototype is not a stable interface (1.7 added
 * unw_get_proc_info_in_range for this). The supported remote paths are
 * _UPT_* (a live, ptrace-stopped target) and _UCD_* (a core file).
 * libdw's dwfl_attach_state takes a memory reader and the initial
 * registers and reads .eh_frame/.debug_frame itself from the module
 * files, all public API: it works offline from a snapshot, after the
 * process has exited. It also falls back to the frame-pointer chain
 * where a pc has no CFI.
 */
#ifndef UC_UNWIND_H
#define UC_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proc_maps.h"

/*
 * The user registers captured at the hazard point (x86-64): the
 * callee-saved registers plus ip and sp, which is what CFI unwinding
 * needs at a call site or a syscall. Caller-saved registers (rax, rcx,
 * rdx, rsi, rdi, r8-r11) stay "undefined" for the unwinder. bpf/ may
 * define the same layout with __u64 and #define UC_USER_REGS_DEFINED.
 */
#ifndef UC_USER_REGS_DEFINED
#define UC_USER_REGS_DEFINED
struct uc_user_regs {
	uint64_t ip, sp, bp, bx, r12, r13, r14, r15;
};
#endif

/* Largest stack copy the BPF side takes. */
#define UC_STACK_COPY_MAX	8192
/* Frames worth keeping for a report. */
#define UC_MAX_FRAMES		32

/*
 * Unwinds the capture (@regs, @stack = the @len bytes that were at
 * regs->sp) against the snapshot @m. Stores at most @max program
 * counters in @pcs: pcs[0] = regs->ip, then the return address of each
 * caller. Returns the number stored: >= 1 whenever @max >= 1 (the
 * captured ip alone when nothing can be unwound), 0 if @max < 1, or -1
 * with errno set if @m or @regs is NULL.
 *
 * Frame i > 0 holds a return address: symbolize it with pc - 1 (see
 * uc_symbolize) to name the call, not the instruction after it.
 */
int uc_unwind(struct uc_maps *m, const struct uc_user_regs *regs,
	      const void *stack, size_t len, uint64_t *pcs, int max);

/* What an unwind used of its copy (uc_unwind_info). */
struct uc_unwind_info {
	size_t need;		/* bytes from sp up to its highest word read */
	bool ran_out;		/* it read above the copy, below
				 * UC_STACK_COPY_MAX: the stack went on */
	bool outermost;		/* it ended at the outermost frame (an
				 * undefined or zero return address), not
				 * at an error or at @max frames; a read
				 * that failed can also end it so: only
				 * with !ran_out is it the stack's end */
};

/* uc_unwind, also saying what it used (@info may be NULL). */
int uc_unwind_info(struct uc_maps *m, const struct uc_user_regs *regs,
		   const void *stack, size_t len, uint64_t *pcs, int max,
		   struct uc_unwind_info *info);
/* uc_unwind_info, also listing in @reads (at most @reads_max, in order,
 * repeats included) the offset from sp of each word it read of the copy;
 * *@nreads is how many, @reads_max + 1 if there were more. */
int uc_unwind_reads(struct uc_maps *m, const struct uc_user_regs *regs,
		    const void *stack, size_t len, uint64_t *pcs, int max,
		    struct uc_unwind_info *info, uint16_t *reads, size_t reads_max,
		    size_t *nreads);

#endif
