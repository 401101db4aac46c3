/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User stack captures for reports: the thread's user registers (saved at
 * syscall entry, bpf_task_pt_regs) and a copy of its stack from sp up,
 * clamped to the stack's VMA (a fault would zero the whole copy). User
 * space unwinds them offline with DWARF CFI (symbolize/), so programs
 * built without frame pointers get full stacks.
 *
 * The process's file mappings are sent when it creates a ring (its
 * libraries are loaded by then; the VMA walk is costly to verify, so it
 * lives in that one rarely-run program), so stacks symbolize even if the
 * process exits right after its hazard.
 *
 * Captures go to the session's stack store (struct uc_stack in
 * uringcheck.h says why), not the event buffer; records carry their ids,
 * which count that session's captures.
 *
 * Cost control: every request one io_uring_enter submits shares one call
 * site, so the first request that holds memory takes the capture and the
 * others of that call reuse its id (enter_state, reset at sys_enter of
 * io_uring_enter). Requests without memory take none.
 */
#ifndef __STACKS_BPF_H
#define __STACKS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "uringcheck.h"
#include "fixed_layout.bpf.h"
#include "session.bpf.h"
#include "events.bpf.h"
#include "enter_state.bpf.h"

/*
 * Per session: its own stack store, created and mapped by its instance
 * (checker/session.c) and put at its slot, so that a busy instance
 * cannot overwrite a quiet one's captures. BPF_F_INNER_MAP: the template
 * is one slot, an instance's store UC_STACK_SLOTS of them (every store
 * must carry the same flags).
 */
struct stack_store_template {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE | BPF_F_INNER_MAP);	/* read by user space */
	__uint(max_entries, 1);
	/* sizes, not types: clang leaves an inner map's value type a
	 * forward declaration, which libbpf cannot size */
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct uc_stack));
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, UC_MAX_SESSIONS);
	__type(key, __u32);
	__array(values, struct stack_store_template);
} stack_stores SEC(".maps");

/* Per session: captures taken into its store so far, the next one's id.
 * Never reset: a slot's next owner may take over the store as it is, and
 * an id of the previous owner's is never the id of one of its own. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);	/* read by user space */
	__uint(max_entries, UC_MAX_SESSIONS);
	__type(key, __u32);
	__type(value, __u64);
} stack_cursors SEC(".maps");

/* Processes whose mappings were sent since their last exec. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);		/* tgid */
	__type(value, __u8);
} maps_sent SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct uc_vma_record);
} mapping_scratch SEC(".maps");

extern int bpf_iter_task_vma_new(struct bpf_iter_task_vma *it,
				 struct task_struct *task, __u64 addr) __ksym __weak;
extern struct vm_area_struct *bpf_iter_task_vma_next(struct bpf_iter_task_vma *it) __ksym __weak;
extern void bpf_iter_task_vma_destroy(struct bpf_iter_task_vma *it) __ksym __weak;

#define UC_VM_WRITE	0x2	/* include/linux/mm.h, stable */
#define UC_VM_EXEC	0x4

/* The part of the kernel's struct mount (fs/mount.h, not a uapi) the
 * walk reads; CO-RE finds the fields by name. */
struct mount___uc {
	struct mount___uc *mnt_parent;
	struct dentry *mnt_mountpoint;
	struct vfsmount mnt;
} __attribute__((preserve_access_index));

struct name_walk {
	struct dentry *d;
	struct mount___uc *mnt;		/* the mount d is in */
	struct dentry *root;		/* ... and its root */
	struct uc_vma_record *m;
};

/*
 * One step up: a path component, leaf first; at the root of a mount, to
 * where it is mounted in its parent (so a file on a tmpfs or a volume
 * gets its whole path, not the one below its mount); stops at the
 * namespace's root mount (its own parent). A bind mount's root is a
 * directory inside its file system: names above it are not the path.
 */
static long name_step(__u64 i, struct name_walk *w)
{
	struct dentry *d = w->d, *parent;
	__u32 k = w->m->nnames;

	if (k >= UC_PATH_NAMES)
		return 1;
	if (d == w->root) {
		/* locals: a CO-RE read through w-> would relocate w too */
		struct mount___uc *mnt = w->mnt, *up = BPF_CORE_READ(mnt, mnt_parent);

		if (!up || up == mnt)
			return 1;
		w->d = BPF_CORE_READ(mnt, mnt_mountpoint);
		w->mnt = up;
		w->root = BPF_CORE_READ(up, mnt.mnt_root);
		return 0;
	}
	parent = BPF_CORE_READ(d, d_parent);
	if (!parent || parent == d)
		return 1;
	bpf_probe_read_kernel_str(w->m->names[k], UC_NAME_LEN,
				  BPF_CORE_READ(d, d_name.name));
	w->m->nnames = k + 1;
	w->d = parent;
	return 0;
}

