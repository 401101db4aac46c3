// SPDX-License-Identifier: GPL-2.0
/*
 * free-inflight's probes (bpf/heap_release.bpf.h): glibc's free and
 * realloc (entry and return) in the libc.so.6 a followed process maps,
 * each a uprobe perf event whose target is that process
 * (uprobe_events.h); a target's exec keeps them (the event follows the
 * task into its new image).
 *
 * All of it is the check mode's struct heap_probes (check_mode.c): the
 * libc files found, the events held, the processes looked at.
 */
#define _GNU_SOURCE
#include "heap_probes.h"
#include "../lib/regular_file.h"
#include "mapped_files.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "session.h"
#include "uprobe_events.h"
#include "uringcheck.skel.h"
#include "xalloc.h"

/* The program's attach cookies (bpf/heap_release.bpf.h). */
#define COOKIE_FREE		1
#define COOKIE_REALLOC		2
#define COOKIE_REALLOC_RET	3

#define HEAP_PROC_ATTACHED	1
#define HEAP_PROC_LOOKED	2	/* its maps were looked at */
#define HEAP_PROC_STATIC	4	/* the target's executable has no
					 * interpreter: no libc.so.6 to probe */

/*
 * Where to probe free. Its first instruction is single-stepped out of
 * line by the kernel (a second trap), unless it is one the kernel
 * emulates (push, jumps): glibc 2.36's free begins with
 * "test %rdi,%rdi; je <return>", and a probe there cost 12 us a call on
 * the CI machine against 1.3 us on the push that follows. The je leaves
 * only for free(NULL), which releases nothing; %rdi and %rsp are still
 * the entry's after it (the stack unwinds the same). Any other
 * prologue: the entry itself.
 */
static uint64_t free_skip(const char *path, uint64_t off)
{
	unsigned char b[9];
	int fd = open_regular(path);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = pread(fd, b, sizeof(b), off);
	close(fd);
	if (n != sizeof(b) || b[0] != 0x48 || b[1] != 0x85 || b[2] != 0xff)
		return 0;			/* not test %rdi,%rdi */
	if (b[3] == 0x74)
		return 5;			/* je rel8 */
	if (b[3] == 0x0f && b[4] == 0x84)
		return 9;			/* je rel32 */
	return 0;
}

/* The libc file at @path, its functions found (once per file). */
static struct heap_libc *libc_file(struct heap_probes *hp, const char *path)
{
	struct heap_libc *l;
	struct stat st;
	Elf *elf;
	int fd;

	if (stat(path, &st))
		return NULL;
	for (int i = 0; i < hp->nlibs; i++)
		if (hp->libs[i].dev == st.st_dev && hp->libs[i].ino == st.st_ino)
			return &hp->libs[i];
	if (hp->nlibs == HEAP_PROBES_LIBS || elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	fd = open_regular(path);
	if (fd < 0)
		return NULL;
	l = &hp->libs[hp->nlibs];
	memset(l, 0, sizeof(*l));
	snprintf(l->path, sizeof(l->path), "%s", path);
	l->dev = st.st_dev;
	l->ino = st.st_ino;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf) {
		l->off_free = uprobe_func_offset(elf, "free");
		l->off_realloc = uprobe_func_offset(elf, "realloc");
		elf_end(elf);
	}
	close(fd);
	if (!l->off_free)
		return NULL;	/* not glibc's (or stripped of .dynsym) */
	l->off_free += free_skip(path, l->off_free);
	hp->nlibs++;
	return l;
}

void heap_probes_setup(struct heap_probes *hp)
{
	memset(hp, 0, sizeof(*hp));
	hp->prog_fd = -1;
	u64map_init(&hp->procs);
	heap_alloc_probes_setup(&hp->alloc);
}

int heap_probes_init(struct heap_probes *hp, struct uc_session *s)
{
	bool multi;

	hp->judged = true;
	hp->prog_fd = session_uprobe_prog(s, "uc_heap_release", &multi);
	if (uprobe_way_init(&hp->way, multi) || hp->prog_fd < 0) {
		hp->prog_fd = -1;
		hp->off_why = "unavailable (no uprobes on this kernel)";
		return -1;
	}
	return 0;
}

/* Probes free/realloc of @libc_path for process @pid (before its exec is
 * fine: the events follow it). A failure is said in @why. */
