// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "report.h"

#include <seccomp.h>

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "opcode_names.h"
#include <linux/types.h>
#include "uringcheck.h"

#define SUPP_FRAMES 24

static const char *const kind_names[UC_KIND__COUNT] = {
	[UC_KIND_OVERLAP] = "overlap",
	[UC_KIND_BUFREG_LIFETIME] = "bufreg-lifetime",
	[UC_KIND_MUNMAP_INFLIGHT] = "munmap-inflight",
	[UC_KIND_DROPPED] = "dropped",
	[UC_KIND_LEFT_IN_FLIGHT] = "left-in-flight",
	[UC_KIND_REAP_LAG] = "reap-lag",
	[UC_KIND_BUFREG_UNMAPPED] = "bufreg-unmapped",
	[UC_KIND_SYNC_OVERLAP] = "sync-overlap",
	[UC_KIND_USER_DATA_REUSE] = "user-data-reuse",
};

const char *uc_kind_name(enum uc_kind k)
{
	return k < UC_KIND__COUNT ? kind_names[k] : "unknown";
}

int uc_kind_lookup(const char *name)
{
	for (int k = 0; k < UC_KIND__COUNT; k++)
		if (!strcmp(name, kind_names[k]))
			return k;
	/* Before 0.2, unconsumed CQEs at a teardown were a kind of their
	 * own; they are a count in the left-in-flight report now. */
	if (!strcmp(name, "unreaped-cqe"))
		return UC_KIND_LEFT_IN_FLIGHT;
	return -1;
}

void uc_kinds_print(FILE *out)
{
	for (int k = 0; k < UC_KIND__COUNT; k++)
		fprintf(out, " %s", kind_names[k]);
}

int uc_kinds_parse(const char *list, unsigned int *mask, const char *option)
{
	char *copy = strdup(list), *save = NULL, *tok;
	unsigned int m = 0;

	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int k;

		if (!strcmp(tok, "all")) {
			m = UC_KINDS_ALL;
			continue;
		}
		if (!strcmp(tok, "none"))
			continue;
		k = uc_kind_lookup(tok);
		if (k < 0) {
			fprintf(stderr, "uringcheck: %s: unknown kind '%s'; valid kinds:",
				option, tok);
			uc_kinds_print(stderr);
			fprintf(stderr, " (or all, none)\n");
			free(copy);
			return -1;
		}
		m |= UC_KIND_BIT(k);
	}
	free(copy);
	*mask = m;
	return 0;
}

void report_init(struct uc_report *rep, FILE *out, unsigned int max_reports,
		 unsigned int fail_on)
{
	*rep = (struct uc_report){ .out = out, .max_reports = max_reports,
				   .fail_on = fail_on, .enabled = UC_KINDS_ALL };
	dedup_init(&rep->dedup);
	dedup_init(&rep->supp_yes);
	dedup_init(&rep->supp_no);
}

void report_free(struct uc_report *rep)
{
	dedup_free(&rep->dedup);
	dedup_free(&rep->supp_yes);
	dedup_free(&rep->supp_no);
	json_free(&rep->json);
	json_free(&rep->sarif);
	supp_free(&rep->supp);
}


/*
 * Does a suppression cover this finding (kind + its primary stack)? The
 * answer is kept per dedup key (kind and call sites), so that a site
 * found a million times is symbolized and matched once: each match
 * symbolizes the stack, and a test with 19,000 findings at one site kept
 * uringcheck busy for tens of seconds after its target exited.
 */
static bool suppressed(struct uc_report *rep, enum uc_kind k, uint64_t key,
		       uint64_t stack)
{
	struct uc_supp_frame fr[SUPP_FRAMES];
	uint64_t sk = key ? uc_key_mix(key, k) : 0;
	int n = 0, i;

	if (!rep->supp.n)
		return false;
	if (sk) {
		if (dedup_count(&rep->supp_no, sk))
			return false;
		for (i = 0; (size_t)i < rep->supp.n; i++)
			if (dedup_count(&rep->supp_yes, uc_key_mix(sk, i))) {
				supp_count_hit(&rep->supp, i);
				return true;
			}
	}
	if (rep->stack_frames && stack)
		n = rep->stack_frames(rep->stack_ctx, stack, fr, SUPP_FRAMES);
	i = supp_match(&rep->supp, uc_kind_name(k), fr, n);
	if (sk)
		dedup_first(i >= 0 ? &rep->supp_yes : &rep->supp_no,
			    i >= 0 ? uc_key_mix(sk, i) : sk, "");
	return i >= 0;
}

/* --gen-suppressions: a block matching this finding, after its report. */
static void gen_suppression(struct uc_report *rep, enum uc_kind k, uint64_t stack)
{
	struct uc_supp_frame fr[SUPP_FRAMES];
	int n = 0;

	if (!rep->gen_suppressions)
		return;
	if (rep->stack_frames && stack)
		n = rep->stack_frames(rep->stack_ctx, stack, fr, 8);
	supp_print_entry(rep->out, uc_kind_name(k), fr, n);
	fputc('\n', rep->out);
}

/* The first frame of @stack outside liburing, libc and the loader, as
 * "function (file:line)"; false if there is none. */
static bool site_text(struct uc_report *rep, uint64_t stack, char *buf, size_t len)
{
	struct uc_supp_frame fr[SUPP_FRAMES];
	int n = 0;

	if (rep->stack_frames && stack)
		n = rep->stack_frames(rep->stack_ctx, stack, fr, SUPP_FRAMES);
	for (int i = 0; i < n; i++) {
		const char *m = fr[i].module ? fr[i].module : "";
		const char *file = fr[i].file;

		if (!fr[i].function || strstr(m, "liburing") || !strncmp(m, "libc.so", 7) ||
		    !strncmp(m, "ld-linux", 8))
			continue;
		if (file) {
			const char *base = strrchr(file, '/');

			snprintf(buf, len, "%s (%s:%d)", fr[i].function, base ? base + 1 : file,
				 fr[i].line);
		} else {
			snprintf(buf, len, "%s (%s)", fr[i].function, m);
		}
		return true;
	}
	return false;
}

enum { TAKE_SKIP, TAKE_RECORD, TAKE_PRINT };

/*
 * Counts @k. TAKE_SKIP: suppressed, or a repeat (same key) of a finding
 * already told; TAKE_RECORD: new but over the print limit (it still goes
 * to --json); TAKE_PRINT: print it. @summary is the finding's SUMMARY
 * text, for the repeat list.
 */
/* Every finding, repeats too, to whoever draws them (--trace): the first
 * of each with the request's symbolized submission stack, a repeat with
 * its summary only (a program may repeat one hazard millions of times). */
static void tell_hook(struct uc_report *rep, enum uc_kind k, uint64_t key, uint32_t pid,
		      const char *summary, const struct uc_request_desc *req)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m;

	if (req && req->stack_id && rep->print_stack &&
	    (!key || !dedup_count(&rep->dedup, uc_key_mix(key, k))) &&
	    (m = open_memstream(&text, &len))) {
		fprintf(m, "%s\nsubmitted at:\n", summary);
		rep->print_stack(rep->stack_ctx, m, req->stack_id, "");
		fclose(m);
	}
	rep->finding_hook(rep->finding_arg, uc_kind_name(k), pid, text ? text : summary, req);
	free(text);
}

static int take(struct uc_report *rep, enum uc_kind k, uint64_t key,
		const char *summary, uint64_t stack, uint32_t pid,
		const struct uc_request_desc *req)
{
	if (!(rep->enabled & UC_KIND_BIT(k)))
		return TAKE_SKIP;	/* not asked for (--hazards) */
	if (suppressed(rep, k, key, stack)) {
		rep->suppressed[k]++;
		return TAKE_SKIP;
	}
	rep->count[k]++;
	if (rep->finding_hook)
		tell_hook(rep, k, key, pid, summary, req);
	if (key) {
		uint64_t dk = uc_key_mix(key, k);
		char what[400], site[200];

		/* A repeat costs a count, nothing more: a program can commit
		 * the same hazard millions of times. */
		if (dedup_count(&rep->dedup, dk)) {
			dedup_first(&rep->dedup, dk, NULL);
			rep->repeats++;
			return TAKE_SKIP;
		}
		/* The repeat list tells sites apart by where they are. */
		if (site_text(rep, stack, site, sizeof(site)))
			snprintf(what, sizeof(what), "%s at %s", summary, site);
		else
			snprintf(what, sizeof(what), "%s", summary);
		dedup_first(&rep->dedup, dk, what);
	}
	if (rep->printed >= rep->max_reports) {
		rep->not_printed++;
		return TAKE_RECORD;
	}
	rep->printed++;
	return TAKE_PRINT;
}

/* ---- JSON pieces --------------------------------------------------------- */

