// SPDX-License-Identifier: GPL-2.0
#include "stacks.h"

#include <linux/types.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "../symbolize/print_stack.h"
#include "../symbolize/proc_maps.h"
#include "../symbolize/symbolize.h"
#include "../reports/suppressions.h"
#include "../symbolize/unwind.h"
#include "../symbolize/unwind_deciders.h"
#include "uringcheck.h"
#include "xalloc.h"
#include "../reports/dedup.h"

struct uc_capture {
	uint32_t tgid;
	int refs;
	struct uc_user_regs regs;
	uint32_t len;
	unsigned char *data;
	struct uc_maps *maps;		/* a reference, may be NULL */
	uint64_t site_key;		/* stacks_site_key, once computed */
	bool site_known;
	uint64_t id;
	uint64_t exec_id;		/* the process image it was taken in */
	bool in_store;			/* bytes not copied yet (materialize) */
	bool cut;			/* copy stopped at a learned bound */
};

/* Mappings the BPF side sent for a process, until its next stack. */
struct pending_maps {
	struct uc_map_record *rec;
	size_t n;
};

static void site_retire(void *ctx, uint64_t id);

void stacks_init(struct uc_stacks *s)
{
	memset(s, 0, sizeof(*s));
	u64map_init(&s->by_id);
	u64map_init(&s->pending_maps);
	u64map_init(&s->capture_maps);
	s->maps = uc_maps_cache_new();
	stack_bounds_init(&s->bounds);
	s->bounds.retire = site_retire;
	s->bounds.retire_ctx = s;
}

static void capture_free(struct uc_capture *c)
{
	if (!c)
		return;
	uc_maps_unref(c->maps);
	free(c->data);
	free(c);
}

static void free_cb(uint64_t key, void *val, void *arg)
{
	(void)key;
	(void)arg;
	capture_free(val);
}

static void pending_free(struct pending_maps *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++)
		free((char *)p->rec[i].path);
	free(p->rec);
	free(p);
}

static void free_pending_cb(uint64_t key, void *val, void *arg)
{
	(void)key;
	(void)arg;
	pending_free(val);
}

void stacks_free(struct uc_stacks *s)
{
	u64map_each(&s->by_id, free_cb, NULL);
	u64map_free(&s->by_id);
	u64map_each(&s->pending_maps, free_pending_cb, NULL);
	u64map_free(&s->pending_maps);
	u64map_each(&s->capture_maps, free_pending_cb, NULL);
	u64map_free(&s->capture_maps);
	free(s->lazy);
	stack_bounds_free(&s->bounds);
	uc_maps_cache_free(s->maps);
	uc_symbolize_forget_sessions();
}

/*
 * A mapping record: the whole set a process's first ring sends (v6.7+:
 * pending until its next stack, which adopts it), or one a capture sent
 * (before v6.7, UC_VMA_AT_CAPTURE: kept until the process exits, for
 * when /proc/PID/maps is gone; a later one at the same address, after an
 * exec, replaces it).
 */
void stacks_on_mapping(struct uc_stacks *s, const struct uc_vma_record *v)
{
	bool at_capture = v->flags & UC_VMA_AT_CAPTURE;
	struct u64map *set = at_capture ? &s->capture_maps : &s->pending_maps;
	struct pending_maps *p = u64map_get(set, v->hdr.tgid);
	struct uc_map_record *r = NULL;
	char path[UC_PATH_NAMES * (UC_NAME_LEN + 1) + 1] = "";
	size_t o = 0;

	if (!p) {
		p = xcalloc(1, sizeof(*p));
		u64map_put(set, v->hdr.tgid, p);
	}
	/* Names come leaf first. */
	for (int i = (int)(v->nnames < UC_PATH_NAMES ? v->nnames : UC_PATH_NAMES) - 1;
	     i >= 0; i--)
		o += snprintf(path + o, sizeof(path) - o, "/%.*s", UC_NAME_LEN,
			      v->names[i]);
	for (size_t i = 0; at_capture && i < p->n && !r; i++)
		if (p->rec[i].start == v->start) {
			r = &p->rec[i];
			free((char *)r->path);
		}
	if (!r) {
		p->rec = xrealloc(p->rec, (p->n + 1) * sizeof(*p->rec));
		r = &p->rec[p->n++];
	}
	r->start = v->start;
	r->end = v->end;
	r->offset = v->offset;
	r->inode = v->inode;
	/* the kernel's dev_t (MINORBITS 20) as /proc/PID/maps prints it */
	r->dev = makedev(v->dev >> 20, v->dev & 0xfffff);
	r->exec = v->flags & 1;
	r->write = v->flags & 2;
	r->path = xstrdup(path);
}