/* A mapping record's file part: dev, inode and path, leaf first, across
 * mount points. */
static __always_inline void fill_vma_file(struct uc_vma_record *m, struct file *file)
{
	struct mount___uc *mnt;
	struct name_walk w;

	m->inode = BPF_CORE_READ(file, f_inode, i_ino);
	m->dev = BPF_CORE_READ(file, f_inode, i_sb, s_dev);
	m->nnames = 0;
	w.d = BPF_CORE_READ(file, f_path.dentry);
	/* container_of, with the kernel's offset of mnt */
	mnt = (void *)((char *)BPF_CORE_READ(file, f_path.mnt) -
		       bpf_core_field_offset(struct mount___uc, mnt));
	w.mnt = mnt;
	w.root = BPF_CORE_READ(mnt, mnt.mnt_root);
	w.m = m;
	/* a step per name, and one per mount point crossed */
	bpf_loop(2 * UC_PATH_NAMES, name_step, &w, 0);
}

/* Every file mapping of the current process, as UC_EV_MAPPING records. */
static __always_inline void send_mappings(struct task_struct *task, __u32 tgid,
					  __u32 sid)
{
	struct bpf_iter_task_vma it;
	struct vm_area_struct *vma;
	__u32 zero = 0;
	__u8 one = 1;

	if (bpf_map_lookup_elem(&maps_sent, &tgid))
		return;
	bpf_map_update_elem(&maps_sent, &tgid, &one, BPF_ANY);
	bpf_iter_task_vma_new(&it, task, 0);
	while ((vma = bpf_iter_task_vma_next(&it))) {
		/* Read as a number: a pointer loaded from the trusted vma
		 * makes the verifier search the kernel's whole BTF by name
		 * (is it trusted too?), four times a visit of the loop. */
		struct file *file = BPF_CORE_READ(vma, vm_file);
		struct uc_vma_record *m;
		__u64 flags;

		if (!file)
			continue;
		m = bpf_map_lookup_elem(&mapping_scratch, &zero);
		if (!m)
			break;
		fill_hdr(&m->hdr, UC_EV_MAPPING, tgid);
		m->start = vma->vm_start;
		m->end = vma->vm_end;
		m->offset = vma->vm_pgoff << 12;
		flags = vma->vm_flags;
		m->flags = ((flags & UC_VM_EXEC) ? 1 : 0) | ((flags & UC_VM_WRITE) ? 2 : 0);
		fill_vma_file(m, file);
		ev_output(sid, m, sizeof(*m));
	}
	bpf_iter_task_vma_destroy(&it);
}

/*
 * Before v6.7 (no task-VMA iterator) the mappings are read from
 * /proc/PID/maps when a stack is first processed, and a program that
 * exits right after its hazard is gone by then (issue #30). So at each
 * submission's capture (submit_stack) the file mappings a report needs
 * most are sent from here, once
 * per process and mapping: the one holding the capture's pc (the
 * library that made the system call) and the executable's text (where
 * the program's own frames are). User space uses them when /proc is
 * gone (stacks.c). bpf_find_vma is 5.17+; set by user space.
 */
const volatile bool capture_vmas = false;

/* The file too: after an exec, a mapping at the same address is sent
 * again unless it is the same file (then it is the same mapping). */
struct vma_key {
	__u32 tgid;
	__u32 pad;
	__u64 start;
	__u64 file;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct vma_key);
	__type(value, __u8);
} vmas_sent SEC(".maps");

