// SPDX-License-Identifier: GPL-2.0
/*
 * Builds the libdw (libdwfl) view of a maps snapshot: every ELF file that
 * is mapped executable is reported with dwfl_report_elf at the load bias
 * computed from its mapping, from the fd the snapshot kept, so neither
 * the process nor the file's path need still exist. Separate debug info
 * is looked up locally first: build-id under the debug roots, then
 * .gnu_debuglink next to the binary, in .debug/, and under the roots.
 * Only when none of those has it, and DEBUGINFOD_URLS names servers, is
 * libdw's own debuginfod client asked (dwfl_standard_find_debuginfo, which
 * ends with that query): stripped distribution binaries then symbolize
 * from their -dbgsym files or a local `debuginfod -F DIR`. Symbolization
 * happens only for stacks in reports, so a run without findings queries
 * nothing; a server that does not answer costs DEBUGINFOD_TIMEOUT (set to
 * 10 s unless the user chose one, libdebuginfod's default is 90) once
 * per file, and libdebuginfod caches what it fetched.
 */
#define _GNU_SOURCE
#include "dwfl_session.h"
#include "../lib/regular_file.h"
#include "symbolize.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <elfutils/libdwelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static char default_path[] = ":.debug:/usr/lib/debug";
static char *debuginfo_path = default_path;

void uc_symbolize_set_debuginfo_path(const char *path)
{
	char *p = path ? strdup(path) : NULL;
	/* libdwfl reads the string through &debuginfo_path at each lookup
	 * and keeps no copy, so the old one can go. */
	if (debuginfo_path != default_path)
		free(debuginfo_path);
	debuginfo_path = p ? p : default_path;
}

const char *uc_symbolize_debuginfo_path(void)
{
	return debuginfo_path;
}

/* Build-id of the ELF behind @fd, or 0. */
static ssize_t fd_build_id(int fd, unsigned char *out, size_t cap)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	ssize_t n = 0;
	if (elf) {
		const void *id;
		n = dwelf_elf_gnu_build_id(elf, &id);
		if (n > 0 && (size_t)n <= cap)
			memcpy(out, id, (size_t)n);
		else
			n = 0;
		elf_end(elf);
	}
	return n;
}

static bool crc_matches(int fd, GElf_Word want)
{
	unsigned char buf[65536];
	uLong crc = crc32(0L, Z_NULL, 0);
	off_t off = 0;
	ssize_t got;
	while ((got = pread(fd, buf, sizeof(buf), off)) > 0) {
		crc = crc32(crc, buf, (uInt)got);
		off += got;
	}
	return got == 0 && (GElf_Word)crc == want;
}

/* Is the file at @fd the debug companion of @mod? */
static bool validate(Dwfl_Module *mod, int fd, GElf_Word crc)
{
	const unsigned char *want;
	GElf_Addr vaddr;
	int wlen = dwfl_module_build_id(mod, &want, &vaddr);
	if (wlen > 0) {
		unsigned char have[UC_BUILD_ID_MAX];
		ssize_t hlen = fd_build_id(fd, have, sizeof(have));
		if (hlen > 0)
			return hlen == wlen && !memcmp(have, want, (size_t)wlen);
	}
	return crc ? crc_matches(fd, crc) : true;
}

static int try_open(Dwfl_Module *mod, const char *path, GElf_Word crc,
		    char **found)
{
	int fd = open_regular(path);
	if (fd < 0)
		return -1;
	/* crc 0: libdwfl is asking for the dwz alternate file, whose
	 * build-id is not the module's; the name is all we have. */
	if (crc && !validate(mod, fd, crc)) {
		close(fd);
		return -1;
	}
	*found = strdup(path);
	return fd;
}

/* The last resort, only when the user named debuginfod servers. */
static int from_debuginfod(Dwfl_Module *mod, void **userdata, const char *modname,
			   GElf_Addr base, const char *file_name, const char *debuglink,
			   GElf_Word crc, char **debuginfo_file_name)
{
	const char *urls = getenv("DEBUGINFOD_URLS");

#ifdef UC_STATIC
	/* No client in the static build (static/no_dlopen.c); the start-up
	 * note said so. */
	urls = NULL;
#endif
	if (!urls || !*urls)
		return -1;
	if (!getenv("DEBUGINFOD_TIMEOUT"))
		setenv("DEBUGINFOD_TIMEOUT", "10", 0);
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
					    debuglink, crc, debuginfo_file_name);
}

