// SPDX-License-Identifier: GPL-2.0
/*
 * What the running kernel offers, read from its BTF with libbpf's BTF API
 * (it reads /sys/kernel/btf/vmlinux on every kernel; mapping the file,
 * as an earlier home-made scanner did, works only from 6.16 on). Which
 * program variant serves each hook is decided here, from the types the
 * kernel really has, never from its version number.
 */
#include "kernel_features.h"
#include "kernel_btf.h"
#include "../reports/report.h"

#include <bpf/btf.h>
#include <errno.h>
#include <stdlib.h>
#include <zlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/*
 * What the probe asks the kernel's BTF for by name. libbpf finds a name by
 * walking all of the kernel's types (~126,000 on 6.18); the twenty-odd
 * lookups one after another cost ~2 ms of every cold start, on its
 * critical path. All are found in one walk instead, each at its first
 * match in type order, as btf__find_by_name_kind() would find it.
 */
enum want_kind { WANT_ENUMERATOR, WANT_TYPEDEF, WANT_FUNC, WANT_STRUCT, WANT_KINDS };

struct want {
	const char *name;
	enum want_kind kind;
	int64_t got;		/* an enumerator's value or a type's id; -1: none */
};

/* @name against the wants of its kind (@k, @nk of them). */
static void want_match(struct want **k, int nk, const char *name, int64_t got, int *left)
{
	/* The first character before strcmp(): most names differ there,
	 * and half a million calls were ~2 ms of the walk. */
	for (int i = 0; i < nk; i++)
		if (k[i]->got < 0 && k[i]->name[0] == name[0] && !strcmp(k[i]->name, name)) {
			k[i]->got = got;
			(*left)--;
		}
}

static void find_wanted(const struct btf *btf, struct want *w, int nw)
{
	int n = btf__type_cnt(btf), left = nw, nk[WANT_KINDS] = { 0 };
	struct want *k[WANT_KINDS][nw];		/* the wants of each kind */

	for (int i = 0; i < nw; i++) {
		w[i].got = -1;
		k[w[i].kind][nk[w[i].kind]++] = &w[i];
	}
	for (int id = 1; id < n && left > 0; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		switch (btf_kind(t)) {
		case BTF_KIND_ENUM:
			for (int i = 0; nk[WANT_ENUMERATOR] && i < btf_vlen(t); i++)
				want_match(k[WANT_ENUMERATOR], nk[WANT_ENUMERATOR],
					   btf__name_by_offset(btf, btf_enum(t)[i].name_off),
					   btf_enum(t)[i].val, &left);
			break;
		case BTF_KIND_TYPEDEF:
			want_match(k[WANT_TYPEDEF], nk[WANT_TYPEDEF],
				   btf__name_by_offset(btf, t->name_off), id, &left);
			break;
		case BTF_KIND_FUNC:
			want_match(k[WANT_FUNC], nk[WANT_FUNC],
				   btf__name_by_offset(btf, t->name_off), id, &left);
			break;
		case BTF_KIND_STRUCT:
			want_match(k[WANT_STRUCT], nk[WANT_STRUCT],
				   btf__name_by_offset(btf, t->name_off), id, &left);
			break;
		default:
			break;
		}
	}
}

/* @w and @extra (a loader's names, kernel_btf.h) in the same walk. */
static void find_all(const struct btf *btf, struct want *w, int nw,
		     struct kernel_btf_name *extra, int nextra)
{
	struct want all[nw + nextra];
	int n = nw;

	memcpy(all, w, nw * sizeof(*w));
	for (int i = 0; i < nextra; i++)
		if (extra[i].kind == BTF_KIND_TYPEDEF || extra[i].kind == BTF_KIND_FUNC)
			all[n++] = (struct want){ extra[i].name, extra[i].kind == BTF_KIND_FUNC ?
						  WANT_FUNC : WANT_TYPEDEF, -1 };
	find_wanted(btf, all, n);
	memcpy(w, all, nw * sizeof(*w));
	for (int i = 0, j = nw; i < nextra; i++)
		if (extra[i].kind == BTF_KIND_TYPEDEF || extra[i].kind == BTF_KIND_FUNC)
			extra[i].id = all[j++].got;
}

