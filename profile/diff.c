// SPDX-License-Identifier: GPL-2.0
/*
 * --baseline/--diff (diff.h): the baseline's reader, which trusts
 * nothing in the file (every member is looked up with its type, every
 * number bounded), and the comparison.
 */
#define _GNU_SOURCE
#include "diff.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "opcode_names.h"
#include "snapshot.h"
#include "user_files.h"
#include "xalloc.h"
#include "../reports/json.h"

/*
 * What counts as a change (docs/profile.md, --diff). Latency quantiles
 * come from log2 histograms and are right within a factor of two, so a
 * smaller ratio could be the bucketing; request rates move with the
 * machine's load by a fifth, and a run shorter than a second is mostly
 * its start-up, so its rate is not judged; a path share or an error
 * share is exact.
 */
#define DIFF_MIN_REQUESTS	100	/* on both sides, or no judgement */
#define DIFF_LATENCY_RATIO	2.0	/* p50 or p99 */
#define DIFF_RATE_CHANGE	0.25	/* requests per second, either way */
#define DIFF_RATE_WINDOW	1.0	/* s, both runs: a shorter one is mostly start-up */
#define DIFF_PUNT_POINTS	10.0	/* punt share, percentage points */
#define DIFF_ERROR_POINTS	1.0	/* error share, percentage points */

enum {
	CH_SLOWER, CH_FASTER, CH_RATE_DOWN, CH_RATE_UP, CH_PUNT_UP, CH_PUNT_DOWN,
	CH_ERRORS_UP, CH_ERRORS_DOWN, CH_NEW, CH_GONE, CH_TOO_FEW, CH__COUNT
};

static const char *const change_names[CH__COUNT] = {
	"slower", "faster", "rate_down", "rate_up", "punt_up", "punt_down",
	"errors_up", "errors_down", "new", "gone", "too_few",
};

/* One side of a row, in the table's units. */
struct side {
	bool seen;
	uint64_t n;
	double rate, mib_s, p50, p99, punt, errpct;	/* punt < 0: not known */
};

struct row {
	struct side b, a;		/* baseline, this run */
	unsigned changes;		/* bits of CH_* */
	double p50x, p99x;		/* this run over the baseline */
};

static int fail(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* @key of object @o, of type @t; an error naming @where otherwise. */
static json_object *member(json_object *o, const char *key, json_type t, const char *where,
			   char *err, size_t len)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, t)) {
		fail(err, len, "%s: no '%s' of type %s", where, key, json_type_to_name(t));
		return NULL;
	}
	return v;
}

static int u64_member(json_object *o, const char *key, uint64_t *out, const char *where,
		      char *err, size_t len)
{
	json_object *v = member(o, key, json_type_int, where, err, len);

	if (!v)
		return -1;
	if (json_object_get_int64(v) < 0)
		return fail(err, len, "%s: '%s' is negative", where, key);
	*out = json_object_get_uint64(v);
	return 0;
}

