// SPDX-License-Identifier: GPL-2.0
/*
 * uc_symbolize: pc -> function, file:line, with inlined calls expanded.
 *
 * The DIE path: dwfl_module_addrdie gives the CU, dwarf_getscopes the
 * innermost scope holding pc, dwarf_getscopes_die the physical nesting
 * of that scope (lexical blocks, DW_TAG_inlined_subroutine instances,
 * the DW_TAG_subprogram). The line table gives the innermost location;
 * each inlined_subroutine's DW_AT_call_file/DW_AT_call_line is where
 * its caller (the next scope out) called it. Same approach as
 * eu-addr2line -i.
 */
#define _GNU_SOURCE
#include "symbolize.h"
#include "dwfl_session.h"
#include "runtime_frames.h"

#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* C++ names                                                           */

typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);

#ifdef UC_STATIC
/* The static binary links libstdc++.a's demangler object (Makefile,
 * STATIC=1): nothing is loaded at run time there. */
char *__cxa_demangle(const char *, char *, size_t *, int *);

static cxa_demangle_fn demangler(void)
{
	return __cxa_demangle;
}
#else
/* __cxa_demangle from libstdc++, loaded only once a mangled name shows
 * up, so a C-only checker never maps the C++ runtime. */
static cxa_demangle_fn demangler(void)
{
	static cxa_demangle_fn fn;
	static bool tried;
	if (!tried) {
		tried = true;
		void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
		if (h)
			fn = (cxa_demangle_fn)dlsym(h, "__cxa_demangle");
	}
	return fn;
}
#endif

/* @mangled demangled, malloc'ed; NULL if it is no C++ name. */
static char *demangled_copy(const char *mangled)
{
	cxa_demangle_fn fn = demangler();
	int status = -1;
	char *d = fn ? fn(mangled, NULL, NULL, &status) : NULL;

	if (d && status == 0)
		return d;
	free(d);
	return NULL;
}

static const char *demangle(struct uc_dw *dw, const char *name)
{
	if (!name || strncmp(name, "_Z", 2))
		return name;
	const char *known = uc_dw_name_get(dw, name);
	if (known)
		return known;
	char *d = demangled_copy(name);
	if (!d)
		return name;
	const char *kept = uc_dw_name_put(dw, name, d);
	return kept ? kept : name;
}

/* An ELF symbol's name as a function's: without the symbol version a
 * shared library's table adds ("__libc_start_main@@GLIBC_2.34"), C++
 * demangled. Kept under the symbol table's own string (names are
 * memoized by that pointer). */
static const char *symbol_name(struct uc_dw *dw, const char *name)
{
	const char *at = name ? strchr(name, '@') : NULL;
	const char *known;
	char *plain;

	if (!at || at == name)
		return demangle(dw, name);
	known = uc_dw_name_get(dw, name);
	if (known)
		return known;
	plain = strndup(name, (size_t)(at - name));
	if (!plain)
		return name;
	if (!strncmp(plain, "_Z", 2)) {
		char *d = demangled_copy(plain);

		if (d) {
			free(plain);
			plain = d;
		}
	}
	known = uc_dw_name_put(dw, name, plain);
	return known ? known : name;
}

static const char *die_name(struct uc_dw *dw, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *ln = dwarf_formstring(
		dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
	if (!ln)
		ln = dwarf_formstring(
			dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
	if (ln && !strncmp(ln, "_Z", 2)) {
		const char *d = demangle(dw, ln);
		if (d != ln)
			return d;
	}
	/* dwarf_diename follows DW_AT_abstract_origin/specification. */
	const char *n = dwarf_diename(die);
	return n ? n : ln;
}

/* ------------------------------------------------------------------ */

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* Fills frames from DWARF scopes; returns how many, 0 if none. */
static int from_dies(struct uc_dw *dw, Dwfl_Module *mod, Dwarf_Addr look,
		     const struct uc_frame *base, struct uc_frame *out,
		     int max)
{
	Dwarf_Addr bias;
	Dwarf_Die *cudie = dwfl_module_addrdie(mod, look, &bias);
	if (!cudie)
		return 0;
	Dwarf_Die *scopes = NULL;
	int ns = dwarf_getscopes(cudie, look - bias, &scopes);
	if (ns <= 0) {
		free(scopes);
		return 0;
	}
	/* Re-walk from the innermost scope by DIE nesting: that is the
	 * concrete inline chain, whatever dwarf_getscopes put after an
	 * inlined instance. */
	Dwarf_Die inner = scopes[0];
	free(scopes);
	scopes = NULL;
	ns = dwarf_getscopes_die(&inner, &scopes);
	if (ns <= 0) {
		free(scopes);
		return 0;
	}

	const char *file = NULL;
	int line = 0, col = 0;
	Dwfl_Line *l = dwfl_module_getsrc(mod, look);
	if (l)
		file = dwfl_lineinfo(l, NULL, &line, &col, NULL, NULL);

	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	if (dwarf_getsrcfiles(cudie, &files, &nfiles) != 0)
		files = NULL;

	int n = 0;
	for (int i = 0; i < ns && n < max; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag != DW_TAG_subprogram &&
		    tag != DW_TAG_inlined_subroutine &&
		    tag != DW_TAG_entry_point)
			continue;
		struct uc_frame *f = &out[n++];
		*f = *base;
		f->function = die_name(dw, &scopes[i]);
		f->file = file;
		f->line = file ? line : 0;
		f->column = file ? col : 0;
		f->has_debuginfo = true;
		if (tag != DW_TAG_inlined_subroutine)
			break;
		f->inlined = true;
		/* The caller's location is where this instance was
		 * inlined. */
		Dwarf_Attribute a;
		Dwarf_Word v;
		file = NULL;
		line = col = 0;
		if (files && dwarf_formudata(dwarf_attr(&scopes[i],
				DW_AT_call_file, &a), &v) == 0 && v < nfiles)
			file = dwarf_filesrc(files, v, NULL, NULL);
		if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &a),
				    &v) == 0)
			line = (int)v;
		if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_column,
					       &a), &v) == 0)
			col = (int)v;
	}
	free(scopes);
	return n;
}

