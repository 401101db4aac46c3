// SPDX-License-Identifier: GPL-2.0
/* Learned copy bounds per call site: stack_bounds.h says what and why. */
#include "stack_bounds.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "../reports/dedup.h"
#include "../symbolize/unwind.h"
#include "../symbolize/unwind_deciders.h"
#include "xalloc.h"

_Static_assert(UC_DECIDER_WORDS == UC_SITE_WORDS, "the kernel's table holds every decider");

struct bound_site {
	struct uc_stack_bound_key key;
	bool installed;
	uint64_t id;			/* its kept capture's, 0: none */
	unsigned misses;		/* captures since its last reuse */
	bool learned;			/* false: seen once, not unwound */
};

/* A process's sites, to forget them at its exec or exit. */
struct bound_proc {
	uint64_t *hashes;
	size_t n, cap;
};

static uint64_t site_hash(uint32_t tgid, uint64_t ip, uint64_t sp)
{
	uint64_t h = uc_key_mix(uc_key_mix(uc_key_mix(0x626e6473, tgid), ip), sp);

	return h ? h : 1;
}

void stack_bounds_init(struct uc_stack_bounds *b)
{
	uint32_t nonce = 0;

	memset(b, 0, sizeof(*b));
	u64map_init(&b->sites);
	u64map_init(&b->by_tgid);
	/* Site ids of this instance only: an instance killed before it
	 * removed its sites leaves them in the shared table, and one that
	 * takes over its session slot must not read its ids as its own. */
	if (getrandom(&nonce, sizeof(nonce), GRND_NONBLOCK) != sizeof(nonce))
		nonce = (uint32_t)getpid() * 2654435761u ^ (uint32_t)time(NULL);
	b->next_site = (uint64_t)(nonce & 0x3fffffff) << 32;
}

void stack_bounds_attach(struct uc_stack_bounds *b, uc_bound_install_fn fn, void *ctx,
			 uint32_t session)
{
	b->install = fn;
	b->ctx = ctx;
	b->session = session;
}

static void site_drop(struct uc_stack_bounds *b, uint64_t h)
{
	struct bound_site *s = u64map_del(&b->sites, h);

	if (!s)
		return;
	if (s->installed && b->install)
		b->install(b->ctx, &s->key, NULL);
	if (s->id && b->retire)
		b->retire(b->retire_ctx, s->id);
	free(s);
	b->nsites--;
}

/* A new site, not learned yet, in the process's list. */
static struct bound_site *site_add(struct uc_stack_bounds *b, uint32_t tgid, uint64_t ip,
				   uint64_t sp)
{
	uint64_t h = site_hash(tgid, ip, sp);
	struct bound_site *s = xcalloc(1, sizeof(*s));
	struct bound_proc *p;

	s->key = (struct uc_stack_bound_key){ .session = b->session, .tgid = tgid,
					      .ip = ip, .sp = sp };
	u64map_put(&b->sites, h, s);
	b->nsites++;
	p = u64map_get(&b->by_tgid, tgid);
	if (!p) {
		p = xcalloc(1, sizeof(*p));
		u64map_put(&b->by_tgid, tgid, p);
	}
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 8;
		p->hashes = xrealloc(p->hashes, p->cap * sizeof(*p->hashes));
	}
	p->hashes[p->n++] = h;
	return s;
}

bool stack_bounds_wanted(struct uc_stack_bounds *b, uint32_t tgid, uint64_t ip, uint64_t sp)
{
	struct bound_site *s;

	if (!b->install)
		return false;
	s = u64map_get(&b->sites, site_hash(tgid, ip, sp));
	if (s)
		return !s->learned;
	/* The first capture at a site is only noted: most sites of a short
	 * program are reached once, and a learning unwind costs the first
	 * unwind of a snapshot (its modules' CFI, a debug file) and one
	 * unwind per word for the deciders. */
	if (b->nsites < UC_BOUND_SITES_MAX)
		site_add(b, tgid, ip, sp);
	return false;
}

