// SPDX-License-Identifier: GPL-2.0
/*
 * The floor for make bench: programs that do nothing, on the hooks every
 * mode of uringcheck pays for per request (io_uring_submit_req and
 * io_uring_complete). What they cost is what attaching alone costs; a
 * mode's own work is what it adds above them.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(floor_submit, struct io_kiocb *req)
{
	return 0;
}

SEC("tp_btf/io_uring_complete")
int BPF_PROG(floor_complete, void *ring, void *req, struct io_uring_cqe *cqe)
{
	return 0;
}
