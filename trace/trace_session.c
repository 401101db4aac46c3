// SPDX-License-Identifier: GPL-2.0
/*
 * The trace mode's BPF object: loaded through load/load.c (the run's one
 * probe, the CO-RE stand-in, the variants' table) with the trace's
 * settings; following processes; its record buffer and loss counters.
 */
#include "trace_session.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"
#include "follow.h"
#include "pidns.h"
#include "trace.skel.h"

static struct bpf_object_skeleton *open_trace(const struct bpf_object_open_opts *opts,
					      void **skel)
{
	struct trace_bpf *t = trace_bpf__open_opts(opts);

	*skel = t;
	return t ? t->skeleton : NULL;
}

/* The trace's settings (its variants: load/variants.def). */
static int configure(void *skel, const struct uc_kernel *k, void *arg)
{
	struct trace_bpf *t = skel;
	const struct tr_config *c = arg;

	t->rodata->all_processes = c->all;
	PIDNS_RODATA(t->rodata);
	t->rodata->sample_every = c->sample;
	bpf_map__set_max_entries(t->maps.tr_rb, c->buffer_mb << 20);
	return 0;
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct tr_session *s = ctx;

	s->records++;
	s->fn(s->arg, data, size);
	return 0;
}

int tr_session_start(struct tr_session *s, const struct tr_config *c,
		     tr_record_fn fn, void *arg)
{
	struct load_spec spec = {
		.whose = "the trace's",
		.verbose = c->verbose,
		.open = open_trace,
		.configure = configure,
		.arg = (void *)c,
	};
	void *skel;
	int err;

	memset(s, 0, sizeof(*s));
	s->fn = fn;
	s->arg = arg;
	s->ncpus = libbpf_num_possible_cpus();
	if (s->ncpus <= 0) {
		fprintf(stderr, "uringcheck: cannot count the CPUs: %s\n",
			strerror(-s->ncpus));
		return -1;
	}
	err = load_object(&spec, &skel);
	s->skel = skel;
	if (err)
		return -1;
	s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.tr_rb), on_record, s, NULL);
	if (!s->rb) {
		fprintf(stderr, "uringcheck: cannot map the trace buffer: %s\n",
			strerror(errno));
		return -1;
	}
	return 0;
}

int tr_session_follow(struct tr_session *s, pid_t pid)
{
	return uc_follow_pid(s->skel->maps.follow_targets, &s->skel->bss->follow_gen, pid);
}

int tr_session_drain(struct tr_session *s)
{
	return s->rb ? ring_buffer__consume(s->rb) : 0;
}

uint64_t tr_session_lost(struct tr_session *s, uint64_t lost[TR__COUNT])
{
	uint64_t total = 0, *v = calloc(s->ncpus, sizeof(uint64_t));

	memset(lost, 0, sizeof(uint64_t) * TR__COUNT);
	for (uint32_t t = 0; v && t < TR__COUNT; t++) {
		if (bpf_map__lookup_elem(s->skel->maps.tr_lost, &t, sizeof(t), v,
					 sizeof(uint64_t) * s->ncpus, 0))
			continue;
		for (int c = 0; c < s->ncpus; c++)
			lost[t] += v[c];
		total += lost[t];
	}
	free(v);
	return total;
}

void tr_session_stop(struct tr_session *s)
{
	ring_buffer__free(s->rb);
	if (s->skel)
		trace_bpf__destroy(s->skel);
	s->rb = NULL;
	s->skel = NULL;
}
