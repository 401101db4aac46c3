// SPDX-License-Identifier: GPL-2.0
/*
 * The check mode's BPF side: a cold load (the kernel probed and the
 * variants chosen through load/load.h, the programs loaded in two halves
 * by cold_load.c) or a join of another instance's set (shared.h); this
 * run's session slot, event buffer and mapped tables; the keeper that
 * leaves the set warm for the next run.
 */
#define _GNU_SOURCE
#include "session.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <malloc.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <sys/mman.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "kernel_btf.h"
#include "libbpf_log.h"
#include "load.h"
#include "pidns.h"
#include "slots.h"
#include "uringcheck.skel.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int on_ringbuf(void *ctx, void *data, size_t size)
{
	struct uc_session *s = ctx;

	if (!s->discarding)
		s->on_event(s->arg, data, size);
	return 0;
}

/*
 * The reap-lag sampler: a software cpu-clock event on one CPU runs the
 * sampler program every period, whatever the target does. A quarter of
 * the threshold, between 1 and 25 ms.
 */
static int attach_sampler(struct uc_session *s, long lag_ms)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
	};
	long period_ms = lag_ms / 4;
	int fd, prog_fd;

	if (period_ms < 1)
		period_ms = 1;
	if (period_ms > 25)
		period_ms = 25;
	attr.sample_period = (uint64_t)period_ms * 1000000;
	fd = syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "uringcheck: cannot start the reap-lag sampler "
			"(perf_event_open: %s); run with --reap-lag-ms=0 to go "
			"without it\n", strerror(errno));
		return -1;
	}
	/* The sampler program: the shared one when joined (no load, no
	 * verification here), else ours. */
	prog_fd = s->joined ? shared_find(&s->shared, "prog:uc_reap_sampler") : -1;
	if (prog_fd < 0)
		prog_fd = bpf_program__fd(s->skel->progs.uc_reap_sampler);
	s->sampler_perf_fd = fd;
	s->sampler_link_fd = bpf_link_create(prog_fd, fd, BPF_PERF_EVENT, NULL);
	if (s->sampler_link_fd >= 0)
		return 0;
	/* Before v5.15 perf events take no BPF links: the ioctl. */
	if (!ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog_fd) &&
	    !ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
		return 0;
	fprintf(stderr, "uringcheck: cannot attach the reap-lag sampler: %s\n",
		strerror(errno));
	close(fd);
	s->sampler_perf_fd = -1;
	return -1;
}

/* FNV-1a: names the BPF object, so only identical builds share. */
static uint64_t hash_bytes(const void *p, size_t n, uint64_t h)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ ((const unsigned char *)p)[i]) * 0x100000001b3ULL;
	return h;
}

/* The tag of kernel sides this instance can share: same BPF object, same
 * in-flight table size (the only setting that is not per session). */
static void shared_tag(char *out, size_t len, uint32_t slots)
{
	size_t sz;
	const void *elf = uringcheck_bpf__elf_bytes(&sz);

	snprintf(out, len, "uc-%016llx-%u",
		 (unsigned long long)hash_bytes(elf, sz, 0xcbf29ce484222325ULL), slots);
	/* Its pids are one PID namespace's (lib/pidns.h): only instances of
	 * that namespace share. */
	if (uc_pidns.ino)
		snprintf(out + strlen(out), len - strlen(out), "-ns%llu",
			 (unsigned long long)uc_pidns.ino);
}

/* The attached programs of @skel, by name, for others to join. */
static void share_links(struct uc_session *s, struct uringcheck_bpf *skel)
{
	for (int i = 0; skel && i < skel->skeleton->prog_cnt; i++) {
		struct bpf_link *l = *skel->skeleton->progs[i].link;
		char name[40];

		if (!l)
			continue;
		snprintf(name, sizeof(name), "link:%s", bpf_program__name(*skel->skeleton->progs[i].prog));
		shared_add(&s->shared, name, bpf_link__fd(l));
	}
}

/* The per-process uprobe programs (bpf/uprobe_forms.bpf.h): loaded here,
 * attached by each instance for its own processes. */
static const char *const uprobe_progs[] = {
	"uc_heap_release", "uc_heap_alloc", "uc_sqpoll_publish", "uc_liburing_call",
};

/* Every map and attached program of a freshly loaded set, for others to
 * join (shared.h). */
static void share_loaded(struct uc_session *s)
{
	struct bpf_map *m;

	bpf_object__for_each_map(m, s->skel->obj)
		if (!strstr(bpf_map__name(m), ".kconfig"))
			shared_add(&s->shared, bpf_map__name(m), bpf_map__fd(m));
	share_links(s, s->skel);
	share_links(s, cold_load_second(&s->cold));
	/* Loaded, attached per instance: a joining one attaches this. */
	shared_add(&s->shared, "prog:uc_reap_sampler",
		   bpf_program__fd(s->skel->progs.uc_reap_sampler));
	/* The per-process uprobe programs, under the loaded form's name. */
	for (size_t i = 0; i < sizeof(uprobe_progs) / sizeof(uprobe_progs[0]); i++) {
		char key[64];
		bool multi;
		int fd = session_uprobe_prog(s, uprobe_progs[i], &multi);

		snprintf(key, sizeof(key), "prog:%s%s", uprobe_progs[i], multi ? "_multi" : "");
		shared_add(&s->shared, key, fd);
	}
}

