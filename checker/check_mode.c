// SPDX-License-Identifier: GPL-2.0
/*
 * The check mode as the run loop sees it (lib/mode.h): its BPF session
 * (session.c) feeds the dispatcher (dispatch.c), which keeps the model
 * (tracker.c) and runs the rules (rules/) that judge every request and
 * report into the run's report; at the end, what was lost and the kernel
 * the verdicts rest on. Uprobes the session attaches per process live
 * here too: glibc's free/realloc for free-inflight (heap_probes.c),
 * liburing's publishing calls for SQPOLL stacks (sqpoll_probes.c), the
 * liburing ones for reap timing.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "heap_probes.h"
#include "heap_watch.h"
#include "kernel_features.h"
#include "liburing_probes.h"
#include "load.h"
#include "mode.h"
#include "options.h"
#include "session.h"
#include "shared.h"
#include "uringcheck.skel.h"
#include "sqpoll_probes.h"
#include "dispatch.h"
#include "xalloc.h"
#include "../reports/report.h"
#include "kinds/kinds.h"

#define UC_SETUP_SQPOLL	(1u << 1)	/* uapi IORING_SETUP_SQPOLL */

struct check_mode {
	struct uc_session sess;
	struct uc_dispatch check;
	struct heap_probes heap;	/* free-inflight's uprobes */
	struct sqpoll_probes sqpoll;	/* SQPOLL submissions' stacks */
	struct liburing_probes liburing;	/* --liburing-uprobes' reap sites */
	bool started;
	bool busy;			/* the last drain found events */
	bool keep_warm;			/* the run ended: the programs may stay */
	bool attached;			/* -p, -a: the processes run already */
	bool all;			/* -a: this session takes every
					 * process that makes a ring */
	uint32_t taken;			/* -a: processes taken at the start */
	uint32_t others;		/* ... left to the sessions following
					 * them already */
	uint32_t rings;			/* ring records: rings seen */
	uint64_t misses_base;		/* the programs' skipped runs at the
					 * start (session_hook_misses) ... */
	uint64_t hook_misses;		/* ... and during the run */
	struct uc_hook_misses misses_base_by_prog;
	char hook_misses_by_prog[256];	/* "uc_reap_sampler 14, ...": whose */
	uint64_t unanswered;		/* attached: SQEs without a CQE in the
					 * followed processes' rings then */
	const char *exe;		/* the target's executable (spawned) */
	const struct uc_options *opt;
	uint64_t kinds;			/* the kinds reported (--hazards) */
	pid_t spawned;			/* the target, spawned and not yet run */
	pthread_t heap_thread;		/* ... its heap probes being attached */
	bool heap_thread_on;
	bool heap_followed;		/* ... and attached (or found unprobeable) */
	uint32_t last_submitter;	/* tgid of the last submission read */
	pid_t pid;
};

static const char *const stat_names[UC_STAT__COUNT] = {
	[UC_STAT_RINGBUF_LOST] = "events lost: event buffer full (raise --event-buffer)",
	[UC_STAT_INFLIGHT_FULL] = "requests not tracked: in-flight table full (raise --max-inflight)",
	[UC_STAT_IOVECS_TRUNC] = "vectored requests with more than 1024 iovecs (the rest not checked)",
	[UC_STAT_IOVEC_FAULT] = "iovec arrays or msghdrs the kernel side could not read (not checked)",
	[UC_STAT_WALK_TRUNC] = "free-request lists read short: longer than the bound, changing under the read, or beyond a system call's step budget (a request that finished without a CQE may be listed as left in flight, or seen in flight a while longer)",
	[UC_STAT_RINGS_FULL] = "rings not tracked: ring table full",
	[UC_STAT_PROCS_FULL] = "processes not followed: process table full",
	[UC_STAT_DROPPED_TRUNC] = "teardown records lost: event buffer full (dropped requests not all listed)",
	[UC_STAT_PROCS_NS_BELOW] = "processes not followed: in a PID namespace below uringcheck's (run uringcheck inside it)",
	[UC_STAT_OPS_UNJUDGED] = "requests of opcodes whose memory is not judged (uringcheck --list-ops, docs/hazards.md)",
	[UC_STAT_SYNC_UNKEPT] = "system calls not judged by sync-overlap: their return could not be waited for (too many threads in such calls at once)",
};