/* This frame lies on the deepest call chains (sys_enter's stack_observe
 * -> capture_stack -> here): 6.1's verifier allows 512 bytes for a whole
 * chain, so the key lives in a per-CPU scratch slot, not on the stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vma_key);
} vma_key_scratch SEC(".maps");

static const __u8 vma_sent_mark = 1;

struct vma_found {
	__u64 start, end, pgoff, flags, file;
};

static long vma_found_cb(struct task_struct *task, struct vm_area_struct *vma,
			 struct vma_found *f)
{
	f->start = BPF_CORE_READ(vma, vm_start);
	f->end = BPF_CORE_READ(vma, vm_end);
	f->pgoff = BPF_CORE_READ(vma, vm_pgoff);
	f->flags = BPF_CORE_READ(vma, vm_flags);
	f->file = (__u64)BPF_CORE_READ(vma, vm_file);
	return 0;
}

/* Sends the file mapping holding @addr, unless sent for @tgid before. */
static __always_inline void send_vma_of(struct task_struct *task, __u32 tgid, __u32 sid,
					__u64 addr)
{
	struct vma_found f = {};
	struct uc_vma_record *m;
	struct vma_key *k;
	struct file *file;
	__u32 zero = 0;

	if (!addr || bpf_find_vma(task, addr, vma_found_cb, &f, 0) || !f.file)
		return;
	k = bpf_map_lookup_elem(&vma_key_scratch, &zero);
	m = bpf_map_lookup_elem(&mapping_scratch, &zero);
	if (!k || !m)
		return;
	file = (struct file *)f.file;
	k->tgid = tgid;
	k->pad = 0;
	k->start = f.start;
	k->file = (__u64)BPF_CORE_READ(file, f_inode, i_ino);
	if (bpf_map_lookup_elem(&vmas_sent, k))
		return;
	bpf_map_update_elem(&vmas_sent, k, &vma_sent_mark, BPF_ANY);
	fill_hdr(&m->hdr, UC_EV_MAPPING, tgid);
	m->start = f.start;
	m->end = f.end;
	m->offset = f.pgoff << 12;
	m->flags = ((f.flags & UC_VM_EXEC) ? 1 : 0) | ((f.flags & UC_VM_WRITE) ? 2 : 0) |
		   UC_VMA_AT_CAPTURE;
	fill_vma_file(m, file);
	ev_output(sid, m, sizeof(*m));
}

/* Global: verified once, for every program that captures. */
__noinline int send_capture_vmas(__u32 tgid, __u32 sid, __u64 ip)
{
	struct task_struct *task = bpf_get_current_task_btf();

	send_vma_of(task, tgid, sid, ip);
	send_vma_of(task, tgid, sid, BPF_CORE_READ(task, mm, start_code));
	return 0;
}

static long vma_end_cb(struct task_struct *task, struct vm_area_struct *vma,
		       __u64 *end)
{
	*end = BPF_CORE_READ(vma, vm_end);
	return 0;
}

/*
 * Per call site, how many bytes of its copy the unwind needs, and what
 * decides its frames (struct uc_stack_site in uringcheck.h; user space
 * learns and installs them, checker/stack_bounds.c). At fio's iodepth 1
 * the 8 KiB copy into a cold slot of the store was most of a capture's
 * cost; the unwind there reads a fraction of it, and a few words of that
 * decide the frames. LRU: an evicted site is copied whole and learned
 * again. Shared by every session (the key has the session).
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct uc_stack_bound_key);
	__type(value, struct uc_stack_site);
} stack_bounds SEC(".maps");

/* Where a site's deciders are compared: this CPU's copy of the stack's
 * first bytes, rewritten at every capture, so it stays in the cache. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u8[UC_STACK_BYTES]);
} site_scratch SEC(".maps");

/*
 * The id of @site's kept capture if the current capture has its frames,
 * else 0. Its deciders (the words and callee-saved registers that decide
 * the unwind, learned by perturbing the site's learning capture:
 * symbolize/unwind_deciders.h) are compared; the process image, ip and
 * sp are the same already (the key, and exec_id). Any doubt (a fault, a
 * word out of the copy) is a no.
 */