bool stacks_sent_file(const struct uc_stacks *s, uint32_t tgid, const char *base,
		      uint64_t *inode, char *path, size_t len)
{
	const struct pending_maps *p = u64map_get(&s->pending_maps, tgid);

	for (size_t i = 0; p && i < p->n; i++) {
		const char *slash = strrchr(p->rec[i].path, '/');

		if (slash && !strcmp(slash + 1, base)) {
			*inode = p->rec[i].inode;
			snprintf(path, len, "%s", p->rec[i].path);
			return true;
		}
	}
	return false;
}

/*
 * Captures are copied out of the store lazily: most requests end without
 * taking part in any finding, and copying 8 KiB per io_uring_enter was
 * the largest cost of reading events (fio's random I/O). A capture stays
 * in its slot until a report needs it, or until the store's cursor comes
 * within half the store of overwriting it while something still holds
 * it (stacks_rescue); then it is copied.
 */
static const struct uc_stack *slot_of(const struct uc_stacks *s, uint64_t id)
{
	return s->slot ? s->slot(s->slot_ctx, (uint32_t)((id - 1) % UC_STACK_SLOTS)) : NULL;
}

/* Copies the stack bytes of @c out of the store; false if they are gone. */
static bool materialize(struct uc_stacks *s, struct uc_capture *c)
{
	const struct uc_stack *st;
	uint32_t len;

	if (!c->in_store)
		return c->data != NULL;
	c->in_store = false;
	st = slot_of(s, c->id);
	if (!st || __atomic_load_n(&st->id, __ATOMIC_ACQUIRE) != c->id)
		goto gone;
	len = st->len < UC_STACK_BYTES ? st->len : UC_STACK_BYTES;
	c->data = xmalloc(len ? len : 1);
	memcpy(c->data, st->data, len);
	c->len = len;
	/* Rewritten while we copied: the id changed first (uringcheck.h). */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&st->id, __ATOMIC_RELAXED) == c->id)
		return true;
	free(c->data);
	c->data = NULL;
gone:
	c->len = 0;
	s->overwritten++;
	return false;
}

/* The capture @id with its bytes, or NULL. */
static struct uc_capture *held(struct uc_stacks *s, uint64_t id)
{
	struct uc_capture *c = id ? u64map_get(&s->by_id, id) : NULL;

	return c && materialize(s, c) ? c : NULL;
}

static void lazy_push(struct uc_stacks *s, uint64_t id)
{
	if (s->nlazy == s->lazy_cap) {
		size_t cap = s->lazy_cap ? 2 * s->lazy_cap : 1024;
		uint64_t *q = xmalloc(cap * sizeof(*q));

		for (size_t i = 0; i < s->nlazy; i++)
			q[i] = s->lazy[(s->lazy_head + i) % s->lazy_cap];
		free(s->lazy);
		s->lazy = q;
		s->lazy_head = 0;
		s->lazy_cap = cap;
	}
	s->lazy[(s->lazy_head + s->nlazy++) % s->lazy_cap] = id;
}