static uint64_t prog_misses(int prog_fd)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (prog_fd < 0 || bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return 0;
	return info.recursion_misses;
}

/* The program behind shared link @lfd. */
static uint64_t link_misses(int lfd)
{
	struct bpf_link_info info;
	__u32 len = sizeof(info);
	uint64_t n;
	int fd;

	memset(&info, 0, sizeof(info));
	if (lfd < 0 || bpf_obj_get_info_by_fd(lfd, &info, &len))
		return 0;
	fd = bpf_prog_get_fd_by_id(info.prog_id);
	n = prog_misses(fd);
	if (fd >= 0)
		close(fd);
	return n;
}

uint64_t session_hook_misses(struct uc_session *s, struct uc_hook_misses *by_prog)
{
	struct uringcheck_bpf *second = s->joined ? NULL : cold_load_second(&s->cold);
	struct bpf_program *p;
	uint64_t n = 0, runs;
	bool multi;

	if (!s->skel)
		return 0;
	bpf_object__for_each_program(p, s->skel->obj) {
		char key[64];

		if (!s->joined) {
			runs = prog_misses(bpf_program__fd(p));
		} else {
			/* joined: the holder's attached programs, by their links */
			snprintf(key, sizeof(key), "link:%s", bpf_program__name(p));
			runs = link_misses(shared_find(&s->shared, key));
		}
		n += runs;
		if (runs)
			hook_misses_add(by_prog, bpf_program__name(p), runs);
	}
	if (second)
		bpf_object__for_each_program(p, second->obj) {
			runs = prog_misses(bpf_program__fd(p));
			n += runs;
			if (runs)
				hook_misses_add(by_prog, bpf_program__name(p), runs);
		}
	if (s->joined)
		for (size_t i = 0; i < sizeof(uprobe_progs) / sizeof(uprobe_progs[0]); i++) {
			runs = prog_misses(session_uprobe_prog(s, uprobe_progs[i], &multi));
			n += runs;
			if (runs)
				hook_misses_add(by_prog, uprobe_progs[i], runs);
		}
	return n;
}

int session_uprobe_prog(const struct uc_session *s, const char *name, bool *multi)
{
	char key[64];
	struct bpf_program *p;
	int fd;

	for (int m = 1; m >= 0; m--) {
		*multi = m;
		snprintf(key, sizeof(key), "%s%s", name, m ? "_multi" : "");
		if (s->joined) {
			char shared[70];

			snprintf(shared, sizeof(shared), "prog:%s", key);
			fd = shared_find(&s->shared, shared);
		} else {
			p = bpf_object__find_program_by_name(s->skel->obj, key);
			fd = p ? bpf_program__fd(p) : -1;
		}
		if (fd >= 0)
			return fd;
	}
	*multi = false;
	return -1;
}

/*
 * Joined: every map is the shared one (bpf_map__fd() answers at once,
 * nothing is loaded), and the sampler and the per-process uprobe programs
 * are the shared ones: loading any program means parsing the kernel's
 * BTF, most of a join's cost. Returns true if
 * the object must still be loaded; -1 if a map is missing (an older
 * holder): the caller then loads a private set.
 */
static int reuse_shared(struct uc_session *s)
{
	bool own_sampler = shared_find(&s->shared, "prog:uc_reap_sampler") < 0;
	struct bpf_program *p;
	struct bpf_map *m;

	bpf_object__for_each_map(m, s->skel->obj) {
		int fd = shared_find(&s->shared, bpf_map__name(m));

		if (fd >= 0)
			bpf_map__reuse_fd(m, fd);
		else if (!strstr(bpf_map__name(m), ".kconfig"))
			return -1;
	}
	bpf_object__for_each_program(p, s->skel->obj)
		bpf_program__set_autoload(p, p == s->skel->progs.uc_reap_sampler && own_sampler);
	return own_sampler;
}

/* The inner map the slot's last owner left at @slot of @outer, if it is
 * of the type and size asked for: taking it spares creating one and the
 * RCU grace period that every update of a map-in-map waits for (~10 ms,
 * far more on a busy machine). */
