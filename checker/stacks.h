/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User stacks captured by the BPF side (copied out of its stack store,
 * struct uc_stack in uringcheck.h, when a record names them), kept while some
 * in-flight request or pending call refers to them, each with the maps
 * snapshot of its process taken at capture time, so a stack still
 * symbolizes after the process exited or unloaded a library. Unwinding
 * and symbolization (symbolize/) happen only when a report prints one.
 */
#ifndef UC_STACKS_H
#define UC_STACKS_H

#include <stdint.h>
#include <stdio.h>

#include "u64map.h"
#include "stack_bounds.h"

struct uc_maps_cache;

/* Site captures kept after their site is forgotten (an exec, an exit, a
 * stack that ran off its bound), for records read after that. */
#define UC_SITES_RETIRED	64

struct uc_stacks {
	struct u64map by_id;		/* id -> struct uc_capture */
	struct u64map pending_maps;	/* tgid -> mappings before a stack */
	struct u64map capture_maps;	/* tgid -> mappings sent at captures
					 * (before v6.7), until it exits */
	struct uc_maps_cache *maps;
	uint64_t unavailable;		/* stacks asked for but gone */
	uint64_t overwritten;		/* gone from the store before read */
	uint64_t unopened;		/* printed with a file not opened */
	/* slot @index of the BPF side's store, mapped on first use */
	const struct uc_stack *(*slot)(void *ctx, uint32_t index);
	void *slot_ctx;
	const uint64_t *cursor;		/* ... captures taken so far */
	uint64_t fetched_hi;		/* the newest capture a record named */
	uint64_t *lazy;			/* ids not copied yet, oldest first */
	size_t lazy_head, nlazy, lazy_cap;
	struct uc_stack_bounds bounds;	/* copy bounds learned per site */
	/* Kept captures of sites no longer handed out, still held for the
	 * records already in the event buffer that name them, oldest first */
	uint64_t retired[UC_SITES_RETIRED];
	size_t retired_head, nretired;
	uint64_t site_gone;		/* records naming one let go */
	uint64_t last_site;		/* the site id the last record named */
};

struct uc_stack;
struct uc_vma_record;

void stacks_init(struct uc_stacks *s);
void stacks_free(struct uc_stacks *s);
/* Captures are read from the store's slots, @slot(@ctx, index) (NULL if
 * unavailable); @cursor counts the captures taken. */
void stacks_attach_store(struct uc_stacks *s,
			 const struct uc_stack *(*slot)(void *ctx, uint32_t index),
			 void *ctx, const uint64_t *cursor);
/* Captures taken that no record read so far has named, in thousandths
 * of the store (the reader's priority, run/reader_pace.h). */
unsigned stacks_backlog(const struct uc_stacks *s);
/* Copies out the held captures the store is about to overwrite. */
void stacks_rescue(struct uc_stacks *s);
/* A record names capture @id: copy it out of the store unless held. */
void stacks_fetch(struct uc_stacks *s, uint64_t id);
void stacks_on_mapping(struct uc_stacks *s, const struct uc_vma_record *v);
/* The file whose last path component is @base among the mappings the
 * kernel sent at process @tgid's first ring (v6.7+), while they wait for
 * its first stack: its inode, and its path into @path (@len bytes) as the
 * process names it. False if none (or none sent). */
bool stacks_sent_file(const struct uc_stacks *s, uint32_t tgid, const char *base,
		      uint64_t *inode, char *path, size_t len);
/* A request or call holds on to capture @id (0: none; no-op). */
void stacks_ref(struct uc_stacks *s, uint64_t id);
void stacks_unref(struct uc_stacks *s, uint64_t id);
/* Take the process's mappings now (it just created a ring: its libraries
 * are loaded), a forked child starts with its parent's, exec replaces. */
void stacks_process_seen(struct uc_stacks *s, uint32_t tgid);
void stacks_process_forked(struct uc_stacks *s, uint32_t parent, uint32_t child);
/* The process image changed or went away: snapshots taken from now on. */
void stacks_process_changed(struct uc_stacks *s, uint32_t tgid, int exited);
/* Unwound program counters of @id (0 if unavailable). */
int stacks_pcs(struct uc_stacks *s, uint64_t id, uint64_t *pcs, int max);
/* A key for "the same call site": the first frames as (file, offset in
 * it), so it holds across processes and address-space layouts; 0 when
 * there is no stack. */
uint64_t stacks_site_key(struct uc_stacks *s, uint64_t id);
struct uc_supp_frame;
/* Symbolized frames of @id for suppression matching (inlined expanded). */
int stacks_frames(void *stacks, uint64_t id, struct uc_supp_frame *out, int max);
/* Prints the symbolized frames of @id, or a sentence when there is none. */
void stacks_print(void *stacks, FILE *out, uint64_t id, const char *no_stack);

#endif