void stacks_rescue(struct uc_stacks *s)
{
	uint64_t cursor;

	if (!s->cursor || !s->nlazy)
		return;
	cursor = __atomic_load_n(s->cursor, __ATOMIC_RELAXED);
	while (s->nlazy) {
		uint64_t id = s->lazy[s->lazy_head];
		struct uc_capture *c;

		if (id + UC_STACK_SLOTS / 2 > cursor)
			break;
		s->lazy_head = (s->lazy_head + 1) % s->lazy_cap;
		s->nlazy--;
		c = u64map_get(&s->by_id, id);
		if (c)
			materialize(s, c);
	}
}

unsigned stacks_backlog(const struct uc_stacks *s)
{
	uint64_t cursor, fetched;

	if (!s->cursor)
		return 0;
	cursor = __atomic_load_n(s->cursor, __ATOMIC_RELAXED);
	/* fetched_hi is the reader thread's; this may be the watchdog's */
	fetched = __atomic_load_n(&s->fetched_hi, __ATOMIC_RELAXED);
	if (cursor <= fetched)
		return 0;
	if (cursor - fetched >= UC_STACK_SLOTS)
		return 1000;
	/* Rounded up: any capture not named yet counts. */
	return (unsigned)(((cursor - fetched) * 1000 + UC_STACK_SLOTS - 1) / UC_STACK_SLOTS);
}

void stacks_attach_store(struct uc_stacks *s,
			 const struct uc_stack *(*slot)(void *ctx, uint32_t index),
			 void *ctx, const uint64_t *cursor)
{
	s->slot = slot;
	s->slot_ctx = ctx;
	s->cursor = cursor;
}

/*
 * The second capture of a call site (process, ip, sp; the first is only
 * noted) is unwound now, to learn how much of the copy its unwind reads
 * (stack_bounds.h): later captures there copy that much. A capture cut
 * at such a bound is not learned from (it cannot show that the site
 * needs more). If the words
 * and registers that decide its frames are found, the site's later
 * captures with the same ones take this capture's frames instead of a
 * copy: it is kept under the site's id for as long as the site is.
 */
static void learn_bound(struct uc_stacks *s, struct uc_capture *c)
{
	struct uc_unwind_info info;
	struct uc_deciders dec;
	uint64_t site;
	bool have_dec;

	if (c->cut || !c->maps ||
	    !stack_bounds_wanted(&s->bounds, c->tgid, c->regs.ip, c->regs.sp) ||
	    !materialize(s, c))
		return;
	/* One unwind for both: the bound's info, and the deciders' base. */
	have_dec = uc_unwind_deciders(c->maps, &c->regs, c->data, c->len, &dec, &info);
	site = stack_bounds_learn(&s->bounds, c->tgid, c->regs.ip, c->regs.sp, c->len, &info,
				  have_dec ? &dec : NULL, (const uint64_t *)&c->regs, c->data,
				  c->exec_id);
	if (site) {
		struct uc_capture *k = xcalloc(1, sizeof(*k));

		*k = *c;
		k->id = site;
		k->refs = 1;		/* the site's */
		k->data = xmalloc(c->len ? c->len : 1);
		memcpy(k->data, c->data, c->len);
		k->maps = c->maps ? uc_maps_ref(c->maps) : NULL;
		u64map_put(&s->by_id, site, k);
	}
}

/* The site's kept capture is handed out no more; records already read
 * hold their own references, and the newest retired ones are held a
 * while longer for the records still in the event buffer. */
static void site_retire(void *ctx, uint64_t id)
{
	struct uc_stacks *s = ctx;

	if (s->last_site == id)
		s->last_site = 0;

	if (s->nretired == UC_SITES_RETIRED) {
		stacks_unref(s, s->retired[s->retired_head]);
		s->retired_head = (s->retired_head + 1) % UC_SITES_RETIRED;
		s->nretired--;
	}
	s->retired[(s->retired_head + s->nretired++) % UC_SITES_RETIRED] = id;
}