static int find_debuginfo(Dwfl_Module *mod, void **userdata,
			  const char *modname, GElf_Addr base,
			  const char *file_name, const char *debuglink,
			  GElf_Word crc, char **debuginfo_file_name)
{
	int fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base,
					      file_name, debuglink, crc,
					      debuginfo_file_name);
	if (fd >= 0)
		return fd;
	if (!debuglink || !*debuglink)
		return from_debuginfod(mod, userdata, modname, base, file_name,
				       debuglink, crc, debuginfo_file_name);
	if (debuglink[0] == '/' &&
	    (fd = try_open(mod, debuglink, crc, debuginfo_file_name)) >= 0)
		return fd;

	char dir[PATH_MAX] = "";
	if (file_name) {
		snprintf(dir, sizeof(dir), "%s", file_name);
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		else
			dir[0] = '\0';
	}
	const char *link = debuglink[0] == '/' ? strrchr(debuglink, '/') + 1
					       : debuglink;
	char *paths = strdup(debuginfo_path), *rest = paths, *p;
	fd = -1;
	/* strsep keeps empty entries, which mean "the binary's dir". */
	while (fd < 0 && rest && (p = strsep(&rest, ":"))) {
		char cand[PATH_MAX * 2];
		if (p[0] == '/')
			snprintf(cand, sizeof(cand), "%s%s/%s", p, dir, link);
		else if (p[0])
			snprintf(cand, sizeof(cand), "%s/%s/%s", dir, p, link);
		else
			snprintf(cand, sizeof(cand), "%s/%s", dir, link);
		if (file_name && !strcmp(cand, file_name))
			continue;	/* the stripped file itself */
		fd = try_open(mod, cand, crc, debuginfo_file_name);
	}
	free(paths);
	if (fd < 0)
		fd = from_debuginfod(mod, userdata, modname, base, file_name,
				     debuglink, crc, debuginfo_file_name);
	return fd;
}

static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname,
		    Dwarf_Addr base, char **file_name, Elf **elfp)
{
	/* Every module is reported with its fd: nothing to find. */
	return -1;
}

static const Dwfl_Callbacks callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

struct uc_dw_memo {
	uint64_t key;
	void *blob;
	struct uc_dw_memo *next;
};

/*
 * Sessions shared by content. A session depends only on what the snapshot
 * holds: the ELF files reported, at their biases, from the snapshot's
 * shared fds, and the read-only file contents memory_read falls back on.
 * A process that forks children which never exec (test runners, servers,
 * liburing's tests) gives each child a snapshot of its own, with the same
 * content. Building a session per child loaded and decompressed the same
 * debug information again each time: in liburing's pollfree (some 16,000
 * children) that was 62% of uringcheck's CPU with --json.
 */
/* Not the fd: a later snapshot may hold the same file under another one.
 * The file is its (dev, inode): the session keeps every ELF file it
 * reported open (dup'ed fds), so while it lives, no other file can be
 * given that inode. */
struct uc_dw_key {
	uint64_t start, end, offset, dev, inode, load_bias;
	int elf_type;
	bool fd_open, exec, write, deleted;
	char *path;
};

/* The sessions kept after their snapshots went, newest first. */
#define UC_DW_KEPT 4
static struct uc_dw *kept[UC_DW_KEPT];
static unsigned long sessions_built, sessions_shared;

void uc_symbolize_session_counts(unsigned long *built, unsigned long *shared)
{
	*built = sessions_built;
	*shared = sessions_shared;
}

static uint64_t fingerprint(const struct uc_maps *m)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t n = uc_maps_count(m);

	for (size_t i = 0; i < n; i++) {
		const struct uc_mapping *mp = uc_maps_at(m, i);
		uint64_t v[4] = { mp->start, mp->end, mp->offset, mp->inode };

		for (size_t j = 0; j < 4; j++)
			h = (h ^ v[j]) * 0x100000001b3ull;
	}
	return h ^ n;
}