/* One element of "opcodes" added to its opcode's sums. */
static int add_op(struct pf_summary *s, json_object *o, const char *where, char *err,
		  size_t len)
{
	json_object *lat, *hist, *paths;
	uint64_t num, v, max;
	struct pf_sum_op *t;
	size_t nb;

	if (!json_object_is_type(o, json_type_object))
		return fail(err, len, "%s: not an object", where);
	if (u64_member(o, "opcode_number", &num, where, err, len))
		return -1;
	if (num >= PF_MAX_OPS)
		return fail(err, len, "%s: opcode_number %llu beyond the profile's %d",
			    where, (unsigned long long)num, PF_MAX_OPS);
	t = &s->ops[num];
	t->seen = true;
	if (u64_member(o, "completed", &v, where, err, len))
		return -1;
	t->completed += v;
	if (u64_member(o, "errors", &v, where, err, len))
		return -1;
	t->errors += v;
	if (u64_member(o, "bytes", &v, where, err, len))
		return -1;
	t->bytes += v;
	if (!(lat = member(o, "latency_ns", json_type_object, where, err, len)) ||
	    u64_member(lat, "max", &max, where, err, len) ||
	    !(hist = member(lat, "log2_histogram", json_type_array, where, err, len)))
		return -1;
	if (max > t->max_ns)
		t->max_ns = max;
	nb = json_object_array_length(hist);
	if (nb > PF_LAT_BUCKETS)
		return fail(err, len, "%s: log2_histogram has %zu buckets, at most %d",
			    where, nb, PF_LAT_BUCKETS);
	for (size_t b = 0; b < nb; b++) {
		json_object *x = json_object_array_get_idx(hist, b);

		if (!json_object_is_type(x, json_type_int) || json_object_get_int64(x) < 0)
			return fail(err, len, "%s: log2_histogram[%zu] not a count", where, b);
		t->hist[b] += json_object_get_uint64(x);
	}
	if (s->paths) {
		uint64_t in, poll, punt;

		if (!(paths = member(o, "paths", json_type_object, where, err, len)) ||
		    u64_member(paths, "inline", &in, where, err, len) ||
		    u64_member(paths, "poll_armed", &poll, where, err, len) ||
		    u64_member(paths, "punted", &punt, where, err, len))
			return -1;
		t->timed += in + poll + punt;
		t->punted += punt;
	}
	return 0;
}

int pf_summary_from_json(json_object *profile, json_object *findings, struct pf_summary *s,
			 char *err, size_t len)
{
	json_object *rings, *v;
	char where[96];

	memset(s, 0, sizeof(*s));
	if (!json_object_is_type(profile, json_type_object))
		return fail(err, len, "no \"profile\" object (a --json of a --profile run)");
	if (!(v = member(profile, "window_s", json_type_double, "profile", err, len)) &&
	    !(v = member(profile, "window_s", json_type_int, "profile", err, len)))
		return -1;
	s->window_s = json_object_get_double(v);
	if (!(s->window_s >= 0 && s->window_s < 1e9))	/* NaN too */
		return fail(err, len, "profile: window_s out of range");
	if (!(v = member(profile, "paths_attributed", json_type_boolean, "profile", err, len)))
		return -1;
	s->paths = json_object_get_boolean(v);
	if (!(rings = member(profile, "rings", json_type_array, "profile", err, len)))
		return -1;
	for (size_t r = 0; r < json_object_array_length(rings); r++) {
		json_object *ring = json_object_array_get_idx(rings, r), *ops;

		snprintf(where, sizeof(where), "profile.rings[%zu]", r);
		if (!json_object_is_type(ring, json_type_object))
			return fail(err, len, "%s: not an object", where);
		if (!(ops = member(ring, "opcodes", json_type_array, where, err, len)))
			return -1;
		for (size_t i = 0; i < json_object_array_length(ops); i++) {
			snprintf(where, sizeof(where), "profile.rings[%zu].opcodes[%zu]", r, i);
			if (add_op(s, json_object_array_get_idx(ops, i), where, err, len))
				return -1;
		}
	}
	for (size_t i = 0; findings && i < json_object_array_length(findings); i++) {
		json_object *f = json_object_array_get_idx(findings, i), *type, *kind, *sev;
		struct pf_sum_rule *r;
		size_t k;

		snprintf(where, sizeof(where), "findings[%zu]", i);
		if (!json_object_is_type(f, json_type_object))
			return fail(err, len, "%s: not an object", where);
		if (!json_object_object_get_ex(f, "rule_type", &type) ||
		    !json_object_is_type(type, json_type_string) ||
		    strcmp(json_object_get_string(type), "doctor"))
			continue;	/* the checker's: not the doctor's to compare */
		if (!(kind = member(f, "kind", json_type_string, where, err, len)) ||
		    !(sev = member(f, "severity", json_type_string, where, err, len)))
			return -1;
		for (k = 0; k < s->nrules; k++)
			if (!strcmp(s->rules[k].name, json_object_get_string(kind)))
				break;
		if (k < s->nrules)
			continue;	/* one rule, several processes: once */
		s->rules = xrealloc(s->rules, (s->nrules + 1) * sizeof(*s->rules));
		r = &s->rules[s->nrules++];
		snprintf(r->name, sizeof(r->name), "%s", json_object_get_string(kind));
		snprintf(r->severity, sizeof(r->severity), "%s", json_object_get_string(sev));
	}
	return 0;
}

