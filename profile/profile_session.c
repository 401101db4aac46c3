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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "follow.h"
#include "kernel_features.h"
#include "load.h"
#include "pidns.h"
#include "profile.skel.h"

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
	return err;
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

	/* errors by errno, processes: hash tables, walked key by key; each
	 * walk at most twice its table's size: a key deleted meanwhile
	 * restarts it (the next key of a missing one is the first), and a
	 * table always changing must not keep the snapshot going */
	{
		struct pf_err_key k, *prev = NULL;
		size_t cap = 0, steps = 2 * (size_t)bpf_map__max_entries(sk->maps.pf_errors);

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
	if (s->skel)
		profile_bpf__destroy(s->skel);
	free(s->percpu);
	s->skel = NULL;
	s->percpu = NULL;
}
