// SPDX-License-Identifier: GPL-2.0
/*
 * The one run loop, whatever the modes (lib/mode.h):
 *
 *   the report set up (suppressions read) -> the target spawned, blocked
 *   (or the -p process opened) -> every output opened (--log-file,
 *   --json, --sarif, --trace, --events: a bad path ends the run here,
 *   exit 70) -> each mode begins (loads its BPF side through load/: one
 *   kernel probe and one parse of the kernel's BTF for all, freed once
 *   all have begun) and follows the target -> the target released -> the
 *   loop: wait on the modes' descriptors, the signals and the target's
 *   exit; tick and drain each mode -> the target reaped -> each mode
 *   finishes and reports -> the summary -> each mode's footer -> --json,
 *   --sarif -> the outputs closed (a write error: exit 70, the file
 *   removed) -> the exit status.
 *
 * Signals: the forwarded ones are blocked from the spawn on and read
 * from a signalfd by the loop. Once the target is gone, a termination
 * signal ends uringcheck at once (the unfinished outputs removed), however
 * long the reports take.
 */
#define _GNU_SOURCE
#include "run.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "descendants.h"
#include "exit_codes.h"
#include "load.h"
#include "mode.h"
#include "options.h"
#include "pidns.h"
#include "policy.h"
#include "reader_pace.h"
#include "runner.h"
#include "user_files.h"
#include "version.h"
#include "xalloc.h"
#include "../reports/pid_lines.h"
#include "../reports/report.h"

