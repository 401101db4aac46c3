// SPDX-License-Identifier: GPL-2.0
/*
 * Snapshots of /proc/PID/maps that keep the mapped files open, and the
 * per-process cache of the current snapshot. See proc_maps.h.
 */
#define _GNU_SOURCE
#include "proc_maps.h"
#include "../lib/regular_file.h"
#include "proc_maps_parse.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <elfutils/libdwelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* One mapped file, shared by every mapping of it in every snapshot of
 * every process: libc is opened once however many processes map it. */
struct uc_file {
	struct uc_file *next_live;	/* in live_files, unless the vDSO */
	int refs;
	uint64_t dev, inode;
	int fd;
	int elf_type;
	unsigned char build_id[UC_BUILD_ID_MAX];
	size_t build_id_len;
	size_t nloads;
	struct { uint64_t vaddr, offset, filesz; } *loads;
};

struct uc_maps {
	int refs;
	pid_t pid;
	size_t n;
	struct uc_mapping *v;		/* sorted by start */
	struct uc_file **files;		/* v[i]'s file or NULL */
	void *priv;
	void (*priv_free)(void *);
};

/* ------------------------------------------------------------------ */
/* Files                                                               */

/*
 * The open files by (dev, inode). While an fd is open its inode cannot
 * be freed and reused, so the pair names the same file for as long as
 * the entry lives. A list: tens to a few hundred distinct files.
 */
static struct uc_file *live_files;

static struct uc_file *file_get(struct uc_file *f)
{
	f->refs++;
	return f;
}

static struct uc_file *live_find(uint64_t dev, uint64_t inode)
{
	for (struct uc_file *f = live_files; f; f = f->next_live)
		if (f->inode == inode && f->dev == dev)
			return f;
	return NULL;
}

static void file_put(struct uc_file *f)
{
	if (!f || --f->refs > 0)
		return;
	for (struct uc_file **pp = &live_files; *pp; pp = &(*pp)->next_live)
		if (*pp == f) {
			*pp = f->next_live;
			break;
		}
	if (f->fd >= 0)
		close(f->fd);
	free(f->loads);
	free(f);
}

/* Reads the ELF type, PT_LOAD segments and build-id of f->fd. */
static void file_read_elf(struct uc_file *f)
{
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return;
	GElf_Ehdr eh;
	size_t phnum;
	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) ||
	    elf_getphdrnum(elf, &phnum) != 0)
		goto out;
	f->loads = calloc(phnum ? phnum : 1, sizeof(*f->loads));
	if (!f->loads)
		goto out;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		f->loads[f->nloads].vaddr = ph.p_vaddr;
		f->loads[f->nloads].offset = ph.p_offset;
		f->loads[f->nloads].filesz = ph.p_filesz;
		f->nloads++;
	}
	if (!f->nloads)
		goto out;
	f->elf_type = eh.e_type;
	const void *id;
	ssize_t idlen = dwelf_elf_gnu_build_id(elf, &id);
	if (idlen > 0 && (size_t)idlen <= sizeof(f->build_id)) {
		memcpy(f->build_id, id, (size_t)idlen);
		f->build_id_len = (size_t)idlen;
	}
out:
	elf_end(elf);
}

static struct uc_file *file_new(int fd, uint64_t dev, uint64_t inode)
{
	struct uc_file *f = calloc(1, sizeof(*f));
	if (!f) {
		close(fd);
		return NULL;
	}
	f->refs = 1;
	f->fd = fd;
	f->dev = dev;
	f->inode = inode;
	file_read_elf(f);
	return f;
}

/*
 * The kernel's vDSO image is the same in every 64-bit process, so a copy
 * of the checker's own, in a memfd, stands in for the target's.
 */
static struct uc_file *vdso_file(uint64_t size)
{
	static struct uc_file *vdso;
	static bool tried;

	if (!tried) {
		tried = true;
		uint64_t base = getauxval(AT_SYSINFO_EHDR), vsize = 0;
		FILE *fp = base ? fopen("/proc/self/maps", "re") : NULL;
		char line[512];
		while (fp && fgets(line, sizeof(line), fp)) {
			uint64_t s, e;
			if (strstr(line, "[vdso]") &&
			    sscanf(line, "%" SCNx64 "-%" SCNx64, &s, &e) == 2 &&
			    s == base)
				vsize = e - s;
		}
		if (fp)
			fclose(fp);
		int fd = vsize ? memfd_create("uc-vdso", MFD_CLOEXEC) : -1;
		if (fd >= 0 && write(fd, (void *)(uintptr_t)base, vsize) !=
		    (ssize_t)vsize) {
			close(fd);
			fd = -1;
		}
		if (fd >= 0) {
			vdso = file_new(fd, 0, 0);
			if (vdso && vdso->elf_type == 0) {
				file_put(vdso);
				vdso = NULL;
			}
		}
	}
	if (!vdso)
		return NULL;
	/* A different size means a different image (e.g. an ia32 task). */
	struct stat st;
	if (fstat(vdso->fd, &st) != 0 || (uint64_t)st.st_size != size)
		return NULL;
	return file_get(vdso);
}