static __always_inline __u64 site_match(const struct uc_stack_site *site,
					struct task_struct *task, struct pt_regs *regs,
					__u64 ip, __u64 sp)
{
	__u32 zero = 0, span = site->span, n = site->nwords, i;
	__u64 id = site->id;
	__u8 m = site->regmask;
	__u8 *buf;

	if ((!n && !m) || site->exec_id != task->self_exec_id)
		return 0;
	if (((m & 0x04) && UC_REG(regs, bp) != site->regs[2]) ||
	    ((m & 0x08) && UC_REG(regs, bx) != site->regs[3]) ||
	    ((m & 0x10) && UC_REG(regs, r12) != site->regs[4]) ||
	    ((m & 0x20) && UC_REG(regs, r13) != site->regs[5]) ||
	    ((m & 0x40) && UC_REG(regs, r14) != site->regs[6]) ||
	    ((m & 0x80) && UC_REG(regs, r15) != site->regs[7]))
		return 0;
	if (n) {
		buf = bpf_map_lookup_elem(&site_scratch, &zero);
		if (!buf || !span || span > UC_STACK_BYTES)
			return 0;
		/* The size bounded by a mask next to the call: 6.1's verifier
		 * lost the comparison's bound when clang spilled span and
		 * filled it into another register ("R2 unbounded memory
		 * access"). */
		if (bpf_probe_read_user(buf, ((span - 1) & (UC_STACK_BYTES - 1)) + 1,
					(void *)sp))
			return 0;
		for (i = 0; i < UC_SITE_WORDS; i++) {
			__u32 off;

			if (i >= n)
				break;
			off = site->off[i];
			if (off + 8 > span ||
			    *(__u64 *)(buf + (off & (UC_STACK_BYTES - 8))) != site->val[i])
				return 0;
		}
	}
	/* An LRU hash's element is reused as soon as its key is deleted,
	 * without waiting for readers: what was compared must still be
	 * this site's entry (its ip and sp are regs[0] and regs[1]). */
	asm volatile("" ::: "memory");
	if (site->regs[0] != ip || site->regs[1] != sp || site->id != id)
		return 0;
	return id;
}

/* capture_stack lies on sys_enter's deepest call chain (6.1: 512 bytes
 * for a chain): the key lives in a per-CPU slot, not on the stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct uc_stack_bound_key);
} bound_key_scratch SEC(".maps");

/* The fallback copy of a capture, a 1 KiB piece a step. The context does
 * not change from step to step (but to note how far it got), so the
 * verifier checks the step once: as a bounded loop it walked all eight
 * pieces, in every state, in each of the four programs that capture. */
struct stack_copy {
	struct uc_stack *st;
	__u64 sp;
	__u32 len;
	__u32 off;			/* bytes copied */
};

static long stack_piece(__u64 i, struct stack_copy *c)
{
	__u32 at, piece = 1024;

	if (i >= UC_STACK_BYTES / 1024)
		return 1;
	at = (__u32)i * 1024;
	if (at >= c->len)
		return 1;
	if (c->len - at < piece)
		piece = c->len - at;
	if (bpf_probe_read_user(c->st->data + at, piece & 2047, (void *)(c->sp + at)))
		return 1;
	c->off = at + piece;
	return 0;
}

/* Captures the current thread's user stack; returns its id, 0 if off,
 * or the id of its call site's kept capture when the site's deciders
 * are equal (site_match: then nothing is copied).
 * Global: verified once per program, not once per caller state (it is
 * reached from several places in the syscall and submit programs). */
