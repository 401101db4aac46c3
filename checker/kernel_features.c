// SPDX-License-Identifier: GPL-2.0
#include "kernel_features.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static bool has_named(const struct btf *btf, const char *name, int kind)
{
	return btf__find_by_name_kind(btf, name, kind) > 0;
}

/* Number of parameters of a raw tracepoint's btf_trace_<name> typedef
 * (the first, void *ctx, not counted). */
static int tp_params(const struct btf *btf, const char *tp)
{
	char name[128];
	const struct btf_type *t;
	int id;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	if (id <= 0)
		return -1;
	t = btf__type_by_id(btf, id);
	t = btf__type_by_id(btf, t->type);		/* pointer */
	if (!t || !btf_is_ptr(t))
		return -1;
	t = btf__type_by_id(btf, t->type);		/* func proto */
	if (!t || !btf_is_func_proto(t))
		return -1;
	return btf_vlen(t) - 1;
}

/* Value of an enumerator, searched across all enums (REQ_F_* live in an
 * anonymous enum, so CO-RE cannot relocate them by type name). */
static bool enum_value(const struct btf *btf, const char *name, int64_t *val)
{
	int n = btf__type_cnt(btf);

	for (int id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (!btf_is_enum(t))
			continue;
		const struct btf_enum *e = btf_enum(t);

		for (int i = 0; i < btf_vlen(t); i++, e++) {
			if (!strcmp(btf__name_by_offset(btf, e->name_off), name)) {
				*val = e->val;
				return true;
			}
		}
	}
	return false;
}

int kernel_probe(struct uc_kernel *k, char *err, size_t errlen)
{
	struct utsname u;
	struct btf *btf;
	int64_t bit;

	memset(k, 0, sizeof(*k));
	if (!uname(&u))
		snprintf(k->release, sizeof(k->release), "%s", u.release);
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(err, errlen, "kernel %s has no BTF (/sys/kernel/btf/vmlinux): "
			 "uringcheck needs CONFIG_DEBUG_INFO_BTF=y", k->release);
		return -1;
	}
	btf = btf__load_vmlinux_btf();
	if (!btf) {
		snprintf(err, errlen, "cannot read the kernel's BTF "
			 "(/sys/kernel/btf/vmlinux)");
		return -1;
	}
	k->btf = true;
	k->tp_submit_req = tp_params(btf, "io_uring_submit_req") == 1;
	k->tp_complete_req = tp_params(btf, "io_uring_complete") == 3;
	k->fn_flush = has_named(btf, "__io_submit_flush_completions", BTF_KIND_FUNC);
	k->fn_exit_work = has_named(btf, "io_ring_exit_work", BTF_KIND_FUNC);
	k->tp_exit_group_dead = tp_params(btf, "sched_process_exit") == 2;
	if (enum_value(btf, "REQ_F_REISSUE_BIT", &bit) && bit >= 0 && bit < 64)
		k->reissue_flag = 1ULL << bit;
	btf__free(btf);

	if (!k->tp_submit_req || !k->tp_complete_req || !k->fn_flush ||
	    !k->fn_exit_work || !k->tp_exit_group_dead) {
		snprintf(err, errlen, "kernel %s lacks a hook uringcheck needs "
			 "(%s); supported: 6.18 and later (run --version for "
			 "details)", k->release,
			 !k->tp_submit_req ? "tracepoint io_uring_submit_req(req)" :
			 !k->tp_complete_req ? "tracepoint io_uring_complete(ctx, req, cqe)" :
			 !k->fn_flush ? "function __io_submit_flush_completions" :
			 !k->fn_exit_work ? "function io_ring_exit_work" :
			 "tracepoint sched_process_exit(p, group_dead)");
		return -1;
	}
	return 0;
}

void kernel_print(const struct uc_kernel *k, FILE *out)
{
#define YN(x) ((x) ? "yes" : "no")
	fprintf(out, "kernel %s, BTF %s\n", k->release, YN(k->btf));
	fprintf(out, "  tp_btf io_uring_submit_req(req)        %s\n", YN(k->tp_submit_req));
	fprintf(out, "  tp_btf io_uring_complete(ctx,req,cqe)  %s\n", YN(k->tp_complete_req));
	fprintf(out, "  fentry __io_submit_flush_completions   %s\n", YN(k->fn_flush));
	fprintf(out, "  fexit  io_ring_exit_work               %s\n", YN(k->fn_exit_work));
	fprintf(out, "  tp_btf sched_process_exit(p,group_dead) %s\n", YN(k->tp_exit_group_dead));
	fprintf(out, "  REQ_F_REISSUE                          %s\n",
		k->reissue_flag ? "found" : "not found (io-wq reissues end early)");
#undef YN
}