/* ------------------------------------------------------------------ */
/* Parsing /proc/PID/maps                                              */

void uc_maps_raw_free(struct raw_map *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(r[i].path);
	free(r);
}

static bool is_file_path(const char *p)
{
	return p[0] == '/';
}

/* Marks the lines to keep: every mapping of a file that has an
 * executable mapping, and anonymous/special executable ones. */
static bool mark_keep(struct raw_map *r, size_t n)
{
	/* Files with an executable mapping: few (tens), while a process
	 * can have thousands of mappings, so a flat list of keys. */
	struct { uint64_t dev, inode; } *xf = NULL;
	size_t nx = 0;
	for (size_t i = 0; i < n; i++) {
		if (r[i].perms[2] != 'x')
			continue;
		r[i].keep = true;
		if (!r[i].inode || !is_file_path(r[i].path))
			continue;
		void *nxf = realloc(xf, (nx + 1) * sizeof(*xf));
		if (!nxf) {
			free(xf);
			return false;
		}
		xf = nxf;
		xf[nx].dev = r[i].dev;
		xf[nx].inode = r[i].inode;
		nx++;
	}
	for (size_t i = 0; i < n; i++) {
		if (r[i].keep || !r[i].inode || !is_file_path(r[i].path))
			continue;
		for (size_t j = 0; j < nx && !r[i].keep; j++)
			r[i].keep = xf[j].inode == r[i].inode &&
				    xf[j].dev == r[i].dev;
	}
	free(xf);
	return true;
}

/* Reads all lines, marking those to keep (proc_maps_parse.h). @fp
 * stays open. */
struct raw_map *uc_maps_parse(FILE *fp, size_t *np)
{
	struct raw_map *r = NULL;
	size_t n = 0, cap = 0;
	char *line = NULL;
	size_t lcap = 0;
	ssize_t len;
	while ((len = getline(&line, &lcap, fp)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		struct raw_map m = {0};
		unsigned maj, min;
		int pos = 0;
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64
			   " %x:%x %" SCNu64 " %n", &m.start, &m.end, m.perms,
			   &m.offset, &maj, &min, &m.inode, &pos) < 7)
			continue;
		m.dev = makedev(maj, min);
		const char *dash = strchr(line, ' ');
		if (!dash)	/* fields apart by tabs: not the kernel's */
			continue;
		size_t rl = (size_t)(dash - line);
		if (rl >= sizeof(m.range))
			continue;
		memcpy(m.range, line, rl);
		char *path = line + pos;
		size_t pl = strlen(path);
		static const char del[] = " (deleted)";
		if (pl >= sizeof(del) - 1 &&
		    !strcmp(path + pl - (sizeof(del) - 1), del)) {
			path[pl - (sizeof(del) - 1)] = '\0';
			m.deleted = true;
		}
		m.path = strdup(path);
		if (!m.path)
			goto fail;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			struct raw_map *nr = realloc(r, cap * sizeof(*r));
			if (!nr) {
				free(m.path);
				goto fail;
			}
			r = nr;
		}
		r[n++] = m;
	}
	free(line);
	if (!n) {
		errno = ESRCH;	/* a zombie shows an empty maps file */
		return NULL;
	}

	if (!mark_keep(r, n)) {
		uc_maps_raw_free(r, n);
		errno = ENOMEM;
		return NULL;
	}
	*np = n;
	return r;
fail:
	free(line);
	uc_maps_raw_free(r, n);
	errno = ENOMEM;
	return NULL;
}

struct raw_map *uc_maps_parse_text(const char *text, size_t len, size_t *np)
{
	FILE *fp;
	struct raw_map *r;

	if (!len) {
		errno = ESRCH;	/* no line: as an empty maps file */
		return NULL;
	}
	fp = fmemopen((void *)text, len, "r");
	if (!fp)
		return NULL;
	r = uc_maps_parse(fp, np);
	fclose(fp);
	return r;
}

/* Reads /proc/PID/maps (@pid 0: this process's). */
static struct raw_map *read_maps(pid_t pid, size_t *np)
{
	char name[64];
	struct raw_map *r;
	int e;