int pf_baseline_parse(const char *text, size_t n, struct pf_summary *s, char *err,
		      size_t len)
{
	json_tokener *tok = json_tokener_new();
	json_object *doc, *v, *findings;
	int r = -1;

	memset(s, 0, sizeof(*s));
	if (!tok)
		return fail(err, len, "out of memory");
	doc = json_tokener_parse_ex(tok, text, (int)(n > 0x7fffffff ? 0x7fffffff : n));
	if (!doc || json_tokener_get_error(tok) != json_tokener_success) {
		if (json_tokener_get_error(tok) == json_tokener_continue)
			fail(err, len, "not a JSON document (it ends unfinished, at byte %zu)", n);
		else
			fail(err, len, "not a JSON document (%s at byte %zu)",
			     json_tokener_error_desc(json_tokener_get_error(tok)),
			     json_tokener_get_parse_end(tok));
		json_object_put(doc);
		json_tokener_free(tok);
		return -1;
	}
	json_tokener_free(tok);
	v = NULL;
	if (!json_object_is_type(doc, json_type_object) ||
	    !json_object_object_get_ex(doc, "tool", NULL)) {
		fail(err, len, "not a uringcheck --json document");
	} else if (!json_object_object_get_ex(doc, "schema", &v) ||
		   !json_object_is_type(v, json_type_int) ||
		   json_object_get_int64(v) != UC_JSON_SCHEMA) {
		fail(err, len, "schema %s, this uringcheck reads schema %d (docs/json.md)",
		     v && json_object_is_type(v, json_type_int) ? json_object_get_string(v) :
		     "missing or not a number", UC_JSON_SCHEMA);
	} else if (!json_object_object_get_ex(doc, "profile", &v)) {
		fail(err, len, "no \"profile\" member: the document of a run without --profile");
	} else if ((findings = member(doc, "findings", json_type_array, "document", err, len))) {
		r = pf_summary_from_json(v, findings, s, err, len);
	}
	json_object_put(doc);
	if (r)
		pf_summary_free(s);
	return r;
}

int pf_baseline_load(const char *path, struct pf_summary *s, char *err, size_t len)
{
	char why[256];
	size_t n;
	char *text = uf_read(path, UF_READ_MAX, &n, why, sizeof(why));
	int r;

	memset(s, 0, sizeof(*s));
	if (!text)
		return fail(err, len, "%s", why);
	r = pf_baseline_parse(text, n, s, err, len);
	free(text);
	return r;
}

void pf_summary_free(struct pf_summary *s)
{
	free(s->rules);
	s->rules = NULL;
	s->nrules = 0;
}

static double quantile(const struct pf_sum_op *t, double q)
{
	double v = pf_hist_quantile(t->hist, PF_LAT_BUCKETS, q);

	return v > (double)t->max_ns ? (double)t->max_ns : v;
}

static void side(struct side *x, const struct pf_sum_op *t, const struct pf_summary *s)
{
	memset(x, 0, sizeof(*x));
	x->seen = t->seen && t->completed;
	if (!x->seen)
		return;
	x->n = t->completed;
	x->rate = s->window_s > 0 ? t->completed / s->window_s : 0;
	x->mib_s = s->window_s > 0 ? t->bytes / s->window_s / 1048576.0 : 0;
	x->p50 = quantile(t, 0.5);
	x->p99 = quantile(t, 0.99);
	x->punt = s->paths && t->timed ? 100.0 * t->punted / t->timed : -1;
	x->errpct = 100.0 * t->errors / t->completed;
}

