// SPDX-License-Identifier: GPL-2.0
#include "profile_session.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core_btf.h"
#include "kernel_features.h"
#include "libbpf_log.h"
#include "pidns.h"
#include "profile.skel.h"

/* The variants the kernel's BTF calls for; each names its kernel change
 * in bpf/profile.bpf.c. A hook the kernel lacks turns one feature off,
 * and the report says which. */
static void choose_variants(struct profile_bpf *skel, const struct uc_kernel *k)
{
	bpf_program__set_autoload(skel->progs.pf_submit, k->tp_submit_req);
	bpf_program__set_autoload(skel->progs.pf_submit_sqe, !k->tp_submit_req);
	bpf_program__set_autoload(skel->progs.pf_complete, k->tp_complete_req);
	bpf_program__set_autoload(skel->progs.pf_complete_fields, !k->tp_complete_req);
	bpf_program__set_autoload(skel->progs.pf_poll_arm, k->tp_poll_arm_req);
	bpf_program__set_autoload(skel->progs.pf_async_work, k->tp_async_work_req);
	bpf_program__set_autoload(skel->progs.pf_cqe_overflow, k->tp_cqe_overflow);
	bpf_program__set_autoload(skel->progs.pf_cqring_wait, k->tp_cqring_wait);
}

int pf_session_start(struct pf_session *s, const struct pf_config *c)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts);
	struct core_btf_file core;
	struct btf *kernel_btf;
	struct uc_kernel k;
	int err;

	memset(s, 0, sizeof(*s));
	s->max_rings = c->max_rings;
	s->all = c->all;
	libbpf_log_setup(c->verbose);
	/* Relocated against a stand-in for the kernel's BTF (core_btf.h). */
	if (core_btf_probe(&core, &k, &kernel_btf))
		return -1;
	s->paths = k.tp_poll_arm_req && k.tp_async_work_req;
	s->ncpus = libbpf_num_possible_cpus();
	if (s->ncpus <= 0) {
		fprintf(stderr, "uringcheck: cannot count the CPUs: %s\n",
			strerror(-s->ncpus));
		return -1;
	}
	s->percpu = calloc(s->ncpus, sizeof(struct pf_op_stats) > sizeof(struct pf_ring_stats) ?
			   sizeof(struct pf_op_stats) : sizeof(struct pf_ring_stats));
	opts.btf_custom_path = core.path;
	s->skel = profile_bpf__open_opts(&opts);
	if (s->skel)
		core_btf_file_fill(&core, kernel_btf, bpf_object__btf(s->skel->obj));
	else
		btf__free(kernel_btf);
	if (!s->percpu || !s->skel) {
		fprintf(stderr, "uringcheck: cannot open the profile's BPF object: %s\n",
			strerror(errno));
		return -1;
	}
	s->skel->rodata->all_processes = c->all;
	PIDNS_RODATA(s->skel->rodata);
	s->skel->rodata->max_rings = c->max_rings;
	s->skel->rodata->sample_mask = c->sample - 1;
	bpf_map__set_max_entries(s->skel->maps.pf_ring_meta, c->max_rings);
	bpf_map__set_max_entries(s->skel->maps.pf_ring_stats, c->max_rings);
	bpf_map__set_max_entries(s->skel->maps.pf_op_stats, c->max_rings * PF_MAX_OPS);
	choose_variants(s->skel, &k);
	err = profile_bpf__load(s->skel);
	core_btf_file_close(&core);
	if (err) {
		libbpf_load_failed("the profile's BPF programs", k.release, err, c->verbose);
		return -1;
	}
	err = profile_bpf__attach(s->skel);
	if (err) {
		fprintf(stderr, "uringcheck: cannot attach the profile's BPF programs "
			"(%s)%s\n", libbpf_load_cause() ? libbpf_load_cause() :
			strerror(-err), c->verbose ? "" : "; run with -v for details");
		return -1;
	}
	return 0;
}

int pf_session_follow(struct pf_session *s, pid_t pid)
{
	uint32_t key = pid, one = 1;

	if (bpf_map__update_elem(s->skel->maps.pf_targets, &key, sizeof(key),
				 &one, sizeof(one), BPF_ANY)) {
		fprintf(stderr, "uringcheck: cannot follow pid %d: %s\n", pid,
			strerror(errno));
		return -1;
	}
	/* Rings of a running process seen before it was followed were
	 * judged "not ours": a new generation makes those verdicts stale. */
	__atomic_add_fetch(&s->skel->bss->follow_gen, 1, __ATOMIC_SEQ_CST);
	return 0;
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

int pf_session_read(struct pf_session *s, struct pf_snapshot *out)
{
	struct profile_bpf *sk = s->skel;
	const int max_word = offsetof(struct pf_op_stats, lat_max_ns) / sizeof(uint64_t);
	struct timespec ts;
	uint32_t used = sk->bss->next_ring_slot;

	memset(out, 0, sizeof(*out));
	clock_gettime(CLOCK_MONOTONIC, &ts);
	out->ts_ns = ts.tv_sec * 1000000000ull + ts.tv_nsec;
	if (used > s->max_rings)
		used = s->max_rings;
	out->rings = calloc(used ? used : 1, sizeof(*out->rings));
	if (!out->rings)
		return -1;
	for (uint32_t r = 0; r < used; r++) {
		struct pf_ring_view *v = &out->rings[out->nrings];

		if (bpf_map__lookup_elem(sk->maps.pf_ring_meta, &r, sizeof(r), &v->meta,
					 sizeof(v->meta), 0) || !v->meta.ctx)
			continue;	/* being filled in right now */
		v->slot = r;
		read_percpu(s, sk->maps.pf_ring_stats, r, &v->st, sizeof(v->st), -1);
		for (uint32_t op = 0; op < PF_MAX_OPS; op++)
			read_percpu(s, sk->maps.pf_op_stats, r * PF_MAX_OPS + op,
				    &v->ops[op], sizeof(v->ops[op]), max_word);
		out->nrings++;
	}
	for (uint32_t i = 0; i < PF_STAT__COUNT; i++)
		read_percpu(s, sk->maps.pf_stats, i, &out->stats[i], sizeof(uint64_t), -1);

	/* errors by errno, processes: hash tables, walked key by key */
	{
		struct pf_err_key k, *prev = NULL;
		size_t cap = 0;

		while (!bpf_map__get_next_key(sk->maps.pf_errors, prev, &k, sizeof(k))) {
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
		size_t cap = 0;

		while (!bpf_map__get_next_key(sk->maps.pf_procs, prev, &k, sizeof(k))) {
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

		while (!bpf_map__get_next_key(sk->maps.pf_threads, prev, &k, sizeof(k))) {
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
	if (s->skel)
		profile_bpf__destroy(s->skel);
	free(s->percpu);
	s->skel = NULL;
	s->percpu = NULL;
}