uint64_t stack_bounds_learn(struct uc_stack_bounds *b, uint32_t tgid, uint64_t ip,
			    uint64_t sp, uint32_t len, const struct uc_unwind_info *info,
			    const struct uc_deciders *dec, const uint64_t regs[8],
			    const void *stack, uint64_t exec_id)
{
	struct uc_stack_site site = { 0 };
	struct bound_site *s;
	uint64_t bound;

	s = u64map_get(&b->sites, site_hash(tgid, ip, sp));
	if (!b->install || !s || s->learned)
		return 0;
	/* Known from now on, bound or not: one learning unwind a site. */
	s->learned = true;
	/* Only an unwind that ended where the stack does shows what the
	 * site needs: then another chain reaching the same ip and sp ends
	 * at the same outermost frames (the top of its stack does not
	 * move). One that stopped at an error (a module not known yet, the
	 * copy too short) or at the 32 frames a report prints leaves the
	 * site copied whole: fewer, larger frames at the same sp would need
	 * more. */
	if (!info->outermost || info->ran_out)
		return 0;
	bound = (info->need + UC_BOUND_MARGIN + 63) & ~(uint64_t)63;
	/* Below the copy it learned from, which stopped at the stack's end:
	 * the kernel side then skips looking that end up (stacks.bpf.h). */
	if (bound < len)
		site.bound = (uint32_t)bound;
	if (dec && (dec->nwords || dec->regs) && dec->span <= len) {
		site.nwords = (uint16_t)dec->nwords;
		site.regmask = dec->regs;
		site.span = dec->span;
		site.exec_id = exec_id;
		site.id = UC_STACK_SITE_ID | ++b->next_site;
		memcpy(site.regs, regs, sizeof(site.regs));
		for (unsigned i = 0; i < dec->nwords; i++) {
			site.off[i] = dec->off[i];
			memcpy(&site.val[i], (const unsigned char *)stack + dec->off[i], 8);
		}
	}
	if ((!site.bound && !site.id) || b->install(b->ctx, &s->key, &site))
		return 0;
	s->installed = true;
	b->installed += site.bound != 0;
	b->with_deciders += site.id != 0;
	s->id = site.id;
	return site.id;
}

void stack_bounds_reused(struct uc_stack_bounds *b, uint32_t tgid, uint64_t ip, uint64_t sp)
{
	struct bound_site *s = u64map_get(&b->sites, site_hash(tgid, ip, sp));

	if (s)
		s->misses = 0;
}

void stack_bounds_missed(struct uc_stack_bounds *b, uint32_t tgid, uint64_t ip, uint64_t sp)
{
	uint64_t h = site_hash(tgid, ip, sp);
	struct bound_site *s = u64map_get(&b->sites, h);

	/* Another chain reaches the site more often than the kept one: the
	 * next capture (whole, the site's entry gone) is learned from. */
	if (s && s->id && ++s->misses >= UC_SITE_MISSES) {
		b->relearned++;
		site_drop(b, h);
	}
}

void stack_bounds_ran_off(struct uc_stack_bounds *b, uint32_t tgid, uint64_t ip, uint64_t sp)
{
	b->cut_short++;
	/* Whole copies again, and the next one is learned from. Its hash
	 * stays in the process's list: dropping a missing site is a no-op. */
	site_drop(b, site_hash(tgid, ip, sp));
}

static void proc_free(struct uc_stack_bounds *b, struct bound_proc *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++)
		site_drop(b, p->hashes[i]);
	free(p->hashes);
	free(p);
}

void stack_bounds_forget(struct uc_stack_bounds *b, uint32_t tgid)
{
	proc_free(b, u64map_del(&b->by_tgid, tgid));
}

static void collect_cb(uint64_t key, void *val, void *arg)
{
	uint64_t **out = arg;

	(void)val;
	*(*out)++ = key;
}

void stack_bounds_clear(struct uc_stack_bounds *b)
{
	uint64_t *tgids = xmalloc((b->by_tgid.count + 1) * sizeof(*tgids)), *end = tgids;

	u64map_each(&b->by_tgid, collect_cb, &end);
	for (uint64_t *t = tgids; t < end; t++)
		stack_bounds_forget(b, (uint32_t)*t);
	free(tgids);
	b->install = NULL;
}

void stack_bounds_free(struct uc_stack_bounds *b)
{
	stack_bounds_clear(b);
	u64map_free(&b->by_tgid);
	u64map_free(&b->sites);
}
