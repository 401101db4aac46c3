/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Learned copy bounds: how much of the stack each call site's unwind
 * needs, so that the BPF side copies that much, not --stack-size bytes
 * (bpf/stacks.bpf.h, stack_bounds). The first capture of each (process,
 * ip, sp) is unwound as it arrives; if that unwind reached the outermost
 * frame and read less than the copy, the bytes it read plus
 * UC_BOUND_MARGIN become that site's bound. With the same ip and sp on
 * the same stack, any chain ends at the same outermost frames (the
 * stack's top does not move): only a stack whose top differs at the
 * same sp (a coroutine stack of another size over the same memory)
 * needs more. Such a stack loses outer frames, never shows wrong ones,
 * and the report says so (docs/stacks.md).
 */
#ifndef UC_STACK_BOUNDS_H
#define UC_STACK_BOUNDS_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>
#include "u64map.h"
#include "uringcheck.h"

/* Bytes kept above the highest word the learning unwind read. */
#define UC_BOUND_MARGIN		512
/* Sites learned per checker (the kernel's table holds 16384 for all). */
#define UC_BOUND_SITES_MAX	4096

struct uc_unwind_info;

/* Installs @bound for @k in the kernel's table, 0: removes it. */
typedef int (*uc_bound_install_fn)(void *ctx, const struct uc_stack_bound_key *k,
				   uint32_t bound);

struct uc_stack_bounds {
	uc_bound_install_fn install;	/* NULL: learning off */
	void *ctx;
	uint32_t session;
	struct u64map sites;		/* key hash -> struct bound_site */
	struct u64map by_tgid;		/* tgid -> struct bound_proc */
	size_t nsites;
	uint64_t installed;		/* bounds installed */
	uint64_t bounded;		/* captures copied up to one */
	uint64_t cut_short;		/* printed stacks that ran off one */
};

void stack_bounds_init(struct uc_stack_bounds *b);
/* Removes every bound it installed, while the kernel's table is still
 * reachable (before the session stops), and learns no more. */
void stack_bounds_clear(struct uc_stack_bounds *b);
void stack_bounds_free(struct uc_stack_bounds *b);
void stack_bounds_attach(struct uc_stack_bounds *b, uc_bound_install_fn fn, void *ctx,
			 uint32_t session);
/* Is a capture at (@tgid, @ip, @sp) worth unwinding to learn from? */
bool stack_bounds_wanted(const struct uc_stack_bounds *b, uint32_t tgid, uint64_t ip,
			 uint64_t sp);
/* The learning unwind of a copy of @len bytes at that site: @info. */
void stack_bounds_learn(struct uc_stack_bounds *b, uint32_t tgid, uint64_t ip, uint64_t sp,
			uint32_t len, const struct uc_unwind_info *info);
/* A printed stack ran off a bound: the site is learned again. */
void stack_bounds_ran_off(struct uc_stack_bounds *b, uint32_t tgid, uint64_t ip, uint64_t sp);
/* The process exec'd or exited: its sites are forgotten. */
void stack_bounds_forget(struct uc_stack_bounds *b, uint32_t tgid);

#endif
