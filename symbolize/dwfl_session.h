/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PRIVATE to symbolize/: the libdw session of one maps snapshot, shared
 * by unwind.c and symbolize.c. Nothing outside symbolize/ includes this
 * file; the checker sees only proc_maps.h, unwind.h, symbolize.h and
 * print_stack.h, none of which names a libdw type.
 */
#ifndef UC_DWFL_SESSION_H
#define UC_DWFL_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdwfl.h>

#include "proc_maps.h"

struct uc_user_regs;

struct uc_dw_key;

struct uc_dw {
	Dwfl *dwfl;			/* one module per (file, load bias) */
	/* The snapshot the session serves now: set by each uc_dw_get, not
	 * a reference. Snapshots of the same content share one session
	 * (uc_dw_get): its answers depend on the content only. */
	struct uc_maps *maps;
	unsigned refs;			/* snapshots attached, + 1 if kept */
	uint64_t fingerprint;		/* of the content (dwfl_session.c) */
	struct uc_dw_key *key;		/* the content, to compare exactly */
	size_t nkey;
	bool attached;			/* dwfl_attach_state done */
	bool attach_failed;
	/* The capture being unwound (unwind.c), valid during uc_unwind. */
	const struct uc_user_regs *regs;
	const unsigned char *stack;
	size_t stack_len;
	/* What this unwind read of the copy: the end of its highest word
	 * (from sp), and whether it read above the copy (unwind.h). */
	size_t stack_need;
	bool ran_out;
	/* When set, the offset from sp of each word it read of the copy,
	 * in order, at most reads_max (reads_over: more were read). */
	uint16_t *reads;
	size_t nreads, reads_max;
	bool reads_over;
	/* Demangled names made by symbolize.c, keyed by the mangled
	 * string's address (stable: it lives in the debug data). */
	struct uc_dw_name { const char *key; char *val; } *names;
	size_t nnames, capnames;
	/* Results of symbolize.c by address: u64 key -> malloc'ed blob. */
	struct uc_dw_memo **memo;
	size_t nmemo_buckets, nmemo;
};

/* The session of @m, built on first use, or the session of an earlier
 * snapshot with the same content (a forked child's, a sibling's: built
 * once, not once per process); NULL if libdw failed. Lives as long as
 * the snapshots attached to it (uc_maps private attachment), and the
 * last few stay kept after their snapshots went. */
struct uc_dw *uc_dw_get(struct uc_maps *m);
/* The name stored for @key, or NULL. */
const char *uc_dw_name_get(struct uc_dw *dw, const char *key);
/* Stores malloc'ed @val for @key (taking it); returns @val, or NULL if
 * out of memory (@val freed). */
const char *uc_dw_name_put(struct uc_dw *dw, const char *key, char *val);

/* The blob stored for @key, or NULL. */
void *uc_dw_memo_get(struct uc_dw *dw, uint64_t key);
/* Stores malloc'ed @blob for a new @key, taking it (freed on failure). */
void uc_dw_memo_put(struct uc_dw *dw, uint64_t key, void *blob);

#endif
