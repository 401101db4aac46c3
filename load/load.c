// SPDX-License-Identifier: GPL-2.0
/*
 * One load sequence for every BPF object of a run.
 *
 *   kernel    probed once a run (load_kernel): the first loader reads
 *             the kernel's BTF and walks it once (kernel_features.c,
 *             from the table features.def); the parse is kept for the
 *             loaders after it (a --check --profile --trace run parses
 *             it once, not once per object) and freed when every mode
 *             has begun (load_release, run/run.c)
 *   open      with the CO-RE stand-in (core_btf.h) built from that parse,
 *             which is lent to libbpf's own lookups (kernel_btf.h)
 *   configure the mode's callback: read-only data, map sizes
 *   variants  one table for every object (variants.def): a program's
 *             name after its prefix says which line decides it
 *   load, attach
 *
 * The profile and the trace load through load_object(). The checker's
 * cold load (checker/cold_load.c) splits the load over two threads and
 * creates the maps on a third, so it keeps its own sequence, but takes
 * the probe (with its libbpf lookups answered from the probe's walk)
 * and the variants from here.
 */
#include "load.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_btf.h"
#include "kernel_btf.h"
#include "kernel_features.h"
#include "libbpf_log.h"

static struct uc_kernel kernel;
static bool probed;
static struct btf *kept;

const struct uc_kernel *load_kernel(struct btf *parsed, struct kernel_btf_name *extra,
				    int nextra)
{
	char *why;

	if (!probed) {
		if (kernel_probe_from(&kernel, parsed, &kept, extra, nextra, &why)) {
			btf__free(kept);
			kept = NULL;
			fprintf(stderr, "uringcheck: %s\n", why ? why : "cannot probe the kernel");
			free(why);
			return NULL;
		}
		probed = true;
		return &kernel;
	}
	/* Probed by an earlier loader: its parse serves this one. */
	if (!kept)
		kept = parsed ? parsed : kernel_btf_read();
	else
		btf__free(parsed);
	if (!kept) {
		fprintf(stderr, "uringcheck: cannot read the kernel's BTF "
			"(/sys/kernel/btf/vmlinux): %s\n", strerror(errno));
		return NULL;
	}
	for (int i = 0; i < nextra; i++) {
		int id = btf__find_by_name_kind(kept, extra[i].name, extra[i].kind);

		extra[i].id = id > 0 ? id : -1;
	}
	return &kernel;
}

const struct uc_kernel *load_kernel_probed(void)
{
	return probed ? &kernel : NULL;
}

struct btf *load_kernel_btf(void)
{
	return kept;
}

void load_release(void)
{
	btf__free(kept);
	kept = NULL;
}

void load_variants(struct bpf_object *obj, const struct uc_kernel *k)
{
	static const char *const hooks[] = {
#define VARIANT(hook, loaded) #hook,
#include "variants.def"
#undef VARIANT
	};
	const bool loaded[] = {
#define VARIANT(hook, on) on,
#include "variants.def"
#undef VARIANT
	};
	struct bpf_program *p;

	bpf_object__for_each_program(p, obj) {
		const char *hook = strchr(bpf_program__name(p), '_');
		size_t len = hook ? strlen(hook) : 0;

		for (size_t i = 0; hook && i < sizeof(hooks) / sizeof(hooks[0]); i++)
			if (!strcmp(hook + 1, hooks[i]))
				bpf_program__set_autoload(p, loaded[i]);
		/* A uprobe program's uprobe_multi form (bpf/uprobe_forms.bpf.h):
		 * libbpf 1.1 has no section for it, so its attach type is
		 * given here. */
		if (len > 6 && !strcmp(hook + len - 6, "_multi") &&
		    bpf_program__type(p) == BPF_PROG_TYPE_KPROBE)
			bpf_program__set_expected_attach_type(p, UC_BPF_TRACE_UPROBE_MULTI);
	}
}

int load_object(const struct load_spec *spec, void **skel)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts);
	const struct uc_kernel *k;
	struct bpf_object_skeleton *s;
	struct core_btf_file core;
	int err;

	*skel = NULL;
	libbpf_log_setup(spec->verbose);
	k = load_kernel(NULL, NULL, 0);
	if (!k)
		return -1;
	/* Relocated against a stand-in for the kernel's BTF (core_btf.h). */
	if (core_btf_file_open(&core)) {
		fprintf(stderr, "uringcheck: cannot make a memory file: %s\n", strerror(errno));
		return -1;
	}
	opts.btf_custom_path = core.path;
	s = spec->open(&opts, skel);
	if (!s) {
		fprintf(stderr, "uringcheck: cannot open %s BPF object: %s\n", spec->whose,
			strerror(errno));
		core_btf_file_close(&core);
		return -1;
	}
	core_btf_file_fill(&core, load_kernel_btf(), bpf_object__btf(*s->obj));
	if (spec->configure && spec->configure(*skel, k, spec->arg)) {
		core_btf_file_close(&core);
		return -1;
	}
	load_variants(*s->obj, k);
	err = bpf_object__load_skeleton(s);
	core_btf_file_close(&core);
	if (err) {
		char what[64];

		snprintf(what, sizeof(what), "%s BPF programs", spec->whose);
		libbpf_load_failed(what, k->release, err, spec->verbose);
		return -1;
	}
	err = bpf_object__attach_skeleton(s);
	if (err) {
		fprintf(stderr, "uringcheck: cannot attach %s BPF programs (%s)%s\n",
			spec->whose, libbpf_load_cause() ? libbpf_load_cause() :
			strerror(-err), spec->verbose ? "" : "; run with -v for details");
		return -1;
	}
	return 0;
}