	if (pid)
		snprintf(name, sizeof(name), "/proc/%d/maps", (int)pid);
	else
		snprintf(name, sizeof(name), "/proc/self/maps");
	FILE *fp = fopen(name, "re");
	if (!fp)
		return NULL;
	r = uc_maps_parse(fp, np);
	e = errno;
	fclose(fp);
	errno = e;
	return r;
}

static bool same_as(const struct uc_maps *m, const struct raw_map *r, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (!r[i].keep)
			continue;
		if (k >= m->n)
			return false;
		const struct uc_mapping *o = &m->v[k++];
		if (o->start != r[i].start || o->end != r[i].end ||
		    o->offset != r[i].offset || o->dev != r[i].dev ||
		    o->inode != r[i].inode ||
		    o->exec != (r[i].perms[2] == 'x') ||
		    o->write != (r[i].perms[1] == 'w') ||
		    strcmp(o->path, r[i].path))
			return false;
	}
	return k == m->n;
}

/* ------------------------------------------------------------------ */
/* Snapshots                                                           */

/* @fd if it is the file of inode @ino, else -1 (and @fd closed). Not the
 * device: btrfs subvolumes and overlayfs show /proc/PID/maps another one
 * than fstat(). */
static int same_inode(int fd, uint64_t ino)
{
	struct stat st;

	if (fd >= 0 && (fstat(fd, &st) != 0 || (uint64_t)st.st_ino != ino)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * The file behind @r, opened while the process lives if it still does:
 * map_files (even a deleted or replaced file; needs CAP_SYS_ADMIN), then
 * its path through the process's root (the file system of its mount
 * namespace: a container's, or a tmpfs mounted only there; a path
 * crossing mounts is resolved there as the process would), then the
 * path here, which is the one left once the process is gone: right
 * when uringcheck shares its mount namespace, and judged by the inode.
 */
static struct uc_file *open_file(pid_t pid, const struct raw_map *r)
{
	char name[96 + 4096];
	int self = pid ? (int)pid : (int)getpid();
	int fd;

	snprintf(name, sizeof(name), "/proc/%d/map_files/%s", self, r->range);
	fd = open_regular(name);
	if (fd < 0 && !r->deleted && is_file_path(r->path) &&
	    snprintf(name, sizeof(name), "/proc/%d/root%s", self, r->path) <
	    (int)sizeof(name))
		fd = same_inode(open_regular(name), r->inode);
	if (fd < 0 && !r->deleted)
		fd = same_inode(open_regular(r->path), r->inode);
	if (fd < 0)
		return NULL;
	return file_new(fd, r->dev, r->inode);
}

static void set_elf_fields(struct uc_mapping *mp, const struct uc_file *f)
{
	mp->fd = f->fd;
	mp->build_id = f->build_id_len ? f->build_id : NULL;
	mp->build_id_len = f->build_id_len;
	mp->elf_type = f->elf_type;
	if (!f->elf_type)
		return;
	/* The PT_LOAD whose file range holds this mapping's offset gives
	 * the vaddr the mapping's first byte has in the ELF image. Where
	 * two segments share a page, the later-starting one is the one
	 * mapped here (the earlier one's tail is mapped before). */
	size_t best = f->nloads;
	for (size_t i = 0; i < f->nloads; i++) {
		uint64_t lo = f->loads[i].offset & ~(uint64_t)0xfff;
		uint64_t hi = f->loads[i].offset + f->loads[i].filesz;
		if (mp->offset < lo || mp->offset >= hi)
			continue;
		if (best == f->nloads || lo >= (f->loads[best].offset &
						~(uint64_t)0xfff))
			best = i;
	}
	if (best < f->nloads) {
		uint64_t vaddr = f->loads[best].vaddr -
				 f->loads[best].offset + mp->offset;
		mp->load_bias = f->elf_type == ET_EXEC ? 0 : mp->start - vaddr;
		return;
	}
	mp->elf_type = 0;	/* mapped outside every segment: not code */
}

/* Builds a snapshot from @r, reusing the files already open. */
static struct uc_maps *build(pid_t pid, const struct raw_map *r, size_t n)
{
	struct uc_maps *m = calloc(1, sizeof(*m));
	size_t keep = 0;
	for (size_t i = 0; i < n; i++)
		keep += r[i].keep;
	if (!m)
		return NULL;
	m->refs = 1;
	m->pid = pid;
	m->v = calloc(keep ? keep : 1, sizeof(*m->v));
	m->files = calloc(keep ? keep : 1, sizeof(*m->files));
	if (!m->v || !m->files)
		goto fail;

	for (size_t i = 0; i < n; i++) {
		if (!r[i].keep)
			continue;
		size_t k = m->n;
		struct uc_mapping *mp = &m->v[k];
		mp->start = r[i].start;
		mp->end = r[i].end;
		mp->offset = r[i].offset;
		mp->exec = r[i].perms[2] == 'x';
		mp->write = r[i].perms[1] == 'w';
		mp->dev = r[i].dev;
		mp->inode = r[i].inode;
		mp->deleted = r[i].deleted;
		mp->fd = -1;
		mp->path = strdup(r[i].path[0] ? r[i].path : "[anon]");
		if (!mp->path)
			goto fail;
		m->n++;

		struct uc_file *f = NULL;
		if (r[i].inode && is_file_path(r[i].path)) {
			f = live_find(r[i].dev, r[i].inode);
			if (f)
				f = file_get(f);
			else if ((f = open_file(pid, &r[i]))) {
				f->next_live = live_files;
				live_files = f;
			}
		} else if (!strcmp(r[i].path, "[vdso]")) {
			f = vdso_file(r[i].end - r[i].start);
		}
		m->files[k] = f;
		if (f)
			set_elf_fields(mp, f);
	}
	return m;
fail:
	uc_maps_unref(m);
	errno = ENOMEM;
	return NULL;
}

struct uc_maps *uc_maps_from_records(pid_t pid, const struct uc_map_record *rec,
				     size_t n)
{
	struct raw_map *r = calloc(n ? n : 1, sizeof(*r));
	struct uc_maps *m;

	if (!r)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		r[i].start = rec[i].start;
		r[i].end = rec[i].end;
		r[i].offset = rec[i].offset;
		r[i].inode = rec[i].inode;
		r[i].dev = rec[i].dev;
		snprintf(r[i].perms, sizeof(r[i].perms), "r%c%cp",
			 rec[i].write ? 'w' : '-', rec[i].exec ? 'x' : '-');
		snprintf(r[i].range, sizeof(r[i].range), "%llx-%llx",
			 (unsigned long long)rec[i].start,
			 (unsigned long long)rec[i].end);
		r[i].path = strdup(rec[i].path ? rec[i].path : "");
		if (!r[i].path) {
			uc_maps_raw_free(r, i);
			return NULL;
		}
	}
	if (!mark_keep(r, n)) {
		uc_maps_raw_free(r, n);
		return NULL;
	}
	m = build(pid, r, n);
	uc_maps_raw_free(r, n);
	return m;
}