/* x86-64 system call @nr by name (libseccomp's table), else "syscall N". */
static const char *syscall_name(int nr, char *buf, size_t len)
{
	char *n = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, nr);

	if (n)
		snprintf(buf, len, "%s", n);
	else
		snprintf(buf, len, "syscall %d", nr);
	free(n);
	return buf;
}

static const char *dir_name(uint8_t d)
{
	return d == UC_DIR_SINK ? "sink" : d == UC_DIR_SOURCE ? "source" : "none";
}

static void json_stack(struct uc_report *rep, FILE *j, const char *role,
		       uint64_t id, const char *no_stack)
{
	struct uc_supp_frame fr[SUPP_FRAMES];
	int n = 0;

	if (rep->stack_frames && id)
		n = rep->stack_frames(rep->stack_ctx, id, fr, SUPP_FRAMES);
	if (rep->ncur < (int)(sizeof(rep->cur) / sizeof(rep->cur[0]))) {
		rep->cur[rep->ncur].role = role;
		rep->cur[rep->ncur++].id = id;
	}
	fputs("{\"role\":", j);
	json_str(j, role);
	if (!n) {
		fputs(",\"frames\":[],\"no_stack\":", j);
		json_str(j, no_stack);
		fputc('}', j);
		return;
	}
	fputs(",\"frames\":[", j);
	for (int i = 0; i < n; i++) {
		fprintf(j, "%s{\"pc\":", i ? "," : "");
		json_hex(j, fr[i].pc);
		fputs(",\"function\":", j);
		json_str(j, fr[i].function);
		fputs(",\"file\":", j);
		json_str(j, fr[i].file);
		fprintf(j, ",\"line\":%d,\"inlined\":%s,\"module\":", fr[i].line,
			fr[i].inlined ? "true" : "false");
		json_str(j, fr[i].module);
		fputs(",\"module_offset\":", j);
		json_hex(j, fr[i].module_offset);
		fputc('}', j);
	}
	fputs("]}", j);
}

static void json_request(FILE *j, const struct uc_request_desc *d)
{
	char b[16];

	fputs("{\"opcode\":", j);
	json_str(j, uc_opcode_name(d->opcode, b));
	fputs(",\"user_data\":", j);
	json_hex(j, d->user_data);
	fprintf(j, ",\"ring_fd\":%d,\"pid\":%u,\"tid\":%u,\"sqpoll\":%s,"
		"\"direction\":\"%s\",\"range\":[", d->ring_fd, d->tgid, d->tid,
		d->sqpoll ? "true" : "false", dir_name(d->direction));
	json_hex(j, d->start);
	fputc(',', j);
	json_hex(j, d->end);
	fprintf(j, "],\"fixed_buffer_index\":");
	if (d->fixed_buf)
		fprintf(j, "%u", d->buf_index);
	else
		fputs("null", j);
	fprintf(j, ",\"iovecs\":%u}", d->vectored ? d->nr_ranges : 0);
}

/* Why a request has no stack, when it has none (a capture the checker
 * could not keep says so itself: checker/stacks.c). */
static const char *why_no_stack(const struct uc_report *rep, bool sqpoll)
{
	if (sqpoll)
		return "submitted by the SQPOLL kernel thread";
	if (rep->stacks_off)
		return "none captured: --stack-size=0";
	return "none captured for this request";
}

/* "stacks":[..] of a finding about two requests: the newer one, then
 * the one in flight. */
static void json_pair_stacks(struct uc_report *rep, FILE *j,
			     const struct uc_request_desc *newer,
			     const struct uc_request_desc *inflight)
{
	fputs("\"stacks\":[", j);
	json_stack(rep, j, "request submitted", newer->sqpoll ? 0 : newer->stack_id,
		   why_no_stack(rep, newer->sqpoll));
	fputc(',', j);
	json_stack(rep, j, "in-flight request submitted",
		   inflight->sqpoll ? 0 : inflight->stack_id, why_no_stack(rep, inflight->sqpoll));
	fputc(']', j);
}

/* Opens a finding object; the caller adds ,"evidence":{..},"stacks":[..]. */
static FILE *json_open(struct uc_report *rep, enum uc_kind k, const char *summary,
		       uint32_t pid, bool spans_loss, char **buf, size_t *len)
{
	FILE *j = open_memstream(buf, len);

	if (!j)
		return NULL;
	rep->ncur = 0;
	snprintf(rep->cur_headline, sizeof(rep->cur_headline), "%s", summary);
	fputs("{\"kind\":", j);
	json_str(j, uc_kind_name(k));
	fprintf(j, ",\"severity\":\"%s\",\"pid\":%u,\"headline\":",
		rep->fail_on & UC_KIND_BIT(k) ? "error" : "warning", pid);
	json_str(j, summary);
	fprintf(j, ",\"evidence_spans_loss\":%s", spans_loss ? "true" : "false");
	rep->cur_spans_loss = spans_loss;
	return j;
}

static void sarif_result(struct uc_report *rep, enum uc_kind k, uint64_t key);

static void json_close(struct uc_report *rep, FILE *j, enum uc_kind k,
		       uint64_t key, char **buf)
{
	fclose(j);	/* sets *buf */
	json_add(&rep->json, key ? uc_key_mix(key, k) : 0, k, *buf);
	if (rep->want_sarif)
		sarif_result(rep, k, key);
}

/* "ERROR" for kinds that fail the run, "WARNING" for the others. */
static const char *level(const struct uc_report *rep, enum uc_kind k)
{
	return rep->fail_on & UC_KIND_BIT(k) ? "ERROR" : "WARNING";
}

void report_withheld(struct uc_report *rep, enum uc_kind k, uint64_t n)
{
	if (rep->enabled & UC_KIND_BIT(k))
		rep->withheld[k] += n;
}

/* A confirmed finding whose window saw lost events says how it stands. */
static void print_spans_loss(struct uc_report *rep, bool spans_loss)
{
	if (spans_loss)
		fprintf(rep->out, "  Events were lost while this was in flight; the kernel "
			"side's records confirm it\n  (docs/lost-events.md).\n");
}

uint64_t report_total(const struct uc_report *rep)
{
	uint64_t n = 0;

	for (int k = 0; k < UC_KIND__COUNT; k++)
		n += rep->count[k];
	return n;
}

static const char *verb(const struct uc_request_desc *d)
{
	return d->direction == UC_DIR_SINK ? "stores into" : "loads from";
}

static void print_stack(struct uc_report *rep, const char *title, uint64_t id,
			const char *no_stack)
{
	if (!rep->print_stack)
		return;
	fprintf(rep->out, "    %s\n", title);
	rep->print_stack(rep->stack_ctx, rep->out, id, no_stack);
}


static void print_request(struct uc_report *rep, const char *role,
			  const struct uc_request_desc *d)
{
	FILE *o = rep->out;
	char buf[16];

	fprintf(o, "  %s %s (user_data 0x%llx) on ring fd %d", role,
		uc_opcode_name(d->opcode, buf), (unsigned long long)d->user_data,
		d->ring_fd);
	if (d->sqpoll)
		fprintf(o, ", submitted by the SQPOLL thread %u\n", d->tid);
	else
		fprintf(o, ", thread %u\n", d->tid);
	fprintf(o, "    %s [0x%llx, 0x%llx) (%llu bytes)", verb(d),
		(unsigned long long)d->start, (unsigned long long)d->end,
		(unsigned long long)(d->end - d->start));
	if (d->fixed_buf)
		fprintf(o, ", registered buffer index %u", d->buf_index);
	if (d->vectored)
		fprintf(o, ", one of %u iovecs", d->nr_ranges);
	fputc('\n', o);
	print_stack(rep, "submitted at:", d->sqpoll ? 0 : d->stack_id,
		    why_no_stack(rep, d->sqpoll));
}