/* The counters behind the loss warnings, for --json (stable names). */
static const char *const json_names[UC_STAT__COUNT] = {
	[UC_STAT_RINGBUF_LOST] = "events_lost",
	[UC_STAT_INFLIGHT_FULL] = "requests_untracked",
	[UC_STAT_IOVECS_TRUNC] = "iovecs_truncated",
	[UC_STAT_IOVEC_FAULT] = "iovecs_unreadable",
	[UC_STAT_WALK_TRUNC] = "list_walks_truncated",
	[UC_STAT_RINGS_FULL] = "rings_untracked",
	[UC_STAT_PROCS_FULL] = "processes_unfollowed",
	[UC_STAT_DROPPED_TRUNC] = "teardown_records_lost",
	[UC_STAT_SUBMITS] = "requests_submitted",
	[UC_STAT_DONES] = "requests_finished",
	[UC_STAT_OVERFLOW_UNMATCHED] = "overflow_ends_deferred",
	[UC_STAT_TASK_STORAGE] = "task_storage_unavailable",
	[UC_STAT_PROCS_NS_BELOW] = "processes_in_pid_namespace_below",
	[UC_STAT_OPS_UNJUDGED] = "requests_of_unjudged_opcodes",
	[UC_STAT_ENDS_UNSEEN] = "ends_without_submit",
	[UC_STAT_STACK_UNKNOWN] = "requests_stack_unknown",
	[UC_STAT_SYNC_CLEARED] = "sync_calls_cleared_in_kernel",
	[UC_STAT_SYNC_UNINDEXED] = "sync_calls_sent_unindexed",
	[UC_STAT_SYNC_UNKEPT] = "sync_calls_unjudged",
	[UC_STAT_RING_VISITS_ALL] = "ring_visits_of_every_ring",
};

static const struct uc_stack *stack_slot(void *sess, uint32_t index)
{
	return session_stack_slot(sess, index);
}

static int stack_bound(void *sess, const struct uc_stack_bound_key *k,
		       const struct uc_stack_site *site)
{
	struct uc_stack_bound_key key = *k;

	return session_stack_bound(sess, &key, site);
}

/* heap_libc_sent_fn: from the mapping records the kernel sent with the
 * process's first ring (v6.7+), which wait there for its first stack. */
static bool libc_sent(void *ctx, uint32_t tgid, struct heap_libc_sent *out)
{
	struct check_mode *c = ctx;

	return stacks_sent_file(&c->check.ck.stacks, tgid, "libc.so.6", &out->inode,
				out->path, sizeof(out->path));
}

static void on_event(void *arg, const void *data, size_t size)
{
	struct check_mode *c = arg;
	const struct uc_hdr *h = data;

	dispatch_record(&c->check, data, size);
	/* A process that submits before any ring of its own was read: on a
	 * ring another made (inherited; a ring not seen made comes as a
	 * creation by its first submitter): looked at, and told unjudged. */
	if (h->type == UC_EV_SUBMIT && h->tgid != c->last_submitter) {
		c->last_submitter = h->tgid;
		heap_probes_process_shared(&c->heap, h->tgid);
		liburing_probes_process(&c->liburing, h->tgid);
	}
	/* A process's first ring: its libc looked at (heap_probes.h). */
	if (size >= sizeof(struct uc_ring_create) && h->type == UC_EV_RING_CREATE) {
		c->rings++;
		heap_probes_process(&c->heap, h->tgid, libc_sent, c);
		liburing_probes_process(&c->liburing, h->tgid);
		/* its first SQPOLL ring: its liburing probed (sqpoll_probes.h) */
		if (((const struct uc_ring_create *)data)->setup_flags & UC_SETUP_SQPOLL)
			sqpoll_probes_process(&c->sqpoll, h->tgid, c->check.ck.report->out);
	}
}

