// SPDX-License-Identifier: GPL-2.0
#include "snapshot.h"

#include <stdio.h>
#include <stdlib.h>

#include "opcode_names.h"
#include <string.h>

/* Every counter of the two stats structs is a __u64 (bpf/profile.h), so
 * they add up as arrays; only the maxima are not sums. */
#define NWORDS(T) (sizeof(T) / sizeof(uint64_t))

static void add_words(uint64_t *to, const uint64_t *from, size_t n, int sign)
{
	for (size_t i = 0; i < n; i++)
		to[i] += sign > 0 ? from[i] : -from[i];
}

void pf_op_total(const struct pf_snapshot *s, int ring, unsigned op,
		 struct pf_op_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (uint32_t r = 0; r < s->nrings; r++) {
		const struct pf_op_stats *o = &s->rings[r].ops[op];

		if (ring >= 0 && (uint32_t)ring != r)
			continue;
		add_words((uint64_t *)out, (const uint64_t *)o, NWORDS(*o), 1);
		out->lat_max_ns -= o->lat_max_ns;
		if (o->lat_max_ns > out->lat_max_ns)
			out->lat_max_ns = o->lat_max_ns;
	}
}

/* rows by ring serial (the folded row's is 0: never searched for) */
static int by_serial(const void *a, const void *b)
{
	const struct pf_ring_view *x = *(const struct pf_ring_view *const *)a;
	const struct pf_ring_view *y = *(const struct pf_ring_view *const *)b;

	return x->meta.serial < y->meta.serial ? -1 : x->meta.serial > y->meta.serial;
}

static void sub_ring(struct pf_ring_view *o, const struct pf_ring_view *b)
{
	add_words((uint64_t *)&o->st, (const uint64_t *)&b->st, NWORDS(o->st), -1);
	for (int op = 0; op < PF_MAX_OPS; op++) {
		uint64_t max = o->ops[op].lat_max_ns;

		add_words((uint64_t *)&o->ops[op], (const uint64_t *)&b->ops[op],
			  NWORDS(o->ops[op]), -1);
		o->ops[op].lat_max_ns = max;
	}
}

/* Rings are matched by their serial, not their slot: a slot is reused
 * once its ring has closed, and a closed ring moves to a retired row. A
 * ring of @before that is in no row of @after was added into the folded
 * row since: its part there is @before's. */
int pf_snapshot_delta(const struct pf_snapshot *after, const struct pf_snapshot *before,
		      struct pf_snapshot *out)
{
	const struct pf_ring_view **idx;
	bool *used;
	struct pf_ring_view *folded = NULL;

	memset(out, 0, sizeof(*out));
	out->ts_ns = after->ts_ns;
	out->nrings = after->nrings;
	out->rings = malloc(sizeof(*out->rings) * (after->nrings ? after->nrings : 1));
	idx = malloc(sizeof(*idx) * (before->nrings ? before->nrings : 1));
	used = calloc(before->nrings ? before->nrings : 1, sizeof(*used));
	if (!out->rings || !idx || !used) {
		free(idx);
		free(used);
		free(out->rings);
		out->rings = NULL;
		return -1;
	}
	memcpy(out->rings, after->rings, sizeof(*out->rings) * after->nrings);
	for (uint32_t r = 0; r < before->nrings; r++)
		idx[r] = &before->rings[r];
	qsort(idx, before->nrings, sizeof(*idx), by_serial);
	for (uint32_t r = 0; r < after->nrings; r++) {
		struct pf_ring_view *o = &out->rings[r];
		struct pf_ring_view key = { .meta.serial = o->meta.serial }, *kp = &key;
		const struct pf_ring_view **hit;

		if (o->meta.fd == PF_FD_FOLDED) {
			folded = o;
			for (uint32_t b = 0; b < before->nrings; b++)
				if (before->rings[b].meta.fd == PF_FD_FOLDED) {
					sub_ring(o, &before->rings[b]);
					used[&before->rings[b] - before->rings] = true;
				}
			continue;
		}
		hit = bsearch(&kp, idx, before->nrings, sizeof(*idx), by_serial);
		if (!hit)
			continue;	/* new in this interval */
		sub_ring(o, *hit);
		used[*hit - before->rings] = true;
	}
	if (folded)
		for (uint32_t b = 0; b < before->nrings; b++)
			if (!used[b] && before->rings[b].meta.fd != PF_FD_FOLDED)
				sub_ring(folded, &before->rings[b]);
	free(idx);
	free(used);
	for (int i = 0; i < PF_STAT__COUNT; i++)
		out->stats[i] = after->stats[i] - before->stats[i];
	return 0;
}

static void *dup_array(const void *p, size_t n, size_t size)
{
	void *c = malloc(n ? n * size : 1);

	if (c && n)
		memcpy(c, p, n * size);
	return c;
}

int pf_snapshot_copy(struct pf_snapshot *to, const struct pf_snapshot *from)
{
	*to = *from;
	to->rings = dup_array(from->rings, from->nrings, sizeof(*from->rings));
	to->errs = dup_array(from->errs, from->nerrs, sizeof(*from->errs));
	to->procs = dup_array(from->procs, from->nprocs, sizeof(*from->procs));
	if (!to->rings || !to->errs || !to->procs) {
		pf_snapshot_free(to);
		return -1;
	}
	return 0;
}

void pf_snapshot_free(struct pf_snapshot *s)
{
	free(s->rings);
	free(s->errs);
	free(s->procs);
	memset(s, 0, sizeof(*s));
}

double pf_hist_quantile(const __u64 *hist, int nb, double q)
{
	__u64 total = 0, seen = 0;

	for (int b = 0; b < nb; b++)
		total += hist[b];
	if (!total)
		return 0;
	double want = q * (double)total;

	for (int b = 0; b < nb; b++) {
		if (!hist[b])
			continue;
		if (seen + hist[b] >= want) {
			double lo = b ? (double)(1ull << b) : 0, w = b ? lo : 1;

			return lo + w * (want - seen) / hist[b];
		}
		seen += hist[b];
	}
	return (double)(1ull << (nb - 1));
}

const char *pf_opname(unsigned op, char buf[16])
{
	char tmp[16];

	snprintf(buf, 16, "%s", uc_opcode_name(op < 256 ? op : 255, tmp));
	return buf;
}

double pf_op_quantile(const struct pf_op_stats *t, double q)
{
	double v = pf_hist_quantile(t->lat_hist, PF_LAT_BUCKETS, q);

	return v > (double)t->lat_max_ns ? (double)t->lat_max_ns : v;
}

const char *pf_dur(double ns, char *buf, size_t len, bool spaced)
{
	const char *sp = spaced ? " " : "";

	if (ns <= 0)
		snprintf(buf, len, "-");
	else if (ns < 1e3)
		snprintf(buf, len, "%.0f%sns", ns, sp);
	else if (ns < 1e6)
		snprintf(buf, len, "%.1f%sus", ns / 1e3, sp);
	else if (ns < 1e9)
		snprintf(buf, len, "%.1f%sms", ns / 1e6, sp);
	else
		snprintf(buf, len, "%.2f%ss", ns / 1e9, sp);
	return buf;
}
