/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How a BPF object gets into this kernel, for every mode (load.c says
 * the sequence): the run's one kernel probe and kernel-BTF parse, the
 * variants each object loads, and the whole sequence for an object
 * loaded in one piece (the profile's, the trace's). The checker's cold
 * load (checker/cold_load.c) has its own, threaded, but takes the probe
 * and the variants from here.
 */
#ifndef UC_LOAD_H
#define UC_LOAD_H

struct bpf_object;
struct bpf_object_open_opts;
struct bpf_object_skeleton;
struct btf;
struct kernel_btf_name;
struct uc_kernel;

/*
 * The run's kernel. The first call probes it (kernel_features.h) and
 * keeps the kernel's BTF, parsed then, for every loader after it until
 * load_release(); later calls take both. @parsed: the kernel's BTF read
 * already (taken over), NULL: read here if needed; @extra: names a
 * libbpf load will look up (kernel_btf.h), found in the probe's walk
 * (or looked up, after it). NULL after printing why.
 */
const struct uc_kernel *load_kernel(struct btf *parsed, struct kernel_btf_name *extra,
				    int nextra);
/* The kernel as probed in this run, NULL if nothing was loaded here. */
const struct uc_kernel *load_kernel_probed(void);
/* The parse load_kernel() keeps (NULL before it). */
struct btf *load_kernel_btf(void);
/* Every mode has loaded: the kept parse is freed (the probe's answers
 * stay). */
void load_release(void);

/* Newer than Debian 12's uapi header (linux-libc-dev 6.1): the
 * uprobe_multi link of v6.6 (include/uapi/linux/bpf.h). */
#define UC_BPF_TRACE_UPROBE_MULTI	48	/* enum bpf_attach_type */
#define UC_BPF_F_UPROBE_MULTI_RETURN	1	/* its link's flags */

/* Each program of @obj that has a line in variants.def loads or not as
 * the line says for @k; the others are left as they are. A program
 * named ..._multi of type kprobe is given the uprobe_multi attach type
 * (bpf/uprobe_forms.bpf.h). */
void load_variants(struct bpf_object *obj, const struct uc_kernel *k);

/* An object loaded in one piece. */
struct load_spec {
	const char *whose;		/* "the profile's": names it in messages */
	int verbose;
	/* Opens the object with @opts: its skeleton in *@skel (NULL on
	 * failure, errno set), its bpf_object_skeleton returned. */
	struct bpf_object_skeleton *(*open)(const struct bpf_object_open_opts *opts,
					    void **skel);
	/* The mode's settings before the load (read-only data, map sizes);
	 * optional. 0, or -1 after printing why. */
	int (*configure)(void *skel, const struct uc_kernel *k, void *arg);
	void *arg;
};

/* The kernel probed (once a run) -> opened with the CO-RE stand-in and
 * the kernel's BTF lent -> configured -> variants -> loaded -> attached.
 * 0, or -1 after printing why; *@skel is the caller's to destroy either
 * way. */
int load_object(const struct load_spec *spec, void **skel);

#endif
