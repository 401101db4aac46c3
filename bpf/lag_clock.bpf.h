/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The clock reap lag is timed with. It is read for every CQE posted, and
 * a precise clock read is ~20 ns there; a threshold of tens of
 * milliseconds does not need better than a scheduler tick, so with a
 * threshold of at least 10 ticks it is jiffies (a memory read). The tick
 * rate is set by user space from the kernel's config when it can find
 * one (not a libbpf __kconfig extern: without /boot/config-* or
 * /proc/config.gz, as in containers and initramfs images, that made the
 * whole load fail); 0, or a short threshold: the precise clock.
 */
#ifndef __LAG_CLOCK_BPF_H
#define __LAG_CLOCK_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

/* Set by user space before load. */
const volatile __u64 hz = 0;

static __always_inline __u64 lag_clock(__u64 threshold)
{
	if (hz && threshold >= 10 * (1000000000ULL / hz))
		return bpf_jiffies64() * (1000000000ULL / hz);
	return bpf_ktime_get_ns();
}

#endif /* __LAG_CLOCK_BPF_H */
