// SPDX-License-Identifier: GPL-2.0
/*
 * --events=FILE.csv|FILE.jsonl: one row per event, with the fields of the
 * io_uring event catalogue (docs/trace.md lists them and says which ones
 * the kernel side cannot fill, and why). Rows are written as records
 * arrive; a COMPLETE row carries its request's submission time and
 * latency, so the submission is remembered until then.
 */
#define _GNU_SOURCE
#include "events_export.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "opcode_names.h"
#include "u64map.h"
#include "user_files.h"
#include <unistd.h>

enum col {
	C_TIME, C_TS, C_TYPE, C_PID, C_TID, C_COMM, C_CPU, C_RING_FD, C_RING_PTR,
	C_TO_SUBMIT, C_MIN_COMPLETE, C_ENTER_FLAGS, C_REQ, C_USER_DATA, C_OPCODE,
	C_FD, C_LEN, C_OFF, C_SQE_FLAGS, C_IOPRIO, C_BUF_INDEX, C_PERSONALITY,
	C_RESULT, C_IS_ERROR, C_ERRNO, C_SUBMIT_TS, C_COMPLETE_TS, C_LATENCY,
	C_WORKER_PID, C_WORKER_TID, C_WORKER_CPU, C_IS_ASYNC, C_SQ_HEAD, C_SQ_TAIL,
	C_CQ_HEAD, C_CQ_TAIL, C_SQ_DEPTH, C_CQ_DEPTH, C__COUNT,
};

static const char *const col_names[C__COUNT] = {
	"timestamp", "timestamp_ns", "event_type", "pid", "tid", "comm", "cpu",
	"ring_fd", "ring_ptr", "to_submit", "min_complete", "enter_flags", "req_ptr",
	"user_data", "opcode", "fd", "len", "offset", "sqe_flags", "ioprio",
	"buf_index", "personality", "result", "is_error", "errno", "submit_ts",
	"complete_ts", "latency_ns", "worker_pid", "worker_tid", "worker_cpu",
	"is_async", "sq_head", "sq_tail", "cq_head", "cq_tail", "sq_depth", "cq_depth",
};

struct ev_export {
	FILE *f;
	bool jsonl;
	int64_t mono_to_real;		/* ns to add to a monotonic time */
	struct u64map submits;		/* req -> struct tr_submit copy */
	struct u64map ring_fds;		/* ctx -> fd + 1 */
	struct u64map enters;		/* tid -> struct tr_syscall copy */
	struct u64map comms;		/* pid -> char[16] */
	uint64_t rows;
	char *v[C__COUNT];		/* the row being built */
	char buf[C__COUNT][48];
};

struct ev_export *ev_export_open(const char *path, char *err, size_t errlen)
{
	struct ev_export *x = calloc(1, sizeof(*x));
	const char *dot = strrchr(path, '.');
	struct timespec r, m;

	if (!x)
		return NULL;
	x->jsonl = dot && (!strcmp(dot, ".jsonl") || !strcmp(dot, ".json"));
	if (!x->jsonl && !(dot && !strcmp(dot, ".csv"))) {
		snprintf(err, errlen, "--events=%s: the name must end in .csv or .jsonl", path);
		free(x);
		return NULL;
	}
	/* opened before the run, as the user (lib/user_files.h) */
	x->f = uf_output_stream("events", path);
	if (!x->f)
		x->f = uf_output_open("events", path, getpid());
	if (!x->f) {
		snprintf(err, errlen, "--events=%s: cannot be opened", path);
		free(x);
		return NULL;
	}
	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_MONOTONIC, &m);
	x->mono_to_real = (r.tv_sec - m.tv_sec) * 1000000000ll + (r.tv_nsec - m.tv_nsec);
	u64map_init(&x->submits);
	u64map_init(&x->ring_fds);
	u64map_init(&x->enters);
	u64map_init(&x->comms);
	if (!x->jsonl) {
		for (int c = 0; c < C__COUNT; c++)
			fprintf(x->f, "%s%s", c ? "," : "", col_names[c]);
		fputc('\n', x->f);
	}
	return x;
}

/* ---- building a row ---------------------------------------------------- */

static void clear_row(struct ev_export *x)
{
	memset(x->v, 0, sizeof(x->v));
}

static void set(struct ev_export *x, enum col c, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set(struct ev_export *x, enum col c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(x->buf[c], sizeof(x->buf[c]), fmt, ap);
	va_end(ap);
	x->v[c] = x->buf[c];
}

static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* Numbers stay numbers in JSON; names, flags and hex stay strings. */
static bool numeric_col(enum col c)
{
	switch (c) {
	case C_TIME: case C_TYPE: case C_COMM: case C_RING_PTR: case C_ENTER_FLAGS:
	case C_REQ: case C_OPCODE: case C_SQE_FLAGS:
		return false;
	default:
		return true;
	}
}

static void emit(struct ev_export *x)
{
	if (x->jsonl) {
		json_object *o = json_object_new_object();

		for (int c = 0; c < C__COUNT; c++) {
			if (!x->v[c])
				continue;
			json_object_object_add(o, col_names[c], numeric_col(c) ?
				json_object_new_int64(strtoll(x->v[c], NULL, 10)) :
				json_object_new_string(x->v[c]));
		}
		fputs(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), x->f);
		fputc('\n', x->f);
		json_object_put(o);
	} else {
		for (int c = 0; c < C__COUNT; c++) {
			if (c)
				fputc(',', x->f);
			if (x->v[c])
				csv_field(x->f, x->v[c]);
		}
		fputc('\n', x->f);
	}
	x->rows++;
}