static void compare(struct row *w, unsigned op, const struct pf_summary *base,
		    const struct pf_summary *now)
{
	const struct side *b = &w->b, *a = &w->a;

	memset(w, 0, sizeof(*w));
	side(&w->b, &base->ops[op], base);
	side(&w->a, &now->ops[op], now);
	if (!b->seen || !a->seen) {
		if (b->seen || a->seen)
			w->changes = 1u << (b->seen ? CH_GONE : CH_NEW);
		return;
	}
	w->p50x = b->p50 > 0 ? a->p50 / b->p50 : 0;
	w->p99x = b->p99 > 0 ? a->p99 / b->p99 : 0;
	if (b->n < DIFF_MIN_REQUESTS || a->n < DIFF_MIN_REQUESTS) {
		w->changes = 1u << CH_TOO_FEW;
		return;
	}
	if (w->p50x >= DIFF_LATENCY_RATIO || w->p99x >= DIFF_LATENCY_RATIO)
		w->changes |= 1u << CH_SLOWER;
	else if ((w->p50x > 0 && w->p50x <= 1 / DIFF_LATENCY_RATIO) ||
		 (w->p99x > 0 && w->p99x <= 1 / DIFF_LATENCY_RATIO))
		w->changes |= 1u << CH_FASTER;
	if (base->window_s < DIFF_RATE_WINDOW || now->window_s < DIFF_RATE_WINDOW)
		;
	else if (b->rate > 0 && a->rate <= b->rate * (1 - DIFF_RATE_CHANGE))
		w->changes |= 1u << CH_RATE_DOWN;
	else if (b->rate > 0 && a->rate >= b->rate * (1 + DIFF_RATE_CHANGE))
		w->changes |= 1u << CH_RATE_UP;
	if (b->punt >= 0 && a->punt >= 0) {
		if (a->punt - b->punt >= DIFF_PUNT_POINTS)
			w->changes |= 1u << CH_PUNT_UP;
		else if (b->punt - a->punt >= DIFF_PUNT_POINTS)
			w->changes |= 1u << CH_PUNT_DOWN;
	}
	if (a->errpct - b->errpct >= DIFF_ERROR_POINTS)
		w->changes |= 1u << CH_ERRORS_UP;
	else if (b->errpct - a->errpct >= DIFF_ERROR_POINTS)
		w->changes |= 1u << CH_ERRORS_DOWN;
}

/* "a -> b" of two durations (or "-" for a side not seen) */
static const char *durs(const struct row *w, bool p99, char *buf, size_t len)
{
	char x[16], y[16];

	snprintf(buf, len, "%s -> %s",
		 w->b.seen ? pf_dur(p99 ? w->b.p99 : w->b.p50, x, sizeof(x), false) : "-",
		 w->a.seen ? pf_dur(p99 ? w->a.p99 : w->a.p50, y, sizeof(y), false) : "-");
	return buf;
}

static const char *nums(bool bs, double b, bool as, double a, const char *fmt, char *buf,
			size_t len)
{
	char x[24] = "-", y[24] = "-";

	if (bs && b >= 0)
		snprintf(x, sizeof(x), fmt, b);
	if (as && a >= 0)
		snprintf(y, sizeof(y), fmt, a);
	snprintf(buf, len, "%s -> %s", x, y);
	return buf;
}

