// SPDX-License-Identifier: GPL-2.0
/*
 * The profile mode's BPF object: loaded through load/load.c (the run's
 * one probe, the CO-RE stand-in, the variants' table) with the profile's
 * settings; following processes; reading the per-CPU tables.
 */
#include "profile_session.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "follow.h"
#include "kallsyms.h"
#include "kernel_features.h"
#include "load.h"
#include "pidns.h"
#include "profile.skel.h"

static int on_note(void *ctx, void *data, size_t size);

static struct bpf_object_skeleton *open_profile(const struct bpf_object_open_opts *opts,
						void **skel)
{
	struct profile_bpf *p = profile_bpf__open_opts(opts);

	*skel = p;
	return p ? p->skeleton : NULL;
}

/* The profile's settings; a hook the kernel lacks turns one feature off
 * (load/variants.def), and the report says which. */
static int configure(void *skel, const struct uc_kernel *k, void *arg)
{
	struct profile_bpf *p = skel;
	struct pf_session *s = arg;
	const struct pf_config *c = s->config;

	s->paths = kernel_judges_loads(k);
	p->rodata->all_processes = c->all;
	PIDNS_RODATA(p->rodata);
	p->rodata->max_rings = c->max_rings;
	p->rodata->sample_mask = c->sample - 1;
	/* a closed ring's slot is freed when its exit work ends (bpf/profile.bpf.c) */
	p->rodata->exit_work_fn = kallsyms_addr("io_ring_exit_work");
	s->slots_freed = p->rodata->exit_work_fn != 0;
	if (!s->slots_freed && c->verbose)
		fprintf(stderr, "uringcheck: io_ring_exit_work is not in /proc/kallsyms: "
			"closed rings keep their profile slots\n");
	bpf_map__set_max_entries(p->maps.pf_free_slots, c->max_rings);
	bpf_map__set_max_entries(p->maps.pf_ring_meta, c->max_rings);
	bpf_map__set_max_entries(p->maps.pf_ring_stats, c->max_rings);
	bpf_map__set_max_entries(p->maps.pf_op_stats, c->max_rings * PF_MAX_OPS);
	return 0;
}