/* Parameters of a raw tracepoint, from its btf_trace_<tp> typedef @id (a
 * pointer to a prototype whose first parameter is the context), -1 if
 * absent. */
static int tp_params(const struct btf *btf, int64_t id)
{
	const struct btf_type *t;

	if (id < 0)
		return -1;
	t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);	/* PTR */
	if (!t || !btf_is_ptr(t))
		return -1;
	t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_func_proto(t))
		return -1;
	return btf_vlen(t) - 1;
}

/* 1 << @bit, 0 if there is no such bit. */
static uint64_t flag_of(int64_t bit)
{
	return bit >= 0 && bit < 64 ? 1ULL << bit : 0;
}

/* CONFIG_HZ from the kernel's config where libbpf would look for it
 * (/boot/config-RELEASE, /proc/config.gz); 0 if there is none. */
static unsigned kconfig_hz(const char *release)
{
	char path[128], line[256];
	unsigned hz = 0;
	gzFile f;

	snprintf(path, sizeof(path), "/boot/config-%s", release);
	f = gzopen(path, "r");	/* reads plain files too */
	if (!f)
		f = gzopen("/proc/config.gz", "r");
	if (!f)
		return 0;
	while (gzgets(f, line, sizeof(line)))
		if (!strncmp(line, "CONFIG_HZ=", 10)) {
			hz = strtoul(line + 10, NULL, 10);
			break;
		}
	gzclose(f);
	return hz;
}

int kernel_probe_keep(struct uc_kernel *k, struct btf **keep, char *err, size_t errlen)
{
	return kernel_probe_from(k, NULL, keep, NULL, 0, err, errlen);
}

int kernel_probe_from(struct uc_kernel *k, struct btf *parsed, struct btf **keep,
		      struct kernel_btf_name *extra, int nextra, char *err, size_t errlen)
{
	enum {
		W_TP_SUBMIT_REQ, W_TP_SUBMIT_SQE, W_TP_COMPLETE, W_TP_CQE_OVERFLOW,
		W_TP_POLL_ARM, W_TP_ASYNC_WORK, W_TP_CQRING_WAIT, W_TP_EXIT,
		W_VMA_ITER, W_RDONLY_CAST, W_IO_KIOCB, W_IO_RING_CTX, W_BPF_LOOP,
		W_REISSUE, W_BUFFER_SELECTED, W_BUFFER_RING, W_BUFFERS_COMMIT,
		W_IOBL_BUF_RING, W_IOBL_INC, W_COUNT
	};
	struct want w[W_COUNT] = {
		[W_TP_SUBMIT_REQ] = { "btf_trace_io_uring_submit_req", WANT_TYPEDEF },
		[W_TP_SUBMIT_SQE] = { "btf_trace_io_uring_submit_sqe", WANT_TYPEDEF },
		[W_TP_COMPLETE] = { "btf_trace_io_uring_complete", WANT_TYPEDEF },
		[W_TP_CQE_OVERFLOW] = { "btf_trace_io_uring_cqe_overflow", WANT_TYPEDEF },
		[W_TP_POLL_ARM] = { "btf_trace_io_uring_poll_arm", WANT_TYPEDEF },
		[W_TP_ASYNC_WORK] = { "btf_trace_io_uring_queue_async_work", WANT_TYPEDEF },
		[W_TP_CQRING_WAIT] = { "btf_trace_io_uring_cqring_wait", WANT_TYPEDEF },
		[W_TP_EXIT] = { "btf_trace_sched_process_exit", WANT_TYPEDEF },
		[W_VMA_ITER] = { "bpf_iter_task_vma_new", WANT_FUNC },
		[W_RDONLY_CAST] = { "bpf_rdonly_cast", WANT_FUNC },
		[W_IO_KIOCB] = { "io_kiocb", WANT_STRUCT },
		[W_IO_RING_CTX] = { "io_ring_ctx", WANT_STRUCT },
		[W_BPF_LOOP] = { "BPF_FUNC_loop", WANT_ENUMERATOR },
		[W_REISSUE] = { "REQ_F_REISSUE_BIT", WANT_ENUMERATOR },
		[W_BUFFER_SELECTED] = { "REQ_F_BUFFER_SELECTED_BIT", WANT_ENUMERATOR },
		[W_BUFFER_RING] = { "REQ_F_BUFFER_RING_BIT", WANT_ENUMERATOR },
		[W_BUFFERS_COMMIT] = { "REQ_F_BUFFERS_COMMIT_BIT", WANT_ENUMERATOR },
		[W_IOBL_BUF_RING] = { "IOBL_BUF_RING", WANT_ENUMERATOR },
		[W_IOBL_INC] = { "IOBL_INC", WANT_ENUMERATOR },
	};
	struct utsname u;
	struct btf *btf;
	int n;

