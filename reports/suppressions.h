/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Suppressions (docs/suppressions.md): Valgrind-style blocks that match a
 * finding by kind and by the frames of its primary stack:
 *
 *     {
 *        known-race-in-legacy-copier      # a name, reported with its hits
 *        uringcheck:overlap               # the kind
 *        fun:submit_*                     # frames, innermost first, globs
 *        ...                              # any number of frames
 *        src:*legacy/copy.c
 *        obj:*liburing.so*
 *     }
 *
 * A block matches when its frame patterns match a prefix of the stack
 * (with "..." skipping frames). Lines starting with # are comments.
 */
#ifndef UC_SUPPRESSIONS_H
#define UC_SUPPRESSIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* What a suppression sees of one frame (symbolized, inlined expanded). */
struct uc_supp_frame {
	const char *function;		/* NULL if unknown */
	const char *file;		/* source file, NULL if unknown */
	const char *module;		/* object basename, NULL if unknown */
	uint64_t pc, module_offset;	/* for machine-readable output */
	int line;
	bool inlined;
};

struct uc_supp;
struct uc_suppressions {
	struct uc_supp *list;
	size_t n;
};

/* Parses @text in place (@len bytes, nothing read past them: no NUL needs to
 * follow; the file @path as its reader read it: the
 * command reads it as the invoking user, lib/user_files.c) and appends
 * its blocks. -1 after printing "uringcheck: FILE:LINE: reason" (unknown
 * kinds list the valid ones). */
int supp_parse(struct uc_suppressions *s, const char *path, char *text, size_t len);
void supp_free(struct uc_suppressions *s);
/* The matching block for kind @kind_name and @frames, or -1. */
/* One more finding suppressed by block @i (matched earlier). */
void supp_count_hit(struct uc_suppressions *s, int i);
int supp_match(struct uc_suppressions *s, const char *kind_name,
	       const struct uc_supp_frame *frames, int n);
/* "used suppressions" block: every block that matched, with its count. */
void supp_print_used(const struct uc_suppressions *s, FILE *out, uint32_t pid);
/* A ready-to-paste block for @kind_name and @frames (--gen-suppressions). */
void supp_print_entry(FILE *out, const char *kind_name,
		      const struct uc_supp_frame *frames, int n);

#endif