void report_overlap(struct uc_report *rep, const struct uc_overlap_finding *f)
{
	const struct uc_request_desc *a = &f->inflight, *b = &f->incoming;
	unsigned long long n = f->end - f->start;
	char ba[16], bb[16];
	FILE *o = rep->out;

	char sum[160];

	snprintf(sum, sizeof(sum), "overlap %s/%s %llu bytes in pid %u",
		 uc_opcode_name(b->opcode, bb), uc_opcode_name(a->opcode, ba), n,
		 f->tgid);
	int t = take(rep, UC_KIND_OVERLAP, f->key, sum, b->stack_id, f->tgid, b);

	if (t == TAKE_SKIP)
		return;
	if (rep->want_json) {
		char *buf;
		size_t len;
		FILE *j = json_open(rep, UC_KIND_OVERLAP, sum, f->tgid, f->spans_loss, &buf, &len);

		if (j) {
			fputs(",\"evidence\":{\"request\":", j);
			json_request(j, b);
			fputs(",\"in_flight\":", j);
			json_request(j, a);
			fputs(",\"shared\":[", j);
			json_hex(j, f->start);
			fputc(',', j);
			json_hex(j, f->end);
			fputs("]},", j);
			json_pair_stacks(rep, j, b, a);
			json_close(rep, j, UC_KIND_OVERLAP, f->key, &buf);
		}
	}
	if (t != TAKE_PRINT)
		return;
	fprintf(o, "==%u==%s: uringcheck: overlap: %s and %s in flight on "
		"the same %llu byte%s\n", f->tgid, level(rep, UC_KIND_OVERLAP),
		uc_opcode_name(b->opcode, bb),
		uc_opcode_name(a->opcode, ba), n, n == 1 ? "" : "s");
	print_request(rep, "request", b);
	print_request(rep, "overlaps in-flight", a);
	/* Requests are stamped with the start of the io_uring_enter call that
	 * submitted them (bpf/uringcheck.bpf.c), and share its stack. */
	if ((a->stack_id && a->stack_id == b->stack_id) ||
	    (!a->sqpoll && a->tid == b->tid && a->submit_ts == b->submit_ts))
		fprintf(o, "    (both submitted by one io_uring_enter call)\n");
	else
		fprintf(o, "    (in flight for %.3f ms when the request above was "
			"submitted)\n", (double)(b->submit_ts - a->submit_ts) / 1e6);
	fprintf(o, "  shared bytes: [0x%llx, 0x%llx)\n",
		(unsigned long long)f->start, (unsigned long long)f->end);
	if (a->direction == UC_DIR_SINK && b->direction == UC_DIR_SINK)
		fprintf(o, "  Both requests store into these bytes; what remains "
			"depends on which one the kernel completes last.\n");
	else
		fprintf(o, "  The %s stores into bytes the %s still loads from; "
			"what it sends depends on timing.\n",
			a->direction == UC_DIR_SINK ? uc_opcode_name(a->opcode, ba)
						    : uc_opcode_name(b->opcode, bb),
			a->direction == UC_DIR_SINK ? uc_opcode_name(b->opcode, bb)
						    : uc_opcode_name(a->opcode, ba));
	print_spans_loss(rep, f->spans_loss);
	fprintf(o, "SUMMARY: uringcheck: %s\n\n", sum);
	gen_suppression(rep, UC_KIND_OVERLAP, b->stack_id);
	fflush(o);
}

void report_warning(struct uc_report *rep, uint32_t pid, const char *fmt, ...)
{
	va_list ap;

	fprintf(rep->out, "==%u==WARNING: uringcheck: ", pid);
	va_start(ap, fmt);
	vfprintf(rep->out, fmt, ap);
	va_end(ap);
	fputc('\n', rep->out);
	fflush(rep->out);
}

void report_summary(struct uc_report *rep, uint32_t pid)
{
	uint64_t total = report_total(rep), nsupp = 0, nwithheld = 0;

	for (int k = 0; k < UC_KIND__COUNT; k++)
		nsupp += rep->suppressed[k];
	if (nsupp) {
		fprintf(rep->out, "==%u==uringcheck: %llu finding%s suppressed\n", pid,
			(unsigned long long)nsupp, nsupp == 1 ? "" : "s");
		supp_print_used(&rep->supp, rep->out, pid);
	}
	for (int k = 0; k < UC_KIND__COUNT; k++)
		nwithheld += rep->withheld[k];
	if (nwithheld) {
		fprintf(rep->out, "==%u==uringcheck: %llu finding%s withheld:", pid,
			(unsigned long long)nwithheld, nwithheld == 1 ? "" : "s");
		for (int k = 0; k < UC_KIND__COUNT; k++)
			if (rep->withheld[k])
				fprintf(rep->out, " %s %llu", uc_kind_name(k),
					(unsigned long long)rep->withheld[k]);
		fprintf(rep->out, "\n==%u==uringcheck: (events were lost, and the "
			"kernel side could not confirm that their requests were still "
			"in flight: not errors; docs/lost-events.md)\n", pid);
	}
	if (!total)
		return;
	fprintf(rep->out, "==%u==uringcheck: %llu finding%s:", pid,
		(unsigned long long)total, total == 1 ? "" : "s");
	for (int k = 0; k < UC_KIND__COUNT; k++)
		if (rep->count[k])
			fprintf(rep->out, " %s %llu", uc_kind_name(k),
				(unsigned long long)rep->count[k]);
	fputc('\n', rep->out);
	if (rep->repeats) {
		fprintf(rep->out, "==%u==uringcheck: %llu of them repeat a finding "
			"told above (same kind and call sites):\n", pid, (unsigned long long)rep->repeats);
		dedup_print_repeats(&rep->dedup, rep->out);
	}
	if (rep->not_printed)
		fprintf(rep->out, "==%u==uringcheck: %llu of them not shown "
			"(--max-reports=%u)\n", pid,
			(unsigned long long)rep->not_printed, rep->max_reports);
	fflush(rep->out);
}

int report_exit_status(const struct uc_report *rep, int target_status,
		       int error_exitcode)
{
	for (int k = 0; k < UC_KIND__COUNT; k++)
		if (rep->count[k] && (rep->fail_on & UC_KIND_BIT(k)))
			return error_exitcode;
	return target_status;
}

static const char *reg_opcode_name(uint32_t op)
{
	switch (op & ~(1u << 31)) {
	case 1: return "IORING_UNREGISTER_BUFFERS";
	case 16: return "IORING_REGISTER_BUFFERS_UPDATE";
	default: return "io_uring_register";
	}
}

void report_bufreg(struct uc_report *rep, const struct uc_bufreg_finding *f)
{
	FILE *o = rep->out;

	char sum[160];

	snprintf(sum, sizeof(sum), "bufreg-lifetime buffer %u with %u live "
		 "request%s in pid %u", f->index, f->nr_live,
		 f->nr_live == 1 ? "" : "s", f->tgid);
	int t = take(rep, UC_KIND_BUFREG_LIFETIME, f->key, sum, f->call_stack_id,
		     f->tgid, f->nr_live ? &f->live[0] : NULL);

	if (t == TAKE_SKIP)
		return;
	if (rep->want_json) {
		char *buf;
		size_t len;
		FILE *j = json_open(rep, UC_KIND_BUFREG_LIFETIME, sum, f->tgid, f->spans_loss, &buf, &len);

		if (j) {
			fprintf(j, ",\"evidence\":{\"call\":\"%s\",\"ring_fd\":%d,"
				"\"tid\":%u,\"index\":%u,\"registered\":",
				reg_opcode_name(f->reg_opcode), f->ring_fd, f->tid, f->index);
			if (f->reg_end) {
				fputc('[', j);
				json_hex(j, f->reg_start);
				fputc(',', j);
				json_hex(j, f->reg_end);
				fputc(']', j);
			} else {
				fputs("null", j);
			}
			fprintf(j, ",\"live\":%u,\"requests\":[", f->nr_live);
			for (uint32_t i = 0; i < f->nr_live && i < UC_MAX_LIVE_SHOWN; i++) {
				if (i)
					fputc(',', j);
				json_request(j, &f->live[i]);
			}
			fputs("]},\"stacks\":[", j);
			json_stack(rep, j, "called", f->call_stack_id, why_no_stack(rep, false));
			if (f->reg_stack_id) {
				fputc(',', j);
				json_stack(rep, j, "registered", f->reg_stack_id, "");
			}
			for (uint32_t i = 0; i < f->nr_live && i < UC_MAX_LIVE_SHOWN; i++) {
				fputc(',', j);
				json_stack(rep, j, "live request submitted", f->live[i].stack_id,
					   why_no_stack(rep, f->live[i].sqpoll));
			}
			fputc(']', j);
			json_close(rep, j, UC_KIND_BUFREG_LIFETIME, f->key, &buf);
		}
	}
	if (t != TAKE_PRINT)
		return;
	fprintf(o, "==%u==%s: uringcheck: bufreg-lifetime: registered buffer %u "
		"%s while %u request%s still use%s it\n", f->tgid,
		level(rep, UC_KIND_BUFREG_LIFETIME), f->index,
		(f->reg_opcode & ~(1u << 31)) == 1 ? "unregistered" : "replaced",
		f->nr_live, f->nr_live == 1 ? "" : "s", f->nr_live == 1 ? "s" : "");
	fprintf(o, "  %s on ring fd %d, thread %u\n", reg_opcode_name(f->reg_opcode),
		f->ring_fd, f->tid);
	print_stack(rep, "called at:", f->call_stack_id, why_no_stack(rep, false));
	if (f->reg_end)
		fprintf(o, "  registered buffer %u: [0x%llx, 0x%llx) (%llu bytes)\n",
			f->index, (unsigned long long)f->reg_start,
			(unsigned long long)f->reg_end,
			(unsigned long long)(f->reg_end - f->reg_start));
	if (f->reg_stack_id)
		print_stack(rep, "registered at:", f->reg_stack_id, "");
	for (uint32_t i = 0; i < f->nr_live && i < UC_MAX_LIVE_SHOWN; i++)
		print_request(rep, "in flight:", &f->live[i]);
	if (f->nr_live > UC_MAX_LIVE_SHOWN)
		fprintf(o, "  ... and %u more\n", f->nr_live - UC_MAX_LIVE_SHOWN);
	fprintf(o, "  The kernel keeps the old pages pinned, so the call succeeds, "
		"but these requests still access the old memory after the program "
		"let it go.\n");
	print_spans_loss(rep, f->spans_loss);
	fprintf(o, "SUMMARY: uringcheck: %s\n\n", sum);
	gen_suppression(rep, UC_KIND_BUFREG_LIFETIME, f->call_stack_id);
	fflush(o);
}