	memset(k, 0, sizeof(*k));
	if (keep)
		*keep = NULL;
	if (!uname(&u))
		snprintf(k->release, sizeof(k->release), "%s", u.release);
	if (!parsed && access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(err, errlen, "kernel %s has no BTF (/sys/kernel/btf/vmlinux): "
			 "uringcheck needs CONFIG_DEBUG_INFO_BTF=y", k->release);
		return -1;
	}
	k->hz = kconfig_hz(k->release);
	btf = parsed ? parsed : kernel_btf_read();
	if (!btf) {
		snprintf(err, errlen, "cannot read the kernel's BTF "
			 "(/sys/kernel/btf/vmlinux): %s", strerror(errno));
		return -1;
	}
	k->btf = true;
	find_all(btf, w, W_COUNT, extra, nextra);
	/* v6.4 renamed io_uring_submit_sqe(req, force_nonblock) to
	 * io_uring_submit_req(req). */
	k->tp_submit_req = tp_params(btf, w[W_TP_SUBMIT_REQ].got) == 1;
	k->tp_submit_sqe = !k->tp_submit_req && tp_params(btf, w[W_TP_SUBMIT_SQE].got) == 2;
	/* v6.13 reduced io_uring_complete to (ctx, req, cqe); before, the
	 * CQE's fields were arguments of their own. 5.10 has no req. */
	n = tp_params(btf, w[W_TP_COMPLETE].got);
	k->tp_complete_req = n == 3;
	k->tp_complete_fields = n == 7;
	k->tp_cqe_overflow = tp_params(btf, w[W_TP_CQE_OVERFLOW].got) == 5;
	/* v5.19 (ab1c84d855cf and its series) passed the request itself to
	 * poll_arm and queue_async_work; before, ctx and fields (the
	 * profile's path attribution needs the request). */
	k->tp_poll_arm_req = tp_params(btf, w[W_TP_POLL_ARM].got) == 3;
	k->tp_async_work_req = tp_params(btf, w[W_TP_ASYNC_WORK].got) == 2;
	k->tp_cqring_wait = tp_params(btf, w[W_TP_CQRING_WAIT].got) == 2;
	/* v6.16 added group_dead to sched_process_exit. */
	n = tp_params(btf, w[W_TP_EXIT].got);
	k->tp_exit_group_dead = n == 2;
	k->tp_exit_plain = n == 1;
	/* v6.7: the task-VMA iterator kfuncs (the mappings sent at ring
	 * creation; without them user space reads /proc/PID/maps). */
	k->task_vma_iter = w[W_VMA_ITER].got > 0;
	/* bpf_rdonly_cast (v6.2): pointers read from a tracepoint's
	 * arguments without the verifier's trust lookups. */
	if (w[W_RDONLY_CAST].got > 0) {
		k->btf_id_io_kiocb = w[W_IO_KIOCB].got > 0 ? (uint32_t)w[W_IO_KIOCB].got : 0;
		k->btf_id_io_ring_ctx = w[W_IO_RING_CTX].got > 0 ?
					(uint32_t)w[W_IO_RING_CTX].got : 0;
	}
	/* bpf_loop (v5.17): the list and table walks. */
	k->bpf_loop = w[W_BPF_LOOP].got > 0;
	/* REQ_F_* live in an anonymous enum: CO-RE cannot relocate them. */
	k->reissue_flag = flag_of(w[W_REISSUE].got);
	/* Provided buffers: whether a request holds one now, and which kind
	 * of group it came from (bpf/provided_buffers.bpf.h). IOBL_* appeared
	 * with the group flags (6.10-6.12); 6.1 tells ring groups by their
	 * pinned pages instead. */
	k->buffer_selected_flag = flag_of(w[W_BUFFER_SELECTED].got);
	k->buffer_ring_flag = flag_of(w[W_BUFFER_RING].got);
	/* A ring buffer picked but not yet taken from the ring, which a
	 * request that has to wait gives back (in 6.12's BTF, not 6.1's). */
	k->buffers_commit_flag = flag_of(w[W_BUFFERS_COMMIT].got);
	k->iobl_buf_ring = w[W_IOBL_BUF_RING].got > 0 ? w[W_IOBL_BUF_RING].got : 0;
	k->iobl_inc = w[W_IOBL_INC].got > 0 ? w[W_IOBL_INC].got : 0;
	if (keep)
		*keep = btf;
	else
		btf__free(btf);