/*
 * free-inflight's new owner (bpf/heap_alloc.bpf.h, heap_owner.h): the
 * watch table mapped (what a killed holder of this session slot left
 * armed given back), and with --heap-alloc-probes the allocation probes
 * attached with the free probes (the session's settings then make its
 * releases arm watches: session.c).
 */
static void heap_owner_begin(struct check_mode *c, const struct uc_options *o)
{
	struct uc_session *s = &c->sess;
	bool multi;	/* the same form as the free probe's (load/variants.def) */
	int prog = session_uprobe_prog(s, "uc_heap_alloc", &multi);

	c->check.ck.heap_watches = heap_watch_map(bpf_map__fd(s->skel->maps.heap_watches),
						  s->slot);
	if (!c->check.ck.heap_watches || prog < 0 || !o->heap_alloc_probes)
		return;
	heap_alloc_probes_init(&c->heap.alloc, prog);
	c->check.ck.heap_owners = true;
}

static int take_all(struct check_mode *c);
static void attached_follow(struct check_mode *c, pid_t pid);

static void *heap_attach_thread(void *arg)
{
	struct check_mode *c = arg;

	heap_probes_follow(&c->heap, c->spawned, c->exe);
	return NULL;
}

/* The target's heap probes attached, if a thread was doing it. */
static void heap_attach_wait(struct check_mode *c)
{
	if (!c->heap_thread_on)
		return;
	pthread_join(c->heap_thread, NULL);
	c->heap_thread_on = false;
	c->heap_followed = true;
}

/*
 * The programs are there (session_start): free-inflight's uprobes set
 * up, unless turned off (--heap-probes=no: each free() then costs no
 * trap) or free-inflight is not among --hazards. Off or unavailable,
 * every process that uses io_uring is counted unjudged and told at the
 * end (heap_probes_say). The allocation probes (--heap-alloc-probes,
 * which asks for the free probes too) triple a malloc+free pair's cost
 * under them (docs/benchmark-history.md, rows (r) and (s)): asked for
 * apart.
 *
 * A spawned target is probed before it runs. Registering a uprobe takes
 * a kernel-wide per-CPU rw-semaphore for writing, which waits for an RCU
 * grace period when no uprobe was registered lately: 6-10 ms on the
 * 2-CPU test machine, most of a warm start-up. So that attach runs on a
 * thread while the session maps its buffers, and check_begin waits for
 * it before it returns (before any other mode loads anything).
 */
static void kernel_ready(void *arg)
{
	struct check_mode *c = arg;
	const struct uc_options *o = c->opt;

	if (!(c->kinds & UC_KIND_BIT(UC_KIND_FREE_INFLIGHT)))
		return;
	if (!o->heap_probes && !o->heap_alloc_probes) {
		heap_probes_off(&c->heap, "turned off (--heap-probes=no)");
		return;
	}
	if (heap_probes_init(&c->heap, &c->sess))
		return;
	heap_owner_begin(c, o);
	if (c->spawned && !pthread_create(&c->heap_thread, NULL, heap_attach_thread, c))
		c->heap_thread_on = true;
}