static int heap_probes_attach(struct heap_probes *hp, pid_t pid, const char *libc_path,
			      char *why, size_t len)
{
	struct uprobe_site sites[3];
	struct heap_libc *l;
	int err;

	snprintf(why, len, "no uprobes");
	if (hp->prog_fd < 0)
		return -1;
	l = libc_file(hp, libc_path);
	if (!l) {
		snprintf(why, len, "no free() found in %s", libc_path);
		return -1;
	}
	sites[0] = (struct uprobe_site){ l->off_free, COOKIE_FREE, false };
	sites[1] = (struct uprobe_site){ l->off_realloc, COOKIE_REALLOC, false };
	sites[2] = (struct uprobe_site){ l->off_realloc, COOKIE_REALLOC_RET, true };
	err = uprobe_attach(&hp->way, hp->prog_fd, l->path, sites, l->off_realloc ? 3 : 1,
			    pid, hp->fds, &hp->nfds, sizeof(hp->fds) / sizeof(hp->fds[0]));
	if (!err)	/* the new owner's allocation, if asked for */
		err = heap_alloc_probes_attach(&hp->alloc, &hp->way, l->path, pid);
	if (err == -ENOSPC) {
		snprintf(why, len, "probe table full after %u processes", hp->processes);
		return -1;
	}
	if (err) {
		snprintf(why, len, "%s", strerror(-err));
		return -1;
	}
	hp->processes++;
	return 0;
}

/* Is that libc file probed already (for some process)? */
static bool heap_probes_attached(const struct heap_probes *hp, const char *libc_path)
{
	struct stat st;

	if (stat(libc_path, &st))
		return false;
	for (int i = 0; i < hp->nlibs; i++)
		if (hp->libs[i].dev == st.st_dev && hp->libs[i].ino == st.st_ino)
			return true;
	return false;
}

struct libc_find {
	pid_t pid;
	char *path, *named, *other;
	size_t len, nlen, olen;
	int found;
};

static bool libc_take(const char *path, const char *base, void *arg)
{
	struct libc_find *f = arg;

	if (!f->found && !strcmp(base, "libc.so.6")) {
		/* through the process's root: -2 if that no longer fits */
		f->found = mapped_file_path(f->pid, path, f->path, f->len) ? 1 : -2;
		if (f->nlen)
			snprintf(f->named, f->nlen, "%s", path);
	}
	/* Allocators that take malloc and free from glibc. */
	if (f->olen && !f->other[0] &&
	    (strstr(base, "jemalloc") || strstr(base, "tcmalloc") ||
	     strstr(base, "mimalloc") || strstr(base, "hoard") ||
	     strstr(base, "snmalloc")))
		snprintf(f->other, f->olen, "%s", base);
	return false;
}

/* The libc.so.6 process @pid (0: this one) maps, into @path (through the
 * process's root: a container's own libc, mapped_files.h) and, if @named,
 * into @named as the process names it; in @other, the name of an
 * allocator library that replaces glibc's malloc, if one is mapped.
 * 1: found, 0: none, -1: its maps are gone (it exited), -2: found, but
 * its path through the process's root is longer than @len. */
static int heap_find_libc(pid_t pid, char *path, size_t len, char *named, size_t nlen,
			  char *other, size_t olen)
{
	struct libc_find f = { .pid = pid, .path = path, .len = len,
			       .named = named, .nlen = named ? nlen : 0,
			       .other = other, .olen = other ? olen : 0 };

	if (f.olen)
		other[0] = 0;
	if (f.nlen)
		named[0] = 0;
	if (mapped_files_each(pid, libc_take, &f) < 0)
		return -1;
	return f.found;
}

static uintptr_t proc_bits(struct heap_probes *hp, uint32_t tgid)
{
	return (uintptr_t)u64map_get(&hp->procs, tgid);
}

static void proc_set(struct heap_probes *hp, uint32_t tgid, uintptr_t bits)
{
	u64map_put(&hp->procs, tgid, (void *)(proc_bits(hp, tgid) | bits));
}

/* The libc.so.6 the dynamic linker gives a program on this machine, for
 * a checker that maps none itself (the static build, make STATIC=1):
 * the first of the places distributions put it (Debian's multiarch
 * directory first; x86-64 only, as the syscall numbers are). */
static int system_libc(char *path, size_t len)
{
	static const char *const where[] = {
		"/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6",
		"/lib64/libc.so.6", "/usr/lib64/libc.so.6",
	};

	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++)
		if (!access(where[i], R_OK)) {
			snprintf(path, len, "%s", where[i]);
			return 1;
		}
	return 0;
}

/* Has the executable @exe no program interpreter (statically linked)? */
static bool exe_static(const char *exe)
{
	bool is_static = false;
	size_t nph;
	Elf *elf;
	int fd;

	if (!exe || elf_version(EV_CURRENT) == EV_NONE)
		return false;
	fd = open_regular(exe);
	if (fd < 0)
		return false;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && !elf_getphdrnum(elf, &nph)) {
		is_static = true;
		for (size_t i = 0; i < nph && is_static; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_INTERP)
				is_static = false;
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return is_static;
}