static int reuse_inner(int outer, uint32_t slot, uint32_t type, uint32_t entries,
		       uint32_t value_size)
{
	struct bpf_map_info info = { 0 };
	uint32_t id, len = sizeof(info);
	int fd;

	if (bpf_map_lookup_elem(outer, &slot, &id))
		return -1;
	fd = bpf_map_get_fd_by_id(id);
	if (fd < 0)
		return -1;
	if (bpf_obj_get_info_by_fd(fd, &info, &len) || info.max_entries != entries ||
	    info.type != type || info.value_size != value_size) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The event buffer the slot's last owner left there, if it has the size
 * asked for. Its leftovers are discarded before the target starts. */
static int reuse_buffer(int outer, uint32_t slot, uint32_t bytes)
{
	return reuse_inner(outer, slot, BPF_MAP_TYPE_RINGBUF, bytes, 0);
}

/*
 * This session's own stack store, at its slot of stack_stores
 * (bpf/stacks.bpf.h): made while the programs loaded (a fresh set's
 * slot 0), the one the slot's last owner left (as its event buffer; its
 * captures carry ids the slot's cursor has passed, which this session's
 * never are), or a new one. It stays there when this session ends, for
 * the slot's next owner. 0 or an errno.
 */
static int session_store(struct uc_session *s)
{
	int outer = bpf_map__fd(s->skel->maps.stack_stores);
	uint32_t slot = s->slot;

	if (s->store_fd >= 0 && slot == 0 && !s->joined)
		return 0;
	if (s->store_fd >= 0)
		close(s->store_fd);
	s->store_fd = reuse_inner(outer, slot, BPF_MAP_TYPE_ARRAY, UC_STACK_SLOTS,
				  sizeof(struct uc_stack));
	if (s->store_fd >= 0)
		return 0;
	s->store_fd = stack_store_create();
	if (s->store_fd < 0 || bpf_map_update_elem(outer, &slot, &s->store_fd, BPF_ANY))
		return errno ? errno : EINVAL;	/* errno is the thread's */
	return 0;
}

static void *session_store_thread(void *arg)
{
	return (void *)(long)session_store(arg);
}

static void *map_shared_at(int fd, size_t len, int prot, off_t off)
{
	void *p = mmap(NULL, len, prot, MAP_SHARED, fd, off);

	return p == MAP_FAILED ? NULL : p;
}

static void *map_shared(int fd, size_t len, int prot)
{
	return map_shared_at(fd, len, prot, 0);
}

static void unmap_if(const void *p, size_t len)
{
	if (p)
		munmap((void *)p, len);
}

static size_t page_round(size_t n)
{
	size_t page = sysconf(_SC_PAGESIZE);

	return (n + page - 1) / page * page;
}

/*
 * What checker/evidence.c reads to judge findings when events were lost,
 * mapped at start: the event buffer's consumer position (the position of
 * the record being read) and this session's loss counters; stale lost
 * ends of the slot's previous owner are discarded. The large arrays (the
 * in-flight table, the stack store) are mapped when first needed: mapping
 * a BPF array fills in its page tables at once, about 10 ms for the two,
 * which every test of a suite paid at start-up whether it used them or not.
 */
static int session_map_truth(struct uc_session *s)
{
	struct uringcheck_bpf *skel = s->skel;

	s->consumer_pos = map_shared(s->events_fd, page_round(1), PROT_READ);
	/* The producer position is the next page (the BPF ring buffer's
	 * layout: consumer page, producer page, data). */
	s->producer_pos = map_shared_at(s->events_fd, page_round(1), PROT_READ, page_round(1));
	s->losses_len = page_round(UC_MAX_SESSIONS * sizeof(struct uc_session_losses));
	s->losses_all = map_shared(bpf_map__fd(skel->maps.session_losses), s->losses_len,
				   PROT_READ | PROT_WRITE);
	/* The session's stack cursor (bpf/stacks.bpf.h). */
	s->cursors_len = page_round(UC_MAX_SESSIONS * sizeof(uint64_t));
	s->cursors = map_shared(bpf_map__fd(skel->maps.stack_cursors), s->cursors_len,
				PROT_READ);
	if (!s->consumer_pos || !s->losses_all || !s->cursors)
		return -1;
	s->stack_cursor = &s->cursors[s->slot];
	s->losses = &s->losses_all[s->slot];
	memset(s->losses_all + s->slot, 0, sizeof(*s->losses));
	session_take_lost_ends(s, NULL, NULL);
	return 0;
}

unsigned session_backlog(const struct uc_session *s)
{
	unsigned long prod, cons;

	if (!s->producer_pos || !s->consumer_pos || !s->events_bytes)
		return 0;
	prod = __atomic_load_n(s->producer_pos, __ATOMIC_ACQUIRE);
	cons = __atomic_load_n(s->consumer_pos, __ATOMIC_ACQUIRE);
	/* Rounded up: any byte unread counts (the pace's staleness rule). */
	return prod > cons ? (unsigned)(((prod - cons) * 1000 + s->events_bytes - 1) /
					s->events_bytes) : 0;
}

uint64_t session_record_pos(const struct uc_session *s)
{
	return __atomic_load_n(s->consumer_pos, __ATOMIC_ACQUIRE);
}

int session_take_lost_ends(struct uc_session *s, uc_lost_end_fn fn, void *arg)
{
	int fd = bpf_map__fd(s->skel->maps.lost_ends);
	struct uc_lost_end_key key, next, *mine = NULL;
	size_t n = 0, cap = 0;
	void *prev = NULL;
	uint64_t pos;

	/* Keys first (deleting while walking would restart the walk). A key
	 * the kernel side deletes meanwhile restarts it too (the next key of
	 * a missing one is the first): at most twice the table's size, so
	 * that a table always changing cannot keep this loop going; the
	 * rest are taken at the next call. */
	size_t steps = 2 * (size_t)bpf_map__max_entries(s->skel->maps.lost_ends);

	while (steps-- && !bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (key.session != (uint32_t)s->slot)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			mine = realloc(mine, cap * sizeof(*mine));
			if (!mine)
				return -1;
		}
		mine[n++] = key;
	}
	for (size_t i = 0; i < n; i++)
		if (!bpf_map_lookup_and_delete_elem(fd, &mine[i], &pos) && fn)
			fn(arg, mine[i].seq, pos);
	free(mine);
	return (int)n;
}

/*
 * The store is 33 MiB, and mapping a BPF array fills all its page tables
 * at once: mapping and unmapping it whole cost ~5 ms of every run that
 * saw a stack, most of a warm start-up. A window of 64 slots (~0.5 MiB)
 * is mapped when one of its slots is first read; a short run maps one or
 * two, a long one ends up with them all.
 */