static const char *unmap_call(uint32_t nr, uint64_t advice)
{
	switch (nr) {
	case UC_NR_MUNMAP: return "munmap";
	case UC_NR_MREMAP: return "mremap";
	case UC_NR_MMAP: return "mmap(MAP_FIXED)";
	case UC_NR_BRK: return "brk";
	case UC_NR_MADVISE:
		return advice == 4 ? "madvise(MADV_DONTNEED)" :
		       advice == 8 ? "madvise(MADV_FREE)" : "madvise(MADV_REMOVE)";
	default: return "unmap";
	}
}

/*
 * One request context for two in-flight requests (docs/hazards.md): the
 * second submission is the news, the first the evidence.
 */
void report_user_data_reuse(struct uc_report *rep, const struct uc_ud_reuse_finding *f)
{
	const struct uc_request_desc *a = &f->inflight, *b = &f->incoming;
	char ba[16], bb[16], sum[200];
	FILE *o = rep->out;
	int t;

	snprintf(sum, sizeof(sum), "user-data-reuse %s/%s in pid %u",
		 uc_opcode_name(b->opcode, bb), uc_opcode_name(a->opcode, ba), f->tgid);
	t = take(rep, UC_KIND_USER_DATA_REUSE, f->key, sum, b->stack_id, f->tgid, b);
	if (t == TAKE_SKIP)
		return;
	if (rep->want_json) {
		char *buf;
		size_t len;
		FILE *j = json_open(rep, UC_KIND_USER_DATA_REUSE, sum, f->tgid, false,
				    &buf, &len);

		if (j) {
			fputs(",\"evidence\":{\"user_data\":", j);
			json_hex(j, b->user_data);
			fputs(",\"request\":", j);
			json_request(j, b);
			fputs(",\"in_flight\":", j);
			json_request(j, a);
			fputs("},", j);
			json_pair_stacks(rep, j, b, a);
			json_close(rep, j, UC_KIND_USER_DATA_REUSE, f->key, &buf);
		}
	}
	if (t != TAKE_PRINT)
		return;
	fprintf(o, "==%u==%s: uringcheck: user-data-reuse: %s submitted with user_data "
		"0x%llx, a pointer, while %s with the same user_data is in flight on ring "
		"fd %d\n", f->tgid, level(rep, UC_KIND_USER_DATA_REUSE),
		uc_opcode_name(b->opcode, bb), (unsigned long long)b->user_data,
		uc_opcode_name(a->opcode, ba), b->ring_fd);
	print_request(rep, "request", b);
	print_request(rep, "in flight with the same user_data:", a);
	fprintf(o, "  Both completions will reach one request context: the program "
		"cannot tell them apart,\n  and if the context is freed and reused, the "
		"stale completion goes to its new owner.\n");
	fprintf(o, "SUMMARY: uringcheck: %s\n\n", sum);
	gen_suppression(rep, UC_KIND_USER_DATA_REUSE, b->stack_id);
	fflush(o);
}

/*
 * A plain system call into bytes an in-flight request holds: the overlap
 * rule with one side outside io_uring. The call is the news (it is what
 * the program did last), the request second.
 */
void report_sync_overlap(struct uc_report *rep, const struct uc_sync_finding *f)
{
	const struct uc_request_desc *d = &f->req;
	unsigned long long n = f->end - f->start;
	char call[32], b[16], sum[200];
	FILE *o = rep->out;
	int t;

	syscall_name(f->nr, call, sizeof(call));
	snprintf(sum, sizeof(sum), "sync-overlap %s/%s %llu bytes in pid %u", call,
		 uc_opcode_name(d->opcode, b), n, f->tgid);
	t = take(rep, UC_KIND_SYNC_OVERLAP, f->key, sum, f->call_stack_id, f->tgid,
		 &f->req);
	if (t == TAKE_SKIP)
		return;
	if (rep->want_json) {
		char *buf;
		size_t len;
		FILE *j = json_open(rep, UC_KIND_SYNC_OVERLAP, sum, f->tgid, f->spans_loss,
				    &buf, &len);

		if (j) {
			fputs(",\"evidence\":{\"call\":", j);
			json_str(j, call);
			fprintf(j, ",\"tid\":%u,\"direction\":\"%s\",\"moved\":%lld,"
				"\"shared\":[", f->tid, dir_name(f->dir), (long long)f->moved);
			json_hex(j, f->start);
			fputc(',', j);
			json_hex(j, f->end);
			fputs("],\"in_flight\":", j);
			json_request(j, d);
			fputs("},\"stacks\":[", j);
			json_stack(rep, j, "called", f->call_stack_id, why_no_stack(rep, false));
			fputc(',', j);
			json_stack(rep, j, "in-flight request submitted",
				   d->sqpoll ? 0 : d->stack_id, why_no_stack(rep, d->sqpoll));
			fputc(']', j);
			json_close(rep, j, UC_KIND_SYNC_OVERLAP, f->key, &buf);
		}
	}
	if (t != TAKE_PRINT)
		return;
	fprintf(o, "==%u==%s: uringcheck: sync-overlap: %s() %s %llu byte%s that the "
		"in-flight %s still holds\n", f->tgid, level(rep, UC_KIND_SYNC_OVERLAP),
		call, f->dir == UC_DIR_SINK ? "stored into" : "loaded", n, n == 1 ? "" : "s",
		uc_opcode_name(d->opcode, b));
	fprintf(o, "  system call %s() by thread %u, %lld bytes moved\n", call, f->tid,
		(long long)f->moved);
	print_stack(rep, "called at:", f->call_stack_id, why_no_stack(rep, false));
	print_request(rep, "in flight:", d);
	fprintf(o, "  shared bytes: [0x%llx, 0x%llx)\n", (unsigned long long)f->start,
		(unsigned long long)f->end);
	if (f->dir == UC_DIR_SINK && d->direction == UC_DIR_SINK)
		fprintf(o, "  Both the call and the request store into these bytes; what "
			"remains depends on which one finishes last.\n");
	else if (f->dir == UC_DIR_SINK)
		fprintf(o, "  The call stores into bytes the request still sends: what it "
			"sends depends on timing.\n");
	else
		fprintf(o, "  The call sends bytes the request is still filling: what it "
			"sent depends on timing.\n");
	print_spans_loss(rep, f->spans_loss);
	fprintf(o, "SUMMARY: uringcheck: %s\n\n", sum);
	gen_suppression(rep, UC_KIND_SYNC_OVERLAP, f->call_stack_id);
	fflush(o);
}

/*
 * Memory backing a registered buffer was released while it stays
 * registered: the kernel keeps the old pages pinned, so a later
 * READ_FIXED/WRITE_FIXED on that index reads or writes memory the
 * program no longer sees there (docs/hazards.md). A warning: nothing is
 * in flight on the index yet.
 */