static int check_begin(void **state, struct uc_run *run)
{
	const struct uc_options *o = run->opt;
	struct check_mode *c = xcalloc(1, sizeof(*c));

	*state = c;
	c->attached = !run->spawned;
	c->exe = run->exe;
	dispatch_init(&c->check, run->rep);
	heap_probes_setup(&c->heap);
	sqpoll_probes_setup(&c->sqpoll);
	liburing_probes_setup(&c->liburing);
	c->check.ck.reap_lag_ns = (uint64_t)o->reap_lag_ms * 1000000;
	c->opt = o;
	c->kinds = run->rep->enabled;
	c->spawned = run->spawned ? run->pid : 0;
	if (session_start(&c->sess, o, on_event, c, kernel_ready)) {
		heap_attach_wait(c);
		return -1;
	}
	c->started = true;
	c->misses_base = session_hook_misses(&c->sess, &c->misses_base_by_prog);
	c->check.ck.ev.sess = &c->sess;	/* judge against its kernel side */
	stacks_attach_store(&c->check.ck.stacks, stack_slot, &c->sess, c->sess.stack_cursor);
	/* Copies as long as each call site needs (stack_bounds.h). */
	if (o->stack_size && !o->full_stacks)
		stack_bounds_attach(&c->check.ck.stacks.bounds, stack_bound, &c->sess,
				    c->sess.slot);
	heap_attach_wait(c);
	/* Nothing is attached until a process makes an SQPOLL ring; nothing
	 * at all with --stack-size=0 (its traps would take no stack). */
	if (o->stack_size)
		sqpoll_probes_init(&c->sqpoll, &c->sess);
	if (o->all && take_all(c))
		return -1;
	if (o->liburing_uprobes) {
		if (!o->reap_lag_ms)
			fprintf(stderr, "uringcheck: --liburing-uprobes has no effect "
				"with --reap-lag-ms=0\n");
		else
			liburing_probes_init(&c->liburing, &c->sess,
					     c->attached ? NULL : run->exe,
					     c->check.ck.report->out);
	}
	return 0;
}

/*
 * --check -a: from now on the kernel side gives this session every
 * process that makes a ring while no session follows it; the processes
 * that hold one already are taken here, as -p takes its process (their
 * requests in flight now are not judged, and counted). A process another
 * instance follows stays with it.
 */
static int take_all(struct check_mode *c)
{
	struct dirent *d;
	DIR *proc;

	if (session_take_all(&c->sess, true)) {
		if (errno != EBUSY)
			fprintf(stderr, "uringcheck: --check -a: %s\n", strerror(errno));
		return -1;
	}
	c->all = true;
	proc = opendir("/proc");
	if (!proc)
		return 0;
	while ((d = readdir(proc))) {
		pid_t pid;
		int r;

		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		pid = (pid_t)atol(d->d_name);
		if (pid == getpid() || !ring_fds_held((uint32_t)pid))
			continue;
		r = session_track_unfollowed(&c->sess, pid);
		if (r == 1) {
			c->others++;
		} else if (r == 0) {
			c->taken++;
			attached_follow(c, pid);
		}
	}
	closedir(proc);
	fprintf(stderr, "uringcheck: --check -a: %u process%s holding a ring taken%s; "
		"every process that makes a ring from now on is checked too, until "
		"-d or Ctrl-C\n", c->taken, c->taken == 1 ? "" : "es",
		c->others ? " (others are checked by the uringcheck that follows them)" : "");
	return 0;
}

/* A running process just followed: what can only be read now. */
static void attached_follow(struct check_mode *c, pid_t pid)
{
	/* Its rings (whose creation sends the mappings) came before us: its
	 * mappings are read now, while it surely lives, and its own libc is
	 * probed now (it will make no first ring). */
	stacks_process_seen(&c->check.ck.stacks, pid);
	c->unanswered += ring_fds_snapshot(&c->check.fds, pid);
	heap_probes_process(&c->heap, pid, NULL, NULL);
	liburing_probes_process(&c->liburing, (uint32_t)pid);
}

static int check_follow(void *state, pid_t pid)
{
	struct check_mode *c = state;

	c->pid = pid;
	if (session_track(&c->sess, pid))
		return -1;
	if (c->attached)
		attached_follow(c, pid);
	else {
		if (!c->heap_followed || pid != c->spawned)
			heap_probes_follow(&c->heap, pid, c->exe);
		liburing_probes_follow(&c->liburing, pid, c->exe);
	}
	return 0;
}

static int check_fd(void *state)
{
	return session_fd(&((struct check_mode *)state)->sess);
}

/*
 * While events keep coming, poll every millisecond: the kernel side does
 * not wake a reader that is awake (each wake-up is an interrupt in the
 * target's thread). Before an idle wait, ask to be woken by the next
 * event (20 ms at most).
 */