int session_stack_bound(struct uc_session *s, struct uc_stack_bound_key *k,
			const struct uc_stack_site *site)
{
	int fd = s->skel ? bpf_map__fd(s->skel->maps.stack_bounds) : -1;

	if (fd < 0)
		return -1;
	k->session = s->slot;
	return site ? bpf_map_update_elem(fd, k, site, BPF_ANY)
		    : bpf_map_delete_elem(fd, k);
}

const struct uc_stack *session_stack_slot(struct uc_session *s, uint32_t index)
{
	struct uc_store_window *w;

	index %= UC_STACK_SLOTS;
	w = &s->store_windows[index / UC_STORE_WINDOW_SLOTS];
	if (!w->base && s->store_fd >= 0) {
		size_t page = sysconf(_SC_PAGESIZE);
		size_t from = (size_t)(index / UC_STORE_WINDOW_SLOTS) *
			UC_STORE_WINDOW_SLOTS * sizeof(struct uc_stack);
		size_t to = from + UC_STORE_WINDOW_SLOTS * sizeof(struct uc_stack);
		size_t off = from / page * page;
		void *p = mmap(NULL, page_round(to) - off, PROT_READ, MAP_SHARED,
			       s->store_fd, (off_t)off);

		if (p == MAP_FAILED)
			return NULL;
		w->base = p;
		w->len = page_round(to) - off;
		w->skew = from - off;
	}
	if (!w->base)
		return NULL;
	return (const struct uc_stack *)((const char *)w->base + w->skew) +
		index % UC_STORE_WINDOW_SLOTS;
}

static void unmap_store(struct uc_session *s)
{
	for (size_t i = 0; i < sizeof(s->store_windows) / sizeof(s->store_windows[0]); i++) {
		unmap_if(s->store_windows[i].base, s->store_windows[i].len);
		s->store_windows[i].base = NULL;
	}
}

bool session_in_flight(struct uc_session *s, uint64_t req, uint64_t seq)
{
	uint32_t home;

	if (!s->inf_keys && s->skel) {
		const struct bpf_map *keys = s->skel->maps.inf_keys;
		size_t chunk = bpf_map__value_size(keys) / sizeof(uint64_t);
		size_t slots = bpf_map__max_entries(keys) * chunk;

		s->inf_len[0] = page_round(slots * sizeof(uint64_t));
		s->inf_len[1] = page_round(slots * sizeof(struct uc_inflight));
		s->inf_keys = map_shared(bpf_map__fd(s->skel->maps.inf_keys),
					 s->inf_len[0], PROT_READ);
		s->inf_vals = map_shared(bpf_map__fd(s->skel->maps.inf_vals),
					 s->inf_len[1], PROT_READ);
		s->inf_mask = slots - 1;
		s->inf_chunk_mask = chunk - 1;
	}
	if (!s->inf_keys || !s->inf_vals)
		return false;
	home = uc_inf_home(req, s->inf_mask);

	for (uint32_t i = 0; i < UC_INF_WINDOW; i++) {
		uint32_t idx = uc_inf_slot(home, i, s->inf_chunk_mask);

		if (__atomic_load_n(&s->inf_keys[idx], __ATOMIC_ACQUIRE) == req &&
		    s->inf_vals[idx].seq == seq)
			return true;
	}
	return false;
}

/* This session's own event buffer, in its slot. */
static int session_buffer(struct uc_session *s, long mib)
{
	int outer = bpf_map__fd(s->skel->maps.session_events);
	uint32_t slot = s->slot, bytes = (uint32_t)mib << 20;

	s->events_bytes = bytes;
	/* Made while the programs loaded, for slot 0 (kernel_side): new. */
	if (s->events_fd >= 0 && slot == 0)
		goto ready;
	ring_buffer__free(s->rb);	/* the early buffer's, if mapped */
	s->rb = NULL;
	if (s->events_fd >= 0)
		close(s->events_fd);
	s->events_fd = reuse_buffer(outer, slot, bytes);
	s->discarding = s->events_fd >= 0;
	if (s->events_fd < 0) {
		s->events_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "uc_events", 0, 0,
					      bytes, NULL);
		if (s->events_fd < 0 ||
		    bpf_map_update_elem(outer, &slot, &s->events_fd, BPF_ANY))
			return -1;
	}
ready:
	s->sleeping_len = sysconf(_SC_PAGESIZE);
	s->sleeping = mmap(NULL, s->sleeping_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			   bpf_map__fd(s->skel->maps.reader_sleeping), 0);
	if (s->sleeping == MAP_FAILED) {
		s->sleeping = NULL;
		return -1;
	}
	return session_map_truth(s);
}

/* The in-flight table's sizes (bpf/inflight.bpf.h), before creation. */
static void set_sizes(struct uringcheck_bpf *skel, uint32_t slots)
{
	uint32_t chunk = slots < UC_INF_CHUNK_MAX ? slots : UC_INF_CHUNK_MAX;

	bpf_map__set_max_entries(skel->maps.inf_keys, slots / chunk);
	bpf_map__set_value_size(skel->maps.inf_keys, chunk * sizeof(uint64_t));
	bpf_map__set_max_entries(skel->maps.inf_vals, slots);
	/* a bit per 64 slots (bpf/inflight.bpf.h) */
	bpf_map__set_max_entries(skel->maps.inf_regions, (slots / 64 + 63) / 64);
	/* A lost end is kept only for a request user space was told of, so
	 * at most the in-flight table's worth are ever waiting there. */
	bpf_map__set_max_entries(skel->maps.lost_ends, slots);
	skel->rodata->inf_mask = slots - 1;
	skel->rodata->inf_chunk_mask = chunk - 1;
	skel->rodata->inf_chunk_shift = __builtin_ctz(chunk);
}