void report_bufreg_unmapped(struct uc_report *rep, const struct uc_bufreg_unmap_finding *f)
{
	uint64_t s = f->reg_start > f->call_start ? f->reg_start : f->call_start;
	uint64_t e = f->reg_end < f->call_end ? f->reg_end : f->call_end;
	FILE *o = rep->out;
	char sum[200];
	int t;

	snprintf(sum, sizeof(sum), "bufreg-unmapped %s of registered buffer %u "
		 "(%llu bytes) in pid %u", unmap_call(f->nr, f->advice), f->index,
		 (unsigned long long)(e - s), f->tgid);
	t = take(rep, UC_KIND_BUFREG_UNMAPPED, f->key, sum, f->call_stack_id, f->tgid,
		 NULL);
	if (t == TAKE_SKIP)
		return;
	if (rep->want_json) {
		char *buf;
		size_t len;
		FILE *j = json_open(rep, UC_KIND_BUFREG_UNMAPPED, sum, f->tgid, false,
				    &buf, &len);

		if (j) {
			fputs(",\"evidence\":{\"call\":", j);
			json_str(j, unmap_call(f->nr, f->advice));
			fprintf(j, ",\"tid\":%u,\"ring_fd\":%d,\"index\":%u,\"released\":[",
				f->tid, f->ring_fd, f->index);
			json_hex(j, f->call_start);
			fputc(',', j);
			json_hex(j, f->call_end);
			fputs("],\"registered\":[", j);
			json_hex(j, f->reg_start);
			fputc(',', j);
			json_hex(j, f->reg_end);
			fputs("]},\"stacks\":[", j);
			json_stack(rep, j, "called", f->call_stack_id, why_no_stack(rep, false));
			if (f->reg_stack_id) {
				fputc(',', j);
				json_stack(rep, j, "registered", f->reg_stack_id, "");
			}
			fputc(']', j);
			json_close(rep, j, UC_KIND_BUFREG_UNMAPPED, f->key, &buf);
		}
	}
	if (t != TAKE_PRINT)
		return;
	fprintf(o, "==%u==%s: uringcheck: bufreg-unmapped: %s of [0x%llx, 0x%llx) "
		"releases %llu bytes of registered buffer %u of ring fd %d\n", f->tgid,
		level(rep, UC_KIND_BUFREG_UNMAPPED), unmap_call(f->nr, f->advice),
		(unsigned long long)f->call_start, (unsigned long long)f->call_end,
		(unsigned long long)(e - s), f->index, f->ring_fd);
	fprintf(o, "  %s by thread %u\n", unmap_call(f->nr, f->advice), f->tid);
	print_stack(rep, "called at:", f->call_stack_id, why_no_stack(rep, false));
	fprintf(o, "  registered buffer %u: [0x%llx, 0x%llx) (%llu bytes)\n", f->index,
		(unsigned long long)f->reg_start, (unsigned long long)f->reg_end,
		(unsigned long long)(f->reg_end - f->reg_start));
	if (f->reg_stack_id)
		print_stack(rep, "registered at:", f->reg_stack_id, "");
	fprintf(o, "  The kernel keeps the old pages pinned while the buffer stays "
		"registered: a later\n  READ_FIXED/WRITE_FIXED on index %u uses them, not "
		"what the program maps there now.\n  Unregister or update the index before "
		"releasing its memory.\n", f->index);
	fprintf(o, "SUMMARY: uringcheck: %s\n\n", sum);
	gen_suppression(rep, UC_KIND_BUFREG_UNMAPPED, f->call_stack_id);
	fflush(o);
}

void report_unmap(struct uc_report *rep, const struct uc_unmap_finding *f)
{
	const struct uc_request_desc *d = &f->req;
	bool partial = f->start > d->start || f->end < d->end;
	FILE *o = rep->out;
	char b[16];

	char sum[160];

	snprintf(sum, sizeof(sum), "munmap-inflight %s under %s %llu bytes in pid %u",
		 unmap_call(f->nr, f->advice), uc_opcode_name(d->opcode, b),
		 (unsigned long long)(f->end - f->start), f->tgid);
	int t = take(rep, UC_KIND_MUNMAP_INFLIGHT, f->key, sum, f->call_stack_id,
		     f->tgid, &f->req);

	if (t == TAKE_SKIP)
		return;
	if (rep->want_json) {
		char *buf;
		size_t len;
		FILE *j = json_open(rep, UC_KIND_MUNMAP_INFLIGHT, sum, f->tgid, f->spans_loss, &buf, &len);

		if (j) {
			fputs(",\"evidence\":{\"call\":", j);
			json_str(j, unmap_call(f->nr, f->advice));
			fprintf(j, ",\"tid\":%u,\"released\":[", f->tid);
			json_hex(j, f->call_start);
			fputc(',', j);
			json_hex(j, f->call_end);
			fputs("],\"shared\":[", j);
			json_hex(j, f->start);
			fputc(',', j);
			json_hex(j, f->end);
			fputs("],\"request\":", j);
			json_request(j, d);
			fputs("},\"stacks\":[", j);
			json_stack(rep, j, "called", f->call_stack_id, why_no_stack(rep, false));
			fputc(',', j);
			json_stack(rep, j, "request submitted", d->sqpoll ? 0 : d->stack_id,
				   why_no_stack(rep, d->sqpoll));
			fputc(']', j);
			json_close(rep, j, UC_KIND_MUNMAP_INFLIGHT, f->key, &buf);
		}
	}
	if (t != TAKE_PRINT)
		return;
	fprintf(o, "==%u==%s: uringcheck: munmap-inflight: %s of [0x%llx, 0x%llx) "
		"while %s still uses %llu bytes of it\n", f->tgid,
		level(rep, UC_KIND_MUNMAP_INFLIGHT), unmap_call(f->nr, f->advice),
		(unsigned long long)f->call_start, (unsigned long long)f->call_end,
		uc_opcode_name(d->opcode, b), (unsigned long long)(f->end - f->start));
	fprintf(o, "  %s by thread %u\n", unmap_call(f->nr, f->advice), f->tid);
	print_stack(rep, "called at:", f->call_stack_id, why_no_stack(rep, false));
	print_request(rep, "in flight:", d);
	fprintf(o, "  bytes released under it: [0x%llx, 0x%llx)\n",
		(unsigned long long)f->start, (unsigned long long)f->end);
	if (d->direction == UC_DIR_SINK && partial)
		fprintf(o, "  Only part of the range went away: the kernel may still "
			"store into the part that remains and then complete the "
			"request with -EFAULT, so memory changed although the CQE "
			"says it failed.\n");
	else if (d->direction == UC_DIR_SINK)
		fprintf(o, "  The kernel may store into memory the program has "
			"released (or that is mapped again by then).\n");
	else
		fprintf(o, "  The kernel may load from memory the program has "
			"released: what it sends is undefined.\n");
	print_spans_loss(rep, f->spans_loss);
	fprintf(o, "SUMMARY: uringcheck: %s\n\n", sum);
	gen_suppression(rep, UC_KIND_MUNMAP_INFLIGHT, f->call_stack_id);
	fflush(o);
}

static const char *teardown_text(uint32_t reason, int32_t detail, int fd,
				 char *buf, size_t len)
{
	switch (reason) {
	case UC_TD_EXIT:
		snprintf(buf, len, "the process exited (status %d)", detail);
		break;
	case UC_TD_SIGNAL:
		snprintf(buf, len, "the process was killed by signal %d (%s)", detail,
			 sigabbrev_np(detail) ? sigabbrev_np(detail) : "?");
		break;
	case UC_TD_CLOSE:
		snprintf(buf, len, "ring fd %d was closed", fd);
		break;
	case UC_TD_EXEC:
		snprintf(buf, len, "the process called exec");
		break;
	default:
		snprintf(buf, len, "teardown");
	}
	return buf;
}

/* "POLL_ADD x4, NOP x1" */
static void print_nomem(FILE *o, const struct uc_left_finding *f)
{
	char b[16];

	for (uint32_t i = 0; i < f->nnomem_ops; i++)
		fprintf(o, "%s%s x%llu", i ? ", " : "",
			uc_opcode_name(f->nomem_ops[i].opcode, b),
			(unsigned long long)f->nomem_ops[i].count);
	if (f->nnomem_ops == UC_LEFT_NOMEM_OPS)
		fputs(", ...", o);
}

/* The unconsumed CQEs, as a clause: "3 completions never consumed". */
/* "READ user_data 0x5 res 4096, NOP user_data 0x0 res 0 ..." */
static void print_cqes(FILE *o, const struct uc_left_finding *f)
{
	char b[16];

	for (uint32_t i = 0; i < f->ncqes; i++) {
		const struct uc_left_cqe *c = &f->cqes[i];

		fprintf(o, "%s%s user_data 0x%llx res %d", i ? ", " : "",
			c->opcode >= 0 ? uc_opcode_name(c->opcode, b) : "CQE",
			(unsigned long long)c->user_data, c->res);
	}
	if (f->unconsumed > f->ncqes)
		fputs(", ...", o);
}

static void print_unconsumed(FILE *o, const struct uc_left_finding *f)
{
	fprintf(o, "%llu completion%s never consumed", (unsigned long long)f->unconsumed,
		f->unconsumed == 1 ? "" : "s");
	if (f->overflowed)
		fprintf(o, " (%s%llu on the overflow list)", f->overflow_capped ?
			"at least " : "", (unsigned long long)f->overflowed);
}

/* Where the program let go of the ring or process. */
static void print_teardown_stack(struct uc_report *rep, const struct uc_left_finding *f,
				 const char *why)
{
	char title[128];

	if (!f->teardown_stack_id)
		return;
	snprintf(title, sizeof(title), "%s at:", f->reason == UC_TD_CLOSE ? "closed" :
		 f->reason == UC_TD_EXEC ? "exec called" : "exited");
	(void)why;
	print_stack(rep, title, f->teardown_stack_id, "");
}