/* What one address resolves to, memoized per snapshot: DIE walks cost
 * tens of microseconds a frame and reports repeat the same call sites. */
struct memo {
	int n;
	struct uc_frame f[];
};

#define MEMO_MAX_FRAMES 64

static int resolve(struct uc_dw *dw, Dwfl_Module *mod, uint64_t look,
		   const struct uc_frame *base, struct uc_frame *out, int max)
{
	GElf_Off off;
	GElf_Sym sym;
	/* the symbol table's name, as it is: cleaned up only if shown */
	const char *sym_name = dwfl_module_addrinfo(mod, look, &off, &sym, NULL, NULL, NULL);

	/* The C runtime's start-up frames: the symbol alone, without
	 * loading the module's DWARF for them (runtime_frames.h). */
	if (uc_runtime_frame(sym_name, base->module)) {
		out[0] = *base;
		out[0].function = symbol_name(dw, sym_name);
		return 1;
	}

	int n = from_dies(dw, mod, look, base, out, max);
	if (n > 0)
		return n;

	/* No DWARF function for pc (no debug info, or an assembly CU):
	 * the ELF symbol, plus a line if the line table has one. */
	out[0] = *base;
	out[0].function = symbol_name(dw, sym_name);
	/* No function DIE here: trust the line table only for assembly CUs
	 * (glibc's syscall-template.S). A C CU whose single address range
	 * spans code of other objects (crt1.o's _start between main and the
	 * rest) would otherwise lend that code its nearest line. */
	Dwarf_Addr cu_bias;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, look, &cu_bias);
	Dwfl_Line *l = cu && dwarf_srclang(cu) == DW_LANG_Mips_Assembler ?
		       dwfl_module_getsrc(mod, look) : NULL;
	if (l) {
		out[0].file = dwfl_lineinfo(l, NULL, &out[0].line,
					    &out[0].column, NULL, NULL);
		if (!out[0].file)
			out[0].line = out[0].column = 0;
	}
	return 1;
}

int uc_symbolize(struct uc_maps *m, uint64_t pc, bool return_address,
		 struct uc_frame *out, int max)
{
	if (max < 1 || !out)
		return 0;
	uint64_t look = return_address && pc ? pc - 1 : pc;
	struct uc_frame base = { .pc = pc };

	const struct uc_mapping *mp = m ? uc_maps_find(m, look) : NULL;
	if (!mp) {
		out[0] = base;
		return 1;
	}
	base.module = base_name(mp->path);
	base.module_offset = mp->elf_type ? pc - mp->load_bias
					  : pc - mp->start + mp->offset;

	struct uc_dw *dw = uc_dw_get(m);
	Dwfl_Module *mod = dw ? dwfl_addrmodule(dw->dwfl, look) : NULL;
	if (!mod) {
		out[0] = base;
		return 1;
	}

	/* pc and the lookup address together: the same pc can be frame 0
	 * of one stack and a return address in another. */
	uint64_t key = pc << 1 | (look != pc);
	struct memo *me = uc_dw_memo_get(dw, key);
	if (!me) {
		struct uc_frame tmp[MEMO_MAX_FRAMES];
		int n = resolve(dw, mod, look, &base, tmp, MEMO_MAX_FRAMES);
		me = malloc(sizeof(*me) + (size_t)n * sizeof(me->f[0]));
		if (!me) {
			n = n < max ? n : max;
			memcpy(out, tmp, (size_t)n * sizeof(*out));
			return n;
		}
		me->n = n;
		memcpy(me->f, tmp, (size_t)n * sizeof(me->f[0]));
		uc_dw_memo_put(dw, key, me);
	}
	int n = me->n < max ? me->n : max;
	memcpy(out, me->f, (size_t)n * sizeof(*out));
	return n;
}