static int check_tick(void *state)
{
	struct check_mode *c = state;

	if (!c->busy && session_sleep_begins(&c->sess) > 0)
		c->busy = true;
	return c->busy ? 1 : 20;
}

/* The records read (the run's reader pace counts them). */
static int check_drain(void *state)
{
	struct check_mode *c = state;
	int n = session_drain(&c->sess);

	c->busy = n > 0;
	return n > 0 ? n : 0;
}

/* The larger of the event buffer's fill and the captures not yet named
 * by a record: the store keeps UC_STACK_SLOTS, the buffer its size.
 * Called from the run's watchdog thread as well: atomic loads only. */
static unsigned check_backlog(void *state)
{
	struct check_mode *c = state;
	unsigned ev = session_backlog(&c->sess);
	unsigned st = stacks_backlog(&c->check.ck.stacks);

	return ev > st ? ev : st;
}

static void check_finish(void *state, struct uc_run *run)
{
	struct check_mode *c = state;
	uint64_t v[UC_STAT__COUNT];

	/* -a: no process is taken from now on (before the last drain: one
	 * taken after it would be followed by nobody) */
	if (c->all)
		session_take_all(&c->sess, false);
	c->all = false;
	session_drain(&c->sess);
	session_unmap_events(&c->sess);	/* read to the end: before the forks below */
	{
		struct uc_hook_misses end = { 0 };

		c->hook_misses = session_hook_misses(&c->sess, &end) - c->misses_base;
		hook_misses_text(&c->misses_base_by_prog, &end, c->hook_misses_by_prog,
				 sizeof(c->hook_misses_by_prog));
	}
	dispatch_finish(&c->check);	/* findings held for more (heap_owner.h) */
	heap_probes_stop(&c->heap);	/* before a --keep-warm holder inherits them */
	sqpoll_probes_stop(&c->sqpoll);
	liburing_probes_stop(&c->liburing);
	session_counters(&c->sess, v);
	run->check_events_lost = v[UC_STAT_RINGBUF_LOST];
	run->rings_seen += c->rings;
	c->keep_warm = true;
}