static void json_left(struct uc_report *rep, const struct uc_left_finding *f,
		      const char *why, const char *sum)
{
	char *buf, b[16];
	size_t len;
	FILE *j = json_open(rep, UC_KIND_LEFT_IN_FLIGHT, sum, f->tgid, false, &buf, &len);

	if (!j)
		return;
	fputs(",\"evidence\":{\"teardown\":", j);
	json_str(j, why);
	fprintf(j, ",\"requests\":%llu,\"holding_memory\":%llu,\"holding_none\":%llu,"
		"\"cqes_unconsumed\":%llu,\"cqes_overflowed\":%llu,"
		"\"cq_head_past_tail\":%u,\"groups\":[",
		(unsigned long long)(f->held + f->nomem), (unsigned long long)f->held,
		(unsigned long long)f->nomem, (unsigned long long)f->unconsumed,
		(unsigned long long)f->overflowed, f->head_past_tail);
	for (uint32_t i = 0; i < f->ngroups; i++) {
		fprintf(j, "%s{\"opcode\":", i ? "," : "");
		json_str(j, uc_opcode_name(f->groups[i].opcode, b));
		fprintf(j, ",\"ring_fd\":%d,\"count\":%llu,\"bytes\":%llu}",
			f->groups[i].ring_fd, (unsigned long long)f->groups[i].count,
			(unsigned long long)f->groups[i].bytes);
	}
	fputs("],\"no_memory\":[", j);
	for (uint32_t i = 0; i < f->nnomem_ops; i++) {
		fprintf(j, "%s{\"opcode\":", i ? "," : "");
		json_str(j, uc_opcode_name(f->nomem_ops[i].opcode, b));
		fprintf(j, ",\"count\":%llu}", (unsigned long long)f->nomem_ops[i].count);
	}
	fputs("],\"cqes_first\":[", j);
	for (uint32_t i = 0; i < f->ncqes; i++) {
		fprintf(j, "%s{\"opcode\":", i ? "," : "");
		if (f->cqes[i].opcode >= 0)
			json_str(j, uc_opcode_name(f->cqes[i].opcode, b));
		else
			fputs("null", j);
		fputs(",\"user_data\":", j);
		json_hex(j, f->cqes[i].user_data);
		fprintf(j, ",\"res\":%d}", f->cqes[i].res);
	}
	fputs("]},\"stacks\":[", j);
	for (uint32_t i = 0; i < f->ngroups; i++) {
		if (i)
			fputc(',', j);
		json_stack(rep, j, "group submitted", f->groups[i].stack_id,
			   why_no_stack(rep, !f->groups[i].stack_id && !rep->stacks_off));
	}
	if (f->teardown_stack_id) {
		if (f->ngroups)
			fputc(',', j);
		json_stack(rep, j, "teardown", f->teardown_stack_id, "");
	}
	fputc(']', j);
	json_close(rep, j, UC_KIND_LEFT_IN_FLIGHT, f->key, &buf);
}

/*
 * Requests left in flight, and CQEs left unconsumed, at one teardown
 * (docs/hazards.md §4): the kernel cancels them, so this is untidiness,
 * a warning unless --fail-on names it. Requests that hold memory are
 * listed by submit site; the others, and the CQEs, are counts. A fatal
 * signal gets one line: the crash is the news.
 */
void report_left_in_flight(struct uc_report *rep, const struct uc_left_finding *f)
{
	uint64_t total = f->held + f->nomem;
	FILE *o = rep->out;
	char why[96], b[16], sum[256];
	int t;

	teardown_text(f->reason, f->detail, f->ring_fd, why, sizeof(why));
	if (total && f->unconsumed)
		snprintf(sum, sizeof(sum), "left-in-flight %llu request%s and %llu CQE%s "
			 "when %s in pid %u", (unsigned long long)total, total == 1 ? "" : "s",
			 (unsigned long long)f->unconsumed, f->unconsumed == 1 ? "" : "s",
			 why, f->tgid);
	else if (!total && !f->unconsumed)
		snprintf(sum, sizeof(sum), "left-in-flight CQ head %u past the tail when "
			 "%s in pid %u", f->head_past_tail, why, f->tgid);
	else
		snprintf(sum, sizeof(sum), "left-in-flight %llu %s%s when %s in pid %u",
			 (unsigned long long)(total ? total : f->unconsumed),
			 total ? "request" : "CQE",
			 (total ? total : f->unconsumed) == 1 ? "" : "s", why, f->tgid);
	t = take(rep, UC_KIND_LEFT_IN_FLIGHT, f->key, sum,
		 f->ngroups ? f->groups[0].stack_id : 0, f->tgid, NULL);
	if (t == TAKE_SKIP)
		return;
	if (rep->want_json)
		json_left(rep, f, why, sum);
	if (t != TAKE_PRINT)
		return;
	fprintf(o, "==%u==%s: uringcheck: left-in-flight: ", f->tgid,
		level(rep, UC_KIND_LEFT_IN_FLIGHT));
	if (total)
		fprintf(o, "%llu request%s still in flight", (unsigned long long)total,
			total == 1 ? "" : "s");
	if (total && f->unconsumed)
		fputs(" and ", o);
	if (f->unconsumed)
		print_unconsumed(o, f);
	if (!total && !f->unconsumed)
		fprintf(o, "the CQ head was %u entries past the tail", f->head_past_tail);
	fprintf(o, " when %s", why);
	if (f->reason == UC_TD_SIGNAL || !f->held) {
		/* One line: what they were, no stacks. */
		if (f->nnomem_ops || f->ngroups) {
			fputs(" (", o);
			for (uint32_t i = 0; i < f->ngroups; i++)
				fprintf(o, "%s%s x%llu", i ? ", " : "",
					uc_opcode_name(f->groups[i].opcode, b),
					(unsigned long long)f->groups[i].count);
			if (f->ngroups && f->nnomem_ops)
				fputs(", ", o);
			print_nomem(o, f);
			fputc(')', o);
		}
		if (f->head_past_tail)
			fprintf(o, "; the program moved its CQ head %u entries past the "
				"tail (it consumed completions that were never posted)",
				f->head_past_tail);
		fputc('\n', o);
		/* A crash is its own news: one line. Otherwise which CQEs and
		 * where the program let go, so it can be found. */
		if (f->reason != UC_TD_SIGNAL) {
			if (f->ncqes) {
				fputs("  unconsumed: ", o);
				print_cqes(o, f);
				fputc('\n', o);
			}
			print_teardown_stack(rep, f, why);
		}
		fflush(o);
		return;
	}
	fputc('\n', o);
	for (uint32_t i = 0; i < f->ngroups; i++) {
		const struct uc_left_group *g = &f->groups[i];

		fprintf(o, "  %llu x %s on ring fd %d holding %llu bytes, in flight for "
			"%.3f ms, user_data", (unsigned long long)g->count,
			uc_opcode_name(g->opcode, b), g->ring_fd,
			(unsigned long long)g->bytes,
			(double)(f->teardown_ts - g->oldest_ts) / 1e6);
		for (uint64_t k = 0; k < g->count && k < 4; k++)
			fprintf(o, " 0x%llx", (unsigned long long)g->user_data[k]);
		fprintf(o, "%s\n", g->count > 4 ? " ..." : "");
		print_stack(rep, "submitted at:", g->stack_id,
			    why_no_stack(rep, !g->stack_id && !rep->stacks_off));
	}
	if (f->nomem) {
		fprintf(o, "  and %llu that hold no memory: ", (unsigned long long)f->nomem);
		print_nomem(o, f);
		fputc('\n', o);
	}
	if (f->ncqes) {
		fputs("  unconsumed: ", o);
		print_cqes(o, f);
		fputc('\n', o);
	}
	print_teardown_stack(rep, f, why);
	if (f->head_past_tail)
		fprintf(o, "  The program moved its CQ head %u entries past the tail "
			"(it consumed completions that were never posted).\n",
			f->head_past_tail);
	fprintf(o, "  The kernel cancels them now. Their buffers stay the kernel's until "
		"it does: reusing or freeing one before is a hazard. Cancel and reap "
		"requests before tearing down to make this report go away.\n");
	fprintf(o, "SUMMARY: uringcheck: %s\n\n", sum);
	gen_suppression(rep, UC_KIND_LEFT_IN_FLIGHT, f->ngroups ? f->groups[0].stack_id : 0);
	fflush(o);
}

/* SQEs the kernel discarded, or CQEs it could not post at all: the
 * program waits for completions that will never come. */
