// SPDX-License-Identifier: GPL-2.0
/* Stack frames as report text; the layout is described in print_stack.h. */
#include "print_stack.h"
#include "symbolize.h"

#include <inttypes.h>
#include <string.h>

#define MAX_INLINE_DEPTH 16

static const char *strip(const char *path, const struct uc_print_opts *o)
{
	if (!o || !o->strip_prefix || !*o->strip_prefix)
		return path;
	size_t n = strlen(o->strip_prefix);
	if (strncmp(path, o->strip_prefix, n))
		return path;
	path += n;
	while (*path == '/')
		path++;
	return path;
}

static void print_frame(FILE *out, int num, const struct uc_frame *f,
			const struct uc_print_opts *o)
{
	fprintf(out, "    #%d 0x%" PRIx64 " in ", num, f->pc);
	if (f->function && f->file && f->line > 0)
		fprintf(out, "%s %s:%d", f->function, strip(f->file, o),
			f->line);
	else if (f->function && f->module)
		fprintf(out, "%s (%s+0x%" PRIx64 ")", f->function, f->module,
			f->module_offset);
	else if (f->function)
		fputs(f->function, out);
	else if (f->module)
		fprintf(out, "%s+0x%" PRIx64, f->module, f->module_offset);
	else
		fputs("<unknown module>", out);
	if (f->inlined)
		fputs(" (inlined)", out);
	fputc('\n', out);
}

int uc_print_stack(FILE *out, struct uc_maps *m, const uint64_t *pcs,
		   int npcs, const struct uc_print_opts *opts)
{
	if (!pcs || npcs <= 0) {
		uc_print_no_stack(out, "empty stack");
		return 1;
	}
	int lines = 0;
	int limit = opts && opts->max_lines > 0 ? opts->max_lines : INT32_MAX;
	const struct uc_mapping *unopened = NULL;
	for (int i = 0; i < npcs && lines < limit; i++) {
		struct uc_frame fr[MAX_INLINE_DEPTH];
		int n = uc_symbolize(m, pcs[i], i > 0, fr, MAX_INLINE_DEPTH);
		const struct uc_mapping *mp = m ? uc_maps_find(m, pcs[i]) : NULL;
		for (int k = 0; k < n && lines < limit; k++)
			print_frame(out, lines++, &fr[k], opts);
		/* Without the file there is no CFI for this frame: whatever
		 * the unwinder found above it is a guess, not printed. */
		if (mp && mp->fd < 0 && mp->inode && mp->path[0] == '/') {
			unopened = mp;
			break;
		}
	}
	/* Module+offset alone would leave the reader guessing why. The
	 * snapshot tried map_files and /proc/PID/root while the process
	 * lived, and the path here after (proc_maps.h). */
	if (unopened)
		fprintf(out, "    (no symbols from %s%s: its file could not be opened; "
			"the process had exited before uringcheck read its mappings, "
			"and the path leads to no such file from uringcheck's mount "
			"namespace)\n", unopened->path,
			unopened->deleted ? " (deleted)" : "");
	if (opts && opts->unopened)
		*opts->unopened = unopened != NULL;
	return lines;
}

int uc_print_capture(FILE *out, struct uc_maps *m,
		     const struct uc_user_regs *regs, const void *stack,
		     size_t len, const struct uc_print_opts *opts)
{
	uint64_t pcs[UC_MAX_FRAMES];
	struct uc_unwind_info info = { 0 };
	int n = m && regs ? uc_unwind_info(m, regs, stack, len, pcs, UC_MAX_FRAMES, &info)
			  : 0;
	if (n <= 0 && regs) {
		pcs[0] = regs->ip;
		n = 1;
	}
	int lines = uc_print_stack(out, m, pcs, n, opts);
	bool cut = opts && opts->copy_cut && info.ran_out;
	/* A copy bounded by what an earlier capture of the same ip and sp
	 * needed, on a stack that goes on further: the frames shown are
	 * this call's, the outer ones were not copied. */
	if (cut)
		fprintf(out, "    (stack cut: its copy ended at the %zu bytes this call "
			"site's unwind needed before; outer frames not captured, "
			"--full-stacks copies them)\n", len);
	if (opts && opts->cut_short)
		*opts->cut_short = cut;
	return lines;
}

void uc_print_no_stack(FILE *out, const char *reason)
{
	fprintf(out, "    <no user stack%s%s>\n", reason && *reason ? ": " : "",
		reason ? reason : "");
}
