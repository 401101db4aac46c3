// SPDX-License-Identifier: GPL-2.0
/*
 * uringcheck: run a program and report the io_uring buffer hazards it
 * causes. This file is the run's outline; each step lives in its own
 * file: options.c, kernel_features.c, session.c (BPF), runner.c (the
 * target), tracker.c + overlap_rule.c (judging), reports/ (telling).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "exit_codes.h"
#include "kernel_features.h"
#include "log_file.h"
#include "liburing_probes.h"
#include "options.h"
#include "runner.h"
#include "session.h"
#include "tracker.h"
#include "../profile/profile_run.h"
#include "../trace/trace_run.h"
#include "version.h"
#include "../reports/pid_lines.h"
#include "../reports/report.h"

/* Signals a user or a harness sends to stop or poke a test: forwarded. */
static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };

static bool has_bpf_caps(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = {};

	if (syscall(SYS_capget, &h, d))
		return geteuid() == 0;
	/* CAP_SYS_ADMIN, or CAP_BPF + CAP_PERFMON (5.8+) */
	if (d[0].effective & (1u << CAP_SYS_ADMIN))
		return true;
	return (d[1].effective & (1u << (CAP_BPF - 32))) &&
	       (d[1].effective & (1u << (CAP_PERFMON - 32)));
}

/* Like execvp's search, to fail fast (before loading BPF) on a typo.
 * The path found is kept in @found (for the uprobe mode). */
static int find_program(const char *name, char *found, size_t len)
{
	const char *path = getenv("PATH");
	char buf[4096];
	int err = ENOENT;

	snprintf(found, len, "%s", name);
	if (strchr(name, '/'))
		return access(name, X_OK) ? errno : 0;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s%s%s", (int)n, path, n ? "/" : "", name);
		if (!access(buf, X_OK)) {
			struct stat st;

			if (!stat(buf, &st) && S_ISREG(st.st_mode)) {
				snprintf(found, len, "%s", buf);
				return 0;
			}
		} else if (errno == EACCES) {
			err = EACCES;
		}
		path += n + (path[n] == ':');
	}
	return err;
}

static const struct uc_stack *stack_slot(void *sess, uint32_t index)
{
	return session_stack_slot(sess, index);
}

static void on_event(void *arg, const void *data, size_t size)
{
	tracker_event(arg, data, size);
}

static const char *const stat_names[UC_STAT__COUNT] = {
	[UC_STAT_RINGBUF_LOST] = "events lost: event buffer full (raise --event-buffer)",
	[UC_STAT_INFLIGHT_FULL] = "requests not tracked: in-flight table full (raise --max-inflight)",
	[UC_STAT_IOVECS_TRUNC] = "vectored requests with more than 1024 iovecs (the rest not checked)",
	[UC_STAT_IOVEC_FAULT] = "iovec arrays or msghdrs the kernel side could not read (not checked)",
	[UC_STAT_WALK_TRUNC] = "free-request lists longer than read at a teardown (a request that finished without a CQE may be listed as left in flight)",
	[UC_STAT_RINGS_FULL] = "rings not tracked: ring table full",
	[UC_STAT_PROCS_FULL] = "processes not followed: process table full",
	[UC_STAT_DROPPED_TRUNC] = "teardown records lost: event buffer full (dropped requests not all listed)",
};

/* The counters behind the loss warnings, for --json (stable names). */
static void write_json(struct uc_report *rep, const char *pattern, pid_t pid,
		       char **argv, int status, struct uc_session *s,
		       const struct uc_tracker *t)
{
	static const char *const names[UC_STAT__COUNT] = {
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
	};
	struct uc_json_counter c[UC_STAT__COUNT + 6 + UC_EV_TYPES + 3];
	char lost_names[UC_EV_TYPES + 3][40];
	uint64_t v[UC_STAT__COUNT];
	int n = 0;
	FILE *f = open_log(pattern, pid);

	if (!f)
		return;
	session_counters(s, v);
	for (int i = 0; i < UC_STAT__COUNT; i++)
		if (names[i])
			c[n++] = (struct uc_json_counter){ names[i], v[i] };
	c[n++] = (struct uc_json_counter){ "ranges_lost", t->ranges_missing };
	c[n++] = (struct uc_json_counter){ "events_malformed", t->malformed };
	c[n++] = (struct uc_json_counter){ "provided_buffers_judged", t->picks };
	c[n++] = (struct uc_json_counter){ "provided_buffers_unresolved", t->picks_unresolved };
	c[n++] = (struct uc_json_counter){ "stacks_unavailable", t->stacks.unavailable };
	c[n++] = (struct uc_json_counter){ "stacks_overwritten", t->stacks.overwritten };
	n += evidence_json_counters(t, c + n, UC_EV_TYPES + 3, lost_names);
	report_write_json(rep, f, UC_VERSION, pid, argv, status, c, n);
	fclose(f);
}

