/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Snapshots of a process's code mappings that outlive the process.
 *
 * A snapshot reads /proc/PID/maps while the process is alive and keeps,
 * for every file that has at least one executable mapping, all of that
 * file's mappings (the r-- ones hold the ELF headers and .eh_frame_hdr)
 * and one open fd to the file, shared by all snapshots of all processes
 * that map it (keyed by device and inode, which cannot be reused while
 * the fd is open). The fd comes from /proc/PID/map_files/
 * (needs CAP_SYS_ADMIN; the checker runs as root) so a file deleted or
 * replaced on disk since it was mapped still resolves; the fallbacks,
 * each accepted only if its inode matches the mapping's, are
 * /proc/PID/root/PATH (a file of another mount namespace, a container's)
 * and open(PATH).
 * Anonymous executable mappings (JIT code) and [vdso] are listed too,
 * with fd -1 ([vdso] gets a copy of the checker's own vDSO: one kernel,
 * one image).
 *
 * Snapshots are immutable and reference counted: a stack captured under
 * one snapshot keeps that snapshot (and its fds) alive until it has been
 * symbolized, even if the cache moved on after a dlclose or exec.
 *
 * Nothing here is thread-safe; one thread owns a cache and its snapshots.
 */
#ifndef UC_PROC_MAPS_H
#define UC_PROC_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define UC_BUILD_ID_MAX	64

struct uc_mapping {
	uint64_t start, end;		/* [start, end) in the process */
	uint64_t offset;		/* file offset mapped at start */
	bool exec, write;		/* PROT_EXEC, PROT_WRITE */
	uint64_t dev, inode;		/* of the file; 0 for anonymous */
	const char *path;		/* as /proc showed it minus " (deleted)";
					 * "[vdso]", "[anon]", "[anon:name]"... */
	bool deleted;			/* "(deleted)" at snapshot time */
	int fd;				/* read-only fd of the file or -1;
					 * shared by all mappings of a file */
	const unsigned char *build_id;	/* GNU build-id note, NULL if none */
	size_t build_id_len;
	int elf_type;			/* ET_EXEC, ET_DYN, or 0: not ELF */
	uint64_t load_bias;		/* runtime addr - ELF vaddr (0 for
					 * ET_EXEC); valid if elf_type != 0 */
};

struct uc_maps;			/* one immutable snapshot */
struct uc_maps_cache;		/* current snapshot per process */

/* Takes a snapshot of @pid's mappings (@pid 0: this process). NULL with
 * errno set if the process is gone or shows no mappings (a zombie). */
struct uc_maps *uc_maps_snapshot(pid_t pid);

/*
 * A snapshot from mappings recorded elsewhere (the BPF side walks the
 * process's VMAs before its first stack, while it surely exists). A file
 * already open (same dev and inode: a snapshot taken while the process
 * lived) is shared; else its fd comes from /proc/PID/map_files/ while
 * the process lives, then /proc/PID/root/PATH (its mount namespace,
 * while it lives), then PATH here (the process may have exited; right
 * when uringcheck shares its mount namespace), each accepted only if the
 * inode matches. @dev 0: unknown (then only an open is tried).
 */
struct uc_map_record {
	uint64_t start, end, offset, inode, dev;
	bool exec, write;
	const char *path;	/* in the process's mount namespace */
};
struct uc_maps *uc_maps_from_records(pid_t pid, const struct uc_map_record *r,
				     size_t n);

struct uc_maps *uc_maps_ref(struct uc_maps *m);
void uc_maps_unref(struct uc_maps *m);	/* NULL is fine */

pid_t uc_maps_pid(const struct uc_maps *m);
size_t uc_maps_count(const struct uc_maps *m);
const struct uc_mapping *uc_maps_at(const struct uc_maps *m, size_t i);
/* The kept mapping containing @addr, or NULL. */
const struct uc_mapping *uc_maps_find(const struct uc_maps *m, uint64_t addr);
/* Reads @len bytes at @addr from the file behind a non-writable mapping
 * (code, read-only data). Returns false where there is no such mapping or
 * the read falls short. */
bool uc_maps_read(const struct uc_maps *m, uint64_t addr, void *buf,
		  size_t len);

/*
 * One private attachment per snapshot, freed with it. The libdw session
 * of unwind.c/symbolize.c lives here so the rest of the checker never
 * sees a libdw type.
 */
void *uc_maps_private(const struct uc_maps *m);
void uc_maps_set_private(struct uc_maps *m, void *p, void (*free_fn)(void *));

/*
 * The cache: pid (the thread-group id: threads share one address space)
 * -> its current snapshot. The checker calls get when it first sees a
 * process, refresh when it learns of an exec or a new executable
 * mapping, and forget once the process has exited and its reports are
 * written. Returned pointers are borrowed from the cache: take a
 * uc_maps_ref to keep one across a refresh or forget.
 */
struct uc_maps_cache *uc_maps_cache_new(void);
void uc_maps_cache_free(struct uc_maps_cache *c);
/* Current snapshot, taking one if there is none; NULL if impossible. */
struct uc_maps *uc_maps_cache_get(struct uc_maps_cache *c, pid_t pid);
/* Snapshot present, else NULL; never reads /proc. */
struct uc_maps *uc_maps_cache_peek(struct uc_maps_cache *c, pid_t pid);
/* Re-reads /proc/PID/maps. If the code mappings did not change the
 * current snapshot stays (cheap: one read of the maps file); otherwise a
 * new one replaces it, reusing the files already open. If the process is
 * gone the current snapshot stays. */
struct uc_maps *uc_maps_cache_refresh(struct uc_maps_cache *c, pid_t pid);
/* @pid (a child just forked) starts with @m (its parent's snapshot):
 * its address space is a copy until it maps or execs something. Lets a
 * child that exits before it could be snapshotted still symbolize. */
void uc_maps_cache_adopt(struct uc_maps_cache *c, pid_t pid,
			 struct uc_maps *m);
void uc_maps_cache_forget(struct uc_maps_cache *c, pid_t pid);

#endif