static void flags_text(char *out, size_t len, uint64_t f, const char *const *names, int n)
{
	size_t o = 0;

	out[0] = 0;
	for (int i = 0; i < n; i++)
		if (f & (1ull << i))
			o += snprintf(out + o, len > o ? len - o : 0, "%s%s", o ? "|" : "", names[i]);
}

static void common(struct ev_export *x, const struct tr_hdr *h, uint64_t ts,
		   const char *type)
{
	time_t secs;
	struct tm tm;
	int64_t real = (int64_t)ts + x->mono_to_real;
	char *comm = u64map_get(&x->comms, h->pid);

	clear_row(x);
	secs = real / 1000000000;
	localtime_r(&secs, &tm);
	set(x, C_TIME, "%04d-%02d-%02d %02d:%02d:%02d.%06lld", tm.tm_year + 1900,
	    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
	    (long long)(real % 1000000000) / 1000);
	set(x, C_TS, "%llu", (unsigned long long)ts);
	set(x, C_TYPE, "%s", type);
	set(x, C_PID, "%u", h->pid);
	set(x, C_TID, "%u", h->tid);
	if (comm)
		set(x, C_COMM, "%.16s", comm);
	set(x, C_CPU, "%u", h->cpu);
}

static void ring_cols(struct ev_export *x, uint64_t ctx)
{
	uintptr_t fd1 = (uintptr_t)u64map_get(&x->ring_fds, ctx);

	if (!ctx)
		return;
	set(x, C_RING_PTR, "0x%llx", (unsigned long long)ctx);
	if (fd1)
		set(x, C_RING_FD, "%d", (int)fd1 - 1);
}

static void request_cols(struct ev_export *x, const struct tr_submit *s)
{
	static const char *const sqe[] = { "FIXED_FILE", "IO_DRAIN", "IO_LINK",
		"IO_HARDLINK", "ASYNC", "BUFFER_SELECT", "CQE_SKIP_SUCCESS" };
	char ob[16], fl[96];

	set(x, C_REQ, "0x%llx", (unsigned long long)s->req);
	set(x, C_USER_DATA, "%llu", (unsigned long long)s->user_data);
	set(x, C_OPCODE, "%s", uc_opcode_name(s->opcode, ob));
	set(x, C_FD, "%d", s->fd);
	set(x, C_LEN, "%u", s->len);
	set(x, C_OFF, "%llu", (unsigned long long)s->off);
	flags_text(fl, sizeof(fl), s->sqe_flags, sqe, 7);
	if (fl[0])
		set(x, C_SQE_FLAGS, "%s", fl);
	set(x, C_IOPRIO, "%u", s->ioprio);
	set(x, C_BUF_INDEX, "%u", s->buf_index);
	ring_cols(x, s->ctx);
}

static void index_cols(struct ev_export *x, const struct tr_syscall *s)
{
	if (!s->ctx)
		return;
	set(x, C_SQ_HEAD, "%u", s->sq_head);
	set(x, C_SQ_TAIL, "%u", s->sq_tail);
	set(x, C_CQ_HEAD, "%u", s->cq_head);
	set(x, C_CQ_TAIL, "%u", s->cq_tail);
	set(x, C_SQ_DEPTH, "%u", s->sq_tail - s->sq_head);
	set(x, C_CQ_DEPTH, "%u", s->cq_tail - s->cq_head);
}

/* ---- records ------------------------------------------------------------ */

static void on_syscall_exit(struct ev_export *x, const struct tr_syscall *e)
{
	static const char *const enter_flags[] = { "GETEVENTS", "SQ_WAKEUP", "SQ_WAIT",
		"EXT_ARG", "REGISTERED_RING", "ABS_TIMER", "EXT_ARG_REG", "NO_IOWAIT" };
	struct tr_syscall *b = u64map_del(&x->enters, e->h.tid);
	uint64_t start = b ? b->h.ts : e->h.ts;
	char fl[128];

	common(x, &e->h, start, e->nr == 426 ? "ENTER" : e->nr == 427 ? "REGISTER" : "SETUP");
	ring_cols(x, e->ctx);
	if (e->nr == 426) {
		set(x, C_TO_SUBMIT, "%llu", (unsigned long long)e->arg[0]);
		set(x, C_MIN_COMPLETE, "%llu", (unsigned long long)e->arg[1]);
		flags_text(fl, sizeof(fl), e->arg[2], enter_flags, 8);
		if (fl[0])
			set(x, C_ENTER_FLAGS, "%s", fl);
	}
	set(x, C_RESULT, "%lld", (long long)e->ret);
	if (e->ret < 0) {
		set(x, C_IS_ERROR, "1");
		set(x, C_ERRNO, "%lld", (long long)-e->ret);
	}
	set(x, C_LATENCY, "%llu", (unsigned long long)(e->h.ts - start));
	/* the ring as the call found it (the exit's view is in the trace) */
	index_cols(x, b ? b : e);
	emit(x);
	free(b);
}