struct uc_maps *uc_maps_snapshot(pid_t pid)
{
	size_t n;
	struct raw_map *r = read_maps(pid, &n);
	if (!r)
		return NULL;
	struct uc_maps *m = build(pid, r, n);
	uc_maps_raw_free(r, n);
	return m;
}

struct uc_maps *uc_maps_ref(struct uc_maps *m)
{
	if (m)
		m->refs++;
	return m;
}

void uc_maps_unref(struct uc_maps *m)
{
	if (!m || --m->refs > 0)
		return;
	if (m->priv_free)
		m->priv_free(m->priv);
	for (size_t i = 0; i < m->n; i++) {
		free((char *)m->v[i].path);
		file_put(m->files[i]);
	}
	free(m->v);
	free(m->files);
	free(m);
}

pid_t uc_maps_pid(const struct uc_maps *m)
{
	return m->pid;
}

size_t uc_maps_count(const struct uc_maps *m)
{
	return m->n;
}

const struct uc_mapping *uc_maps_at(const struct uc_maps *m, size_t i)
{
	return i < m->n ? &m->v[i] : NULL;
}

const struct uc_mapping *uc_maps_find(const struct uc_maps *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (addr < m->v[mid].start)
			hi = mid;
		else if (addr >= m->v[mid].end)
			lo = mid + 1;
		else
			return &m->v[mid];
	}
	return NULL;
}

bool uc_maps_read(const struct uc_maps *m, uint64_t addr, void *buf,
		  size_t len)
{
	const struct uc_mapping *mp = uc_maps_find(m, addr);
	if (!mp || mp->fd < 0 || mp->write || len > mp->end - addr)
		return false;
	ssize_t got = pread(mp->fd, buf, len, (off_t)(addr - mp->start +
						      mp->offset));
	return got == (ssize_t)len;
}

void *uc_maps_private(const struct uc_maps *m)
{
	return m->priv;
}