/* What the programs are told of the kernel, and which variants load. */
static void set_kernel(struct uringcheck_bpf *skel, const struct uc_kernel *k)
{
	skel->rodata->reissue_flag = k->reissue_flag;
	/* Before v6.7 the mappings are not sent at ring creation: a capture
	 * sends the ones its report needs most (bpf/stacks.bpf.h). */
	skel->rodata->capture_vmas = !k->task_vma_iter;
	skel->rodata->req_buffer_selected = k->buffer_selected_flag;
	skel->rodata->req_buffer_ring = k->buffer_ring_flag;
	skel->rodata->req_buffers_commit = k->buffers_commit_flag;
	skel->rodata->iobl_buf_ring = k->iobl_buf_ring;
	skel->rodata->iobl_inc = k->iobl_inc;
	skel->rodata->judge_loads = kernel_judges_loads(k);
	skel->rodata->hz = k->hz;
	skel->rodata->btf_id_io_kiocb = k->btf_id_io_kiocb;
	skel->rodata->btf_id_io_ring_ctx = k->btf_id_io_ring_ctx;
	skel->rodata->btf_id_task_struct = k->btf_id_task_struct;
	skel->rodata->btf_id_file = k->btf_id_file;
	/* One program per hook form (load/variants.def); the second half
	 * takes the same choice (cold_load.c). */
	load_variants(skel->obj, k);
}

/* The kernel's BTF, read on a thread from the start of a cold load: the
 * probe waits for it, and the skeleton is opened meanwhile (~2 ms). */
struct early_btf {
	pthread_t thread;
	bool started;
	struct btf *btf;
};

static void *early_btf_read(void *arg)
{
	struct early_btf *e = arg;

	e->btf = kernel_btf_read();	/* NULL: the probe says why */
	return NULL;
}

static void early_btf_start(struct early_btf *e)
{
	e->btf = NULL;
	e->started = !access("/sys/kernel/btf/vmlinux", R_OK) &&
		     !pthread_create(&e->thread, NULL, early_btf_read, e);
}

/* The BTF read (the caller's now), NULL if none. */
static struct btf *early_btf_end(struct early_btf *e)
{
	if (e->started)
		pthread_join(e->thread, NULL);
	e->started = false;
	return e->btf;
}

/* The early buffer, made and mapped (early_buffer.h): the session's. */
static void end_early_buffer(struct uc_session *s)
{
	s->cold.loaded_fd = -1;
	s->events_fd = early_buffer_end(&s->early, &s->rb, &s->store_fd);
}

/* A fresh set: the maps, the kernel probe and then both halves of the
 * programs, each beside another (cold_load.c). */
static int load_fresh(struct uc_session *s, const struct uc_options *o,
		      uint32_t slots)
{
	struct early_btf early_btf;
	struct kernel_btf_name names[32];
	const struct uc_kernel *k;
	int err, nnames;

	/*
	 * Large blocks from the heap, and kept there. glibc serves blocks
	 * this large with mmap and gives them back on free, and touching a
	 * fresh page is the dearest part of reading the kernel's BTF (a
	 * 5.5 MiB read, copied once more, and its indexes: a fault and a
	 * page clear each). Kept, the read's pages serve the copies and
	 * blocks made after it (the CO-RE stand-in, each half's object);
	 * one arena for all threads, or the second half's thread would get
	 * its own, fresh. The thresholds are within the range glibc's own
	 * adaptive ones move in (up to 32 MiB and twice that). The BTF
	 * itself is read once: libbpf's loads borrow it (kernel_btf.c).
	 */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	mallopt(M_ARENA_MAX, 1);
	early_btf_start(&early_btf);
	err = cold_load_open(&s->cold, &s->skel);
	if (err) {
		btf__free(early_btf_end(&early_btf));
		fprintf(stderr, "uringcheck: cannot open the BPF object: %s\n",
			strerror(-err));
		return -1;
	}
	set_sizes(s->skel, slots);
	PIDNS_RODATA(s->skel->rodata);
	/* The event buffer and the maps are made meanwhile. */
	early_buffer_start(&s->early, s->skel, o->event_buffer_mb, on_ringbuf, s);
	s->cold.loaded_fd = s->early.gate;
	err = cold_load_maps(&s->cold, s->skel);
	if (err) {
		btf__free(early_btf_end(&early_btf));
		end_early_buffer(s);
		fprintf(stderr, "uringcheck: cannot create the BPF maps: %s\n",
			strerror(-err));
		return -1;
	}
	/* What each half's libbpf would look up name by name, found in the
	 * probe's walk instead (kernel_btf.c). */
	nnames = kernel_btf_names_of(s->skel->obj, names, sizeof(names) / sizeof(names[0]));
	k = load_kernel(early_btf_end(&early_btf), names, nnames);
	if (!k) {
		end_early_buffer(s);
		return -1;
	}
	kernel_btf_answers(names, nnames);
	cold_load_core_btf(&s->cold, load_kernel_btf(), s->skel);
	set_kernel(s->skel, k);
	err = cold_load_programs(&s->cold, s->skel);
	if (err) {
		end_early_buffer(s);
		libbpf_load_failed("the BPF programs", k->release, err, o->verbose);
		return -1;
	}
	return 0;
}