static void on_complete(struct ev_export *x, const struct tr_complete *c)
{
	struct tr_submit *s = c->req ? u64map_get(&x->submits, c->req) : NULL;
	bool more = c->cflags & 2;	/* IORING_CQE_F_MORE */

	common(x, &c->h, c->h.ts, "COMPLETE");
	if (s) {
		request_cols(x, s);
		set(x, C_SUBMIT_TS, "%llu", (unsigned long long)s->h.ts);
		set(x, C_LATENCY, "%llu", (unsigned long long)(c->h.ts - s->h.ts));
	} else {
		char ob[16];

		ring_cols(x, c->ctx);
		if (c->req)
			set(x, C_REQ, "0x%llx", (unsigned long long)c->req);
		if (c->opcode != 0xff)
			set(x, C_OPCODE, "%s", uc_opcode_name(c->opcode, ob));
	}
	set(x, C_USER_DATA, "%llu", (unsigned long long)c->user_data);
	set(x, C_RESULT, "%d", c->res);
	if (c->res < 0) {
		set(x, C_IS_ERROR, "1");
		set(x, C_ERRNO, "%d", -c->res);
	}
	set(x, C_COMPLETE_TS, "%llu", (unsigned long long)c->h.ts);
	set(x, C_IS_ASYNC, "%d", c->in_worker);
	if (c->in_worker) {
		set(x, C_WORKER_PID, "%u", c->h.pid);
		set(x, C_WORKER_TID, "%u", c->h.tid);
		set(x, C_WORKER_CPU, "%u", c->h.cpu);
	}
	emit(x);
	if (c->in_worker) {	/* the catalogue's WORKER row: who ran it */
		set(x, C_TYPE, "WORKER");
		emit(x);
	}
	if (c->req && !more)
		free(u64map_del(&x->submits, c->req));
}

void ev_export_record(struct ev_export *x, const void *rec, size_t size)
{
	const struct tr_hdr *h = rec;

	switch (h->type) {
	case TR_RING: {
		const struct tr_ring *r = rec;
		char *comm = malloc(17);

		u64map_put(&x->ring_fds, r->ctx, (void *)(uintptr_t)(r->fd + 1));
		if (comm) {
			snprintf(comm, 17, "%.16s", r->comm);
			free(u64map_put(&x->comms, h->pid, comm));
		}
		break;
	}
	case TR_SUBMIT: {
		const struct tr_submit *s = rec;
		struct tr_submit *copy = malloc(sizeof(*copy));

		common(x, h, h->ts, "SUBMIT");
		request_cols(x, s);
		set(x, C_SUBMIT_TS, "%llu", (unsigned long long)h->ts);
		set(x, C_IS_ASYNC, "%d", (s->sqe_flags & 0x10) ? 1 : 0);
		emit(x);
		if (copy) {
			*copy = *s;
			free(u64map_put(&x->submits, s->req, copy));
		}
		break;
	}
	case TR_POLL_ARM:
	case TR_PUNT: {
		const struct tr_mark *m = rec;
		struct tr_submit *s = u64map_get(&x->submits, m->req);

		common(x, h, h->ts, h->type == TR_PUNT ? "PUNT" : "POLL_ARM");
		if (s)
			request_cols(x, s);
		else
			set(x, C_REQ, "0x%llx", (unsigned long long)m->req);
		emit(x);
		break;
	}
	case TR_COMPLETE:
		on_complete(x, rec);
		break;
	case TR_SYS_ENTER: {
		struct tr_syscall *copy = malloc(sizeof(*copy));

		if (copy) {
			memcpy(copy, rec, sizeof(*copy));
			free(u64map_put(&x->enters, h->tid, copy));
		}
		break;
	}
	case TR_SYS_EXIT:
		on_syscall_exit(x, rec);
		break;
	default:
		break;
	}
	(void)size;
}

static void free_val(uint64_t key, void *val, void *arg)
{
	free(val);
}

int ev_export_close(struct ev_export *x, uint64_t *rows, uint64_t lost)
{
	int err;

	if (!x)
		return 0;
	if (lost) {
		/* a file that silently lacks events is worse than none */
		clear_row(x);
		set(x, C_TYPE, "LOST");
		set(x, C_RESULT, "%llu", (unsigned long long)lost);
		emit(x);
	}
	if (rows)
		*rows = x->rows;
	err = fclose(x->f) ? -1 : 0;
	u64map_each(&x->submits, free_val, NULL);
	u64map_each(&x->enters, free_val, NULL);
	u64map_each(&x->comms, free_val, NULL);
	u64map_free(&x->submits);
	u64map_free(&x->ring_fds);
	u64map_free(&x->enters);
	u64map_free(&x->comms);
	free(x);
	return err;
}