int pf_session_start(struct pf_session *s, const struct pf_config *c)
{
	struct load_spec spec = {
		.whose = "the profile's",
		.verbose = c->verbose,
		.open = open_profile,
		.configure = configure,
		.arg = s,
	};
	void *skel;
	int err;

	memset(s, 0, sizeof(*s));
	s->max_rings = c->max_rings;
	s->all = c->all;
	s->config = c;
	s->ncpus = libbpf_num_possible_cpus();
	if (s->ncpus <= 0) {
		fprintf(stderr, "uringcheck: cannot count the CPUs: %s\n",
			strerror(-s->ncpus));
		return -1;
	}
	s->percpu = calloc(s->ncpus, sizeof(struct pf_op_stats) > sizeof(struct pf_ring_stats) ?
			   sizeof(struct pf_op_stats) : sizeof(struct pf_ring_stats));
	if (!s->percpu) {
		fprintf(stderr, "uringcheck: cannot start the profile: %s\n", strerror(errno));
		return -1;
	}
	err = load_object(&spec, &skel);
	s->skel = skel;
	s->config = NULL;
	if (err)
		return err;
	s->retired = calloc(PF_RETIRED_MAX + 1, sizeof(*s->retired));
	s->notes = ring_buffer__new(bpf_map__fd(s->skel->maps.pf_notify), on_note, s, NULL);
	if (!s->retired || !s->notes) {
		fprintf(stderr, "uringcheck: cannot start the profile: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

int pf_session_follow(struct pf_session *s, pid_t pid)
{
	return uc_follow_pid(s->skel->maps.follow_targets, &s->skel->bss->follow_gen, pid);
}

/* Sums one per-CPU value of __u64 words; @max_word (or -1) is a maximum. */
static int read_percpu(struct pf_session *s, struct bpf_map *m, uint32_t key,
		       void *out, size_t size, int max_word)
{
	uint64_t *o = out;
	size_t words = size / sizeof(uint64_t);

	if (bpf_map__lookup_elem(m, &key, sizeof(key), s->percpu,
				 size * s->ncpus, 0))
		return -1;
	memset(out, 0, size);
	for (int c = 0; c < s->ncpus; c++) {
		const uint64_t *v = (const uint64_t *)((char *)s->percpu + c * size);

		for (size_t w = 0; w < words; w++) {
			if ((int)w == max_word)
				o[w] = v[w] > o[w] ? v[w] : o[w];
			else
				o[w] += v[w];
		}
	}
	return 0;
}

static void comm_of(uint32_t pid, char *out, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(out, len, "?");
	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(out, len, f))
		out[strcspn(out, "\n")] = 0;
	fclose(f);
}

/* Slot @r's ring into @v; -1 when the slot holds none (or is being
 * filled in right now). */
static int read_slot(struct pf_session *s, uint32_t r, struct pf_ring_view *v)
{
	struct profile_bpf *sk = s->skel;
	const int max_word = offsetof(struct pf_op_stats, lat_max_ns) / sizeof(uint64_t);

	if (bpf_map__lookup_elem(sk->maps.pf_ring_meta, &r, sizeof(r), &v->meta,
				 sizeof(v->meta), 0) || !v->meta.ctx)
		return -1;
	v->slot = r;
	read_percpu(s, sk->maps.pf_ring_stats, r, &v->st, sizeof(v->st), -1);
	for (uint32_t op = 0; op < PF_MAX_OPS; op++)
		read_percpu(s, sk->maps.pf_op_stats, r * PF_MAX_OPS + op,
			    &v->ops[op], sizeof(v->ops[op]), max_word);
	return 0;
}

/* Adds closed ring @v into the folded row (maxima stay maxima). */
static void fold(struct pf_ring_view *into, const struct pf_ring_view *v)
{
	uint64_t *t = (uint64_t *)&into->st;
	const uint64_t *f = (const uint64_t *)&v->st;

	for (size_t w = 0; w < sizeof(v->st) / sizeof(uint64_t); w++)
		t[w] += f[w];
	for (int op = 0; op < PF_MAX_OPS; op++) {
		uint64_t max = into->ops[op].lat_max_ns;

		t = (uint64_t *)&into->ops[op];
		f = (const uint64_t *)&v->ops[op];
		for (size_t w = 0; w < sizeof(v->ops[op]) / sizeof(uint64_t); w++)
			t[w] += f[w];
		into->ops[op].lat_max_ns = max > v->ops[op].lat_max_ns ? max :
					   v->ops[op].lat_max_ns;
	}
}

/* The closed ring in slot @r: its figures become a retired row (or go
 * into the folded one), its errors by errno follow it, then the slot is
 * zeroed and handed back to the kernel side for the next ring. Nothing
 * writes a closed ring's slot (its context is freed), so what is read is
 * final. */
static void collect_slot(struct pf_session *s, uint32_t r)
{
	struct profile_bpf *sk = s->skel;
	struct pf_ring_view v, *row;
	struct pf_err_key k, next;
	uint32_t id;
	void *zero;
	bool more;

	if (r >= s->max_rings || read_slot(s, r, &v) || !v.meta.closed_ns)
		return;
	if (s->nretired < PF_RETIRED_MAX) {
		id = PF_RETIRED_SLOT + s->nretired;
		row = &s->retired[s->nretired++];
		*row = v;
		row->slot = id;
	} else {
		id = PF_FOLDED_SLOT;
		row = &s->retired[PF_RETIRED_MAX];
		if (!s->folded++) {
			memset(row, 0, sizeof(*row));
			row->slot = id;
			row->meta.fd = PF_FD_FOLDED;
			row->meta.ctx = 1;
			row->meta.closed_ns = 1;
			snprintf(row->meta.comm, sizeof(row->meta.comm), "(closed rings)");
			s->nretired++;
		}
		fold(row, &v);
		row->meta.setup_flags |= v.meta.setup_flags;
	}
	/* errors by errno: keys of this slot move to the row */
	more = !bpf_map__get_next_key(sk->maps.pf_errors, NULL, &k, sizeof(k));
	while (more) {
		uint64_t n;

		more = !bpf_map__get_next_key(sk->maps.pf_errors, &k, &next, sizeof(next));
		if (k.ring == r && !bpf_map__lookup_elem(sk->maps.pf_errors, &k, sizeof(k),
							  &n, sizeof(n), 0)) {
			size_t i;

			for (i = 0; i < s->nretired_errs; i++)
				if (s->retired_errs[i].ring == id &&
				    s->retired_errs[i].opcode == k.opcode &&
				    s->retired_errs[i].err == k.err)
					break;
			if (i == s->nretired_errs) {
				void *p = realloc(s->retired_errs, (i + 1) * sizeof(*s->retired_errs));

				if (p) {
					s->retired_errs = p;
					s->retired_errs[i] = (struct pf_errno_view){
						.ring = id, .opcode = k.opcode, .err = k.err };
					s->nretired_errs++;
				}
			}
			if (i < s->nretired_errs)
				s->retired_errs[i].n += n;
			bpf_map__delete_elem(sk->maps.pf_errors, &k, sizeof(k), 0);
		}
		k = next;
	}
	/* zero the slot, then free it: meta last, so the kernel side never
	 * sees a half-cleared slot as a ring */
	/* one buffer for all three: per-CPU values of the larger struct */
	zero = calloc(s->ncpus, sizeof(struct pf_ring_stats) > sizeof(struct pf_op_stats) ?
		      sizeof(struct pf_ring_stats) : sizeof(struct pf_op_stats));
	if (!zero)
		return;		/* the slot stays taken: nothing is lost */
	bpf_map__update_elem(sk->maps.pf_ring_stats, &r, sizeof(r), zero,
			     sizeof(struct pf_ring_stats) * s->ncpus, 0);
	for (uint32_t op = 0; op < PF_MAX_OPS; op++) {
		uint32_t i = r * PF_MAX_OPS + op;

		bpf_map__update_elem(sk->maps.pf_op_stats, &i, sizeof(i), zero,
				     sizeof(struct pf_op_stats) * s->ncpus, 0);
	}
	bpf_map__update_elem(sk->maps.pf_ring_meta, &r, sizeof(r), zero,
			     sizeof(struct pf_ring_meta), 0);
	free(zero);
	bpf_map__update_elem(sk->maps.pf_free_slots, NULL, 0, &r, sizeof(r), 0);
}

static int on_note(void *ctx, void *data, size_t size)
{
	struct pf_session *s = ctx;
	const struct pf_note *n = data;

	if (size < sizeof(*n))
		return 0;
	if (n->kind == PF_NOTE_CLOSED)
		collect_slot(s, n->slot);
	else if (n->kind == PF_NOTE_UNPROFILED)
		s->unprofiled = true;
	return 0;
}

/* Has process @pid exited (gone, or a zombie no one has reaped yet)? */
static bool process_gone(uint32_t pid)
{
	char path[64], buf[256], *close_paren;
	FILE *f;
	bool gone;

	if (kill((pid_t)pid, 0) && errno == ESRCH)
		return true;
	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return errno == ENOENT;
	/* "pid (comm) S ...": the state follows the last ')' */
	gone = fgets(buf, sizeof(buf), f) && (close_paren = strrchr(buf, ')')) &&
	       close_paren[1] == ' ' && (close_paren[2] == 'Z' || close_paren[2] == 'X');
	fclose(f);
	return gone;
}

unsigned pf_session_rings_closing(struct pf_session *s)
{
	struct pf_ring_meta m;
	unsigned n = 0;

	for (uint32_t r = 0; r < s->max_rings; r++)
		if (!bpf_map__lookup_elem(s->skel->maps.pf_ring_meta, &r, sizeof(r), &m,
					  sizeof(m), 0) &&
		    m.ctx && !m.closed_ns && m.tgid && process_gone(m.tgid))
			n++;
	return n;
}

int pf_session_notes_fd(struct pf_session *s)
{
	return ring_buffer__epoll_fd(s->notes);
}

int pf_session_collect(struct pf_session *s)
{
	bool before = s->unprofiled;
	uint32_t lost = s->skel->bss->notes_lost;

	if (ring_buffer__consume(s->notes) < 0)
		return -1;
	if (lost != s->notes_lost_seen) {
		/* notes did not fit: every slot is looked at */
		uint32_t used = s->skel->bss->next_ring_slot;

		s->notes_lost_seen = lost;
		for (uint32_t r = 0; r < used && r < s->max_rings; r++)
			collect_slot(s, r);
	}
	if (!s->unprofiled) {
		/* its note may have been among the lost */
		uint64_t n;

		if (!read_percpu(s, s->skel->maps.pf_stats, PF_STAT_RINGS_UNPROFILED,
				 &n, sizeof(n), -1) && n)
			s->unprofiled = true;
	}
	return s->unprofiled && !before;
}

/* Rows in the order the rings came (their serials), open or closed: a
 * report does not reorder with the closing; the folded row last. */
static int ring_order(const void *a, const void *b)
{
	const struct pf_ring_view *x = a, *y = b;
	uint64_t kx = x->meta.fd == PF_FD_FOLDED ? UINT64_MAX : x->meta.serial;
	uint64_t ky = y->meta.fd == PF_FD_FOLDED ? UINT64_MAX : y->meta.serial;

	return kx < ky ? -1 : kx > ky;
}

int pf_session_read(struct pf_session *s, struct pf_snapshot *out)
{
	struct profile_bpf *sk = s->skel;
	struct timespec ts;
	uint32_t used = sk->bss->next_ring_slot;

	memset(out, 0, sizeof(*out));
	clock_gettime(CLOCK_MONOTONIC, &ts);
	out->ts_ns = ts.tv_sec * 1000000000ull + ts.tv_nsec;
	if (used > s->max_rings)
		used = s->max_rings;
	out->rings = calloc(s->nretired + used ? s->nretired + used : 1, sizeof(*out->rings));
	if (!out->rings)
		return -1;
	memcpy(out->rings, s->retired, s->nretired * sizeof(*out->rings));
	out->nrings = s->nretired;
	out->folded_rings = s->folded;
	for (uint32_t r = 0; r < used; r++)
		if (!read_slot(s, r, &out->rings[out->nrings]))
			out->nrings++;
	qsort(out->rings, out->nrings, sizeof(*out->rings), ring_order);
	for (uint32_t i = 0; i < PF_STAT__COUNT; i++)
		read_percpu(s, sk->maps.pf_stats, i, &out->stats[i], sizeof(uint64_t), -1);

	/* errors by errno, processes: hash tables, walked key by key; each
	 * walk at most twice its table's size: a key deleted meanwhile
	 * restarts it (the next key of a missing one is the first), and a
	 * table always changing must not keep the snapshot going */
	{
		struct pf_err_key k, *prev = NULL;
		size_t cap = s->nretired_errs;
		size_t steps = 2 * (size_t)bpf_map__max_entries(sk->maps.pf_errors);

		if (cap) {
			out->errs = malloc(cap * sizeof(*out->errs));
			if (out->errs) {
				memcpy(out->errs, s->retired_errs, cap * sizeof(*out->errs));
				out->nerrs = cap;
			} else {
				cap = 0;
			}
		}

		while (steps-- && !bpf_map__get_next_key(sk->maps.pf_errors, prev, &k, sizeof(k))) {
			uint64_t n;

			prev = &k;
			if (bpf_map__lookup_elem(sk->maps.pf_errors, &k, sizeof(k), &n,
						 sizeof(n), 0))
				continue;
			if (out->nerrs == cap) {
				void *p = realloc(out->errs, (cap = cap ? 2 * cap : 16) *
						  sizeof(*out->errs));
				if (!p)
					break;
				out->errs = p;
			}
			out->errs[out->nerrs++] = (struct pf_errno_view){
				.ring = k.ring, .opcode = k.opcode, .err = k.err, .n = n };
		}
	}
	{
		uint32_t k, *prev = NULL;
		size_t cap = 0, steps = 2 * (size_t)bpf_map__max_entries(sk->maps.pf_procs);

		while (steps-- && !bpf_map__get_next_key(sk->maps.pf_procs, prev, &k, sizeof(k))) {
			struct pf_proc p;

			prev = &k;
			if (bpf_map__lookup_elem(sk->maps.pf_procs, &k, sizeof(k), &p,
						 sizeof(p), 0))
				continue;
			if (out->nprocs == cap) {
				void *n = realloc(out->procs, (cap = cap ? 2 * cap : 8) *
						  sizeof(*out->procs));
				if (!n)
					break;
				out->procs = n;
			}
			out->procs[out->nprocs].tgid = k;
			out->procs[out->nprocs].p = p;
			comm_of(k, out->procs[out->nprocs].comm,
				sizeof(out->procs[out->nprocs].comm));
			out->nprocs++;
		}
	}
	/* A poller that never left its CPU has no switch-out yet: its time
	 * so far counts (bpf_ktime_get_ns is CLOCK_MONOTONIC). */
	{
		uint32_t k, *prev = NULL;
		size_t steps = 2 * (size_t)bpf_map__max_entries(sk->maps.pf_threads);

		while (steps-- && !bpf_map__get_next_key(sk->maps.pf_threads, prev, &k, sizeof(k))) {
			struct pf_thread t;

			prev = &k;
			if (bpf_map__lookup_elem(sk->maps.pf_threads, &k, sizeof(k), &t,
						 sizeof(t), 0) || !t.on_since ||
			    t.on_since > out->ts_ns)
				continue;
			for (size_t i = 0; i < out->nprocs; i++) {
				if (out->procs[i].tgid != t.tgid)
					continue;
				if (t.sqpoll)
					out->procs[i].p.sqpoll_oncpu_ns += out->ts_ns - t.on_since;
				else
					out->procs[i].p.worker_oncpu_ns += out->ts_ns - t.on_since;
			}
		}
	}
	return 0;
}

void pf_session_stop(struct pf_session *s)
{
	ring_buffer__free(s->notes);
	s->notes = NULL;
	free(s->retired);
	free(s->retired_errs);
	s->retired = NULL;
	s->retired_errs = NULL;
	s->nretired = 0;
	s->nretired_errs = 0;
	if (s->skel)
		profile_bpf__destroy(s->skel);
	free(s->percpu);
	s->skel = NULL;
	s->percpu = NULL;
}
