// SPDX-License-Identifier: GPL-2.0
/*
 * Empty programs on the tracepoints whose sites 7.3's guest kernel died
 * at in the soak (issue #30: sys_enter, sys_exit, sched_switch), for
 * testsuite/kernels/toggle.c: attaching the first program to a
 * tracepoint and detaching the last one flips its static branch, which
 * rewrites kernel text. No uringcheck code is involved.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tp_btf/sys_enter")
int BPF_PROG(toggle_sys_enter, struct pt_regs *regs, long id)
{
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(toggle_sys_exit, struct pt_regs *regs, long ret)
{
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(toggle_sched_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	return 0;
}
