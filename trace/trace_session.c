// SPDX-License-Identifier: GPL-2.0
#include "trace_session.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_btf.h"
#include "kernel_features.h"
#include "libbpf_log.h"
#include "pidns.h"
#include "trace.skel.h"

/* Variants by the kernel's BTF; each names its change in the BPF file. */
static void choose_variants(struct trace_bpf *skel, const struct uc_kernel *k)
{
	bpf_program__set_autoload(skel->progs.tr_submit, k->tp_submit_req);
	bpf_program__set_autoload(skel->progs.tr_submit_sqe, !k->tp_submit_req);
	bpf_program__set_autoload(skel->progs.tr_complete, k->tp_complete_req);
	bpf_program__set_autoload(skel->progs.tr_complete_fields, !k->tp_complete_req);
	bpf_program__set_autoload(skel->progs.tr_poll_arm, k->tp_poll_arm_req);
	bpf_program__set_autoload(skel->progs.tr_async_work, k->tp_async_work_req);
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
	LIBBPF_OPTS(bpf_object_open_opts, opts);
	struct core_btf_file core;
	struct btf *kernel_btf;
	struct uc_kernel k;
	int err;

	memset(s, 0, sizeof(*s));
	s->fn = fn;
	s->arg = arg;
	libbpf_log_setup(c->verbose);
	/* Relocated against a stand-in for the kernel's BTF (core_btf.h). */
	if (core_btf_probe(&core, &k, &kernel_btf))
		return -1;
	s->ncpus = libbpf_num_possible_cpus();
	opts.btf_custom_path = core.path;
	s->skel = trace_bpf__open_opts(&opts);
	if (s->skel)
		core_btf_file_fill(&core, kernel_btf, bpf_object__btf(s->skel->obj));
	else
		btf__free(kernel_btf);
	if (!s->skel || s->ncpus <= 0) {
		fprintf(stderr, "uringcheck: cannot open the trace's BPF object: %s\n",
			strerror(errno));
		return -1;
	}
	s->skel->rodata->all_processes = c->all;
	PIDNS_RODATA(s->skel->rodata);
	s->skel->rodata->sample_every = c->sample;
	bpf_map__set_max_entries(s->skel->maps.tr_rb, c->buffer_mb << 20);
	choose_variants(s->skel, &k);
	err = trace_bpf__load(s->skel);
	core_btf_file_close(&core);
	if (err) {
		libbpf_load_failed("the trace's BPF programs", k.release, err, c->verbose);
		return -1;
	}
	err = trace_bpf__attach(s->skel);
	if (err) {
		fprintf(stderr, "uringcheck: cannot attach the trace's BPF programs (%s)\n",
			libbpf_load_cause() ? libbpf_load_cause() : strerror(-err));
		return -1;
	}
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
	uint32_t key = pid, one = 1;

	if (bpf_map__update_elem(s->skel->maps.tr_targets, &key, sizeof(key), &one,
				 sizeof(one), BPF_ANY)) {
		fprintf(stderr, "uringcheck: cannot follow pid %d: %s\n", pid,
			strerror(errno));
		return -1;
	}
	/* rings judged "not ours" before the process was followed: a new
	 * generation makes those verdicts stale */
	__atomic_add_fetch(&s->skel->bss->follow_gen, 1, __ATOMIC_SEQ_CST);
	return 0;
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
