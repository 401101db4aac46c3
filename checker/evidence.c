// SPDX-License-Identifier: GPL-2.0
/* Judging against the kernel's truth when events were lost: evidence.h. */
#include "evidence.h"

#include <stdio.h>
#include <stdlib.h>

#include "session.h"
#include "tracker.h"
#include "xalloc.h"
#include "kinds/kind_reports.h"

/* Drain the kernel's table at most this often while it keeps growing
 * (each drain is a few system calls); always before a judgement. */
#define DRAIN_EVERY	256

void evidence_init(struct uc_evidence *ev, struct uc_session *sess)
{
	*ev = (struct uc_evidence){ .sess = sess };
	u64map_init(&ev->lost);
}

static void free_cb(uint64_t key, void *val, void *arg)
{
	(void)key;
	(void)arg;
	free(val);
}

void evidence_free(struct uc_evidence *ev)
{
	u64map_each(&ev->lost, free_cb, NULL);
	u64map_free(&ev->lost);
	free(ev->due);
}

/* ---- the due ends, a min-heap by position ------------------------------ */

static void heap_push(struct uc_evidence *ev, struct uc_lost_end *e)
{
	size_t i;

	if (ev->ndue == ev->cap) {
		ev->cap = ev->cap ? 2 * ev->cap : 64;
		ev->due = xrealloc(ev->due, ev->cap * sizeof(*ev->due));
	}
	for (i = ev->ndue++; i && ev->due[(i - 1) / 2]->pos > e->pos; i = (i - 1) / 2)
		ev->due[i] = ev->due[(i - 1) / 2];
	ev->due[i] = e;
}

static struct uc_lost_end *heap_pop(struct uc_evidence *ev)
{
	struct uc_lost_end *top = ev->due[0], *last = ev->due[--ev->ndue];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= ev->ndue)
			break;
		if (c + 1 < ev->ndue && ev->due[c + 1]->pos < ev->due[c]->pos)
			c++;
		if (ev->due[c]->pos >= last->pos)
			break;
		ev->due[i] = ev->due[c];
		i = c;
	}
	if (ev->ndue)
		ev->due[i] = last;
	return top;
}

static void take_one(void *arg, uint64_t seq, uint64_t pos)
{
	struct uc_evidence *ev = arg;
	struct uc_lost_end *e = xmalloc(sizeof(*e));

	e->seq = seq;
	e->pos = pos;
	free(u64map_put(&ev->lost, seq, e));
	heap_push(ev, e);
}

static void read_counters(struct uc_evidence *ev)
{
	const struct uc_session_losses *l = ev->sess ? ev->sess->losses : NULL;

	if (!l)
		return;
	ev->events_lost = __atomic_load_n(&l->events, __ATOMIC_ACQUIRE);
	ev->doubt = __atomic_load_n(&l->doubt, __ATOMIC_RELAXED);
}

static void drain(struct uc_evidence *ev)
{
	uint64_t recorded = __atomic_load_n(&ev->sess->losses->ends_recorded,
					    __ATOMIC_ACQUIRE);

	ev->reads = 0;
	if (recorded == ev->swept)
		return;
	ev->swept = recorded;
	session_take_lost_ends(ev->sess, take_one, ev);
}

/*
 * Ends whose position the replay has reached: the request ended there.
 * (Its submission lies before its end, so it has been read if it was
 * sent at all.)
 */
static void apply_due(struct uc_evidence *ev, struct uc_tracker *t)
{
	while (ev->ndue && ev->due[0]->pos <= ev->pos) {
		struct uc_lost_end *e = heap_pop(ev);
		struct uc_request *r = u64map_get(&t->requests, e->seq);

		if (r) {
			ev->ends_recovered++;
			tracker_drop_request(t, r);
		}
		u64map_del(&ev->lost, e->seq);
		free(e);
	}
}

void evidence_on_record(struct uc_evidence *ev, struct uc_tracker *t)
{
	if (!ev->sess || !ev->sess->losses)
		return;
	ev->pos = session_record_pos(ev->sess);
	read_counters(ev);
	if (ev->events_lost && ++ev->reads >= DRAIN_EVERY)
		drain(ev);
	if (ev->ndue && ev->due[0]->pos <= ev->pos)
		apply_due(ev, t);
}

void evidence_refresh(struct uc_evidence *ev, struct uc_tracker *t)
{
	if (!ev->sess || !ev->sess->losses)
		return;
	read_counters(ev);
	if (!ev->events_lost)
		return;
	drain(ev);
	apply_due(ev, t);
}

void evidence_mark(const struct uc_evidence *ev, struct uc_request *r)
{
	r->loss_mark = ev->events_lost;
	r->doubt_mark = ev->doubt;
}

void evidence_mark_pick(const struct uc_evidence *ev, struct uc_request *r)
{
	r->pick_loss_mark = ev->events_lost;
}

bool evidence_lost_since(const struct uc_evidence *ev, const struct uc_request *r)
{
	return ev->events_lost != r->loss_mark;
}