/* Nothing is dropped silently: every loss is a warning line. */
static void report_losses(struct uc_report *rep, struct check_mode *c, pid_t pid, bool stats)
{
	const struct uc_check *ck = &c->check.ck;
	uint64_t v[UC_STAT__COUNT];
	char what[512];

	session_counters(&c->sess, v);
	evidence_loss_text(&ck->ev, what, sizeof(what));
	for (int i = 0; i < UC_STAT__COUNT; i++)
		if (stat_names[i] && v[i])
			report_warning(rep, pid, "%llu %s%s%s", (unsigned long long)v[i],
				       stat_names[i], i == UC_STAT_RINGBUF_LOST && what[0] ?
				       ": " : "", i == UC_STAT_RINGBUF_LOST ? what : "");
	/* Not a loss: what stack-inflight cannot judge, said as a note under
	 * --stats (and counted in --json: requests_stack_unknown). Every
	 * SQPOLL program has such requests: printed always, it broke "a
	 * clean run prints nothing" for all of them (fio's sqthread tests). */
	if (stats && v[UC_STAT_STACK_UNKNOWN])
		fprintf(rep->out, "==%u==uringcheck: note: %llu requests holding "
			"memory were submitted by a thread whose own stack is not "
			"known (SQPOLL, or a thread started before uringcheck "
			"followed it): stack-inflight not judged for them\n", pid,
			(unsigned long long)v[UC_STAT_STACK_UNKNOWN]);
	heap_probes_say(&c->heap, rep->out, pid);
	/* Said in each such finding too (kinds/free_inflight.c); a note, as
	 * what is not judged: the findings themselves stand. */
	if (ck->heap_unwatched)
		fprintf(rep->out, "==%u==uringcheck: note: %llu free-inflight findings whose "
			"chunk's next owner was not watched (the run's %d watch slots held): whether "
			"it was handed out again before the request ended is not known\n", pid,
			(unsigned long long)ck->heap_unwatched, UC_HEAP_WATCHES_SESSION);
	/* Only a report can miss a stack: captures of requests that took
	 * part in no finding are never shown, so their loss changes nothing
	 * printed (counted in --json's stacks_overwritten). A checker that
	 * fell behind on a loaded machine is said only where it cost a
	 * report its stack. */
	if (ck->stacks.unavailable)
		report_warning(rep, pid, "%llu stacks printed as not kept: the checker fell "
			       "behind its stack store (%llu captures overwritten before it read "
			       "them)", (unsigned long long)ck->stacks.unavailable,
			       (unsigned long long)ck->stacks.overwritten);
	if (ck->stacks.unopened)
		report_warning(rep, pid, "%llu stacks printed with frames unnamed: a file the "
			       "process mapped could not be opened (it had exited, and the file "
			       "is in a mount namespace uringcheck does not share: run "
			       "uringcheck in it)", (unsigned long long)ck->stacks.unopened);
	if (ck->stacks.bounds.cut_short)
		report_warning(rep, pid, "%llu stacks printed cut short: their copy ended at the "
			       "bound learned at the same ip and sp, and their stack went on "
			       "further (--full-stacks copies whole stacks)",
			       (unsigned long long)ck->stacks.bounds.cut_short);
	if (ck->model.ranges_missing)
		report_warning(rep, pid, "%llu iovec ranges lost in transit (not checked)",
			       (unsigned long long)ck->model.ranges_missing);
	if (ck->malformed)
		report_warning(rep, pid, "%llu malformed events ignored",
			       (unsigned long long)ck->malformed);
	/* Picks whose buffer was not found (bpf/provided_buffers.bpf.h's
	 * bounds, a bundle's tail, legacy ids never seen provided). */
	if (ck->picks_unresolved)
		report_warning(rep, pid, "%llu provided buffer%s picked but not judged: "
			       "%s address could not be found (docs/hazards.md, "
			       "Provided buffers, Limits)",
			       (unsigned long long)ck->picks_unresolved,
			       ck->picks_unresolved == 1 ? "" : "s",
			       ck->picks_unresolved == 1 ? "its" : "their");
	if (ck->rings_unreadable)
		report_warning(rep, pid, "%llu ring teardowns with unreadable drop "
			       "counters (dropped not judged there)",
			       (unsigned long long)ck->rings_unreadable);
	if (ck->mmsg_unjudged)
		report_warning(rep, pid, "%llu recvmmsg/sendmmsg messages past the first %d "
			       "of a call not judged (sync-overlap)",
			       (unsigned long long)ck->mmsg_unjudged, UC_MMSG_MAX);
	if (ck->mmsg_cut)
		report_warning(rep, pid, "%llu recvmmsg/sendmmsg messages judged on their "
			       "first %d iovecs only (sync-overlap)",
			       (unsigned long long)ck->mmsg_cut, UC_MMSG_IOV_MAX);
	/* Runs the kernel skipped, anyone's (the programs are shared by
	 * every process on the machine): whether one was this target's is
	 * not known, so said, not warned of (docs/lost-events.md). */
	if (c->hook_misses)
		fprintf(rep->out, "==%u==uringcheck: note: the kernel skipped %llu run%s of "
			"uringcheck's hooks during this run (%s; a run of the same program, "
			"or of a probe, under way on that CPU): what %s would have seen is "
			"not judged (hook_runs_skipped)\n", pid,
			(unsigned long long)c->hook_misses, c->hook_misses == 1 ? "" : "s",
			c->hook_misses_by_prog[0] ? c->hook_misses_by_prog : "programs not named",
			c->hook_misses == 1 ? "it" : "they");
	if (ck->sync_unreturned)
		report_warning(rep, pid, "%llu system call%s met in-flight bytes but %s "
			       "return was not seen (killed in the call?): not judged "
			       "(sync-overlap)", (unsigned long long)ck->sync_unreturned,
			       ck->sync_unreturned == 1 ? "" : "s",
			       ck->sync_unreturned == 1 ? "its" : "their");
	if (ck->drops_unjudged)
		report_warning(rep, pid, "%llu ring teardowns whose shared SQ drop counter "
			       "rose outside the kernel's own submissions (written by the "
			       "program, or dropped by an SQPOLL thread: dropped not judged "
			       "there)", (unsigned long long)ck->drops_unjudged);
	if (stats)
		fprintf(rep->out, "==%u==uringcheck: stats: %llu requests submitted, "
			"%llu finished, %llu held user memory, %llu events, %llu "
			"ends inferred from reuse, %llu provided buffers judged (%llu "
			"not resolved)\n", pid,
			(unsigned long long)v[UC_STAT_SUBMITS],
			(unsigned long long)v[UC_STAT_DONES],
			(unsigned long long)ck->model.requests_seen,
			(unsigned long long)ck->events,
			(unsigned long long)ck->model.missed_ends,
			(unsigned long long)ck->picks,
			(unsigned long long)ck->picks_unresolved);
	/* Not a loss: a slower way to the same verdicts (bpf/ring_index.bpf.h). */
	if (stats && v[UC_STAT_RING_VISITS_ALL])
		fprintf(rep->out, "==%u==uringcheck: stats: %llu visits of a process's "
			"rings walked every ring followed on the machine (a process "
			"with more than %d rings open)\n", pid,
			(unsigned long long)v[UC_STAT_RING_VISITS_ALL], UC_PROC_RINGS);
}

