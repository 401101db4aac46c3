/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Preemption off for the programs the kernel runs preemptibly: uprobes
 * (the probed thread, migration disabled only) and, on kernels whose
 * system-call tracepoints may fault, sys_enter and sys_exit.
 *
 * Why: every object keeps its scratch per CPU (a record being built, a
 * stack being captured or compared, a pointer made a number). A kernel
 * that preempts (PREEMPT_LAZY: Debian's 7.x; full preemption) can switch
 * to another task between two steps of such a program, and that task's
 * programs then write the same scratch.
 *
 * What it does not do: the kernel marks a program running on a CPU
 * (its recursion guard) before the program's first instruction and
 * clears it after the last, and can preempt there too. The runs it then
 * skips (hook_runs_skipped, docs/lost-events.md) were as many with this
 * guard as without it on 7.2: every one was uc_sys_enter's or
 * uc_sys_exit's.
 *
 * bpf_preempt_disable() is v6.10. Before it nothing is done (the kernels
 * of that age that Debian ships preempt voluntarily only, and a run is
 * not preempted there). The branch is on a constant set at load
 * (load/features.def, preempt_kfuncs), so the verifier drops the calls
 * where the kfuncs are missing.
 */
#ifndef __PREEMPT_GUARD_BPF_H
#define __PREEMPT_GUARD_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

extern void bpf_preempt_disable(void) __ksym __weak;
extern void bpf_preempt_enable(void) __ksym __weak;

/* the kernel has both kfuncs (set by each mode's configure step) */
const volatile bool preempt_kfuncs = false;

static __always_inline void preempt_off(void)
{
	if (preempt_kfuncs)
		bpf_preempt_disable();
}

static __always_inline void preempt_on(void)
{
	if (preempt_kfuncs)
		bpf_preempt_enable();
}

/*
 * A tp_btf program of two arguments whose body runs with preemption off:
 *
 *   PREEMPT_OFF_TP_BTF(sys_enter, uc_sys_enter, struct pt_regs *, regs, long, id)
 *   {
 *           ... (ctx, regs and id in scope; return as in any program)
 *   }
 */
#define PREEMPT_OFF_TP_BTF(tp, name, t1, a1, t2, a2)				\
	static __always_inline int name##_body(unsigned long long *ctx, t1 a1, t2 a2); \
	SEC("tp_btf/" #tp)							\
	int BPF_PROG(name, t1 a1, t2 a2)					\
	{									\
		int ret_;							\
										\
		preempt_off();							\
		ret_ = name##_body(ctx, a1, a2);					\
		preempt_on();							\
		return ret_;							\
	}									\
	static __always_inline int name##_body(unsigned long long *ctx, t1 a1, t2 a2)

#endif /* __PREEMPT_GUARD_BPF_H */