/* Joining: every map is the shared one; what is loaded at all is loaded
 * quietly (a failure means: load a private set instead). */
static int load_joined(struct uc_session *s, const struct uc_options *o,
		       uint32_t slots)
{
	int need_load;

	s->skel = uringcheck_bpf__open();
	if (!s->skel)
		return -1;
	set_sizes(s->skel, slots);
	PIDNS_RODATA(s->skel->rodata);
	need_load = reuse_shared(s);
	if (need_load < 0)
		return -1;
	return need_load ? uringcheck_bpf__load(s->skel) : 0;
}

/*
 * Loads the object, either joining the shared maps and links in
 * s->shared (@join) or as a fresh set that it attaches and offers to
 * others; then claims a session slot. Quiet when joining fails: the
 * caller then loads a private set.
 */
static int kernel_side(struct uc_session *s, const struct uc_options *o,
		       uint32_t slots, bool join)
{
	struct uc_session_cfg cfg = {
		.reap_lag_ns = (uint64_t)o->reap_lag_ms * 1000000,
		.stack_bytes = (uint32_t)o->stack_size,
		.owner = (uint32_t)getpid(),
		.heap_owners = o->heap_alloc_probes,
	};
	struct uringcheck_bpf *skel;
	double t0 = now_ms();
	int err;

	if (join ? load_joined(s, o, slots) : load_fresh(s, o, slots))
		return -1;
	skel = s->skel;
	s->load_ms = now_ms() - t0;

	t0 = now_ms();
	if (!join) {
		/* The sampler and uprobes are attached per instance, later. */
		err = uringcheck_bpf__attach(skel) ?: cold_load_attach(&s->cold);
		/* The event buffer is mapped meanwhile (early_buffer.c). */
		end_early_buffer(s);
		if (err) {
			fprintf(stderr, "uringcheck: cannot attach the BPF programs "
				"(%s)%s\n", strerror(-err),
				o->verbose ? "" : "; run with -v for details");
			return -1;
		}
		share_loaded(s);
	}
	s->attach_ms = now_ms() - t0;

	s->slot = slots_claim(s->skel, &cfg);
	if (s->slot < 0) {
		if (!join)
			fprintf(stderr, "uringcheck: cannot claim a session slot: %s\n",
				strerror(errno));
		return -1;
	}
	return 0;
}

int session_start(struct uc_session *s, const struct uc_options *o,
		  uc_event_fn fn, void *arg, uc_ready_fn ready)
{
	uint32_t slots = 64;
	bool store_thread;
	pthread_t store;
	void *store_ret;
	char tag[64];
	int err;

	memset(s, 0, sizeof(*s));
	s->events_fd = -1;
	s->store_fd = -1;
	s->sampler_perf_fd = -1;
	s->sampler_link_fd = -1;
	s->slot = -1;
	s->on_event = fn;
	s->arg = arg;
	libbpf_log_setup(o->verbose);

	/* The in-flight table: at least twice --max-inflight slots, a power
	 * of two (bpf/inflight.bpf.h). */
	while (slots < 2 * (uint64_t)o->max_inflight)
		slots <<= 1;
	shared_tag(tag, sizeof(tag), slots);
	/* A private set (--no-share) is neither joined nor offered: no lock. */
	s->shared.lock_fd = -1;
	if (!o->no_share && shared_lock(&s->shared, tag) && o->verbose)
		fprintf(stderr, "uringcheck: cannot use /run/uringcheck (%s): "
			"not sharing the BPF programs\n", strerror(errno));
	s->joined = !o->no_share && !shared_join(&s->shared);
	if (s->joined && kernel_side(s, o, slots, true)) {
		/* Gone meanwhile, all sessions taken, ...: go alone. */
		if (o->verbose)
			fprintf(stderr, "uringcheck: cannot join the BPF programs of "
				"uringcheck pid %d: loading a private set\n",
				s->shared.holder);
		uringcheck_bpf__destroy(s->skel);
		s->skel = NULL;
		s->slot = -1;
		shared_drop(&s->shared);
		s->joined = false;
	}
	if (!s->joined && kernel_side(s, o, slots, false))
		goto fail;
	if (ready)
		ready(arg);
	/* The stack store beside the event buffer: when both are new, their
	 * grace periods (session_store) pass at once. */
	store_thread = !pthread_create(&store, NULL, session_store_thread, s);
	err = session_buffer(s, o->event_buffer_mb) ? errno : 0;
	if (store_thread)
		pthread_join(store, &store_ret);
	else
		store_ret = (void *)(long)session_store(s);
	if (err) {
		fprintf(stderr, "uringcheck: cannot create the event buffer: %s\n",
			strerror(err));
		goto fail;
	}
	if (store_ret) {
		fprintf(stderr, "uringcheck: cannot create the stack store: %s\n",
			strerror((int)(long)store_ret));
		goto fail;
	}
	shared_register(&s->shared);
	shared_unlock(&s->shared);

	if (o->reap_lag_ms && attach_sampler(s, o->reap_lag_ms))
		return -1;

	if (!s->rb)
		s->rb = ring_buffer__new(s->events_fd, on_ringbuf, s, NULL);
	if (!s->rb) {
		fprintf(stderr, "uringcheck: cannot map the event buffer: %s\n",
			strerror(errno));
		return -1;
	}
	if (s->discarding) {
		/* The last owner's leftovers: not ours. */
		ring_buffer__consume(s->rb);
		s->discarding = false;
	}
	if (o->verbose && s->joined)
		fprintf(stderr, "uringcheck: joined the BPF programs of uringcheck "
			"pid %d as session %d (set up in %.1f ms)\n",
			s->shared.holder, s->slot, s->load_ms + s->attach_ms);
	else if (o->verbose)
		fprintf(stderr, "uringcheck: BPF loaded in %.1f ms, attached in "
			"%.1f ms (session %d)\n", s->load_ms, s->attach_ms, s->slot);
	return 0;
fail:
	shared_unlock(&s->shared);
	return -1;
}