/* The pid of the run's report lines: the target's, or (-a) ours. */
static uint32_t line_pid(const struct uc_run *run)
{
	return run->pid ? (uint32_t)run->pid : (uint32_t)getpid();
}

static int check_report(void *state, struct uc_run *run, FILE *out)
{
	struct check_mode *c = state;
	struct uc_report *rep = run->rep;

	report_losses(rep, c, line_pid(run), run->opt->stats);
	return 0;
}

/* Attached: the requests in flight at the attach, whose ends came
 * without a submission, were never judged; said every time (0 too), as
 * what the verdict does not cover. A spawned run has none to speak of
 * (the count, any, is in --stats and --json). */
static void say_unseen(struct check_mode *c, struct uc_run *run, FILE *out)
{
	uint64_t v[UC_STAT__COUNT];
	unsigned long long n;

	session_counters(&c->sess, v);
	n = v[UC_STAT_ENDS_UNSEEN];
	if (!c->attached) {
		if (run->opt->stats && n)
			fprintf(out, "==%u==uringcheck: stats: %llu request ends without a "
				"submission seen\n", line_pid(run), n);
		return;
	}
	fprintf(out, "==%u==uringcheck: %llu request%s in flight at the attach "
		"and %s not judged (%s seen, not %s)\n", line_pid(run),
		n, n == 1 ? " was" : "s were", n == 1 ? "is" : "are",
		n == 1 ? "its end" : "their ends",
		n == 1 ? "its submission" : "their submissions");
	/* What the kernel's ring counters said at the attach (fdinfo,
	 * checker/ring_fds.h): requests in flight then whose ends this run
	 * may not have seen. A ring held by two followed processes counts
	 * twice. */
	fprintf(out, "==%u==uringcheck: at the attach, %s rings held %llu SQE%s "
		"without a CQE yet (requests in flight then, but for those that "
		"skip their CQE or post several)\n", line_pid(run),
		run->pid ? "its" : "their", (unsigned long long)c->unanswered, c->unanswered == 1 ? "" : "s");
}

static void check_footer(void *state, struct uc_run *run, FILE *out)
{
	struct uc_report *rep = run->rep;

	say_unseen(state, run, out);

	/* What the verdict rests on: as probed for this run's loads
	 * (load/load.h), or probed now (a run that joined another's programs
	 * never read the kernel's BTF, and a clean run needs none of it). */
	if (report_total(rep)) {
		const struct uc_kernel *k = load_kernel_probed();
		struct uc_kernel kern;
		char *err = NULL;

		if (!k && !kernel_probe(&kern, &err))
			k = &kern;
		free(err);
		if (k)
			fprintf(out, "==%u==uringcheck: kernel %s: %s (see --version)\n",
				line_pid(run), k->release, kernel_tier(k));
	}
}