/* Nothing is dropped silently: every loss is a warning line. */
static void report_losses(struct uc_report *rep, struct uc_session *s,
			  const struct uc_tracker *t, pid_t pid, bool stats)
{
	uint64_t c[UC_STAT__COUNT];

	char what[512];

	session_counters(s, c);
	evidence_loss_text(t, what, sizeof(what));
	for (int i = 0; i < UC_STAT__COUNT; i++)
		if (stat_names[i] && c[i])
			report_warning(rep, pid, "%llu %s%s%s", (unsigned long long)c[i],
				       stat_names[i], i == UC_STAT_RINGBUF_LOST && what[0] ?
				       ": " : "", i == UC_STAT_RINGBUF_LOST ? what : "");
	if (t->stacks.overwritten)
		report_warning(rep, pid, "%llu stacks overwritten in the stack store "
			       "before the checker read them (reports show no stack there)",
			       (unsigned long long)t->stacks.overwritten);
	if (t->ranges_missing)
		report_warning(rep, pid, "%llu iovec ranges lost in transit (not checked)",
			       (unsigned long long)t->ranges_missing);
	if (t->malformed)
		report_warning(rep, pid, "%llu malformed events ignored",
			       (unsigned long long)t->malformed);
	if (t->rings_unreadable)
		report_warning(rep, pid, "%llu ring teardowns with unreadable drop "
			       "counters (dropped not judged there)",
			       (unsigned long long)t->rings_unreadable);
	if (stats)
		fprintf(rep->out, "==%u==uringcheck: stats: %llu requests submitted, "
			"%llu finished, %llu held user memory, %llu events, %llu "
			"ends inferred from reuse, %llu provided buffers judged (%llu "
			"not resolved)\n", pid,
			       (unsigned long long)c[UC_STAT_SUBMITS],
			       (unsigned long long)c[UC_STAT_DONES],
			       (unsigned long long)t->requests_seen,
			       (unsigned long long)t->events,
			       (unsigned long long)t->missed_ends,
			       (unsigned long long)t->picks,
			       (unsigned long long)t->picks_unresolved);
}

/* A signal from the terminal already reached the target (same process
 * group); one sent by a process (kill, timeout, a test harness) went only
 * to us and is passed on. */
static void forward_signal(const struct signalfd_siginfo *si, pid_t pid)
{
	if (si->ssi_code == SI_KERNEL)
		return;
	kill(pid, si->ssi_signo);
}

static int watch(struct uc_session *s, struct uc_target *t, int sigfd,
		 struct pf_run *prof, struct tr_run *trace)
{
	struct epoll_event ev, evs[4];
	int ep = epoll_create1(EPOLL_CLOEXEC);

	if (ep < 0)
		return -1;
	ev.events = EPOLLIN;
	ev.data.fd = session_fd(s);
	epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev);
	ev.data.fd = sigfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, sigfd, &ev);
	ev.data.fd = t->pidfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, t->pidfd, &ev);

	for (int busy = 0;;) {
		/*
		 * While events keep coming, poll every millisecond: the kernel
		 * side does not wake a reader that is awake (each wake-up is
		 * an interrupt in the target's thread). Before an idle wait,
		 * ask to be woken by the next event (20 ms at most).
		 */
		int n;
		bool exited = false;

		if (!busy && session_sleep_begins(s) > 0)
			busy = 1;
		n = epoll_wait(ep, evs, 4, busy ? 1 : 20);

		if (n < 0 && errno != EINTR)
			break;
		for (int i = 0; i < n; i++) {
			if (evs[i].data.fd == sigfd) {
				struct signalfd_siginfo si;

				while (read(sigfd, &si, sizeof(si)) == sizeof(si))
					forward_signal(&si, t->pid);
			} else if (evs[i].data.fd == t->pidfd) {
				exited = true;
			}
		}
		busy = session_drain(s) > 0;
		if (prof)	/* --profile --check: its once-a-second work */
			pf_run_tick(prof);
		tr_run_drain(trace);	/* --trace, --events */
		if (exited)
			break;
	}
	close(ep);
	return 0;
}