void stacks_fetch(struct uc_stacks *s, uint64_t id)
{
	const struct uc_stack *st;
	struct uc_capture *c;
	struct uc_maps *m;

	if (id & UC_STACK_SITE_ID) {
		/* A site's kept capture: nothing in the store. The requests
		 * of one io_uring_enter name the same id one after another:
		 * the site's count of misses is reset once for them. */
		s->bounds.reused++;
		if (id == s->last_site)
			return;
		c = u64map_get(&s->by_id, id);
		if (c) {
			stack_bounds_reused(&s->bounds, c->tgid, c->regs.ip, c->regs.sp);
			s->last_site = id;
		} else {
			s->site_gone++;
		}
		return;
	}
	if (!id || u64map_get(&s->by_id, id))
		return;
	if (id > s->fetched_hi)
		__atomic_store_n(&s->fetched_hi, id, __ATOMIC_RELAXED);
	st = slot_of(s, id);
	if (!st)
		return;
	if (__atomic_load_n(&st->id, __ATOMIC_ACQUIRE) != id) {
		s->overwritten++;
		return;
	}
	/* Who and where now (small); the bytes when needed. */
	c = xcalloc(1, sizeof(*c));
	c->id = id;
	c->tgid = st->hdr.tgid;
	memcpy(&c->regs, st->regs, sizeof(c->regs));
	c->exec_id = st->exec_id;
	c->cut = st->flags & UC_STACK_CUT;
	s->bounds.bounded += c->cut;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&st->id, __ATOMIC_RELAXED) != id) {
		free(c);
		s->overwritten++;
		return;
	}
	c->in_store = true;
	lazy_push(s, id);
	if (c->cut) {
		stack_bounds_missed(&s->bounds, c->tgid, c->regs.ip, c->regs.sp);
		s->last_site = 0;	/* the next reuse resets the misses */
	}
	/* The mappings sent just before this stack (a process's first), or
	 * the snapshot of the process as it is now; a pc outside it means a
	 * library appeared since. */
	{
		struct pending_maps *p = u64map_del(&s->pending_maps, c->tgid);

		if (p) {
			struct uc_maps *fresh = uc_maps_from_records(c->tgid, p->rec, p->n);

			if (fresh) {
				uc_maps_cache_adopt(s->maps, c->tgid, fresh);
				uc_maps_unref(fresh);
			}
			pending_free(p);
		}
	}
	m = uc_maps_cache_get(s->maps, c->tgid);
	if (m && !uc_maps_find(m, c->regs.ip))
		m = uc_maps_cache_refresh(s->maps, c->tgid);
	if (!m || !uc_maps_find(m, c->regs.ip)) {
		/* /proc/PID/maps gone (the process exited) or behind: the
		 * mappings captures sent, where the kernel has them sent so. */
		struct pending_maps *p = u64map_get(&s->capture_maps, c->tgid);
		struct uc_maps *sent = p ? uc_maps_from_records(c->tgid, p->rec, p->n) : NULL;

		if (sent) {
			uc_maps_cache_adopt(s->maps, c->tgid, sent);
			uc_maps_unref(sent);
			m = uc_maps_cache_peek(s->maps, c->tgid);
		}
	}
	c->maps = m ? uc_maps_ref(m) : NULL;
	u64map_put(&s->by_id, id, c);
	learn_bound(s, c);
}

void stacks_ref(struct uc_stacks *s, uint64_t id)
{
	struct uc_capture *c = id ? u64map_get(&s->by_id, id) : NULL;

	if (c)
		c->refs++;
}

void stacks_unref(struct uc_stacks *s, uint64_t id)
{
	struct uc_capture *c = id ? u64map_get(&s->by_id, id) : NULL;

	if (c && --c->refs <= 0)
		capture_free(u64map_del(&s->by_id, id));
}

void stacks_process_seen(struct uc_stacks *s, uint32_t tgid)
{
	uc_maps_cache_get(s->maps, tgid);
}