	return kernel_probe_verdict(k, err, errlen);
}

int kernel_probe(struct uc_kernel *k, char *err, size_t errlen)
{
	return kernel_probe_keep(k, NULL, err, errlen);
}

/* 0 if the kernel has what the programs need, else -1 and one line
 * naming every missing piece. */
int kernel_probe_verdict(struct uc_kernel *k, char *err, size_t errlen)
{
	if ((!k->tp_submit_req && !k->tp_submit_sqe) ||
	    (!k->tp_complete_req && !k->tp_complete_fields) || !k->tp_cqe_overflow ||
	    (!k->tp_exit_group_dead && !k->tp_exit_plain) || !k->bpf_loop) {
		/* Every missing piece, in one line. */
		char miss[256] = "";

		if (!k->tp_submit_req && !k->tp_submit_sqe)
			strcat(miss, ", the submit tracepoint with the request (v5.18+)");
		if (!k->tp_complete_req && !k->tp_complete_fields)
			strcat(miss, ", io_uring_complete with the request (v5.19+)");
		if (!k->tp_cqe_overflow)
			strcat(miss, ", io_uring_cqe_overflow (v6.0+)");
		if (!k->bpf_loop)
			strcat(miss, ", the bpf_loop helper (v5.17+)");
		if (!k->tp_exit_group_dead && !k->tp_exit_plain)
			strcat(miss, ", sched_process_exit");
		snprintf(err, errlen, "kernel %s lacks what uringcheck needs: %s; "
			 "supported: 6.1 and later (run --version for details)",
			 k->release, miss + 2);
		return -1;
	}
	return 0;
}