/* --profile --check: the profile's report after the checker's, and its
 * doctor told what the checker found. */
static void profile_beside_check(struct pf_run *prof, struct uc_report *rep,
				 struct uc_session *sess, FILE *out, const char *exe,
				 pid_t pid)
{
	struct pf_hazard_count h[UC_KIND__COUNT];
	uint64_t v[UC_STAT__COUNT];
	char what[4200];
	int n = 0;

	for (int k = 0; k < UC_KIND__COUNT; k++)
		h[n++] = (struct pf_hazard_count){
			.kind = uc_kind_name(k), .n = rep->count[k],
			.severity = rep->fail_on & UC_KIND_BIT(k) ? "error" : "warning" };
	session_counters(sess, v);
	pf_run_finish(prof, h, n, v[UC_STAT_RINGBUF_LOST]);
	snprintf(what, sizeof(what), "%s (pid %d), with --check", exe, pid);
	pf_run_report(prof, out, what);
	pf_run_to_report(prof, rep, pid);
	rep->mode = "check+profile";
}

int main(int argc, char **argv)
{
	struct uc_options opt;
	struct uc_kernel kern;
	struct uc_run_as run_as;
	struct uc_session sess;
	struct uc_tracker tracker;
	struct uc_report rep;
	struct uc_target tgt;
	struct pf_run prof_run, *prof = NULL;
	struct tr_run trace_run = { .active = false };
	sigset_t fwd, saved;
	FILE *log = stderr;
	char err[512], exe[4096];
	int status, sigfd, e;

	options_defaults(&opt);
	switch (options_parse(&opt, argc, argv)) {
	case OPT_EXIT_OK:
		return 0;
	case OPT_EXIT_USAGE:
		return UC_EXIT_USAGE;
	case OPT_RUN:
		break;
	}

	e = opt.target_argv ? find_program(opt.target_argv[0], exe, sizeof(exe)) : 0;
	if (e) {
		fprintf(stderr, "uringcheck: cannot run '%s': %s\n",
			opt.target_argv[0], strerror(e));
		return UC_EXIT_NOT_FOUND;
	}
	if (!has_bpf_caps()) {
		fprintf(stderr, "uringcheck: needs root (CAP_BPF and CAP_PERFMON, or "
			"CAP_SYS_ADMIN) to load its BPF programs: run it with sudo\n");
		return UC_EXIT_TOOL_ERROR;
	}
	if (run_as_from_env(&run_as, opt.as_root))
		return UC_EXIT_USAGE;

	/* Block the forwarded signals before fork; the child restores the
	 * original mask right before exec. */
	sigemptyset(&fwd);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&fwd, forwarded[i]);
	sigprocmask(SIG_BLOCK, &fwd, &saved);
	sigfd = signalfd(-1, &fwd, SFD_CLOEXEC | SFD_NONBLOCK);
	if (opt.profile && !opt.check)
		return profile_main(&opt, &run_as, &saved, sigfd, exe);

	report_init(&rep, stderr, opt.max_reports, opt.fail_mask);
	rep.gen_suppressions = opt.gen_suppressions;
	rep.enabled = opt.hazard_mask;
	rep.want_sarif = opt.sarif != NULL;
	rep.want_json = opt.json != NULL || rep.want_sarif;
	if (opt.srcroot || opt.sarif) {
		static char root[4096];

		if (!realpath(opt.srcroot ? opt.srcroot : ".", root)) {
			fprintf(stderr, "uringcheck: --srcroot=%s: %s\n", opt.srcroot,
				strerror(errno));
			return UC_EXIT_USAGE;
		}
		rep.srcroot = root;
	}
	for (int i = 0; i < opt.suppressions.n; i++)
		if (supp_load(&rep.supp, opt.suppressions.v[i]))
			return UC_EXIT_USAGE;
	rep.stacks_off = opt.stack_size == 0;
	tracker_init(&tracker, &rep);
	tracker.reap_lag_ns = (uint64_t)opt.reap_lag_ms * 1000000;
	/* The target's process is made before the kernel side maps its
	 * buffers: forking copies the page tables of every mapping, and the
	 * event buffer's alone are 64 MiB worth. It waits for target_release
	 * and exits unrun if we die first. */
	if (target_spawn(&tgt, opt.target_argv, &run_as, &saved))
		return UC_EXIT_TOOL_ERROR;
	if (session_start(&sess, &opt, on_event, &tracker)) {
		target_abandon(&tgt);
		return UC_EXIT_TOOL_ERROR;
	}
	tracker.ev.sess = &sess;	/* judge against its kernel side */
	if (opt.profile) {	/* --profile --check: both, side by side */
		if (pf_run_begin(&prof_run, &opt, stderr)) {
			target_abandon(&tgt);
			session_stop(&sess);
			return UC_EXIT_TOOL_ERROR;
		}
		prof = &prof_run;
	}
	if (tr_run_begin(&trace_run, &opt)) {
		target_abandon(&tgt);
		session_stop(&sess);
		return UC_EXIT_TOOL_ERROR;
	}
	if (trace_run.active) {	/* hazards drawn on their requests */
		rep.finding_hook = tr_run_finding;
		rep.finding_arg = &trace_run;
	}
	stacks_attach_store(&tracker.stacks, stack_slot, &sess, sess.stack_cursor);

	if (opt.liburing_uprobes) {
		if (!opt.reap_lag_ms)
			fprintf(stderr, "uringcheck: --liburing-uprobes has no effect "
				"with --reap-lag-ms=0\n");
		else
			liburing_probes_attach(&sess, exe, stderr);
	}

	if (session_track(&sess, tgt.pid) || (prof && pf_run_follow(prof, tgt.pid)) ||
	    tr_run_follow(&trace_run, tgt.pid)) {
		target_abandon(&tgt);
		session_stop(&sess);
		return UC_EXIT_TOOL_ERROR;
	}
	if (opt.log_file) {
		log = open_log(opt.log_file, tgt.pid);
		if (!log) {
			target_abandon(&tgt);
			session_stop(&sess);
			return UC_EXIT_TOOL_ERROR;
		}
		rep.out = log;
	}
	/* Every report line carries its ==PID== (reports/pid_lines.h). */
	rep.out = pid_lines_open(log);

	e = target_release(&tgt);
	if (e) {
		fprintf(stderr, "uringcheck: cannot run '%s': %s\n",
			opt.target_argv[0], strerror(e));
		target_reap(&tgt);
		session_stop(&sess);
		return UC_EXIT_NOT_FOUND;
	}

	watch(&sess, &tgt, sigfd, prof, &trace_run);
	status = target_reap(&tgt);
	session_drain(&sess);

	report_losses(&rep, &sess, &tracker, tgt.pid, opt.stats);
	report_summary(&rep, tgt.pid);
	if (prof)
		profile_beside_check(prof, &rep, &sess, rep.out, exe, tgt.pid);
	tr_run_end(&trace_run, rep.out, tgt.pid);
	/* What the verdict rests on: as probed for a cold load, or probed
	 * now (a run that joined another's programs never read the kernel's
	 * BTF, and a clean run needs none of it). */
	if (report_total(&rep)) {
		const struct uc_kernel *k = session_kernel(&sess);

		if (!k && !kernel_probe(&kern, err, sizeof(err)))
			k = &kern;
		if (k)
			fprintf(rep.out, "==%u==uringcheck: kernel %s: %s (see --version)\n",
				tgt.pid, k->release, kernel_tier(k));
	}
	if (opt.json)	/* the target's own status; ours follows from findings */
		write_json(&rep, opt.json, tgt.pid, opt.target_argv, status, &sess,
			   &tracker);
	if (opt.sarif) {
		FILE *f = open_log(opt.sarif, tgt.pid);

		if (f) {
			report_write_sarif(&rep, f, UC_VERSION);
			fclose(f);
		}
	}
	session_keep_warm(&sess, opt.no_share ? 0 : opt.keep_warm);
	session_stop(&sess);
	if (prof)
		pf_run_free(prof);
	tracker_free(&tracker);
	if (rep.out != log)
		fclose(rep.out);
	if (log != stderr)
		fclose(log);
	status = report_exit_status(&rep, status, (int)opt.error_exitcode);
	report_free(&rep);
	return status;
}