void stacks_process_forked(struct uc_stacks *s, uint32_t parent, uint32_t child)
{
	struct uc_maps *m = uc_maps_cache_peek(s->maps, parent);

	if (m)
		uc_maps_cache_adopt(s->maps, child, m);
}

void stacks_process_changed(struct uc_stacks *s, uint32_t tgid, int exited)
{
	/* Captures keep their own snapshot references. */
	stack_bounds_forget(&s->bounds, tgid);
	if (exited) {
		uc_maps_cache_forget(s->maps, tgid);
		pending_free(u64map_del(&s->capture_maps, tgid));
	} else
		uc_maps_cache_refresh(s->maps, tgid);
}

int stacks_pcs(struct uc_stacks *s, uint64_t id, uint64_t *pcs, int max)
{
	struct uc_capture *c = held(s, id);

	if (!c || !c->maps)
		return 0;
	return uc_unwind(c->maps, &c->regs, c->data, c->len, pcs, max);
}

uint64_t stacks_site_key(struct uc_stacks *s, uint64_t id)
{
	struct uc_capture *c = held(s, id);
	uint64_t pcs[8], key = 0x75726e67;
	int n;

	if (!c || !c->maps)
		return 0;
	/* Asked for at every finding: a site repeated a million times is
	 * unwound once. */
	if (c->site_known)
		return c->site_key;
	n = uc_unwind(c->maps, &c->regs, c->data, c->len, pcs, 8);
	for (int i = 0; i < n; i++) {
		const struct uc_mapping *m = uc_maps_find(c->maps, pcs[i]);

		if (m) {
			key = uc_key_mix(key, m->inode);
			key = uc_key_mix(key, pcs[i] - m->start + m->offset);
		} else {
			key = uc_key_mix(key, pcs[i]);
		}
	}
	c->site_key = key ? key : 1;
	c->site_known = true;
	return c->site_key;
}

int stacks_frames(void *stacks, uint64_t id, struct uc_supp_frame *out, int max)
{
	struct uc_stacks *s = stacks;
	struct uc_capture *c = held(s, id);
	uint64_t pcs[UC_MAX_FRAMES];
	int n, k = 0;

	if (!c || !c->maps)
		return 0;
	n = uc_unwind(c->maps, &c->regs, c->data, c->len, pcs, UC_MAX_FRAMES);
	for (int i = 0; i < n && k < max; i++) {
		struct uc_frame fr[8];
		int m = uc_symbolize(c->maps, pcs[i], i > 0, fr, 8);

		for (int j = 0; j < m && k < max; j++, k++) {
			out[k].function = fr[j].function;
			out[k].file = fr[j].file;
			out[k].module = fr[j].module;
			out[k].pc = fr[j].pc;
			out[k].module_offset = fr[j].module_offset;
			out[k].line = fr[j].line;
			out[k].inlined = fr[j].inlined;
		}
	}
	return k;
}

void stacks_print(void *stacks, FILE *out, uint64_t id, const char *no_stack)
{
	struct uc_stacks *s = stacks;
	struct uc_capture *c = held(s, id);

	if (!c) {
		if (id)
			s->unavailable++;
		uc_print_no_stack(out, !id ? no_stack : (id & UC_STACK_SITE_ID) ?
				  "not kept: the frames of its call site were let go (the "
				  "process exec'd or exited) before the checker read it" :
				  "not kept: the stack store had moved on before "
				  "the checker read it (it fell behind)");
		return;
	}
	{
		int unopened = 0;
		int cut_short = 0;
		struct uc_print_opts o = { .unopened = &unopened, .copy_cut = c->cut,
					   .cut_short = &cut_short };

		uc_print_capture(out, c->maps, &c->regs, c->data, c->len, &o);
		s->unopened += unopened;
		if (cut_short)
			stack_bounds_ran_off(&s->bounds, c->tgid, c->regs.ip, c->regs.sp);
	}
}