int session_track(struct uc_session *s, pid_t pid)
{
	struct uc_tracked t = { .state = UC_TRACKED, .session = s->slot }, was;
	uint32_t key = pid;

	/* A process followed already (by another instance, -p) keeps the
	 * list of its rings the kernel side keeps there: those rings are
	 * tracked, and would not be listed again (bpf/ring_index.bpf.h). */
	if (!bpf_map__lookup_elem(s->skel->maps.tracked, &key, sizeof(key), &was,
				  sizeof(was), 0)) {
		t.rings_unlisted = was.rings_unlisted;
		memcpy(t.ring_slots, was.ring_slots, sizeof(t.ring_slots));
	}
	if (bpf_map__update_elem(s->skel->maps.tracked, &key, sizeof(key), &t,
				 sizeof(t), BPF_ANY)) {
		fprintf(stderr, "uringcheck: cannot follow pid %d: %s\n", pid,
			strerror(errno));
		return -1;
	}
	return 0;
}

int session_track_unfollowed(struct uc_session *s, pid_t pid)
{
	struct uc_tracked t = { .state = UC_TRACKED, .session = s->slot };
	uint32_t key = pid;

	if (!bpf_map__update_elem(s->skel->maps.tracked, &key, sizeof(key), &t,
				  sizeof(t), BPF_NOEXIST))
		return 0;
	return errno == EEXIST ? 1 : -1;
}

/* The instance now holding session @sid, 0: none (slots.c's cfg). */
static uint32_t session_holder(struct uc_session *s, uint32_t sid)
{
	struct uc_session_cfg cfg;

	if (bpf_map__lookup_elem(s->skel->maps.sessions, &sid, sizeof(sid), &cfg,
				 sizeof(cfg), 0))
		return 0;
	return cfg.owner;
}

int session_take_all(struct uc_session *s, bool take)
{
	uint32_t zero = 0, cur = 0, mine = (uint32_t)s->slot + 1, v = take ? mine : 0;

	if (bpf_map__lookup_elem(s->skel->maps.all_session, &zero, sizeof(zero), &cur,
				 sizeof(cur), 0))
		return -1;
	if (!take && cur != mine)
		return 0;		/* not ours (any more) */
	if (take && cur && cur != mine) {
		uint32_t holder = session_holder(s, cur - 1);

		/* a live instance has it; a dead one's claim is stale */
		if (holder && (kill((pid_t)holder, 0) == 0 || errno == EPERM)) {
			fprintf(stderr, "uringcheck: --check -a: uringcheck pid %u checks "
				"every process already\n", holder);
			errno = EBUSY;
			return -1;
		}
	}
	return bpf_map__update_elem(s->skel->maps.all_session, &zero, sizeof(zero), &v,
				    sizeof(v), BPF_ANY);
}

int session_fd(const struct uc_session *s)
{
	return s->rb ? ring_buffer__epoll_fd(s->rb) : -1;
}

int session_drain(struct uc_session *s)
{
	return s->rb ? ring_buffer__consume(s->rb) : 0;
}

void session_unmap_events(struct uc_session *s)
{
	ring_buffer__free(s->rb);
	s->rb = NULL;
}

/*
 * Before an idle wait: ask the BPF side to wake us with its next record
 * (bpf/events.bpf.h, wakeup_flags). Returns the records that arrived
 * meanwhile; if any, the caller should not wait (a record committed
 * just before the flag was seen may not have woken us).
 */
int session_sleep_begins(struct uc_session *s)
{
	int n;

	__atomic_store_n(&s->sleeping[s->slot], 1, __ATOMIC_SEQ_CST);
	n = ring_buffer__consume(s->rb);
	if (n > 0)
		__atomic_store_n(&s->sleeping[s->slot], 0, __ATOMIC_SEQ_CST);
	return n;
}

void session_counters(const struct uc_session *s, uint64_t out[UC_STAT__COUNT])
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t vals[ncpu > 0 ? ncpu : 1];

	memset(out, 0, sizeof(uint64_t) * UC_STAT__COUNT);
	if (ncpu <= 0 || s->slot < 0)
		return;
	for (uint32_t i = 0; i < UC_STAT__COUNT; i++) {
		uint32_t key = s->slot * UC_STAT__COUNT + i;

		if (bpf_map__lookup_elem(s->skel->maps.stats, &key, sizeof(key), vals,
					 sizeof(vals), 0))
			continue;
		for (int c = 0; c < ncpu; c++)
			out[i] += vals[c];
	}
}