bool evidence_pick_doubtful(const struct uc_evidence *ev, const struct itree_node *n)
{
	const struct uc_request *r = n->owner;

	return n == &r->pick_node && ev->events_lost != r->pick_loss_mark;
}

enum uc_verdict evidence_judge(struct uc_evidence *ev, const struct uc_request *older,
			       bool *spans_loss)
{
	*spans_loss = ev->events_lost != older->loss_mark;
	if (!*spans_loss)
		return UC_CONFIRMED;
	/* Its end was lost, but after this record (earlier ones were
	 * applied by evidence_refresh): it was in flight here. */
	if (u64map_get(&ev->lost, older->sub.seq))
		return UC_CONFIRMED;
	/* Every lost end since its submission is in the table, and it is
	 * not among them: its end was not lost. */
	if (ev->doubt == older->doubt_mark)
		return UC_CONFIRMED;
	/* Still in flight now, so in flight since its submission. */
	if (session_in_flight(ev->sess, older->sub.req, older->sub.seq)) {
		ev->confirmed_in_table++;
		return UC_CONFIRMED;
	}
	return UC_WITHHELD;
}

/* Each record type's loss: what it costs (the warning) and its name in
 * --json (events_lost_NAME). */
static const struct {
	const char *what, *json;
} lost_names[UC_EV_TYPES] = {
	[UC_EV_RING_CREATE] = { "ring creations", "ring_create" },
	[UC_EV_SUBMIT] = { "submissions (not checked)", "submit" },
	[UC_EV_RANGES] = { "iovec chunks", "ranges" },
	[UC_EV_DONE] = { "ends", "end" },
	[UC_EV_FORK] = { "forks", "fork" },
	[UC_EV_EXEC] = { "execs", "exec" },
	[UC_EV_EXIT] = { "exits", "exit" },
	[UC_EV_CALL] = { "system calls (not checked)", "call" },
	[UC_EV_CALL_RET] = { "system call results", "call_return" },
	[UC_EV_REGISTER] = { "registrations", "register" },
	[UC_EV_DROPPED] = { "teardown listings", "teardown_listing" },
	[UC_EV_UNREAPED] = { "ring states at teardown", "ring_state" },
	[UC_EV_TEARDOWN] = { "teardowns", "teardown" },
	[UC_EV_REAP_LAG] = { "reap-lag records", "reap_lag" },
	[UC_EV_MAPPING] = { "mappings (for symbols)", "mapping" },
	[UC_EV_PICK] = { "provided-buffer picks (not judged)", "pick" },
	[UC_EV_PROVIDE] = { "PROVIDE_BUFFERS records (their buffers not resolved)", "provide" },
	[UC_EV_CHANNEL] = { "channels of waiting reads", "channel" },
	[UC_EV_HEAP_RELEASE] = { "heap releases (free, realloc: not judged)", "heap_release" },
	[UC_EV_HEAP_ALLOC] = { "heap chunks handed out again (their findings name no new owner)", "heap_alloc" },
	[UC_EV_FRAME_GONE] = { "stack pointers above in-flight stack ranges (not judged)", "frame_gone" },
};

size_t evidence_loss_text(const struct uc_evidence *ev, char *buf, size_t len)
{
	const struct uc_session_losses *l = ev->sess ? ev->sess->losses : NULL;
	size_t o = 0;

	buf[0] = 0;
	if (!l || !l->events)
		return 0;
	for (int i = 0; i < UC_EV_TYPES && o < len; i++) {
		if (!l->by_type[i] || !lost_names[i].what)
			continue;
		o += snprintf(buf + o, len - o, "%s%llu %s", o ? ", " : "",
			      (unsigned long long)l->by_type[i], lost_names[i].what);
		if (i == UC_EV_DONE && o < len)
			o += snprintf(buf + o, len - o, " (%llu kept by the kernel side, "
				      "%llu of their requests ended from there)",
				      (unsigned long long)l->ends_recorded,
				      (unsigned long long)ev->ends_recovered);
	}
	return o < len ? o : len - 1;
}

int evidence_json_counters(const struct uc_evidence *ev, struct uc_json_counter *c,
			   int max, char names[][40])
{
	const struct uc_session_losses *l = ev->sess ? ev->sess->losses : NULL;
	int n = 0;

	if (!l)
		return 0;
	for (int i = 0; i < UC_EV_TYPES && n < max; i++) {
		if (!lost_names[i].json)
			continue;
		snprintf(names[n], 40, "events_lost_%s", lost_names[i].json);
		c[n].name = names[n];
		c[n++].value = l->by_type[i];
	}
	if (n + 3 > max)
		return n;
	c[n++] = (struct uc_json_counter){ "ends_kept_by_kernel", l->ends_recorded };
	c[n++] = (struct uc_json_counter){ "ends_recovered", ev->ends_recovered };
	c[n++] = (struct uc_json_counter){ "findings_confirmed_in_table",
					   ev->confirmed_in_table };
	return n;
}
