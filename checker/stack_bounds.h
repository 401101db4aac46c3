/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Learned copy bounds: how much of the stack each call site's unwind
 * needs, so that the BPF side copies that much, not --stack-size bytes
 * (bpf/stacks.bpf.h, stack_bounds). The second capture of each (process,
 * ip, sp) is unwound as it arrives (the first is only noted: most sites
 * of a short program are reached once); if that unwind reached the
 * outermost frame and read less than the copy, the bytes it read plus
 * UC_BOUND_MARGIN become that site's bound. With the same ip and sp on
 * the same stack, any chain ends at the same outermost frames (the
 * stack's top does not move): only a stack whose top differs at the
 * same sp (a coroutine stack of another size over the same memory)
 * needs more. Such a stack loses outer frames, never shows wrong ones,
 * and the report says so (docs/stacks.md).
 *
 * The same unwind's deciders (symbolize/unwind_deciders.h) go with the
 * bound: a later capture whose deciders are equal takes the site's id,
 * under which the caller (stacks.c) keeps that first capture, and copies
 * nothing.
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
/* Captures at a site in a row that were not its kept chain (another
 * chain reached it) before the site is learned again. */
#define UC_SITE_MISSES		8
/* Sites learned per checker (the kernel's table holds 16384 for all). */
#define UC_BOUND_SITES_MAX	4096

struct uc_unwind_info;
struct uc_deciders;

/* Installs what was learned of the site @k in the kernel's table, NULL:
 * removes it. */
typedef int (*uc_bound_install_fn)(void *ctx, const struct uc_stack_bound_key *k,
				   const struct uc_stack_site *site);
/* The kept capture of site id @id is no longer handed out. */
typedef void (*uc_site_retire_fn)(void *ctx, uint64_t id);

struct uc_stack_bounds {
	uc_bound_install_fn install;	/* NULL: learning off */
	void *ctx;
	uc_site_retire_fn retire;	/* set by its owner (stacks.c) */
	void *retire_ctx;
	uint32_t session;
	struct u64map sites;		/* key hash -> struct bound_site */
	struct u64map by_tgid;		/* tgid -> struct bound_proc */
	size_t nsites;
	uint64_t next_site;		/* site ids handed out */
	uint64_t installed;		/* bounds installed */
	uint64_t with_deciders;		/* sites installed with deciders */
	uint64_t bounded;		/* captures copied up to one */
	uint64_t reused;		/* records naming a site's kept capture */
	uint64_t cut_short;		/* printed stacks that ran off one */
	uint64_t relearned;		/* sites learned again after misses */
};

void stack_bounds_init(struct uc_stack_bounds *b);
/* Removes every bound it installed, while the kernel's table is still
 * reachable (before the session stops), and learns no more. */
void stack_bounds_clear(struct uc_stack_bounds *b);
void stack_bounds_free(struct uc_stack_bounds *b);
void stack_bounds_attach(struct uc_stack_bounds *b, uc_bound_install_fn fn, void *ctx,
			 uint32_t session);
/* Is a capture at (@tgid, @ip, @sp) worth unwinding to learn from? The
 * site's second capture is: the first is only noted. */
bool stack_bounds_wanted(struct uc_stack_bounds *b, uint32_t tgid, uint64_t ip, uint64_t sp);
/* What a site's first capture taught: @info, its unwind of the @len
 * bytes copied; @dec (NULL: none found) its deciders, whose values are
 * read from @regs and @stack, in the image @exec_id. Returns the id the
 * site's captures with those deciders will carry (UC_STACK_SITE_ID | n),
 * for which the caller keeps this capture; 0 if none. */
uint64_t stack_bounds_learn(struct uc_stack_bounds *b, uint32_t tgid, uint64_t ip,
			    uint64_t sp, uint32_t len, const struct uc_unwind_info *info,
			    const struct uc_deciders *dec, const uint64_t regs[8],
			    const void *stack, uint64_t exec_id);
/* A record named the site's kept capture (@tgid, @ip, @sp are its). */
void stack_bounds_reused(struct uc_stack_bounds *b, uint32_t tgid, uint64_t ip, uint64_t sp);
/* A capture at the site was copied: its deciders were not the kept
 * ones; UC_SITE_MISSES in a row and the site is learned again. */
void stack_bounds_missed(struct uc_stack_bounds *b, uint32_t tgid, uint64_t ip, uint64_t sp);
/* A printed stack ran off a bound: the site is learned again. */
void stack_bounds_ran_off(struct uc_stack_bounds *b, uint32_t tgid, uint64_t ip, uint64_t sp);
/* The process exec'd or exited: its sites are forgotten. */
void stack_bounds_forget(struct uc_stack_bounds *b, uint32_t tgid);

#endif