/* Leaves the shared side: the session slot is released (slots.h) and
 * this process unlisted. The programs stay attached while another
 * instance holds their links. */
static void session_leave(struct uc_session *s)
{
	if (s->shared.lock_fd >= 0)
		flock(s->shared.lock_fd, LOCK_EX);
	if (s->slot >= 0) {
		if (s->sleeping)
			__atomic_store_n(&s->sleeping[s->slot], 0, __ATOMIC_SEQ_CST);
		slots_release(s->skel, s->slot);
	}
	shared_unregister(&s->shared);
	shared_unlock(&s->shared);
}

void session_stop(struct uc_session *s)
{
	if (s->sampler_link_fd >= 0)
		close(s->sampler_link_fd);
	if (s->sampler_perf_fd >= 0)
		close(s->sampler_perf_fd);
	s->sampler_link_fd = s->sampler_perf_fd = -1;
	ring_buffer__free(s->rb);
	if (s->skel)
		session_leave(s);
	/* Whatever was mapped from the kernel side. */
	unmap_if(s->sleeping, s->sleeping_len);
	unmap_if(s->consumer_pos, page_round(1));
	unmap_if(s->producer_pos, page_round(1));
	unmap_if(s->losses_all, s->losses_len);
	unmap_if(s->inf_keys, s->inf_len[0]);
	unmap_if(s->inf_vals, s->inf_len[1]);
	unmap_store(s);
	unmap_if(s->cursors, s->cursors_len);
	s->consumer_pos = NULL;
	s->producer_pos = NULL;
	s->losses_all = s->losses = NULL;
	s->inf_keys = NULL;
	s->inf_vals = NULL;
	s->cursors = NULL;
	s->stack_cursor = NULL;
	if (s->events_fd >= 0)
		close(s->events_fd);
	if (s->store_fd >= 0)
		close(s->store_fd);
	s->store_fd = -1;
	/* Our links and maps: the programs detach when no instance holds
	 * their links any more. */
	uringcheck_bpf__destroy(s->skel);
	cold_load_free(&s->cold);
	shared_close(&s->shared);
	s->rb = NULL;
	s->skel = NULL;
	s->sleeping = NULL;
	s->events_fd = -1;
}

/* The keeper: holds the shared descriptors, and nothing else, for a while. */
static void keeper(struct uc_session *s, long seconds, int ready)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	sigset_t none;

	/* Listed first, then the run is told: the next run must find this
	 * holder, even one started the moment this run exits. */
	flock(s->shared.lock_fd, LOCK_EX);
	shared_register(&s->shared);
	flock(s->shared.lock_fd, LOCK_UN);
	(void)!write(ready, "", 1);	/* failing, the run sees EOF */
	close(ready);

	/* uringcheck blocks the signals it forwards: the holder must die of
	 * a plain kill like any process. */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);

	setsid();
	prctl(PR_SET_NAME, "uringcheck-warm");
	/* No terminal, no pipe a test harness waits to see closed. */
	for (int fd = 0; fd < 3; fd++)
		dup2(null, fd);
	/* Everything else closed, a gap at a time between the kept ones. */
	for (unsigned lo = 3;;) {
		unsigned next = ~0u;

		for (int i = 0; i <= s->shared.nobjs; i++) {
			int fd = i < s->shared.nobjs ? s->shared.objs[i].fd : s->shared.lock_fd;

			if (fd >= (int)lo && (unsigned)fd < next)
				next = fd;
		}
		if (next > lo)
			close_range(lo, next == ~0u ? ~0u : next - 1, 0);
		if (next == ~0u)
			break;
		lo = next + 1;
	}
	sleep((unsigned)seconds);
	flock(s->shared.lock_fd, LOCK_EX);
	shared_unregister(&s->shared);
	/* Exiting closes the links: the programs detach unless an instance
	 * that joined meanwhile holds them. */
	_exit(0);
}

void session_keep_warm(struct uc_session *s, long seconds)
{
	int ready[2];
	pid_t pid;

	if (seconds <= 0 || s->shared.lock_fd < 0 || !s->shared.nobjs)
		return;
	/* The run is over: its large mappings go before the forks, which
	 * would copy their page tables (the event buffer's alone cover
	 * 64 MiB; the keeper needs none of them). */
	ring_buffer__free(s->rb);
	s->rb = NULL;
	unmap_if(s->inf_keys, s->inf_len[0]);
	unmap_if(s->inf_vals, s->inf_len[1]);
	unmap_store(s);
	s->inf_keys = NULL;
	s->inf_vals = NULL;
	if (pipe2(ready, O_CLOEXEC))
		return;
	/* Twice forked: not our child, nobody's to wait for. */
	pid = fork();
	if (pid == 0) {
		close(ready[0]);
		if (fork() == 0)
			keeper(s, seconds, ready[1]);
		_exit(0);
	}
	close(ready[1]);
	if (pid > 0) {
		struct pollfd p = { .fd = ready[0], .events = POLLIN };
		char c;

		waitpid(pid, NULL, 0);
		/* Until the keeper is listed (or gone): a run started right
		 * after this one exits joins it rather than loading cold. */
		if (poll(&p, 1, 1000) > 0)
			(void)!read(ready[0], &c, 1);
	}
	close(ready[0]);
}
