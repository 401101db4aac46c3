/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which parts of a capture decide its unwound frames.
 *
 * An unwind is a function of the registers and the stack words it reads.
 * Most of what it reads is data a frame saved (a callee-saved register
 * holding a pointer or a counter), which changes from call to call
 * without changing a single frame; a few words are return addresses or
 * frame bases, and those decide the chain. For a later capture at the
 * same call site (process image, ip, sp), equal deciders mean equal
 * frames, so the BPF side can compare them instead of copying the stack
 * again (checker/stack_bounds.h, bpf/stacks.bpf.h).
 *
 * Found by perturbation: each word the unwind read, and each callee-saved
 * register, is changed alone and the unwind run again; a change in the
 * frames makes it a decider. Then everything that is not a decider is
 * changed at once, and the frames must not move, or there is no answer.
 */
#ifndef UC_UNWIND_DECIDERS_H
#define UC_UNWIND_DECIDERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind.h"

/* Words a site may be decided by (the kernel's table holds as many). */
#define UC_DECIDER_WORDS	24

struct uc_deciders {
	unsigned nwords;
	uint16_t off[UC_DECIDER_WORDS];	/* from sp, ascending, 8-aligned */
	uint32_t span;			/* bytes from sp that hold them */
	uint8_t regs;			/* bit i: the i-th of struct
					 * uc_user_regs (bp at 2 ... r15 at 7) */
};

/*
 * The deciders of the capture (@regs, @stack of @len bytes) against the
 * snapshot @m. False when it has none usable: the unwind did not end at
 * the stack's outermost frame, read an unaligned word or more words than
 * it may, needs more than UC_DECIDER_WORDS, or its frames moved when
 * every other part changed. @info (may be NULL) gets what the capture's
 * own unwind used, as uc_unwind_info says it, whatever the answer.
 * @stack is not modified.
 */
bool uc_unwind_deciders(struct uc_maps *m, const struct uc_user_regs *regs,
			const void *stack, size_t len, struct uc_deciders *out,
			struct uc_unwind_info *info);

#endif