void uc_maps_set_private(struct uc_maps *m, void *p, void (*free_fn)(void *))
{
	if (m->priv_free)
		m->priv_free(m->priv);
	m->priv = p;
	m->priv_free = free_fn;
}

/* ------------------------------------------------------------------ */
/* The cache                                                           */

struct cache_ent {
	pid_t pid;
	struct uc_maps *maps;
	struct cache_ent *next;
};

struct uc_maps_cache {
	struct cache_ent **b;
	size_t nb, count;		/* nb: power of two */
};

static size_t bucket(const struct uc_maps_cache *c, pid_t pid)
{
	return ((uint32_t)pid * 2654435761u) & (c->nb - 1);
}

struct uc_maps_cache *uc_maps_cache_new(void)
{
	struct uc_maps_cache *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->nb = 64;
	c->b = calloc(c->nb, sizeof(*c->b));
	if (!c->b) {
		free(c);
		return NULL;
	}
	return c;
}

void uc_maps_cache_free(struct uc_maps_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nb; i++) {
		struct cache_ent *e = c->b[i], *next;
		for (; e; e = next) {
			next = e->next;
			uc_maps_unref(e->maps);
			free(e);
		}
	}
	free(c->b);
	free(c);
}

static struct cache_ent *lookup(struct uc_maps_cache *c, pid_t pid)
{
	for (struct cache_ent *e = c->b[bucket(c, pid)]; e; e = e->next)
		if (e->pid == pid)
			return e;
	return NULL;
}

static void grow(struct uc_maps_cache *c)
{
	size_t onb = c->nb;
	struct cache_ent **ob = c->b;
	struct cache_ent **nbk = calloc(2 * onb, sizeof(*nbk));
	if (!nbk)
		return;		/* stay at this size; chains just get longer */
	c->b = nbk;
	c->nb = 2 * onb;
	for (size_t i = 0; i < onb; i++) {
		struct cache_ent *e = ob[i], *next;
		for (; e; e = next) {
			next = e->next;
			size_t h = bucket(c, e->pid);
			e->next = c->b[h];
			c->b[h] = e;
		}
	}
	free(ob);
}

struct uc_maps *uc_maps_cache_peek(struct uc_maps_cache *c, pid_t pid)
{
	struct cache_ent *e = lookup(c, pid);
	return e ? e->maps : NULL;
}

static struct cache_ent *insert(struct uc_maps_cache *c, pid_t pid,
				struct uc_maps *m)
{
	struct cache_ent *e = malloc(sizeof(*e));
	if (!e)
		return NULL;
	if (c->count >= c->nb)
		grow(c);
	size_t h = bucket(c, pid);
	e->pid = pid;
	e->maps = m;
	e->next = c->b[h];
	c->b[h] = e;
	c->count++;
	return e;
}

struct uc_maps *uc_maps_cache_get(struct uc_maps_cache *c, pid_t pid)
{
	struct cache_ent *e = lookup(c, pid);
	if (e)
		return e->maps;
	struct uc_maps *m = uc_maps_snapshot(pid);
	if (!m)
		return NULL;
	if (!insert(c, pid, m)) {
		uc_maps_unref(m);
		return NULL;
	}
	return m;
}

void uc_maps_cache_adopt(struct uc_maps_cache *c, pid_t pid,
			 struct uc_maps *m)
{
	if (!m)
		return;
	struct cache_ent *e = lookup(c, pid);
	if (e) {
		uc_maps_ref(m);
		uc_maps_unref(e->maps);
		e->maps = m;
	} else if (insert(c, pid, m)) {
		uc_maps_ref(m);
	}
}

struct uc_maps *uc_maps_cache_refresh(struct uc_maps_cache *c, pid_t pid)
{
	struct cache_ent *e = lookup(c, pid);
	if (!e)
		return uc_maps_cache_get(c, pid);
	size_t n = 0;
	struct raw_map *r = read_maps(pid, &n);
	if (!r || same_as(e->maps, r, n)) {
		uc_maps_raw_free(r, n);
		return e->maps;
	}
	struct uc_maps *m = build(pid, r, n);
	uc_maps_raw_free(r, n);
	if (m) {
		uc_maps_unref(e->maps);
		e->maps = m;
	}
	return e->maps;
}

void uc_maps_cache_forget(struct uc_maps_cache *c, pid_t pid)
{
	struct cache_ent **pp = &c->b[bucket(c, pid)];
	for (; *pp; pp = &(*pp)->next) {
		if ((*pp)->pid != pid)
			continue;
		struct cache_ent *e = *pp;
		*pp = e->next;
		uc_maps_unref(e->maps);
		free(e);
		c->count--;
		return;
	}
}