void heap_probes_follow(struct heap_probes *hp, pid_t pid, const char *exe)
{
	char libc[PATH_MAX], why[256];

	if (hp->prog_fd < 0)
		return;
	/* A static target maps no libc.so.6: nothing to probe, and said so
	 * even if it exits before its first ring is read. */
	if (exe_static(exe)) {
		proc_set(hp, pid, HEAP_PROC_STATIC);
		return;
	}
	/* The target has not run yet: the libc it will map is this
	 * program's, or the system's when this one is static (checked
	 * again at its first ring). Probed now, before it runs: at its
	 * first ring it may already be gone. A failure is counted there. */
	if ((heap_find_libc(0, libc, sizeof(libc), NULL, 0, NULL, 0) == 1 ||
	     system_libc(libc, sizeof(libc))) &&
	    !heap_probes_attach(hp, pid, libc, why, sizeof(why)))
		proc_set(hp, pid, HEAP_PROC_ATTACHED);
}

void heap_probes_off(struct heap_probes *hp, const char *why)
{
	hp->judged = true;
	hp->off_why = why;
}

/* Process @tgid used io_uring and its heap releases are not judged. */
static void unjudged(struct heap_probes *hp, enum heap_unjudged why, uint32_t tgid,
		     const char *what)
{
	if (!hp->unjudged[why]++) {
		hp->unjudged_pid[why] = tgid;
		/* a path past 255 bytes is cut: the note names, it does not
		 * open */
		snprintf(hp->unjudged_what[why], sizeof(hp->unjudged_what[why]), "%.255s",
			 what ? what : "");
	}
}

/* Is the file of inode @ino one of the libc files probed? The inode
 * alone, as proc_maps.c compares: overlayfs shows a mapping's device
 * other than stat() does. */
static bool heap_probes_attached_inode(const struct heap_probes *hp, uint64_t ino)
{
	for (int i = 0; i < hp->nlibs; i++)
		if ((uint64_t)hp->libs[i].ino == ino)
			return true;
	return false;
}

void heap_probes_process(struct heap_probes *hp, uint32_t tgid, heap_libc_sent_fn sent,
			 void *ctx)
{
	char libc[PATH_MAX], named[PATH_MAX], other[NAME_MAX + 1], why[256];
	uintptr_t bits;
	int found;

	if (!hp->judged || ((bits = proc_bits(hp, tgid)) & HEAP_PROC_LOOKED))
		return;
	proc_set(hp, tgid, HEAP_PROC_LOOKED);
	if (hp->off_why || hp->prog_fd < 0) {
		unjudged(hp, HEAP_UNJUDGED_OFF, tgid, NULL);
		return;
	}
	found = heap_find_libc(tgid, libc, sizeof(libc), named, sizeof(named), other,
			       sizeof(other));
	if (found == -2) {
		/* a glibc, at a path that cannot be opened from here: an
		 * attach that could not be made, not a missing glibc */
		snprintf(why, sizeof(why), "the path of its libc.so.6 through "
			 "/proc/%u/root is longer than PATH_MAX", tgid);
		unjudged(hp, HEAP_UNJUDGED_ATTACH, tgid, why);
		return;
	}
	if (found < 0) {
		/* Gone already. The target was probed before it ran (but for
		 * a static one); a process it forked is probed only here. */
		if (bits & HEAP_PROC_STATIC)
			unjudged(hp, HEAP_UNJUDGED_NO_GLIBC, tgid, NULL);
		else if (!(bits & HEAP_PROC_ATTACHED))
			unjudged(hp, HEAP_UNJUDGED_GONE, tgid, NULL);
		else if (sent) {
			/* the kernel saw it map a libc.so.6 other than the
			 * one probed before it ran (a container's own) */
			struct heap_libc_sent *own = xmalloc(sizeof(*own));

			if (sent(ctx, tgid, own) && !heap_probes_attached_inode(hp, own->inode))
				unjudged(hp, HEAP_UNJUDGED_OWN_GONE, tgid, own->path);
			free(own);
		}
		return;
	}
	if (!found) {
		unjudged(hp, HEAP_UNJUDGED_NO_GLIBC, tgid, NULL);
		return;
	}
	/* glibc's free is still probed: its own chunks are judged. */
	if (other[0])
		unjudged(hp, HEAP_UNJUDGED_ALLOCATOR, tgid, other);
	/* Its own libc file, or a process the target forked. */
	if (!(bits & HEAP_PROC_ATTACHED) || !heap_probes_attached(hp, libc)) {
		if (heap_probes_attach(hp, tgid, libc, why, sizeof(why)))
			unjudged(hp, HEAP_UNJUDGED_ATTACH, tgid, why);
		else if (bits & HEAP_PROC_ATTACHED) {
			/* The target, probed before it ran in the libc this
			 * program maps, mapped another (a container's own):
			 * its releases since its first ring, until now, were
			 * not seen. Named as the process names it. */
			char shown[200];

			snprintf(shown, sizeof(shown), "%.199s", named);
			unjudged(hp, HEAP_UNJUDGED_LATE, tgid, shown);
		} else
			proc_set(hp, tgid, HEAP_PROC_ATTACHED);
	}
}

