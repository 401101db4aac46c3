/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One reading of the profile's kernel tables (bpf/profile.h), summed over
 * CPUs: what the report, the doctor, the live view and /metrics all work
 * from. A difference of two readings is an interval.
 */
#ifndef UC_PF_SNAPSHOT_H
#define UC_PF_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "profile.h"

/* Closed rings kept one by one in the report; later ones are added into
 * one row (meta.fd PF_FD_FOLDED, slot PF_FOLDED_SLOT) so a machine that
 * opens rings by the thousand (-a) costs bounded memory. */
#define PF_RETIRED_MAX		256
/* view slots of closed rings: past any kernel slot (< 0xfffe) */
#define PF_RETIRED_SLOT		0x10000u
#define PF_FOLDED_SLOT		(PF_RETIRED_SLOT + PF_RETIRED_MAX)
#define PF_FD_FOLDED		(-2)

struct pf_ring_view {
	uint32_t slot;			/* the kernel's slot, or a closed ring's row
					 * (PF_RETIRED_SLOT + i, profile_session.h) */
	struct pf_ring_meta meta;
	struct pf_ring_stats st;
	struct pf_op_stats ops[PF_MAX_OPS];
};

struct pf_errno_view {
	uint32_t ring;			/* its ring's pf_ring_view.slot */
	uint8_t opcode;
	int32_t err;			/* positive errno */
	uint64_t n;
};

struct pf_proc_view {
	uint32_t tgid;
	char comm[16];
	struct pf_proc p;
};

struct pf_snapshot {
	uint64_t ts_ns;			/* CLOCK_MONOTONIC of the reading */
	uint32_t nrings;
	struct pf_ring_view *rings;
	size_t nerrs;
	struct pf_errno_view *errs;
	size_t nprocs;
	struct pf_proc_view *procs;
	uint64_t stats[PF_STAT__COUNT];
	uint64_t folded_rings;		/* closed rings in the folded row */
};

/* Totals of one opcode over rings (all rings: ring < 0). */
void pf_op_total(const struct pf_snapshot *s, int ring, unsigned op,
		 struct pf_op_stats *out);
/* @after minus @before, ring by ring (same slots); maxima from @after. */
int pf_snapshot_delta(const struct pf_snapshot *after, const struct pf_snapshot *before,
		      struct pf_snapshot *out);
int pf_snapshot_copy(struct pf_snapshot *to, const struct pf_snapshot *from);
void pf_snapshot_free(struct pf_snapshot *s);

/* Latency quantile of one opcode's timed requests, never above the
 * largest seen (a bucket's upper part may lie beyond it). */
double pf_op_quantile(const struct pf_op_stats *t, double q);

/* A duration for people: "-", "850ns", "12.3us", "4.1ms", "1.20s" (with
 * a space before the unit if @spaced). */
const char *pf_dur(double ns, char *buf, size_t len, bool spaced);

/* The opcode's name ("READ") written into @buf, which is returned. */
const char *pf_opname(unsigned op, char buf[16]);

/* Latency at quantile @q (0..1) of a log2 histogram, in ns: linear within
 * the bucket, so within a factor of two; 0 if empty. */
double pf_hist_quantile(const __u64 *hist, int nb, double q);

#endif