/* Signals a user or a harness sends to stop or poke a test: forwarded. */
static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };
/* Of those, the ones that end uringcheck once the target is gone. */
static const int terminating[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

#define MAX_COUNTERS 128

struct active {
	const struct uc_mode_ops *ops;
	void *state;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* The run's report: every mode's findings, one set of options. */

/* A suppression file, read whole as the invoking user (bounded, no
 * FIFO or device: lib/user_files.c), then parsed. */
static int load_suppressions(struct uc_suppressions *supp, const char *path)
{
	char err[256];
	size_t len;
	char *text = uf_read(path, UF_READ_MAX, &len, err, sizeof(err));
	int r;

	if (!text) {
		fprintf(stderr, "uringcheck: cannot read suppressions '%s': %s\n", path, err);
		return -1;
	}
	r = supp_parse(supp, path, text, len);
	free(text);
	return r;
}

static int report_setup(struct uc_report *rep, const struct uc_options *o, bool checking)
{
	static char root[4096];

	report_init(rep, stderr, o->max_reports, checking ? o->fail_mask : 0);
	rep->gen_suppressions = o->gen_suppressions;
	rep->enabled = o->hazard_mask;
	rep->want_sarif = o->sarif != NULL;
	rep->want_json = o->json != NULL || o->baseline != NULL || rep->want_sarif;
	rep->stacks_off = o->stack_size == 0;
	rep->mode = !o->profile ? "check" : checking ? "check+profile" : "profile";
	rep->attached = o->all ? 2 : o->pid ? 1 : 0;
	if (o->srcroot || o->sarif) {
		char err[256];

		if (uf_realpath_dir(o->srcroot ? o->srcroot : ".", root, sizeof(root),
				    err, sizeof(err))) {
			fprintf(stderr, "uringcheck: --srcroot=%s: %s\n",
				o->srcroot ? o->srcroot : ".", err);
			return -1;
		}
		rep->srcroot = root;
	}
	for (int i = 0; i < o->suppressions.n; i++)
		if (load_suppressions(&rep->supp, o->suppressions.v[i]))
			return -1;
	return 0;
}

/* A signal from the terminal already reached a spawned target (same
 * process group); one sent by a process (kill, timeout, a test harness)
 * went only to us and is passed on. Attached, a termination signal ends
 * the run. Returns true when the run should end. */
static bool on_signals(int sigfd, const struct uc_run *run)
{
	struct signalfd_siginfo si;
	bool stop = false;

	while (read(sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (run->spawned) {
			if (si.ssi_code != SI_KERNEL)
				kill(run->pid, (int)si.ssi_signo);
		} else if (si.ssi_signo != SIGUSR1 && si.ssi_signo != SIGUSR2) {
			stop = true;
		}
	}
	return stop;
}

struct active_modes {
	struct active *m;
	int nm;
};

/* The largest backlog of the modes, -1 if one cannot say (reader_pace.h).
 * Also the watchdog thread's: the modes' backlog ops are safe there. */
static int backlog_of(void *ctx)
{
	struct active *m = ((struct active_modes *)ctx)->m;
	int nm = ((struct active_modes *)ctx)->nm, most = 0;

	for (int i = 0; i < nm; i++) {
		unsigned b;

		if (!m[i].ops->backlog)
			return -1;
		b = m[i].ops->backlog(m[i].state);
		if (b > 1000)
			b = 1000;
		if ((int)b > most)
			most = (int)b;
	}
	return most;
}

static void watch(struct active *m, int nm, const struct uc_run *run, int sigfd,
		  int pidfd, uint64_t deadline, struct reader_pace *pace)
{
	struct epoll_event ev = { .events = EPOLLIN }, evs[8];
	int ep = epoll_create1(EPOLL_CLOEXEC);

	if (ep < 0)
		return;
	for (int i = 0; i < nm; i++) {
		ev.data.fd = m[i].ops->fd(m[i].state);
		if (ev.data.fd >= 0)
			epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev);
	}
	ev.data.fd = sigfd;
	epoll_ctl(ep, EPOLL_CTL_ADD, sigfd, &ev);
	if (pidfd >= 0) {
		ev.data.fd = pidfd;
		epoll_ctl(ep, EPOLL_CTL_ADD, pidfd, &ev);
	}
	for (;;) {
		int wait = 1000, n;
		unsigned got = 0;	/* records the drains read */
		bool stop = false;

		for (int i = 0; i < nm; i++) {
			int w = m[i].ops->tick(m[i].state);

			if (w < wait)
				wait = w;
		}
		if (deadline) {
			uint64_t t = now_ns();

			if (t >= deadline)
				break;
			if ((deadline - t) / 1000000 + 1 < (uint64_t)wait)
				wait = (int)((deadline - t) / 1000000) + 1;
		}
		pace_waiting(pace, true);
		n = epoll_wait(ep, evs, 8, wait);
		pace_waiting(pace, false);
		if (n < 0 && errno != EINTR)
			break;
		for (int i = 0; i < n; i++) {
			if (evs[i].data.fd == sigfd)
				stop |= on_signals(sigfd, run);
			else if (evs[i].data.fd == pidfd)
				stop = true;
		}
		for (int i = 0; i < nm; i++) {
			int r = m[i].ops->drain(m[i].state);

			got += r > 0 ? (unsigned)r : 0;
		}
		if (stop)
			break;
		pace_update(pace, backlog_of(&(struct active_modes){ m, nm }), got);
	}
	pace_end(pace);
	close(ep);
}

static void name_run(struct uc_run *run)
{
	const struct uc_options *o = run->opt;

	if (o->all)
		snprintf(run->what, sizeof(run->what), "every process");
	else if (!run->spawned)
		snprintf(run->what, sizeof(run->what), "pid %d (attached)", run->pid);
	else
		snprintf(run->what, sizeof(run->what), "%s (pid %d)%s", run->exe, run->pid,
			 run->checking ? ", with --check" : "");
}

/* Every output, before the target runs: a path that cannot be written
 * ends the run now, not after it (exit 70). The trace mode finds its
 * streams by their option's value (uf_output_stream). */
static int open_outputs(const struct uc_options *o, pid_t pid, FILE **log)
{
	if (o->log_file && !(*log = uf_output_open("log-file", o->log_file, pid)))
		return -1;
	if (o->json && !uf_output_open("json", o->json, pid))
		return -1;
	if (o->sarif && !uf_output_open("sarif", o->sarif, pid))
		return -1;
	if (o->baseline && !uf_output_open("baseline", o->baseline, pid))
		return -1;
	if (o->trace && !uf_output_open("trace", o->trace, pid))
		return -1;
	if (o->events && !uf_output_open("events", o->events, pid))
		return -1;
	return 0;
}

/* --json and --sarif, once every mode has reported, into the streams
 * opened before the run; their write errors are told when the outputs
 * are closed (uf_outputs_finish). */
static void write_documents(struct uc_run *run, struct active *m, int nm)
{
	const struct uc_options *o = run->opt;
	struct uc_json_counter c[MAX_COUNTERS];
	int nc = 0;
	FILE *f;

	for (int i = 0; i < nm; i++)
		if (m[i].ops->json_counters)
			nc += m[i].ops->json_counters(m[i].state, c + nc, MAX_COUNTERS - nc);
	/* the target's own status; ours follows from findings */
	if (o->json && (f = uf_output_stream("json", o->json))) {
		report_write_json(run->rep, f, UC_VERSION, run->pid, o->target_argv,
				  run->status, nc ? c : NULL, nc);
		fclose(f);
	}
	/* --baseline: the same document, for a later --diff (profile/diff.h) */
	if (o->baseline && (f = uf_output_stream("baseline", o->baseline))) {
		report_write_json(run->rep, f, UC_VERSION, run->pid, o->target_argv,
				  run->status, nc ? c : NULL, nc);
		fclose(f);
	}
	if (o->sarif && (f = uf_output_stream("sarif", o->sarif))) {
		report_write_sarif(run->rep, f, UC_VERSION);
		fclose(f);
	}
}

static void on_terminating_signal(int sig)
{
	uf_outputs_abandon();
	raise(sig);	/* SA_RESETHAND: delivered, by default, on return */
}

/* The target is gone: what the loop did not read of the signals was
 * meant for the run, which is over; from now on a termination signal
 * ends uringcheck, however long the reports take. */
static void terminate_on_signals(int sigfd, bool on)
{
	struct sigaction sa = { .sa_handler = on_terminating_signal,
				.sa_flags = SA_RESETHAND };
	struct signalfd_siginfo si;
	sigset_t term;

	sigemptyset(&term);
	for (size_t i = 0; i < sizeof(terminating) / sizeof(terminating[0]); i++)
		sigaddset(&term, terminating[i]);
	if (!on) {
		sigprocmask(SIG_BLOCK, &term, NULL);
		return;
	}
	while (sigfd >= 0 && read(sigfd, &si, sizeof(si)) == sizeof(si))
		;
	for (size_t i = 0; i < sizeof(terminating) / sizeof(terminating[0]); i++)
		sigaction(terminating[i], &sa, NULL);
	sigprocmask(SIG_UNBLOCK, &term, NULL);
}

/*
 * -p: the attached process's descendants. Counted (for the hint when no
 * ring was seen); with -f, each followed by every mode as the process
 * is. The process is followed first, so what it forks from then on is
 * the kernel side's; a descendant forking between the look and its
 * follow is found by the next look (until one finds nothing new).
 * -1 if a mode could not follow one.
 */
#define MAX_DESCENDANTS 4096

static int follow_descendants(struct uc_run *run, struct active *m, int nm,
			      const struct uc_run_as *ra, int *count)
{
	pid_t *done = NULL;
	int ndone = 0, refused = 0;
	bool capped = false;

	for (int round = 0; round < 4; round++) {
		pid_t *v;
		int n = descendants_list(run->pid, &v, MAX_DESCENDANTS), fresh = 0;

		if (round == 0)
			*count = n;
		capped |= n == MAX_DESCENDANTS;
		for (int i = 0; run->opt->follow && i < n; i++) {
			bool seen = false;

			for (int j = 0; j < ndone && !seen; j++)
				seen = done[j] == v[i];
			if (seen)
				continue;
			done = xrealloc(done, (ndone + 1) * sizeof(*done));
			done[ndone++] = v[i];
			fresh++;
			/* Under sudo, another user's process is not the
			 * invoking user's to watch (run/policy.h). */
			if (!policy_may_watch(v[i], ra)) {
				refused++;
				continue;
			}
			for (int k = 0; k < nm; k++)
				if (m[k].ops->follow(m[k].state, v[i])) {
					free(v);
					free(done);
					return -1;
				}
		}
		free(v);
		if (!fresh)
			break;
	}
	if (run->opt->follow)
		fprintf(stderr, "uringcheck: following pid %d and %d process%s below it "
			"(-f)\n", run->pid, ndone - refused, ndone - refused == 1 ? "" : "es");
	if (run->opt->follow && capped)
		fprintf(stderr, "uringcheck: -f: pid %d has %d processes below it or "
			"more: %d are followed, any others are not\n", run->pid,
			MAX_DESCENDANTS, MAX_DESCENDANTS);
	if (refused)
		fprintf(stderr, "uringcheck: -f: %d process%s below pid %d not followed: "
			"under sudo only the invoking user's processes can be watched "
			"('allow-attach-any' in %s allows others)\n", refused,
			refused == 1 ? "" : "es", run->pid, UC_CONFIG_FILE);
	free(done);
	return 0;
}

int run(const struct uc_options *o, const struct uc_mode_ops *const *modes, int nmodes,
	const char *exe, const struct uc_run_as *ra)
{
	struct uc_report rep;
	struct uc_run run = { .opt = o, .rep = &rep, .exe = exe, .pid = (pid_t)o->pid };
	struct uc_target tgt = { .pid = 0, .pidfd = -1 };
	struct active m[4];
	int nm = 0, sigfd, pidfd = -1, status = UC_EXIT_TOOL_ERROR, e, out_err = 0;
	int children = 0;		/* -p: the process's, at the attach */
	bool complete = false;
	uint64_t deadline = 0;
	sigset_t fwd, saved;
	struct reader_pace pace;
	struct active_modes watched;	/* the watchdog's view of the modes */
	FILE *log = stderr;

	for (int i = 0; i < nmodes; i++)
		run.checking |= modes[i] == &check_mode_ops;
	run.spawned = !o->pid && !o->all;
	if (report_setup(&rep, o, run.checking)) {
		report_free(&rep);
		return UC_EXIT_USAGE;
	}

	/* Block the forwarded signals before fork; the child restores the
	 * original mask right before exec. */
	sigemptyset(&fwd);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&fwd, forwarded[i]);
	sigprocmask(SIG_BLOCK, &fwd, &saved);
	sigfd = signalfd(-1, &fwd, SFD_CLOEXEC | SFD_NONBLOCK);

	/* The target's process is made before any kernel side maps its
	 * buffers: forking copies the page tables of every mapping, and the
	 * event buffer's alone are 64 MiB worth. It waits for target_release
	 * and exits unrun if we die first. */
	if (run.spawned) {
		if (target_spawn(&tgt, o->target_argv, ra, &saved))
			goto out;
		run.pid = tgt.pid;
		pidfd = tgt.pidfd;
	} else if (run.pid) {
		pidfd = (int)syscall(SYS_pidfd_open, run.pid, 0);
		if (pidfd < 0) {
			fprintf(stderr, "uringcheck: -p %d: %s\n", run.pid, errno == ESRCH ?
				"no such process" : strerror(errno));
			status = UC_EXIT_NOT_FOUND;
			goto out;
		}
	}
	if (open_outputs(o, run.pid ? run.pid : getpid(), &log))
		goto out;
	run.log = log;
	/* Every report line carries its ==PID== (reports/pid_lines.h). */
	rep.out = pid_lines_open(log, run.pid ? run.pid : getpid());
	name_run(&run);

	for (int i = 0; i < nmodes; i++) {
		m[nm].ops = modes[i];
		m[nm].state = NULL;
		if (modes[i]->begin(&m[nm].state, &run)) {
			nm++;
			goto out;
		}
		nm++;
	}
	/* Every mode has loaded: the kernel's BTF, parsed once for all of
	 * them (load/load.h), is no longer needed. */
	load_release();
	if (!run.spawned)
		pidns_show_level();
	for (int i = 0; run.pid && !o->all && i < nm; i++)
		if (m[i].ops->follow(m[i].state, run.pid))
			goto out;
	if (!run.spawned && run.pid && follow_descendants(&run, m, nm, ra, &children))
		goto out;
	if (run.spawned) {
		e = target_release(&tgt);
		if (e) {
			fprintf(stderr, "uringcheck: cannot run '%s': %s\n",
				o->target_argv[0], strerror(e));
			target_reap(&tgt);
			tgt.pid = 0;
			status = UC_EXIT_NOT_FOUND;
			goto out;
		}
	}
	if (!run.spawned && o->duration)
		deadline = now_ns() + (uint64_t)o->duration * 1000000000ull;

	watched = (struct active_modes){ m, nm };
	pace_init(&pace, o->idle_reader, backlog_of, &watched);
	watch(m, nm, &run, sigfd, pidfd, deadline, &pace);
	if (run.spawned) {
		run.status = target_reap(&tgt);
		tgt.pid = 0;
	} else if (pidfd >= 0) {
		close(pidfd);
	}
	terminate_on_signals(sigfd, true);

	for (int i = 0; i < nm; i++)
		m[i].ops->finish(m[i].state, &run);
	for (int i = 0; i < nm; i++)
		out_err |= m[i].ops->report(m[i].state, &run, rep.out);
	/* How the reader's pace went (run/reader_pace.h): a raise means it
	 * fell behind at the idle policy, or spent long in one pass. */
	if (o->stats && pace.was_enabled)
		fprintf(rep.out, "==%u==uringcheck: stats: reader: raised from the idle "
			"policy back to its own %u time%s\n",
			run.pid ? (uint32_t)run.pid : (uint32_t)getpid(), pace.raised,
			pace.raised == 1 ? "" : "s");
	if (children && !o->follow && !run.rings_seen)
		fprintf(rep.out, "==%u==uringcheck: no ring seen in pid %d, which had %d "
			"child process%s at the attach: -f follows them too\n", run.pid,
			run.pid, children, children == 1 ? "" : "es");
	report_summary(&rep, run.pid ? (uint32_t)run.pid : (uint32_t)getpid());
	for (int i = 0; i < nm; i++)
		if (m[i].ops->footer)
			m[i].ops->footer(m[i].state, &run, rep.out);
	write_documents(&run, m, nm);
	/* the log's last lines, then every output closed and checked */
	if (rep.out != log && rep.out != stderr)
		fclose(rep.out);
	rep.out = NULL;
	terminate_on_signals(sigfd, false);
	complete = true;
	out_err |= uf_outputs_finish(true);
	run.log = log = stderr;
	for (int i = 0; i < nm; i++)
		if (m[i].ops->stop)
			m[i].ops->stop(m[i].state, &run);
	/* The checker's kinds fail a run, and the doctor's findings when
	 * --fail-on=doctor:SEV asks (profile_mode.c judges). */
	status = report_exit_status(&rep, run.spawned ? run.status : 0,
				    (int)o->error_exitcode);
	if (run.doctor_failed)
		status = (int)o->error_exitcode;
	if (out_err)
		status = UC_EXIT_TOOL_ERROR;
out:
	if (tgt.pid)	/* spawned but never released: it exits unrun */
		target_abandon(&tgt);
	while (nm-- > 0)
		m[nm].ops->free(m[nm].state);
	if (rep.out && rep.out != log && rep.out != stderr)
		fclose(rep.out);
	if (!complete)	/* the run failed before its outputs were written */
		uf_outputs_finish(false);
	report_free(&rep);
	return status;
}