void report_kernel_drop(struct uc_report *rep, const struct uc_kernel_drop_finding *f)
{
	FILE *o = rep->out;
	char sum[160];
	int t;

	snprintf(sum, sizeof(sum), "dropped %u SQE%s, %u CQE%s by the kernel on ring "
		 "fd %d in pid %u", f->sq_dropped, f->sq_dropped == 1 ? "" : "s",
		 f->cq_overflow, f->cq_overflow == 1 ? "" : "s", f->ring_fd, f->tgid);
	t = take(rep, UC_KIND_DROPPED, f->key, sum, 0, f->tgid, NULL);
	if (t == TAKE_SKIP)
		return;
	if (rep->want_json) {
		char *buf;
		size_t len;
		FILE *j = json_open(rep, UC_KIND_DROPPED, sum, f->tgid, false, &buf, &len);

		if (j) {
			fprintf(j, ",\"evidence\":{\"ring_fd\":%d,\"sq_dropped\":%u,"
				"\"cq_overflow\":%u},\"stacks\":[]", f->ring_fd,
				f->sq_dropped, f->cq_overflow);
			json_close(rep, j, UC_KIND_DROPPED, f->key, &buf);
		}
	}
	if (t != TAKE_PRINT)
		return;
	fprintf(o, "==%u==%s: uringcheck: dropped: the kernel threw away work on ring "
		"fd %d\n", f->tgid, level(rep, UC_KIND_DROPPED), f->ring_fd);
	if (f->sq_dropped)
		fprintf(o, "  %u SQE%s discarded without running (sq_dropped): the SQ "
			"array held an index past the ring's end\n", f->sq_dropped,
			f->sq_dropped == 1 ? "" : "s");
	if (f->cq_overflow)
		fprintf(o, "  %u CQE%s lost (cq_overflow): the CQ ring was full and the "
			"overflow list could not take them\n", f->cq_overflow,
			f->cq_overflow == 1 ? "" : "s");
	fprintf(o, "  The program waits for completions that will never come.\n");
	fprintf(o, "SUMMARY: uringcheck: %s\n\n", sum);
	gen_suppression(rep, UC_KIND_DROPPED, 0);
	fflush(o);
}

void report_reap_lag(struct uc_report *rep, const struct uc_reap_lag_finding *f)
{
	FILE *o = rep->out;

	char sum[160];

	snprintf(sum, sizeof(sum), "reap-lag %.1f ms on ring fd %d in pid %u",
		 (double)f->lag_ns / 1e6, f->ring_fd, f->tgid);
	int t = take(rep, UC_KIND_REAP_LAG, f->key, sum, f->reap_stack_id, f->tgid, NULL);

	if (t == TAKE_SKIP)
		return;
	if (rep->want_json) {
		char *buf;
		size_t len;
		FILE *j = json_open(rep, UC_KIND_REAP_LAG, sum, f->tgid, false, &buf, &len);

		if (j) {
			fprintf(j, ",\"evidence\":{\"ring_fd\":%d,\"user_data\":",
				f->ring_fd);
			json_hex(j, f->user_data);
			fprintf(j, ",\"lag_ns\":%llu,\"lag_min_ns\":%llu,"
				"\"threshold_ns\":%llu,\"pending\":%u,\"blocked_in\":",
				(unsigned long long)f->lag_ns, (unsigned long long)f->lag_min_ns,
				(unsigned long long)f->threshold_ns, f->pending);
			if (f->blocked_nr >= 0) {
				char name[32];

				fputs("{\"syscall\":", j);
				json_str(j, syscall_name(f->blocked_nr, name, sizeof(name)));
				fprintf(j, ",\"nr\":%d,\"tid\":%u,\"ns\":%llu}", f->blocked_nr,
					f->blocked_tid, (unsigned long long)f->blocked_ns);
			} else {
				fputs("null", j);
			}
			fputs("},\"stacks\":[", j);
			if (f->reap_stack_id)
				json_stack(rep, j, "reaped before", f->reap_stack_id, "");
			fputc(']', j);
			json_close(rep, j, UC_KIND_REAP_LAG, f->key, &buf);
		}
	}
	if (t != TAKE_PRINT)
		return;
	fprintf(o, "==%u==%s: uringcheck: reap-lag: a CQE (user_data 0x%llx) sat "
		"ready on ring fd %d for %.1f ms before the program consumed it "
		"(threshold %.1f ms)\n", f->tgid, level(rep, UC_KIND_REAP_LAG),
		(unsigned long long)f->user_data, f->ring_fd, (double)f->lag_ns / 1e6,
		(double)f->threshold_ns / 1e6);
	fprintf(o, "  measured from the kernel side: at least %.1f ms, at most "
		"%.1f ms; %u CQE%s waiting when it was first seen late\n",
		(double)f->lag_min_ns / 1e6, (double)f->lag_ns / 1e6, f->pending,
		f->pending == 1 ? "" : "s");
	if (f->blocked_nr >= 0) {
		char name[32];

		fprintf(o, "  while it waited, thread %u spent %.1f ms in %s()\n",
			f->blocked_tid, (double)f->blocked_ns / 1e6,
			syscall_name(f->blocked_nr, name, sizeof(name)));
	}
	if (f->reap_stack_id)
		print_stack(rep, "consumed by the program before this call into "
			    "liburing:", f->reap_stack_id, "");
	fprintf(o, "SUMMARY: uringcheck: %s\n\n", sum);
	gen_suppression(rep, UC_KIND_REAP_LAG, f->reap_stack_id);
	fflush(o);
}

void report_write_json(struct uc_report *rep, FILE *out, const char *version,
		       uint32_t pid, char *const *argv, int exit_status,
		       const struct uc_json_counter *c, int nc)
{
	fprintf(out, "{\"schema\":%d,\"tool\":{\"name\":\"uringcheck\","
		"\"version\":", UC_JSON_SCHEMA);
	json_str(out, version);
	fprintf(out, "},\"target\":{\"pid\":%u,\"exit_status\":%d,\"argv\":[",
		pid, exit_status);
	for (int i = 0; argv && argv[i]; i++) {
		if (i)
			fputc(',', out);
		json_str(out, argv[i]);
	}
	fputs("]},\n\"findings\":[", out);
	for (size_t i = 0; i < rep->json.n; i++) {
		const struct uc_json_finding *f = &rep->json.v[i];
		uint64_t n = f->key ? dedup_count(&rep->dedup, f->key) : 1;

		fprintf(out, "%s\n%s,\"count\":%llu}", i ? "," : "", f->text,
			(unsigned long long)(n ? n : 1));
	}
	fputs("\n],\n\"summary\":{\"findings\":{", out);
	for (int k = 0; k < UC_KIND__COUNT; k++)
		fprintf(out, "%s\"%s\":%llu", k ? "," : "", uc_kind_name(k),
			(unsigned long long)rep->count[k]);
	fputs("},\"suppressed\":{", out);
	for (int k = 0; k < UC_KIND__COUNT; k++)
		fprintf(out, "%s\"%s\":%llu", k ? "," : "", uc_kind_name(k),
			(unsigned long long)rep->suppressed[k]);
	fputs("},\"withheld\":{", out);
	for (int k = 0; k < UC_KIND__COUNT; k++)
		fprintf(out, "%s\"%s\":%llu", k ? "," : "", uc_kind_name(k),
			(unsigned long long)rep->withheld[k]);
	fprintf(out, "},\"repeats\":%llu,\"counters\":{",
		(unsigned long long)rep->repeats);
	for (int i = 0; i < nc; i++) {
		fprintf(out, "%s", i ? "," : "");
		json_str(out, c[i].name);
		fprintf(out, ":%llu", (unsigned long long)c[i].value);
	}
	fputs("}}}\n", out);
}

/* ---- SARIF 2.1.0 ------------------------------------------------------------ */

