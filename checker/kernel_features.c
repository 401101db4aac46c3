// SPDX-License-Identifier: GPL-2.0
#include "kernel_features.h"

#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "btf_scan.h"

int kernel_probe(struct uc_kernel *k, char *err, size_t errlen)
{
	struct utsname u;
	struct btf_scan *btf;
	int64_t bit;

	memset(k, 0, sizeof(*k));
	if (!uname(&u))
		snprintf(k->release, sizeof(k->release), "%s", u.release);
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(err, errlen, "kernel %s has no BTF (/sys/kernel/btf/vmlinux): "
			 "uringcheck needs CONFIG_DEBUG_INFO_BTF=y", k->release);
		return -1;
	}
	btf = btf_scan_open("/sys/kernel/btf/vmlinux");
	if (!btf) {
		snprintf(err, errlen, "cannot read the kernel's BTF "
			 "(/sys/kernel/btf/vmlinux)");
		return -1;
	}
	k->btf = true;
	k->tp_submit_req = btf_scan_tp_params(btf, "io_uring_submit_req") == 1;
	k->tp_complete_req = btf_scan_tp_params(btf, "io_uring_complete") == 3;
	k->tp_cqe_overflow = btf_scan_tp_params(btf, "io_uring_cqe_overflow") == 5;
	k->tp_cqring_wait = btf_scan_tp_params(btf, "io_uring_cqring_wait") == 2;
	k->tp_exit_group_dead = btf_scan_tp_params(btf, "sched_process_exit") == 2;
	/* REQ_F_* live in an anonymous enum: CO-RE cannot relocate them. */
	if (btf_scan_enum_value(btf, "REQ_F_REISSUE_BIT", &bit) && bit >= 0 && bit < 64)
		k->reissue_flag = 1ULL << bit;
	btf_scan_close(btf);

	if (!k->tp_submit_req || !k->tp_complete_req || !k->tp_cqe_overflow ||
	    !k->tp_cqring_wait || !k->tp_exit_group_dead) {
		snprintf(err, errlen, "kernel %s lacks a hook uringcheck needs "
			 "(%s); supported: 6.18 and later (run --version for "
			 "details)", k->release,
			 !k->tp_submit_req ? "tracepoint io_uring_submit_req(req)" :
			 !k->tp_complete_req ? "tracepoint io_uring_complete(ctx, req, cqe)" :
			 !k->tp_cqe_overflow ? "tracepoint io_uring_cqe_overflow" :
			 !k->tp_cqring_wait ? "tracepoint io_uring_cqring_wait" :
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
	fprintf(out, "  tp_btf io_uring_cqe_overflow           %s\n", YN(k->tp_cqe_overflow));
	fprintf(out, "  tp_btf io_uring_cqring_wait            %s\n", YN(k->tp_cqring_wait));
	fprintf(out, "  tp_btf sched_process_exit(p,group_dead) %s\n", YN(k->tp_exit_group_dead));
	fprintf(out, "  REQ_F_REISSUE                          %s\n",
		k->reissue_flag ? "found" : "not found (io-wq reissues end early)");
#undef YN
}