static int check_json_counters(void *state, struct uc_json_counter *out, int max)
{
	struct check_mode *c = state;
	const struct uc_check *ck = &c->check.ck;
	static char lost_names[UC_EV_TYPES + 3][40];
	uint64_t v[UC_STAT__COUNT];
	int n = 0;

	if (max < UC_STAT__COUNT + 17 + UC_EV_TYPES + 3)
		return 0;
	session_counters(&c->sess, v);
	for (int i = 0; i < UC_STAT__COUNT; i++)
		if (json_names[i])
			out[n++] = (struct uc_json_counter){ json_names[i], v[i] };
	out[n++] = (struct uc_json_counter){ "ranges_lost", ck->model.ranges_missing };
	out[n++] = (struct uc_json_counter){ "events_malformed", ck->malformed };
	out[n++] = (struct uc_json_counter){ "provided_buffers_judged", ck->picks };
	out[n++] = (struct uc_json_counter){ "provided_buffers_unresolved", ck->picks_unresolved };
	out[n++] = (struct uc_json_counter){ "stacks_unavailable", ck->stacks.unavailable };
	out[n++] = (struct uc_json_counter){ "stacks_overwritten", ck->stacks.overwritten };
	out[n++] = (struct uc_json_counter){ "sqes_unanswered_at_attach", c->unanswered };
	out[n++] = (struct uc_json_counter){ "stacks_file_unopened", ck->stacks.unopened };
	out[n++] = (struct uc_json_counter){ "processes_heap_unjudged",
					     heap_probes_unjudged(&c->heap) };
	out[n++] = (struct uc_json_counter){ "stack_bounds_installed", ck->stacks.bounds.installed };
	out[n++] = (struct uc_json_counter){ "stacks_cut_short", ck->stacks.bounds.cut_short };
	out[n++] = (struct uc_json_counter){ "stacks_bounded", ck->stacks.bounds.bounded };
	out[n++] = (struct uc_json_counter){ "stack_sites_kept",
					     ck->stacks.bounds.with_deciders };
	out[n++] = (struct uc_json_counter){ "stacks_reused", ck->stacks.bounds.reused };
	out[n++] = (struct uc_json_counter){ "stack_sites_relearned", ck->stacks.bounds.relearned };
	out[n++] = (struct uc_json_counter){ "stacks_site_let_go", ck->stacks.site_gone };
	out[n++] = (struct uc_json_counter){ "hook_runs_skipped", c->hook_misses };
	n += evidence_json_counters(&ck->ev, out + n, UC_EV_TYPES + 3, lost_names);
	return n;
}

static void check_stop(void *state, struct uc_run *run)
{
	struct check_mode *c = state;

	if (c->started && c->keep_warm)
		session_keep_warm(&c->sess, run->opt->no_share ? 0 : run->opt->keep_warm);
}

static void check_free(void *state)
{
	struct check_mode *c = state;

	if (!c)
		return;
	heap_attach_wait(c);
	heap_probes_free(&c->heap);
	sqpoll_probes_free(&c->sqpoll);
	liburing_probes_free(&c->liburing);
	if (c->all)
		session_take_all(&c->sess, false);
	/* Its bounds out of the shared table while it is reachable. */
	stack_bounds_clear(&c->check.ck.stacks.bounds);
	if (c->started)
		session_stop(&c->sess);
	dispatch_free(&c->check);
	heap_watch_unmap(c->check.ck.heap_watches);
	free(c);
}

const struct uc_mode_ops check_mode_ops = {
	.name = "check",
	.begin = check_begin,
	.follow = check_follow,
	.fd = check_fd,
	.tick = check_tick,
	.drain = check_drain,
	.backlog = check_backlog,
	.finish = check_finish,
	.report = check_report,
	.footer = check_footer,
	.json_counters = check_json_counters,
	.stop = check_stop,
	.free = check_free,
};