/* The change column: what moved past its threshold, in words. */
static const char *words(const struct row *w, char *buf, size_t len)
{
	size_t n = 0;

#define SAY(...) (n += snprintf(buf + n, len > n ? len - n : 0, __VA_ARGS__))
	buf[0] = 0;
	if (w->changes & 1u << CH_NEW)
		SAY("new (not in the baseline)");
	if (w->changes & 1u << CH_GONE)
		SAY("gone (only in the baseline)");
	if (w->changes & 1u << CH_TOO_FEW)
		SAY("not judged (fewer than %d requests)", DIFF_MIN_REQUESTS);
	if (w->changes & 1u << CH_SLOWER)
		SAY("%sslower (%s %.1fx)", n ? ", " : "", w->p99x >= w->p50x ? "p99" : "p50",
		    w->p99x >= w->p50x ? w->p99x : w->p50x);
	if (w->changes & 1u << CH_FASTER)
		SAY("%sfaster (%s %.1fx)", n ? ", " : "",
		    w->p99x > 0 && w->p99x <= w->p50x ? "p99" : "p50",
		    w->p99x > 0 && w->p99x <= w->p50x ? w->p99x : w->p50x);
	if (w->changes & (1u << CH_RATE_DOWN | 1u << CH_RATE_UP))
		SAY("%srate %+.0f%%", n ? ", " : "", 100 * (w->a.rate / w->b.rate - 1));
	if (w->changes & (1u << CH_PUNT_UP | 1u << CH_PUNT_DOWN))
		SAY("%spunt %+.0f points", n ? ", " : "", w->a.punt - w->b.punt);
	if (w->changes & (1u << CH_ERRORS_UP | 1u << CH_ERRORS_DOWN))
		SAY("%serrors %+.1f points", n ? ", " : "", w->a.errpct - w->b.errpct);
#undef SAY
	if (!n)
		snprintf(buf, len, "-");
	return buf;
}

static bool has_rule(const struct pf_summary *s, const char *name)
{
	for (size_t i = 0; i < s->nrules; i++)
		if (!strcmp(s->rules[i].name, name))
			return true;
	return false;
}

/* "new: a (warning), b (note)" of the rules in @x not in @y */
static size_t rules_not_in(const struct pf_summary *x, const struct pf_summary *y,
			   char *buf, size_t len)
{
	size_t n = 0, k = 0;

	buf[0] = 0;
	for (size_t i = 0; i < x->nrules; i++)
		if (!has_rule(y, x->rules[i].name))
			n += snprintf(buf + n, len > n ? len - n : 0, "%s%s (%s)", k++ ? ", " : "",
				      x->rules[i].name, x->rules[i].severity);
	return k;
}

void pf_diff_text(FILE *o, const struct pf_summary *base, const struct pf_summary *now,
		  const char *name, const struct uc_filter *filt)
{
	char c1[48], c2[48], c3[48], c4[48], c5[48], ch[160], nm[16];
	char added[1024], gone[1024];
	size_t hidden = 0, shown = 0, nadded, ngone;

	fprintf(o, "\ndiff against %s (a %.3f s run; this one %.3f s):\n", name,
		base->window_s, now->window_s);
	fprintf(o, "  %-16s %-23s %-15s %-21s %-21s %-13s %s\n", "opcode", "requests/s",
		"MiB/s", "p50", "p99", "punt %", "change");
	for (unsigned op = 0; op < PF_MAX_OPS; op++) {
		struct row w;

		compare(&w, op, base, now);
		if (!w.b.seen && !w.a.seen)
			continue;
		if (filt && !uc_filter_shows(filt, op, base->ops[op].punted + now->ops[op].punted,
					     base->ops[op].errors + now->ops[op].errors)) {
			hidden++;
			continue;
		}
		shown++;
		fprintf(o, "  %-16s %-23s %-15s %-21s %-21s %-13s %s\n", pf_opname(op, nm),
			nums(w.b.seen, w.b.rate, w.a.seen, w.a.rate, "%.0f", c1, sizeof(c1)),
			nums(w.b.seen, w.b.mib_s, w.a.seen, w.a.mib_s, "%.1f", c2, sizeof(c2)),
			durs(&w, false, c3, sizeof(c3)), durs(&w, true, c4, sizeof(c4)),
			nums(w.b.seen, w.b.punt, w.a.seen, w.a.punt, "%.0f", c5, sizeof(c5)),
			words(&w, ch, sizeof(ch)));
	}
	if (!shown && !hidden)
		fprintf(o, "  no io_uring requests in either run\n");
	if (hidden)
		fprintf(o, "  (%zu opcode%s hidden by -e/--filter)\n", hidden,
			hidden == 1 ? "" : "s");
	nadded = rules_not_in(now, base, added, sizeof(added));
	ngone = rules_not_in(base, now, gone, sizeof(gone));
	if (!nadded && !ngone && !now->nrules)
		fprintf(o, "  doctor: no findings, as in the baseline\n");
	else if (!nadded && !ngone)
		fprintf(o, "  doctor: the same rules as in the baseline (%zu)\n", now->nrules);
	if (nadded)
		fprintf(o, "  doctor: new since the baseline: %s\n", added);
	if (ngone)
		fprintf(o, "  doctor: gone since the baseline: %s\n", gone);
}

