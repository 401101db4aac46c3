/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A per-process uprobe program in its two attach forms, one body:
 *
 *   NAME        attached through a uprobe perf event per probed function
 *               (every kernel): the event's last close unregisters it and
 *               waits for grace periods under the kernel's trace-event
 *               mutex, 100-300 ms a probe, one after the other, and the
 *               next run's attach waits on the same mutex;
 *   NAME_multi  attached through one uprobe_multi BPF link per process
 *               and direction (v6.12+, where a link's release waits for
 *               one grace period, under no shared mutex).
 *
 * load/variants.def loads one of the two; load.c gives the second its
 * attach type (libbpf 1.1 knows no "uprobe.multi" section);
 * checker/uprobe_events.c attaches whichever was loaded. The context is
 * the probed thread's registers either way, and the attach cookie is the
 * one given for that function.
 */
#ifndef __UPROBE_FORMS_BPF_H
#define __UPROBE_FORMS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#define UPROBE_PROGRAM(name)							\
	static __always_inline int name##_body(struct pt_regs *ctx);		\
	SEC("uprobe") int name(struct pt_regs *ctx) { return name##_body(ctx); }	\
	SEC("uprobe") int name##_multi(struct pt_regs *ctx) { return name##_body(ctx); } \
	static __always_inline int name##_body(struct pt_regs *ctx)

#endif /* __UPROBE_FORMS_BPF_H */