static bool same_content(const struct uc_dw *dw, const struct uc_maps *m)
{
	if (dw->nkey != uc_maps_count(m))
		return false;
	for (size_t i = 0; i < dw->nkey; i++) {
		const struct uc_mapping *mp = uc_maps_at(m, i);
		const struct uc_dw_key *k = &dw->key[i];

		if (k->start != mp->start || k->end != mp->end || k->offset != mp->offset ||
		    k->dev != mp->dev || k->inode != mp->inode || (k->fd_open != (mp->fd >= 0)) ||
		    k->elf_type != mp->elf_type || k->exec != mp->exec ||
		    k->write != mp->write || k->deleted != mp->deleted ||
		    (mp->elf_type && k->load_bias != mp->load_bias) ||
		    strcmp(k->path, mp->path))
			return false;
	}
	return true;
}

/* Copies @m's content into @dw->key (false: out of memory, nothing kept). */
static bool keep_content(struct uc_dw *dw, const struct uc_maps *m)
{
	size_t n = uc_maps_count(m);

	dw->key = calloc(n ? n : 1, sizeof(*dw->key));
	if (!dw->key)
		return false;
	for (size_t i = 0; i < n; i++) {
		const struct uc_mapping *mp = uc_maps_at(m, i);
		struct uc_dw_key *k = &dw->key[i];

		*k = (struct uc_dw_key){ mp->start, mp->end, mp->offset, mp->dev, mp->inode,
					 mp->elf_type ? mp->load_bias : 0, mp->elf_type,
					 mp->fd >= 0, mp->exec, mp->write, mp->deleted,
					 strdup(mp->path) };
		if (!k->path) {
			dw->nkey = i;
			return false;
		}
	}
	dw->nkey = n;
	dw->fingerprint = fingerprint(m);
	return true;
}

static void dw_free(void *p)
{
	struct uc_dw *dw = p;
	if (!dw)
		return;
	for (size_t i = 0; i < dw->nkey; i++)
		free(dw->key[i].path);
	free(dw->key);
	if (dw->dwfl)
		dwfl_end(dw->dwfl);
	for (size_t i = 0; i < dw->nnames; i++)
		free(dw->names[i].val);
	free(dw->names);
	for (size_t i = 0; i < dw->nmemo_buckets; i++) {
		struct uc_dw_memo *e = dw->memo[i], *next;
		for (; e; e = next) {
			next = e->next;
			free(e->blob);
			free(e);
		}
	}
	free(dw->memo);
	free(dw);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static void report(struct uc_dw *dw)
{
	struct uc_maps *m = dw->maps;
	size_t n = uc_maps_count(m);

	dwfl_report_begin(dw->dwfl);
	for (size_t i = 0; i < n; i++) {
		const struct uc_mapping *mp = uc_maps_at(m, i);
		if (mp->fd < 0 || !mp->elf_type || !mp->exec)
			continue;
		/* One module per (file, bias): skip if an earlier exec
		 * mapping of this file at this bias was reported. */
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++) {
			const struct uc_mapping *o = uc_maps_at(m, j);
			seen = o->exec && o->fd == mp->fd && o->elf_type &&
			       o->load_bias == mp->load_bias;
		}
		if (seen)
			continue;
		int fd = dup(mp->fd);
		if (fd < 0)
			continue;
		/* add_p_vaddr: BASE is the bias (runtime - ELF vaddr) for
		 * ET_DYN, ignored for ET_EXEC. dwfl_report_elf consumes
		 * the fd on success only. */
		if (!dwfl_report_elf(dw->dwfl, base_name(mp->path), mp->path,
				     fd, mp->load_bias, true))
			close(fd);
	}
	dwfl_report_end(dw->dwfl, NULL, NULL);
}

/* A snapshot let go of @p (its private attachment's free), or a kept
 * slot did. */
static void dw_release(void *p)
{
	struct uc_dw *dw = p;

	if (dw && --dw->refs == 0)
		dw_free(dw);
}

/* @dw becomes the newest kept session; the oldest is let go. */
static void keep(struct uc_dw *dw)
{
	size_t i = 0;

	while (i < UC_DW_KEPT && kept[i] != dw)
		i++;
	if (i == UC_DW_KEPT) {		/* not kept yet: takes a slot's ref */
		i = UC_DW_KEPT - 1;
		dw_release(kept[i]);
		dw->refs++;
	}
	memmove(&kept[1], &kept[0], i * sizeof(kept[0]));
	kept[0] = dw;
}