__noinline __u64 capture_stack(__u32 sid, __u32 tgid)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	struct uc_session_cfg *cfg = session_cfg(sid);
	struct uc_stack_bound_key *k;
	struct uc_stack_site *site = NULL;
	__u64 sp, end = 0, id, *cursor;
	struct uc_stack *st;
	__u32 len, off = 0, slot, slot0 = 0;
	void *store;

	if (!cfg || !cfg->stack_bytes)
		return 0;
	len = cfg->stack_bytes;
	sp = UC_REG(regs, sp);
	/* What user space learned of this call site, if anything: a
	 * capture with the same frames to hand out, or a bound. */
	k = bpf_map_lookup_elem(&bound_key_scratch, &slot0);
	if (k) {
		k->session = sid;
		k->tgid = tgid;
		k->ip = UC_REG(regs, ip);
		k->sp = sp;
		site = bpf_map_lookup_elem(&stack_bounds, k);
	}
	if (site && (id = site_match(site, task, regs, UC_REG(regs, ip), sp)))
		return id;
	/* The session's own store and cursor; none: no stack (its instance
	 * is setting up or has left). */
	store = bpf_map_lookup_elem(&stack_stores, &sid);
	cursor = bpf_map_lookup_elem(&stack_cursors, &sid);
	if (!store || !cursor)
		return 0;
	id = __sync_fetch_and_add(cursor, 1) + 1;
	slot = (id - 1) % UC_STACK_SLOTS;
	st = bpf_map_lookup_elem(store, &slot);
	if (!st)
		return 0;
	/* Invalidate the slot first: a reader copying the capture it held
	 * sees the id change (x86 stores become visible in program order;
	 * the compiler is kept from reordering them). */
	*(volatile __u64 *)&st->id = 0;
	asm volatile("" ::: "memory");
	/* No clock: nothing reads a capture's time (the clock read was about
	 * an eighth of a capture's CPU time in perf, fio at iodepth 1). */
	fill_hdr_at(&st->hdr, 0, tgid, 0);
	st->regs[0] = UC_REG(regs, ip);
	st->regs[1] = sp;
	st->regs[2] = UC_REG(regs, bp);
	st->regs[3] = UC_REG(regs, bx);
	st->regs[4] = UC_REG(regs, r12);
	st->regs[5] = UC_REG(regs, r13);
	st->regs[6] = UC_REG(regs, r14);
	st->regs[7] = UC_REG(regs, r15);
	st->exec_id = task->self_exec_id;
	/* The part this call site's unwind needs, if learned: user space
	 * installs a bound only below that capture's length, which stopped
	 * at the stack's end, so the VMA lookup is not needed then (a read
	 * that faults anyway falls back to the pieces below). */
	st->flags = 0;
	if (site && site->bound && site->bound < len) {
		len = site->bound;
		st->flags = UC_STACK_CUT;
		goto copy;
	}
	/* Stop at the stack's end when the VMA can be looked up (it needs
	 * the mmap lock, taken only if free); either way copy in pieces,
	 * since one faulting page fails a whole read. */
	bpf_find_vma(task, sp, vma_end_cb, &end, 0);
	if (end > sp && end - sp < len)
		len = end - sp;
copy:
	if (len > UC_STACK_BYTES)
		len = UC_STACK_BYTES;
	/* One read: every page from sp to the stack's top has been used by
	 * the frames above, so it normally succeeds. Each read costs a
	 * hardened-usercopy check of the destination (a vmalloc area lookup
	 * for the ring buffer), which made eight reads a capture a third of
	 * its cost. */
	if (len <= UC_STACK_BYTES && !bpf_probe_read_user(st->data, len, (void *)sp)) {
		off = len;
		goto done;
	}
	/* It faulted (the stack's end unknown, or a page swapped out): 1 KiB
	 * pieces at constant offsets lose at most the piece that crosses
	 * into an unmapped page (the outermost frames). */
	{
		struct stack_copy c = { .st = st, .sp = sp, .len = len };

		bpf_loop(UC_STACK_BYTES / 1024, stack_piece, &c, 0);
		off = c.off;
	}
done:
	st->len = off;	/* 0: the registers alone still give frame #0 */
	asm volatile("" ::: "memory");
	*(volatile __u64 *)&st->id = id;
	return id;
}

/* The capture for a submission from the current thread's io_uring_enter:
 * @taken, the one that call took already, or a new one, kept in the
 * call's state if the thread has one (@have_es; SQPOLL and io-wq threads
 * have none). */
static __always_inline __u64 submit_stack(__u32 tgid, __u32 sid, __u64 taken,
					  bool have_es)
{
	struct enter_state *es;
	__u64 id;

	if (taken)
		return taken;
	id = capture_stack(sid, tgid);
	/* Before v6.7: the mappings this stack needs, for when /proc is gone
	 * (send_capture_vmas). Here, at a submission's capture only: inside
	 * capture_stack its frame lay under sys_enter's deepest call chain,
	 * past 6.1's 512-byte limit for a chain. The other captures of the
	 * process (sync calls, teardowns) use what its submissions sent. */
	if (capture_vmas && id)
		send_capture_vmas(tgid, sid, UC_REG((struct pt_regs *)bpf_task_pt_regs(
						    bpf_get_current_task_btf()), ip));
	/* The other requests of this call share it: through this CPU's copy
	 * of the call's state while it is current (the common case, and
	 * then the task-storage lookup is spared: one per io_uring_enter,
	 * ~35 ns of a qd1 read), else through the thread's enter_state. A
	 * thread switched out after this gets a capture of its own for the
	 * call's later requests: the same call's stack, taken again. */
	if (have_es) {
		struct enter_cache *c = enter_cache_current();

		if (c)
			c->stack_id = id;
		else if ((es = bpf_task_storage_get(&enter_states,
						    bpf_get_current_task_btf(), 0, 0)))
			es->stack_id = id;
	}
	return id;
}

#endif /* __STACKS_BPF_H */