static json_object *side_json(const struct side *x)
{
	json_object *o;

	if (!x->seen)
		return NULL;	/* null: not in that run */
	o = json_object_new_object();
	json_object_object_add(o, "completed", json_object_new_uint64(x->n));
	json_object_object_add(o, "requests_per_s", uc_json_double(x->rate));
	json_object_object_add(o, "mib_per_s", uc_json_double(x->mib_s));
	json_object_object_add(o, "p50_ns", json_object_new_uint64((uint64_t)x->p50));
	json_object_object_add(o, "p99_ns", json_object_new_uint64((uint64_t)x->p99));
	json_object_object_add(o, "punt_percent", x->punt >= 0 ? uc_json_double(x->punt) : NULL);
	json_object_object_add(o, "errors_percent", uc_json_double(x->errpct));
	return o;
}

static json_object *rules_json(const struct pf_summary *x, const struct pf_summary *y)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < x->nrules; i++)
		if (!has_rule(y, x->rules[i].name))
			json_object_array_add(a, json_object_new_string(x->rules[i].name));
	return a;
}

json_object *pf_diff_json(const struct pf_summary *base, const struct pf_summary *now,
			  const char *name)
{
	json_object *o = json_object_new_object(), *ops = json_object_new_array();
	json_object *th = json_object_new_object(), *doc = json_object_new_object();
	char nm[16];

	json_object_object_add(o, "baseline", json_object_new_string(name));
	json_object_object_add(o, "baseline_window_s", uc_json_double(base->window_s));
	json_object_object_add(th, "min_requests", json_object_new_int(DIFF_MIN_REQUESTS));
	json_object_object_add(th, "latency_ratio", uc_json_double(DIFF_LATENCY_RATIO));
	json_object_object_add(th, "rate_change", uc_json_double(DIFF_RATE_CHANGE));
	json_object_object_add(th, "rate_min_window_s", uc_json_double(DIFF_RATE_WINDOW));
	json_object_object_add(th, "punt_points", uc_json_double(DIFF_PUNT_POINTS));
	json_object_object_add(th, "error_points", uc_json_double(DIFF_ERROR_POINTS));
	json_object_object_add(o, "thresholds", th);
	for (unsigned op = 0; op < PF_MAX_OPS; op++) {
		json_object *x, *ch;
		struct row w;

		compare(&w, op, base, now);
		if (!w.b.seen && !w.a.seen)
			continue;
		x = json_object_new_object();
		json_object_object_add(x, "opcode", json_object_new_string(pf_opname(op, nm)));
		json_object_object_add(x, "opcode_number", json_object_new_int((int)op));
		json_object_object_add(x, "baseline", side_json(&w.b));
		json_object_object_add(x, "run", side_json(&w.a));
		ch = json_object_new_array();
		for (int c = 0; c < CH__COUNT; c++)
			if (w.changes & 1u << c)
				json_object_array_add(ch, json_object_new_string(change_names[c]));
		json_object_object_add(x, "changes", ch);
		json_object_array_add(ops, x);
	}
	json_object_object_add(o, "opcodes", ops);
	json_object_object_add(doc, "new", rules_json(now, base));
	json_object_object_add(doc, "gone", rules_json(base, now));
	json_object_object_add(o, "doctor", doc);
	return o;
}