static const struct {
	const char *name, *short_desc, *full_desc, *help;
	const char *security;		/* GitHub security-severity */
} rules[UC_KIND__COUNT] = {
	[UC_KIND_OVERLAP] = { "OverlappingInFlightBuffers",
		"Two in-flight io_uring requests share buffer bytes and one writes them",
		"Two requests were in flight at once in one process, their user buffers "
		"share at least one byte, at least one of them stores into it, and the "
		"kernel does not order them (no link chain, no drain).",
		"Which data ends up in the buffer (or is sent) depends on completion "
		"order: silent corruption. Use distinct buffers, or order the requests "
		"with IOSQE_IO_LINK, or reuse the buffer only after its CQE.", "7.0" },
	[UC_KIND_BUFREG_LIFETIME] = { "RegisteredBufferReleasedInUse",
		"A registered buffer was unregistered or replaced while a request used it",
		"IORING_UNREGISTER_BUFFERS or IORING_REGISTER_BUFFERS_UPDATE released an "
		"index that an in-flight request (READ_FIXED, WRITE_FIXED, ...) uses.",
		"The kernel keeps the old pages pinned, so the call succeeds, but the "
		"request still accesses memory the program let go. Wait for the "
		"request's CQE before unregistering or updating the index.", "7.5" },
	[UC_KIND_MUNMAP_INFLIGHT] = { "MemoryReleasedUnderInFlightRequest",
		"Memory an in-flight io_uring request uses was unmapped or discarded",
		"munmap, a shrinking or moving mremap, or madvise(DONTNEED/FREE/REMOVE) "
		"covered bytes of an in-flight request's buffer.",
		"The kernel may write into released (or since reused) memory. Cancel "
		"and reap the request before releasing its buffer.", "8.0" },
	[UC_KIND_DROPPED] = { "WorkDroppedByKernel",
		"The kernel discarded SQEs or could not post CQEs on a ring",
		"The ring's sq_dropped counter rose (an SQ array entry indexed past "
		"the ring) or its cq_overflow counter rose (a CQE that neither the CQ "
		"ring nor the overflow list could take).",
		"The program waits for completions that will never come. Keep SQ "
		"indexes in range; reap completions so the CQ ring does not fill.", "6.0" },
	[UC_KIND_LEFT_IN_FLIGHT] = { "RequestsLeftInFlightAtTeardown",
		"io_uring requests or completions were left when the ring or process went away",
		"At process exit, exec, a fatal signal, or the close of a ring's last "
		"descriptor, requests were still in flight or CQEs unconsumed; the "
		"kernel cancels them.",
		"Cancel (IORING_OP_ASYNC_CANCEL) and reap every request before "
		"tearing the ring down; never reuse or free a buffer before its "
		"request's CQE.", "2.0" },
	[UC_KIND_USER_DATA_REUSE] = { "UserDataPointerReused",
		"A request reused the pointer user_data of a request still in flight",
		"A request was submitted with a user_data that points into the "
		"process's memory (its request context) while another request with "
		"the same user_data was still in flight on the same ring.",
		"Both completions reach one context: the program cannot tell them "
		"apart, and if the context was freed and reused, the stale "
		"completion goes to its new owner. Give each in-flight request its "
		"own context.", "4.0" },
	[UC_KIND_SYNC_OVERLAP] = { "SyncCallIntoInFlightBuffer",
		"A plain system call stored into an in-flight io_uring read buffer",
		"read, pread64, readv, preadv(2), recvfrom, recvmsg or getrandom stored "
		"into bytes an in-flight read request is also storing into.",
		"The bytes that remain, or are sent, depend on timing: silent "
		"corruption. Wait for the request's CQE before touching its buffer "
		"with another system call.", "7.0" },
	[UC_KIND_BUFREG_UNMAPPED] = { "RegisteredBufferMemoryReleased",
		"Memory backing a registered buffer was released while it stayed registered",
		"munmap, a shrinking or moving mremap, madvise(DONTNEED/FREE/REMOVE), "
		"mmap(MAP_FIXED) or a shrinking brk covered memory registered with "
		"IORING_REGISTER_BUFFERS, and the index was not unregistered first.",
		"The kernel keeps the old pages pinned: later fixed-buffer requests on "
		"that index use memory the program no longer sees. Unregister or "
		"update the index before releasing its memory.", "5.0" },
	[UC_KIND_REAP_LAG] = { "CompletionReapLag",
		"A completion waited in the CQ ring longer than the threshold",
		"A CQE sat ready in the completion ring longer than --reap-lag-ms "
		"before the program consumed it.",
		"Reap completions promptly; a long lag delays whatever waits on them "
		"and fills the CQ ring.", "1.0" },
};

static const char *sarif_level(const struct uc_report *rep, enum uc_kind k)
{
	return rep->fail_on & UC_KIND_BIT(k) ? "error" : "warning";
}

/* The first frame in the user's own source: a relative path (as the
 * compiler recorded it) or one under srcroot; the URI is made relative. */
static bool own_frame(struct uc_report *rep, uint64_t id, const char **uri, int *line)
{
	struct uc_supp_frame fr[SUPP_FRAMES];
	size_t rl = rep->srcroot ? strlen(rep->srcroot) : 0;
	int n = 0;

	if (rep->stack_frames && id)
		n = rep->stack_frames(rep->stack_ctx, id, fr, SUPP_FRAMES);
	for (int i = 0; i < n; i++) {
		const char *f = fr[i].file;

		if (!f || fr[i].line <= 0)
			continue;
		if (rl && !strncmp(f, rep->srcroot, rl) && f[rl] == '/') {
			*uri = f + rl + 1;
			*line = fr[i].line;
			return true;
		}
		if (f[0] != '/' && strncmp(f, "../", 3)) {
			*uri = f;
			*line = fr[i].line;
			return true;
		}
	}
	return false;
}

static void sarif_location(FILE *j, const char *uri, int line, const char *msg)
{
	fputs("{\"physicalLocation\":{\"artifactLocation\":{\"uri\":", j);
	json_str(j, uri);
	fprintf(j, ",\"uriBaseId\":\"%%SRCROOT%%\"},\"region\":{\"startLine\":%d}}", line);
	if (msg) {
		fputs(",\"message\":{\"text\":", j);
		json_str(j, msg);
		fputc('}', j);
	}
	fputc('}', j);
}

static void sarif_result(struct uc_report *rep, enum uc_kind k, uint64_t key)
{
	const char *uri;
	char *buf = NULL;
	size_t len = 0;
	int line, primary = -1;
	FILE *j = open_memstream(&buf, &len);

	if (!j)
		return;
	fprintf(j, "{\"ruleId\":\"%s\",\"ruleIndex\":%d,\"level\":\"%s\","
		"\"message\":{\"text\":", uc_kind_name(k), k, sarif_level(rep, k));
	json_str(j, rep->cur_headline);
	fputs("},\"locations\":[", j);
	for (int i = 0; i < rep->ncur && primary < 0; i++) {
		if (own_frame(rep, rep->cur[i].id, &uri, &line)) {
			sarif_location(j, uri, line, NULL);
			primary = i;
		}
	}
	fputs("],\"relatedLocations\":[", j);
	for (int i = 0, n = 0; i < rep->ncur; i++) {
		if (i == primary || !own_frame(rep, rep->cur[i].id, &uri, &line))
			continue;
		fprintf(j, "%s", n++ ? "," : "");
		fprintf(j, "{\"id\":%d,", i);
		/* sarif_location without its opening brace */
		fputs("\"physicalLocation\":{\"artifactLocation\":{\"uri\":", j);
		json_str(j, uri);
		fprintf(j, ",\"uriBaseId\":\"%%SRCROOT%%\"},\"region\":{\"startLine\":%d}},"
			"\"message\":{\"text\":", line);
		json_str(j, rep->cur[i].role);
		fputs("}}", j);
	}
	/* Stable across runs and uploads: kind + call sites (file, offset). */
	fprintf(j, "],\"partialFingerprints\":{\"uringcheckSite/v1\":\"%016llx\"}",
		(unsigned long long)(key ? uc_key_mix(key, k) : uc_key_mix(k, 0)));
	fclose(j);
	json_add(&rep->sarif, key ? uc_key_mix(key, k) : 0, k, buf);
	if (rep->sarif.n)
		rep->sarif.v[rep->sarif.n - 1].spans_loss = rep->cur_spans_loss;
}

void report_write_sarif(struct uc_report *rep, FILE *out, const char *version)
{
	fputs("{\"$schema\":\"https://json.schemastore.org/sarif-2.1.0.json\","
	      "\"version\":\"2.1.0\",\"runs\":[{\"tool\":{\"driver\":{"
	      "\"name\":\"uringcheck\",\"version\":", out);
	json_str(out, version);
	fputs(",\"informationUri\":\"https://example.invalid/uringcheck\","
	      "\"rules\":[", out);
	for (int k = 0; k < UC_KIND__COUNT; k++) {
		fprintf(out, "%s\n{\"id\":\"%s\",\"name\":\"%s\","
			"\"shortDescription\":{\"text\":", k ? "," : "",
			uc_kind_name(k), rules[k].name);
		json_str(out, rules[k].short_desc);
		fputs("},\"fullDescription\":{\"text\":", out);
		json_str(out, rules[k].full_desc);
		fputs("},\"help\":{\"text\":", out);
		json_str(out, rules[k].help);
		fprintf(out, "},\"defaultConfiguration\":{\"level\":\"%s\"},"
			"\"properties\":{\"tags\":[\"io_uring\",\"memory-safety\"],"
			"\"precision\":\"high\",\"security-severity\":\"%s\"}}",
			sarif_level(rep, k), rules[k].security);
	}
	fputs("]}},\n\"originalUriBaseIds\":{\"%SRCROOT%\":{\"uri\":", out);
	{
		char root[4200];

		snprintf(root, sizeof(root), "file://%s/", rep->srcroot ? rep->srcroot : "");
		json_str(out, root);
	}
	fputs("}},\n\"results\":[", out);
	for (size_t i = 0; i < rep->sarif.n; i++) {
		const struct uc_json_finding *f = &rep->sarif.v[i];
		uint64_t n = f->key ? dedup_count(&rep->dedup, f->key) : 1;

		fprintf(out, "%s\n%s,\"properties\":{\"count\":%llu%s}}", i ? "," : "",
			f->text, (unsigned long long)(n ? n : 1),
			f->spans_loss ? ",\"evidence_spans_loss\":true" : "");
	}
	/* Findings events lost could explain: counted, never results. */
	fputs("\n],\"properties\":{\"withheld\":{", out);
	for (int k = 0; k < UC_KIND__COUNT; k++)
		fprintf(out, "%s\"%s\":%llu", k ? "," : "", uc_kind_name(k),
			(unsigned long long)rep->withheld[k]);
	fputs("}}}]}\n", out);
}