void heap_probes_process_shared(struct heap_probes *hp, uint32_t tgid)
{
	uint64_t before = heap_probes_unjudged(hp);

	if (!hp->judged || (proc_bits(hp, tgid) & HEAP_PROC_LOOKED))
		return;
	heap_probes_process(hp, tgid, NULL, NULL);
	/* once a process, whatever the reason */
	if (heap_probes_unjudged(hp) == before)
		unjudged(hp, HEAP_UNJUDGED_SHARED, tgid, NULL);
}

uint64_t heap_probes_unjudged(const struct heap_probes *hp)
{
	uint64_t n = 0;

	for (int i = 0; i < HEAP_UNJUDGED__COUNT; i++)
		n += hp->unjudged[i];
	return n;
}

void heap_probes_say(const struct heap_probes *hp, FILE *out, uint32_t pid)
{
	uint64_t n = heap_probes_unjudged(hp);
	const char *sep = "";

	if (!n)
		return;
	fprintf(out, "==%u==uringcheck: note: heap releases (free-inflight) not judged in "
		"%llu process%s that used io_uring:", pid, (unsigned long long)n,
		n == 1 ? "" : "es");
	for (int i = 0; i < HEAP_UNJUDGED__COUNT; i++) {
		unsigned long long k = hp->unjudged[i];
		uint32_t p = hp->unjudged_pid[i];
		const char *w = hp->unjudged_what[i];

		if (!k)
			continue;
		fprintf(out, "%s ", sep);
		sep = ";";
		switch ((enum heap_unjudged)i) {
		case HEAP_UNJUDGED_OFF:
			fprintf(out, "%llu with the probes %s", k,
				hp->off_why ? hp->off_why : "unavailable");
			break;
		case HEAP_UNJUDGED_NO_GLIBC:
			fprintf(out, "%llu mapping no glibc libc.so.6 (a static binary or "
				"another libc; pid %u)", k, p);
			break;
		case HEAP_UNJUDGED_ALLOCATOR:
			fprintf(out, "%llu mapping another allocator (%s in pid %u: the "
				"memory it hands out is not judged)", k, w, p);
			break;
		case HEAP_UNJUDGED_ATTACH:
			fprintf(out, "%llu whose probes could not be attached (pid %u: %s)",
				k, p, w);
			break;
		case HEAP_UNJUDGED_GONE:
			fprintf(out, "%llu gone before they could be probed (exited before "
				"the checker looked at them, as a forked process that makes a "
				"ring and exits at once may; pid %u)", k, p);
			break;
		case HEAP_UNJUDGED_SHARED:
			fprintf(out, "%llu submitting on a ring another process made "
				"(inherited or received: a release near those requests is not "
				"looked for; pid %u)", k, p);
			break;
		case HEAP_UNJUDGED_LATE:
			fprintf(out, "%llu not judged until its first ring was read "
				"(pid %u maps a libc.so.6 of its own, %s, probed then: a "
				"release in the milliseconds before was not seen)", k, p, w);
			break;
		case HEAP_UNJUDGED_OWN_GONE:
			fprintf(out, "%llu gone before their own libc.so.6 could be probed "
				"(pid %u mapped %s, not the libc probed before it ran, and "
				"exited before its first ring was read: its releases were "
				"not seen)", k, p, w);
			break;
		case HEAP_UNJUDGED__COUNT:
			break;
		}
	}
	fprintf(out, "\n");
}

void heap_probes_stop(struct heap_probes *hp)
{
	heap_alloc_probes_stop(&hp->alloc);
	uprobe_events_close(hp->fds, hp->nfds);
	hp->nfds = 0;
	hp->prog_fd = -1;
}

void heap_probes_free(struct heap_probes *hp)
{
	heap_probes_stop(hp);
	u64map_free(&hp->procs);
}
