// SPDX-License-Identifier: GPL-2.0
#include "session.h"

#include <bpf/bpf.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "uringcheck.skel.h"

static int verbosity;

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* -v: warnings; -vv: everything, including the verifier log. */
	if (level == LIBBPF_DEBUG && verbosity < 2)
		return 0;
	if (level == LIBBPF_INFO && verbosity < 2)
		return 0;
	if (level == LIBBPF_WARN && verbosity < 1)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int on_ringbuf(void *ctx, void *data, size_t size)
{
	struct uc_session *s = ctx;

	s->on_event(s->arg, data, size);
	return 0;
}

/*
 * The reap-lag sampler: a software cpu-clock event on one CPU runs the
 * sampler program every period, whatever the target does. A quarter of
 * the threshold, between 1 and 25 ms.
 */
static int attach_sampler(struct uc_session *s, long lag_ms)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
	};
	long period_ms = lag_ms / 4;
	int fd;

	if (period_ms < 1)
		period_ms = 1;
	if (period_ms > 25)
		period_ms = 25;
	attr.sample_period = (uint64_t)period_ms * 1000000;
	fd = syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "uringcheck: cannot start the reap-lag sampler "
			"(perf_event_open: %s); run with --reap-lag-ms=0 to go "
			"without it\n", strerror(errno));
		return -1;
	}
	s->sampler = bpf_program__attach_perf_event(s->skel->progs.uc_reap_sampler, fd);
	if (!s->sampler) {
		fprintf(stderr, "uringcheck: cannot attach the reap-lag sampler: %s\n",
			strerror(errno));
		close(fd);
		return -1;
	}
	return 0;
}

int session_start(struct uc_session *s, const struct uc_options *o,
		  const struct uc_kernel *k, uc_event_fn fn, void *arg)
{
	struct uringcheck_bpf *skel;
	double t0 = now_ms();
	int err;

	memset(s, 0, sizeof(*s));
	s->on_event = fn;
	s->arg = arg;
	verbosity = o->verbose;
	libbpf_set_print(print_libbpf);

	skel = uringcheck_bpf__open();
	if (!skel) {
		fprintf(stderr, "uringcheck: cannot open the BPF object: %s\n",
			strerror(errno));
		return -1;
	}
	s->skel = skel;
	skel->rodata->reissue_flag = k->reissue_flag;
	skel->rodata->reap_lag_ns = (uint64_t)o->reap_lag_ms * 1000000;
	skel->rodata->stack_bytes = (uint32_t)o->stack_size;
	bpf_map__set_max_entries(skel->maps.events,
				 (uint32_t)o->event_buffer_mb << 20);
	/* The in-flight table: at least twice --max-inflight slots, a power
	 * of two (bpf/inflight.bpf.h). */
	uint32_t slots = 64;
	while (slots < 2 * (uint64_t)o->max_inflight)
		slots <<= 1;
	bpf_map__set_max_entries(skel->maps.inf_keys, slots);
	bpf_map__set_max_entries(skel->maps.inf_vals, slots);
	skel->rodata->inf_mask = slots - 1;
	/* Verification is most of start-up: load only what the options use. */
	bpf_program__set_autoload(skel->progs.uc_liburing_call,
				  o->liburing_uprobes && o->reap_lag_ms);
	bpf_program__set_autoload(skel->progs.uc_reap_sampler, o->reap_lag_ms != 0);

	err = uringcheck_bpf__load(skel);
	if (err) {
		fprintf(stderr, "uringcheck: the kernel refused to load the BPF "
			"programs (%s)%s\n", strerror(-err),
			o->verbose >= 2 ? "" : "; run with -vv for the verifier log");
		return -1;
	}
	s->load_ms = now_ms() - t0;

	t0 = now_ms();
	err = uringcheck_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "uringcheck: cannot attach the BPF programs (%s)%s\n",
			strerror(-err), o->verbose ? "" : "; run with -v for details");
		return -1;
	}
	s->attach_ms = now_ms() - t0;

	if (o->reap_lag_ms && attach_sampler(s, o->reap_lag_ms))
		return -1;

	s->rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_ringbuf, s, NULL);
	if (!s->rb) {
		fprintf(stderr, "uringcheck: cannot map the event buffer: %s\n",
			strerror(errno));
		return -1;
	}
	if (o->verbose)
		fprintf(stderr, "uringcheck: BPF loaded in %.1f ms, attached in "
			"%.1f ms\n", s->load_ms, s->attach_ms);
	return 0;
}

int session_track(struct uc_session *s, pid_t pid)
{
	uint32_t key = pid, one = 1;

	if (bpf_map__update_elem(s->skel->maps.tracked, &key, sizeof(key), &one,
				 sizeof(one), BPF_ANY)) {
		fprintf(stderr, "uringcheck: cannot follow pid %d: %s\n", pid,
			strerror(errno));
		return -1;
	}
	return 0;
}

int session_fd(const struct uc_session *s)
{
	return ring_buffer__epoll_fd(s->rb);
}

int session_drain(struct uc_session *s)
{
	return ring_buffer__consume(s->rb);
}

/*
 * Before an idle wait: ask the BPF side to wake us with its next record
 * (bpf/uringcheck.bpf.c, wakeup_flags). Returns the records that arrived
 * meanwhile; if any, the caller should not wait (a record committed
 * just before the flag was seen may not have woken us).
 */
int session_sleep_begins(struct uc_session *s)
{
	int n;

	__atomic_store_n(&s->skel->bss->reader_sleeping, 1, __ATOMIC_SEQ_CST);
	n = ring_buffer__consume(s->rb);
	if (n > 0)
		__atomic_store_n(&s->skel->bss->reader_sleeping, 0, __ATOMIC_SEQ_CST);
	return n;
}

void session_counters(const struct uc_session *s, uint64_t out[UC_STAT__COUNT])
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t vals[ncpu > 0 ? ncpu : 1];

	memset(out, 0, sizeof(uint64_t) * UC_STAT__COUNT);
	if (ncpu <= 0)
		return;
	for (uint32_t i = 0; i < UC_STAT__COUNT; i++) {
		if (bpf_map__lookup_elem(s->skel->maps.stats, &i, sizeof(i), vals,
					 sizeof(vals), 0))
			continue;
		for (int c = 0; c < ncpu; c++)
			out[i] += vals[c];
	}
}

void session_stop(struct uc_session *s)
{
	for (int i = 0; i < s->nprobes; i++)
		bpf_link__destroy(s->probes[i]);
	bpf_link__destroy(s->sampler);	/* closes the perf event too */
	ring_buffer__free(s->rb);
	uringcheck_bpf__destroy(s->skel);	/* detaches every link */
	s->rb = NULL;
	s->skel = NULL;
}