static struct uc_dw *kept_like(const struct uc_maps *m)
{
	uint64_t fp = fingerprint(m);

	for (size_t i = 0; i < UC_DW_KEPT; i++)
		if (kept[i] && kept[i]->fingerprint == fp && same_content(kept[i], m))
			return kept[i];
	return NULL;
}

struct uc_dw *uc_dw_get(struct uc_maps *m)
{
	struct uc_dw *dw = uc_maps_private(m);
	if (dw) {
		dw->maps = m;
		return dw;
	}
	dw = kept_like(m);
	if (dw) {
		dw->refs++;
		dw->maps = m;
		uc_maps_set_private(m, dw, dw_release);
		keep(dw);
		sessions_shared++;
		return dw;
	}
	dw = calloc(1, sizeof(*dw));
	if (!dw)
		return NULL;
	dw->maps = m;
	elf_version(EV_CURRENT);
	dw->dwfl = dwfl_begin(&callbacks);
	if (!dw->dwfl) {
		free(dw);
		return NULL;
	}
	report(dw);
	sessions_built++;
	dw->refs = 1;
	uc_maps_set_private(m, dw, dw_release);
	/* kept for a later snapshot of the same content only if its
	 * content could be copied */
	if (keep_content(dw, m))
		keep(dw);
	return dw;
}

void uc_symbolize_forget_sessions(void)
{
	for (size_t i = 0; i < UC_DW_KEPT; i++) {
		dw_release(kept[i]);
		kept[i] = NULL;
	}
}

/* Linear: a report names tens of C++ functions, not thousands. */
const char *uc_dw_name_get(struct uc_dw *dw, const char *key)
{
	for (size_t i = 0; i < dw->nnames; i++)
		if (dw->names[i].key == key)
			return dw->names[i].val;
	return NULL;
}

const char *uc_dw_name_put(struct uc_dw *dw, const char *key, char *val)
{
	if (dw->nnames == dw->capnames) {
		size_t cap = dw->capnames ? 2 * dw->capnames : 16;
		struct uc_dw_name *nn = realloc(dw->names, cap * sizeof(*nn));
		if (!nn) {
			free(val);
			return NULL;
		}
		dw->names = nn;
		dw->capnames = cap;
	}
	dw->names[dw->nnames].key = key;
	dw->names[dw->nnames].val = val;
	dw->nnames++;
	return val;
}

static size_t memo_bucket(uint64_t key, size_t nb)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & (nb - 1);
}

void *uc_dw_memo_get(struct uc_dw *dw, uint64_t key)
{
	if (!dw->nmemo_buckets)
		return NULL;
	struct uc_dw_memo *e = dw->memo[memo_bucket(key, dw->nmemo_buckets)];
	for (; e; e = e->next)
		if (e->key == key)
			return e->blob;
	return NULL;
}

void uc_dw_memo_put(struct uc_dw *dw, uint64_t key, void *blob)
{
	if (dw->nmemo >= dw->nmemo_buckets) {
		size_t nb = dw->nmemo_buckets ? 2 * dw->nmemo_buckets : 64;
		struct uc_dw_memo **b = calloc(nb, sizeof(*b));
		if (!b) {
			free(blob);
			return;
		}
		for (size_t i = 0; i < dw->nmemo_buckets; i++) {
			struct uc_dw_memo *e = dw->memo[i], *next;
			for (; e; e = next) {
				next = e->next;
				size_t h = memo_bucket(e->key, nb);
				e->next = b[h];
				b[h] = e;
			}
		}
		free(dw->memo);
		dw->memo = b;
		dw->nmemo_buckets = nb;
	}
	struct uc_dw_memo *e = malloc(sizeof(*e));
	if (!e) {
		free(blob);
		return;
	}
	size_t h = memo_bucket(key, dw->nmemo_buckets);
	e->key = key;
	e->blob = blob;
	e->next = dw->memo[h];
	dw->memo[h] = e;
	dw->nmemo++;
}