void kernel_print(const struct uc_kernel *k, FILE *out)
{
	fprintf(out, "kernel %s, BTF %s\n", k->release, k->btf ? "yes" : "no");
	fprintf(out, "tier: %s\n", kernel_tier(k));
	fprintf(out, "  submit hook      %s\n", k->tp_submit_req ?
		"io_uring_submit_req(req) (v6.4+)" : k->tp_submit_sqe ?
		"io_uring_submit_sqe(req, force_nonblock) (before v6.4)" : "missing");
	fprintf(out, "  completion hook  %s\n", k->tp_complete_req ?
		"io_uring_complete(ctx, req, cqe) (v6.13+)" : k->tp_complete_fields ?
		"io_uring_complete(ctx, req, user_data, res, cflags, ...) (before v6.13)" :
		"missing (no request: before v5.19)");
	fprintf(out, "  overflow hook    %s\n", k->tp_cqe_overflow ?
		"io_uring_cqe_overflow" : "missing");
	fprintf(out, "  exit hook        %s\n", k->tp_exit_group_dead ?
		"sched_process_exit(p, group_dead) (v6.16+)" : k->tp_exit_plain ?
		"sched_process_exit(p), group_dead from signal->live (before v6.16)" :
		"missing");
	if (!strcmp(kernel_tier(k), "unsupported")) {
		char why[256];
		struct uc_kernel copy = *k;

		/* The probe's own sentence says what is missing. */
		kernel_probe_verdict(&copy, why, sizeof(why));
		fprintf(out, "  nothing active: %s\n", why);
		return;
	}
	fprintf(out, "  hazards         ");
	uc_kinds_print(out);
	fprintf(out, ": active\n");
	fprintf(out, "  stacks           active; mappings sent by BPF at ring creation: %s\n",
		k->task_vma_iter ? "yes (task-VMA iterator, v6.7+)" :
		"no (before v6.7: read from /proc/PID/maps, so a target that exits at "
		"once may lose names)");
	fprintf(out, "  reap-lag sampler active (perf cpu-clock), timed %s; "
		"--liburing-uprobes available\n", k->hz ?
		"in jiffies for thresholds of 10 ticks or more" :
		"with the precise clock (no kernel config found for CONFIG_HZ)");
	fprintf(out, "  shared programs  active (/run/uringcheck; --no-share: private)\n");
	fprintf(out, "  REQ_F_REISSUE    %s\n",
		k->reissue_flag ? "found" : "not found (io-wq reissues end early)");
	fprintf(out, "  sync loads       %s\n", kernel_judges_loads(k) ?
		"judged (write, send from a read's buffer; a waiting read's channel "
		"from io_uring_poll_arm/queue_async_work)" :
		"not judged (the wait tracepoints do not take the request)");
	fprintf(out, "  heap releases    glibc malloc's free/realloc (uprobes on the target's "
		"libc.so.6); not judged: static binaries, other allocators (jemalloc, "
		"tcmalloc, ...), custom pools\n");
	fprintf(out, "  provided buffers %s\n",
		!k->buffer_selected_flag || !k->buffer_ring_flag ?
		"judged at their CQEs only (REQ_F_BUFFER_* not found)" :
		k->iobl_buf_ring ? "judged at their CQEs and while held" :
		"judged at their CQEs and while held (ring entries on the "
		"ring's first page only: no group flags, so a 6.1-era kernel whose "
		"ring pages are mapped one by one)");
	fprintf(out, "  profile          active (--profile, -p, -a); request paths %s; "
		"cqring waits %s\n",
		k->tp_poll_arm_req && k->tp_async_work_req ?
		"attributed (poll_arm, queue_async_work take the request, v5.19+)" :
		"not attributed (tracepoints without the request)",
		k->tp_cqring_wait ? "counted" : "not counted");
}

bool kernel_judges_loads(const struct uc_kernel *k)
{
	return k->tp_poll_arm_req && k->tp_async_work_req;
}

const char *kernel_tier(const struct uc_kernel *k)
{
	if (!k->btf || !k->bpf_loop || (!k->tp_submit_req && !k->tp_submit_sqe) ||
	    (!k->tp_complete_req && !k->tp_complete_fields) || !k->tp_cqe_overflow)
		return "unsupported";
	if (!k->task_vma_iter)
		return "full check mode (stack mappings from /proc)";
	return "full check mode";
}
