// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of symbolize/: unwinding and symbolizing captured stacks.
 *
 *   test_symbolize [--static] [--debug-root DIR] TARGET PLUGIN_DIR
 *	runs TARGET (target.c, in some build variant) twice: "live" mode
 *	symbolizes its captures while it still runs, "dead" mode after it
 *	has exited, dlclose'd its plugins and their files were deleted. The
 *	maps snapshot is taken once, when the target is first seen. For
 *	the target's "NAME-wait" records the harness captures the target
 *	itself, with ptrace, while it is blocked in a syscall.
 *   test_symbolize --self PLUGIN_DIR
 *	captures and symbolizes this process's own stack, and exercises
 *	the maps cache (refresh across dlopen/dlclose), the vDSO and the
 *	printer.
 *   test_symbolize --bench
 *	prints what snapshots, unwinding and symbolizing cost.
 *
 * Prints one "PASS  name" or "FAIL  name: why" line per check; exits 1 if
 * any failed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "uct_lib.h"
#include "../../../symbolize/print_stack.h"
#include "../../../symbolize/proc_maps.h"
#include "../../../symbolize/runtime_frames.h"
#include "../../../symbolize/symbolize.h"
#include "../../../symbolize/unwind.h"
#include "../../../symbolize/unwind_deciders.h"

#define MAX_FLAT 128

uint64_t uct_stack_top;
static int passed, failed;
static bool verbose;

static void pass(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("PASS  ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	passed++;
}

static void fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("FAIL  ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	failed++;
}

static const char *base(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;
	return s ? s + 1 : (p ? p : "");
}

static void print_indented(struct uc_maps *m, const uint64_t *pcs, int n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	uc_print_stack(f, m, pcs, n, NULL);
	fclose(f);
	for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n"))
		printf("      |%s\n", l);
	free(buf);
}

/* Unwinds and flattens (inlined frames expanded) into @fl. */
static int flatten(struct uc_maps *m, const struct uc_user_regs *regs,
		   const void *stack, size_t len, struct uc_frame *fl,
		   uint64_t *pcs, int *npcs)
{
	int n = uc_unwind(m, regs, stack, len, pcs, 64), k = 0;
	*npcs = n;
	for (int i = 0; i < n && k < MAX_FLAT; i++)
		k += uc_symbolize(m, pcs[i], i > 0, fl + k, MAX_FLAT - k);
	return k;
}

static bool str_eq(const char *a, const char *want)
{
	if (!*want)
		return a == NULL;
	return a && !strcmp(a, want);
}

/* Compares frame @f with @e; on mismatch writes why into @why. */
static bool frame_ok(const struct uc_frame *f, const struct uct_expect *e,
		     char *why, size_t wl)
{
	if (!str_eq(f->function, e->func)) {
		snprintf(why, wl, "function %s, want %s",
			 f->function ? f->function : "(none)",
			 *e->func ? e->func : "(none)");
		return false;
	}
	if (e->line >= 0) {
		if (!*e->file && f->file) {
			snprintf(why, wl, "%s: has line %s:%d, want none",
				 e->func, f->file, f->line);
			return false;
		}
		if (*e->file && (!f->file || strcmp(base(f->file), e->file) ||
				 f->line != e->line)) {
			snprintf(why, wl, "%s at %s:%d, want %s:%d", e->func,
				 f->file ? base(f->file) : "(none)", f->line,
				 e->file, e->line);
			return false;
		}
	}
	if (*e->module && (!f->module || strcmp(f->module, e->module))) {
		snprintf(why, wl, "%s in module %s, want %s", e->func,
			 f->module ? f->module : "(none)", e->module);
		return false;
	}
	if (!!f->inlined != !!e->inlined) {
		snprintf(why, wl, "%s: inlined=%d, want %d", e->func,
			 f->inlined, e->inlined);
		return false;
	}
	return true;
}

/* Checks a capture against the expectations the target sent. */
static void check_record(struct uc_maps *m, const struct uct_record *r,
			 const char *tag)
{
	struct uc_frame fl[MAX_FLAT];
	uint64_t pcs[64];
	int npcs;
	int k = flatten(m, &r->regs, r->stack, r->stack_len, fl, pcs, &npcs);
	char why[256] = "";
	bool ok = true;

	int fi = 0;	/* flat frame the next expectation looks at */
	for (uint32_t i = 0; ok && i < r->nexp; i++) {
		const struct uct_expect *e = &r->exp[i];
		if (fi >= k) {
			snprintf(why, sizeof(why), "%d frames, want frame %u: %s",
				 k, i, e->func);
			ok = false;
			break;
		}
		if (!strcmp(e->func, "*") || !strcmp(e->func, "**")) {
			/* "*": any function, in e->module, with the frames
			 * inlined at its pc. "**": all the frames in
			 * e->module from here, one named e->has. */
			size_t ml = strlen(e->module);
			if (!fl[fi].module ||
			    strncmp(fl[fi].module, e->module, ml)) {
				snprintf(why, sizeof(why), "frame %u in %s, "
					 "want %s", i, fl[fi].module ?
					 fl[fi].module : "(none)", e->module);
				ok = false;
				continue;
			}
			bool all = e->func[1] == '*', has = !e->has[0];
			uint64_t pc = fl[fi].pc;
			while (fi < k && (all ? fl[fi].module &&
					  !strncmp(fl[fi].module, e->module, ml)
					      : fl[fi].pc == pc)) {
				has |= fl[fi].function &&
				       !strcmp(fl[fi].function, e->has);
				fi++;
			}
			if (!has) {
				snprintf(why, sizeof(why), "frame %u: no %s in "
					 "%s", i, e->has, e->module);
				ok = false;
			}
			continue;
		}
		if (!frame_ok(&fl[fi], e, why, sizeof(why))) {
			char tmp[300];
			snprintf(tmp, sizeof(tmp), "frame %u: %s", i, why);
			snprintf(why, sizeof(why), "%.250s", tmp);
			ok = false;
		}
		fi++;
	}
	if (ok && r->beyond_module[0]) {
		bool found = false;
		for (int i = fi; i < k && !found; i++)
			found = fl[i].module &&
				!strcmp(fl[i].module, r->beyond_module);
		if (!found) {
			snprintf(why, sizeof(why),
				 "no frame beyond main in %s", r->beyond_module);
			ok = false;
		}
	}
	if (ok)
		pass("%s %s (%d frames)", tag, r->name, k);
	else
		fail("%s %s: %s", tag, r->name, why);
	if (!ok || verbose)
		print_indented(m, pcs, npcs);
}

/* Checks on the text of a printed stack. */
static void check_print(struct uc_maps *m, const struct uct_record *r,
			const char *tag)
{
	uint64_t pcs[64];
	int n = uc_unwind(m, &r->regs, r->stack, r->stack_len, pcs, 64);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct uc_frame fr[4];
	uc_symbolize(m, pcs[0], false, fr, 4);
	char dir[PATH_MAX] = "";
	if (fr[0].file) {
		snprintf(dir, sizeof(dir), "%s", fr[0].file);
		*strrchr(dir, '/') = '\0';
	}
	struct uc_print_opts o = { .strip_prefix = dir };
	uc_print_stack(f, m, pcs, n, &o);
	fclose(f);

	char want[256];
	const char *need[3] = { NULL, NULL, NULL };
	if (!strcmp(r->name, "deep")) {
		snprintf(want, sizeof(want), "    #0 0x%" PRIx64
			 " in level3 target.c:%d\n    #1 0x", r->regs.ip,
			 r->exp[0].line);
		need[0] = want;
	} else if (!strcmp(r->name, "inline")) {
		snprintf(want, sizeof(want), "    #0 0x%" PRIx64
			 " in inl_b target.c:%d (inlined)\n    #1 0x%" PRIx64
			 " in inl_a target.c:%d (inlined)\n    #2 0x%" PRIx64
			 " in outer target.c:%d\n", r->regs.ip, r->exp[0].line,
			 r->regs.ip, r->exp[1].line, r->regs.ip,
			 r->exp[2].line);
		need[0] = want;
	} else if (!strcmp(r->name, "stripped-lib")) {
		need[0] = " in libuct_stripped.so+0x";
		need[1] = " in uct_stripped_entry (libuct_stripped.so+0x";
	} else if (!strcmp(r->name, "cxx-dlclosed")) {
		need[0] = " in uct::Walker::step(int) libuct_cxx.cc:";
	} else {
		free(buf);
		return;
	}
	bool ok = true;
	for (int i = 0; i < 3 && need[i]; i++)
		if (!strstr(buf, need[i])) {
			fail("%s %s print: no \"%s\" in:\n%s", tag, r->name,
			     need[i], buf);
			ok = false;
		}
	if (!strcmp(r->name, "deep") && strncmp(buf, want, strlen(want))) {
		fail("%s deep print: want prefix \"%s\" in:\n%s", tag, want, buf);
		ok = false;
	}
	if (ok)
		pass("%s %s print", tag, r->name);
	free(buf);
}

/* Short copies: the unwind stops early, never fails or crashes. */
static void check_truncated(struct uc_maps *m, const struct uct_record *r,
			    const char *tag)
{
	uint64_t pcs[64];
	int full = uc_unwind(m, &r->regs, r->stack, r->stack_len, pcs, 64);
	int n0 = uc_unwind(m, &r->regs, NULL, 0, pcs, 64);
	bool ok0 = n0 >= 1 && n0 < full && pcs[0] == r->regs.ip;
	int n64 = uc_unwind(m, &r->regs, r->stack, 64, pcs, 64);
	struct uc_frame fr[4];
	uc_symbolize(m, pcs[0], false, fr, 4);
	bool ok64 = n64 >= 1 && n64 < full && fr[0].function &&
		    !strcmp(fr[0].function, "level3");
	int n2 = uc_unwind(m, &r->regs, r->stack, r->stack_len, pcs, 2);
	if (ok0 && ok64 && n2 == 2)
		pass("%s truncated-copy (full %d, 64 bytes %d, none %d)", tag,
		     full, n64, n0);
	else
		fail("%s truncated-copy: full %d, 64 bytes %d, none %d, max2 %d",
		     tag, full, n64, n0, n2);
}

/*
 * Learned copy bounds (checker/stack_bounds.h): an unwind says how much
 * of its copy it read; a copy of exactly that much unwinds the same, a
 * shorter one runs off it (ran_out: libdw may still end such an unwind
 * as if at the outermost frame, so ran_out is what tells), and a cut
 * copy that runs off says so in print, a whole one does not.
 */
static void check_need(struct uc_maps *m, const struct uct_record *r, const char *tag)
{
	uint64_t full[64], pcs[64];
	struct uc_unwind_info fi, ni, si;
	int nf = uc_unwind_info(m, &r->regs, r->stack, r->stack_len, full, 64, &fi);
	int nn = fi.need ? uc_unwind_info(m, &r->regs, r->stack, fi.need, pcs, 64, &ni) : -1;
	bool same = nn == nf && !memcmp(pcs, full, nf * sizeof(*pcs));
	int ns = fi.need >= 8 ? uc_unwind_info(m, &r->regs, r->stack, fi.need - 8, pcs, 64, &si) : -1;
	char *buf = NULL, *buf2 = NULL;
	size_t sz = 0, sz2 = 0;
	int cut = -1, cut2 = -1;
	FILE *f = open_memstream(&buf, &sz), *f2 = open_memstream(&buf2, &sz2);
	struct uc_print_opts o = { .copy_cut = 1, .cut_short = &cut };
	struct uc_print_opts o2 = { .copy_cut = 1, .cut_short = &cut2 };

	uc_print_capture(f, m, &r->regs, r->stack, fi.need - 8, &o);
	uc_print_capture(f2, m, &r->regs, r->stack, fi.need, &o2);
	fclose(f);
	fclose(f2);
	if (fi.outermost && !fi.ran_out && fi.need > 0 && fi.need <= r->stack_len && same &&
	    ni.outermost && !ni.ran_out && ni.need == fi.need && ns > 0 && ns < nf &&
	    si.ran_out && cut == 1 && strstr(buf, "(stack cut: its copy ended at the ") &&
	    cut2 == 0 && !strstr(buf2, "stack cut"))
		pass("%s unwind need (%zu of %zu bytes read, %d frames; 8 fewer: %d, cut said)",
		     tag, fi.need, r->stack_len, nf, ns);
	else
		fail("%s unwind need: full %d outermost %d ran_out %d need %zu/%zu; at need %d "
		     "same %d; 8 fewer %d ran_out %d; cut %d/%d\n%s", tag, nf, fi.outermost,
		     fi.ran_out, fi.need, r->stack_len, nn, same, ns, ns > 0 && si.ran_out,
		     cut, cut2, buf);
	free(buf);
	free(buf2);
}

/*
 * Deciders (symbolize/unwind_deciders.h): the words and registers they
 * name decide the frames. Everything else in the copy and the other
 * callee-saved registers replaced with random values, three times, the
 * frames stay; each decider word changed alone, they move. A capture
 * whose unwind did not end at the outermost frame has none.
 */
static void check_deciders(struct uc_maps *m, const struct uct_record *r, const char *tag)
{
	uint64_t base[UC_MAX_FRAMES], pcs[UC_MAX_FRAMES];
	struct uc_unwind_info info;
	struct uc_deciders d;
	unsigned char *st = malloc(r->stack_len + 8);
	int nb = uc_unwind_info(m, &r->regs, r->stack, r->stack_len, base, UC_MAX_FRAMES, &info);
	struct uc_unwind_info di;
	bool have = uc_unwind_deciders(m, &r->regs, r->stack, r->stack_len, &d, &di);
	bool want = info.outermost && !info.ran_out;
	int kept_same = 0, moved = 0, n;

	if (!st)
		return;
	/* the info it hands back is the capture's own unwind's */
	if (di.need != info.need || di.outermost != info.outermost || di.ran_out != info.ran_out) {
		fail("%s deciders: info need %zu outermost %d ran_out %d, uc_unwind_info's %zu %d %d",
		     tag, di.need, di.outermost, di.ran_out, info.need, info.outermost, info.ran_out);
		free(st);
		return;
	}
	if (!want) {
		if (have)
			fail("%s deciders: found for an unwind that did not end at the outermost "
			     "frame", tag);
		else
			pass("%s deciders: none where the unwind stopped early", tag);
		free(st);
		return;
	}
	if (!have) {
		/* not an error in itself (too many, or unaligned), but every
		 * capture of these targets has them */
		fail("%s deciders: none found (%d frames)", tag, nb);
		free(st);
		return;
	}
	srand(7);
	for (int round = 0; round < 3; round++) {
		struct uc_user_regs rr = r->regs;
		uint64_t *reg = &rr.ip;

		memcpy(st, r->stack, r->stack_len);
		for (size_t off = 0; off + 8 <= r->stack_len; off += 8) {
			bool dec = false;

			for (unsigned i = 0; i < d.nwords; i++)
				dec |= d.off[i] == off;
			if (!dec) {
				uint64_t v = ((uint64_t)rand() << 33) ^ ((uint64_t)rand() << 7) ^
					     (uint64_t)rand();
				memcpy(st + off, &v, 8);
			}
		}
		for (int i = 2; i < 8; i++)
			if (!(d.regs & (1u << i)))
				reg[i] ^= ((uint64_t)rand() << 31) | (uint64_t)rand();
		n = uc_unwind(m, &rr, st, r->stack_len, pcs, UC_MAX_FRAMES);
		kept_same += n == nb && !memcmp(pcs, base, (size_t)nb * sizeof(*pcs));
	}
	for (unsigned i = 0; i < d.nwords; i++) {
		uint64_t v;

		memcpy(st, r->stack, r->stack_len);
		memcpy(&v, st + d.off[i], 8);
		v ^= 0x1000;
		memcpy(st + d.off[i], &v, 8);
		n = uc_unwind(m, &r->regs, st, r->stack_len, pcs, UC_MAX_FRAMES);
		moved += n != nb || memcmp(pcs, base, (size_t)nb * sizeof(*pcs));
	}
	if (kept_same == 3 && d.nwords >= 1 && moved == (int)d.nwords && d.span <= r->stack_len)
		pass("%s deciders: %u words in %u bytes, regs %#x, of %d frames: the rest "
		     "randomized the frames stay, each decider moves them", tag, d.nwords,
		     d.span, d.regs, nb);
	else
		fail("%s deciders: %u words (span %u of %u), regs %#x: frames kept %d of 3 with "
		     "the rest randomized, %d of %u deciders moved them", tag, d.nwords, d.span,
		     r->stack_len, d.regs, kept_same, moved, d.nwords);
	free(st);
}

/* ------------------------------------------------------------------ */
/* A target in another process                                         */

static bool read_full(int fd, void *p, size_t n)
{
	char *c = p;
	while (n) {
		ssize_t r = read(fd, c, n);
		if (r <= 0)
			return false;
		c += r;
		n -= (size_t)r;
	}
	return true;
}

static bool copy_file(const char *from, const char *to)
{
	int in = open(from, O_RDONLY), out = -1;
	char buf[65536];
	ssize_t n;
	bool ok = in >= 0 &&
		  (out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755)) >= 0;
	while (ok && (n = read(in, buf, sizeof(buf))) > 0)
		ok = write(out, buf, (size_t)n) == n;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return ok;
}

/*
 * What the BPF side sees at a syscall: the user registers of a thread
 * stopped in the kernel (here through ptrace, there from pt_regs) and the
 * stack bytes from its sp up. 1 on success, 0 if ptrace is not allowed
 * here (the scenario is skipped), -1 on failure.
 */
static int ptrace_capture(pid_t pid, int nr, struct uct_record *r)
{
	char path[64], buf[64] = "", want[16];
	/* Wait until it sleeps in syscall @nr. */
	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	snprintf(want, sizeof(want), "%d ", nr);
	for (int i = 0; i < 2000; i++) {
		int fd = open(path, O_RDONLY);
		ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
		if (fd >= 0)
			close(fd);
		if (n > 0) {
			buf[n] = '\0';
			if (!strncmp(buf, want, strlen(want)))
				break;
		}
		usleep(500);
	}
	if (ptrace(PTRACE_SEIZE, pid, 0, 0) != 0)
		return errno == EPERM ? 0 : -1;
	int status, ret = -1;
	struct user_regs_struct u;
	if (ptrace(PTRACE_INTERRUPT, pid, 0, 0) == 0 &&
	    waitpid(pid, &status, __WALL) == pid &&
	    ptrace(PTRACE_GETREGS, pid, 0, &u) == 0) {
		r->regs = (struct uc_user_regs){ .ip = u.rip, .sp = u.rsp,
			.bp = u.rbp, .bx = u.rbx, .r12 = u.r12, .r13 = u.r13,
			.r14 = u.r14, .r15 = u.r15 };
		/* A short copy at the top of the stack is fine. */
		size_t len = sizeof(r->stack);
		ssize_t got = -1;
		while (len >= 4096 && got < 0) {
			struct iovec li = { r->stack, len };
			struct iovec ri = { (void *)(uintptr_t)u.rsp, len };
			got = process_vm_readv(pid, &li, 1, &ri, 1, 0);
			len -= 4096;
		}
		if (got > 0) {
			r->stack_len = (uint32_t)got;
			ret = 1;
		}
	}
	ptrace(PTRACE_DETACH, pid, 0, 0);
	return ret;
}

static const char *plugins[] = { "libuct_cxx.so", "libuct_stripped.so" };

static void run_target(const char *target, const char *plugin_dir, bool dead,
		       int want_scenarios)
{
	char tag[128], tmp[] = "/tmp/uct-plugins.XXXXXX", p[PATH_MAX * 2],
	     q[PATH_MAX * 2];
	snprintf(tag, sizeof(tag), "%s %s", base(target), dead ? "dead" : "live");

	if (!mkdtemp(tmp)) {
		fail("%s: mkdtemp: %s", tag, strerror(errno));
		return;
	}
	for (size_t i = 0; i < sizeof(plugins) / sizeof(*plugins); i++) {
		snprintf(p, sizeof(p), "%s/%s", plugin_dir, plugins[i]);
		snprintf(q, sizeof(q), "%s/%s", tmp, plugins[i]);
		copy_file(p, q);
	}

	int out[2], in[2];
	if (pipe2(out, O_CLOEXEC) || pipe2(in, O_CLOEXEC)) {
		fail("%s: pipe", tag);
		return;
	}
	pid_t pid = fork();
	if (pid == 0) {
		dup2(out[1], 3);
		dup2(in[0], 4);
		execl(target, target, tmp, (char *)NULL);
		perror(target);
		_exit(127);
	}
	close(out[1]);
	close(in[0]);

	struct uc_maps_cache *cache = uc_maps_cache_new();
	struct uct_record *recs = malloc(8 * sizeof(*recs));
	static struct uct_record cap;	/* ptrace capture for the next */
	int nrec = 0, cap_ok = 0, dropped = 0;
	bool pending = false;
	struct uc_maps *m = NULL;

	if (!read_full(out[0], &recs[0], sizeof(*recs)) ||
	    strcmp(recs[0].name, "ready")) {
		fail("%s: target did not start", tag);
		goto reap;
	}
	/* First sight of the process: snapshot its maps. */
	m = uc_maps_cache_get(cache, pid);
	if (!m) {
		fail("%s: snapshot: %s", tag, strerror(errno));
		goto reap;
	}
	uc_maps_ref(m);
	if (write(in[1], "G", 1) != 1)
		goto reap;
	for (;;) {
		if (nrec >= 8 || !read_full(out[0], &recs[nrec], sizeof(*recs))) {
			fail("%s: record stream broken", tag);
			goto reap;
		}
		if (recs[nrec].magic != UCT_MAGIC) {
			fail("%s: bad record", tag);
			goto reap;
		}
		if (!strcmp(recs[nrec].name, "end"))
			break;
		size_t nl = strlen(recs[nrec].name);
		if (nl > 5 && !strcmp(recs[nrec].name + nl - 5, "-wait")) {
			/* The target is about to block in a syscall. */
			memset(&cap, 0, sizeof(cap));
			cap_ok = 0;
			if (recs[nrec].wait_syscall < 0) {
				printf("SKIP  %s %.*s: not available here\n",
				       tag, (int)nl - 5, recs[nrec].name);
				want_scenarios--;
				continue;
			}
			cap_ok = ptrace_capture(pid, recs[nrec].wait_syscall,
						&cap);
			if (cap_ok < 0)
				fail("%s %s: ptrace capture failed", tag,
				     recs[nrec].name);
			else if (cap_ok == 0)
				printf("SKIP  %s %.*s: no ptrace here\n",
				       tag, (int)nl - 5, recs[nrec].name);
			if (write(in[1], "S", 1) != 1)
				goto reap;
			pending = true;
			continue;
		}
		if (pending) {
			pending = false;
			if (cap_ok <= 0) {
				dropped++;
				want_scenarios -= cap_ok == 0;
				continue;
			}
			recs[nrec].regs = cap.regs;
			recs[nrec].stack_len = cap.stack_len;
			memcpy(recs[nrec].stack, cap.stack, cap.stack_len);
		}
		nrec++;
	}
	if (recs[nrec].nsent - dropped != nrec || nrec != want_scenarios)
		fail("%s: %d scenarios received, target sent %d, want %d",
		     tag, nrec, recs[nrec].nsent, want_scenarios);

	if (!dead) {
		/* The target is blocked: symbolize while it is alive. */
		for (int i = 0; i < nrec; i++) {
			check_record(m, &recs[i], tag);
			check_print(m, &recs[i], tag);
		}
		if (nrec > 0) {
			check_truncated(m, &recs[0], tag);
			check_need(m, &recs[0], tag);
		}
		for (int i = 0; i < nrec; i++)
			check_deciders(m, &recs[i], tag);
	}
reap:
	if (write(in[1], "X", 1) != 1) {
		/* the target died already; waitpid tells */
	}
	close(in[1]);
	int status;
	waitpid(pid, &status, 0);
	close(out[0]);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail("%s: target exit status %#x", tag, status);

	/* Its plugins are dlclose'd and now deleted from disk too. */
	for (size_t i = 0; i < sizeof(plugins) / sizeof(*plugins); i++) {
		snprintf(q, sizeof(q), "%s/%s", tmp, plugins[i]);
		unlink(q);
	}
	rmdir(tmp);

	if (dead && m && nrec > 0) {
		char proc[64];
		snprintf(proc, sizeof(proc), "/proc/%d", (int)pid);
		if (kill(pid, 0) == 0 || errno != ESRCH ||
		    access(proc, F_OK) == 0)
			fail("%s: process %d still exists", tag, (int)pid);
		/* The checker forgets a process after its exit; reports
		 * still hold the snapshot. */
		uc_maps_cache_forget(cache, pid);
		for (int i = 0; i < nrec; i++) {
			check_record(m, &recs[i], tag);
			check_print(m, &recs[i], tag);
		}
		check_truncated(m, &recs[0], tag);
		check_need(m, &recs[0], tag);
	}
	uc_maps_unref(m);
	uc_maps_cache_free(cache);
	free(recs);
}

/* ------------------------------------------------------------------ */
/* This process                                                        */

static struct uct_record self_rec;
static int s_cap, s_l1, s_l2, s_main;
static volatile int s_sink;

__attribute__((noinline, noclone)) static int self3(int x)
{
	s_cap = __LINE__; UCT_CAPTURE(&self_rec);
	s_sink = x;
	return x + 1;
}

__attribute__((noinline, noclone)) static int self2(int x)
{
	int r;
	s_l2 = __LINE__; r = self3(x + 1);
	return r * 2;
}

__attribute__((noinline, noclone)) static int self1(int x)
{
	int r;
	s_l1 = __LINE__; r = self2(x * 7);
	return r - 3;
}

static void find_stack_top(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	uint64_t here = (uintptr_t)&line, s, e;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%" SCNx64 "-%" SCNx64, &s, &e) == 2 &&
		    here >= s && here < e)
			uct_stack_top = e;
	if (f)
		fclose(f);
}

static void runtime_frames_tests(struct uc_maps *m, const struct uct_record *r,
				 const char *tag);

__attribute__((noinline)) static int self_tests(const char *plugin_dir,
						 int argc)
{
	const char *tag = "self";
	find_stack_top();

	/* 1. Own capture, own snapshot. */
	memset(&self_rec, 0, sizeof(self_rec));
	s_main = __LINE__; s_sink = self1(argc);
	struct uc_maps *m = uc_maps_snapshot(0);
	if (!m) {
		fail("%s: snapshot: %s", tag, strerror(errno));
		return 1;
	}
	struct uct_record *r = &self_rec;
	snprintf(r->name, sizeof(r->name), "capture");
	const char *src = "test_symbolize.c";
	struct { const char *f; int l; } exp[] = {
		{ "self3", s_cap }, { "self2", s_l2 }, { "self1", s_l1 },
		{ "self_tests", s_main },
	};
	for (size_t i = 0; i < sizeof(exp) / sizeof(*exp); i++) {
		struct uct_expect *e = &r->exp[r->nexp++];
		snprintf(e->func, sizeof(e->func), "%s", exp[i].f);
		snprintf(e->file, sizeof(e->file), "%s", src);
		e->line = exp[i].l;
	}
	snprintf(r->beyond_module, sizeof(r->beyond_module), "libc.so.6");
	check_record(m, r, tag);
	runtime_frames_tests(m, r, tag);

	/* The one-call path: capture straight to text. */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int lines = uc_print_capture(f, m, &r->regs, r->stack, r->stack_len,
				     NULL);
	fclose(f);
	char want[64];
	snprintf(want, sizeof(want), " in self3 ");
	if (lines >= 5 && !strncmp(buf, "    #0 0x", 9) && strstr(buf, want) &&
	    strstr(buf, "    #4 0x"))
		pass("%s print_capture (%d lines)", tag, lines);
	else
		fail("%s print_capture:\n%s", tag, buf);
	free(buf);
	uc_maps_unref(m);
	return 0;
}

static void records_tests(const char *tag);

/*
 * The C runtime's start-up frames (symbolize/runtime_frames.h): below
 * main, glibc's __libc_start_call_main and __libc_start_main are named
 * from the symbol table, versionless, with no file or line even where
 * libc's DWARF is installed; the rule itself, module by module.
 */
static void runtime_frames_tests(struct uc_maps *m, const struct uct_record *r,
				 const char *tag)
{
	uint64_t pcs[64];
	int n = uc_unwind(m, &r->regs, r->stack, r->stack_len, pcs, 64);
	bool below_main = false, ok = true;
	int runtime = 0;
	char why[256] = "";

	for (int i = 0; i < n && ok; i++) {
		struct uc_frame fr[16];
		int k = uc_symbolize(m, pcs[i], i > 0, fr, 16);
		const struct uc_frame *f = &fr[k - 1];	/* the real function */

		if (f->function && !strcmp(f->function, "main")) {
			below_main = true;
			continue;
		}
		if (!below_main || !f->module || strcmp(f->module, "libc.so.6"))
			continue;
		if (!f->function || strchr(f->function, '@') ||
		    (strcmp(f->function, "__libc_start_call_main") &&
		     strcmp(f->function, "__libc_start_main"))) {
			snprintf(why, sizeof(why), "below main: %s", f->function ?
				 f->function : "(no name)");
			ok = false;
		} else if (f->file || f->line || f->has_debuginfo) {
			snprintf(why, sizeof(why), "%s has a line (%s:%d)", f->function,
				 f->file ? f->file : "?", f->line);
			ok = false;
		}
		runtime++;
	}
	if (ok && runtime != 2)
		snprintf(why, sizeof(why), "%d C runtime frames below main, want 2", runtime);
	if (ok && runtime == 2)
		pass("%s runtime frames: below main, named from the symbol table", tag);
	else
		fail("%s runtime frames: %s", tag, why);

	if (uc_runtime_frame("start_thread", "libc.so.6") &&
	    uc_runtime_frame("__libc_start_main@@GLIBC_2.34", "libc.so.6") &&
	    !uc_runtime_frame("__libc_start_mai", "libc.so.6") &&
	    !uc_runtime_frame("@@GLIBC_2.34", "libc.so.6") &&
	    uc_runtime_frame("__clone3", "libc.so.6") &&
	    !uc_runtime_frame("start_thread", "myprog") &&
	    uc_runtime_frame("_start", "myprog") &&
	    uc_runtime_frame("__libc_start_call_main", "myprog-static") &&
	    !uc_runtime_frame("main", "libc.so.6") && !uc_runtime_frame(NULL, "libc.so.6"))
		pass("%s runtime frames: the table, by module", tag);
	else
		fail("%s runtime frames: the table's module rule", tag);
}

/* The cache, snapshots of missing processes, the printer. */
__attribute__((noinline)) static int other_tests(const char *plugin_dir)
{
	const char *tag = "self";

	/* 2. The cache across dlopen / dlclose. */
	struct uc_maps_cache *c = uc_maps_cache_new();
	/* Borrowed from the cache: keep a reference across refreshes. */
	struct uc_maps *m1 = uc_maps_ref(uc_maps_cache_get(c, getpid()));
	struct uc_maps *m1b = uc_maps_cache_refresh(c, getpid());
	if (m1 && m1 == m1b)
		pass("%s cache: refresh without change keeps the snapshot", tag);
	else
		fail("%s cache: refresh without change made a new snapshot", tag);

	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/libuct_stripped.so", plugin_dir);
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	void *sym = h ? dlsym(h, "uct_stripped_entry") : NULL;
	if (!sym) {
		fail("%s cache: dlopen %s: %s", tag, path, dlerror());
		uc_maps_cache_free(c);
		return 1;
	}
	uint64_t addr = (uintptr_t)sym;
	struct uc_maps *m2 = uc_maps_cache_refresh(c, getpid());
	if (m2 != m1 && uc_maps_find(m2, addr) && !uc_maps_find(m1, addr))
		pass("%s cache: dlopen seen by refresh", tag);
	else
		fail("%s cache: dlopen not seen by refresh", tag);
	uc_maps_unref(m1);
	uc_maps_ref(m2);
	dlclose(h);
	struct uc_maps *m3 = uc_maps_cache_refresh(c, getpid());
	const struct uc_mapping *mp = m3 ? uc_maps_find(m3, addr) : NULL;
	if (m3 != m2 && (!mp || !strstr(mp->path, "libuct_stripped")))
		pass("%s cache: dlclose seen by refresh", tag);
	else
		fail("%s cache: dlclose not seen by refresh", tag);
	struct uc_frame fr[4];
	int n = uc_symbolize(m2, addr, false, fr, 4);
	if (n == 1 && fr[0].function &&
	    !strcmp(fr[0].function, "uct_stripped_entry") && fr[0].module &&
	    !strcmp(fr[0].module, "libuct_stripped.so"))
		pass("%s cache: old snapshot resolves the dlclose'd library",
		     tag);
	else
		fail("%s cache: old snapshot: %s in %s", tag,
		     n > 0 && fr[0].function ? fr[0].function : "(none)",
		     n > 0 && fr[0].module ? fr[0].module : "(none)");
	/* A forked child adopts its parent's snapshot. */
	pid_t child = 0x3ffffffe;
	uc_maps_cache_adopt(c, child, m2);
	if (uc_maps_cache_peek(c, child) == m2)
		pass("%s cache: adopt", tag);
	else
		fail("%s cache: adopt", tag);
	uc_maps_cache_forget(c, child);

	/* Snapshots of the same content share one libdw session (a forked
	 * child's, a sibling's), also once the first is gone; another
	 * content gets its own; the names come out the same either way. */
	unsigned long built0, shared0, built1, shared1, built2, shared2, built3, shared3;
	/* taken together: symbolizing may map more (libdw's own loads) */
	struct uc_maps *s1 = uc_maps_snapshot(0), *s2 = uc_maps_snapshot(0);
	struct uc_maps *s3 = uc_maps_snapshot(0);
	struct uc_frame f1[4], f2[4], f3[4];
	int n1, n2, n3;

	uc_symbolize_session_counts(&built0, &shared0);
	n1 = s1 ? uc_symbolize(s1, (uintptr_t)other_tests, false, f1, 4) : 0;
	uc_symbolize_session_counts(&built1, &shared1);
	n2 = s2 ? uc_symbolize(s2, (uintptr_t)other_tests, false, f2, 4) : 0;
	uc_symbolize_session_counts(&built2, &shared2);
	uc_maps_unref(s1);
	uc_maps_unref(s2);
	n3 = s3 ? uc_symbolize(s3, (uintptr_t)other_tests, false, f3, 4) : 0;
	uc_symbolize_session_counts(&built3, &shared3);
	if (s1 && s2 && s3 && s1 != s2 && built1 == built0 + 1 && shared1 == shared0 &&
	    built2 == built1 && shared2 == shared1 + 1 && built3 == built2 &&
	    shared3 == shared2 + 1 && n1 >= 1 && n1 == n2 && n1 == n3 &&
	    f1[0].function && f2[0].function && f3[0].function &&
	    !strcmp(f1[0].function, "other_tests") && !strcmp(f1[0].function, f2[0].function) &&
	    !strcmp(f1[0].function, f3[0].function))
		pass("%s sessions: snapshots of the same content share one, kept after the first went", tag);
	else
		fail("%s sessions: built %lu/%lu/%lu, shared %lu/%lu/%lu, frames %d/%d/%d (%s)", tag,
		     built1 - built0, built2 - built1, built3 - built2, shared1 - shared0,
		     shared2 - shared1, shared3 - shared2, n1, n2, n3,
		     n1 > 0 && f1[0].function ? f1[0].function : "(none)");
	/* With a library more (dlopen'd again), another content: a session
	 * of its own. */
	void *h4 = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	struct uc_maps *s4 = h4 ? uc_maps_snapshot(0) : NULL;
	uc_symbolize_session_counts(&built0, &shared0);
	n2 = s4 ? uc_symbolize(s4, (uintptr_t)other_tests, false, f2, 4) : 0;
	uc_symbolize_session_counts(&built1, &shared1);
	if (built1 == built0 + 1 && shared1 == shared0 && n2 >= 1 && f2[0].function &&
	    !strcmp(f2[0].function, "other_tests"))
		pass("%s sessions: another content gets its own", tag);
	else
		fail("%s sessions: another content: built %lu, shared %lu", tag,
		     built1 - built0, shared1 - shared0);
	uc_maps_unref(s3);
	uc_maps_unref(s4);
	if (h4)
		dlclose(h4);
	uc_maps_unref(m2);
	uc_maps_cache_forget(c, getpid());
	if (!uc_maps_cache_peek(c, getpid()))
		pass("%s cache: forget", tag);
	else
		fail("%s cache: forget left the snapshot", tag);
	uc_maps_cache_free(c);

	/* 3. The vDSO resolves from the checker's own copy of it. */
	void *vh = dlopen("linux-vdso.so.1", RTLD_LAZY | RTLD_NOLOAD);
	void *vsym = vh ? dlsym(vh, "__vdso_clock_gettime") : NULL;
	struct uc_maps *mv = uc_maps_snapshot(0);
	n = vsym && mv ? uc_symbolize(mv, (uintptr_t)vsym + 1, false, fr, 4)
		       : 0;
	if (n == 1 && fr[0].module && !strcmp(fr[0].module, "[vdso]") &&
	    fr[0].function && strstr(fr[0].function, "clock_gettime"))
		pass("%s vdso: %s in %s", tag, fr[0].function, fr[0].module);
	else if (!vsym)
		pass("%s vdso: none in this process (skipped)", tag);
	else
		fail("%s vdso: %s in %s", tag,
		     n > 0 && fr[0].function ? fr[0].function : "(none)",
		     n > 0 && fr[0].module ? fr[0].module : "(none)");
	uc_maps_unref(mv);

	/* 4. No process, no maps, no stack. */
	errno = 0;
	struct uc_maps *none = uc_maps_snapshot(0x3fffffff);
	if (!none && errno)
		pass("%s snapshot of a missing pid fails (%s)", tag,
		     strerror(errno));
	else
		fail("%s snapshot of a missing pid", tag);

	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	uc_print_no_stack(f, "submitted by the SQPOLL kernel thread");
	uint64_t pc = 0x1234;
	uc_print_stack(f, NULL, &pc, 1, NULL);
	uc_print_stack(f, NULL, NULL, 0, NULL);
	fclose(f);
	const char *want =
		"    <no user stack: submitted by the SQPOLL kernel thread>\n"
		"    #0 0x1234 in <unknown module>\n"
		"    <no user stack: empty stack>\n";
	if (!strcmp(buf, want))
		pass("%s print without stack or maps", tag);
	else
		fail("%s print without stack or maps:\n%s", tag, buf);
	free(buf);
	records_tests(tag);
	return 0;
}


/* ------------------------------------------------------------------ */
/* Snapshots from the BPF side's records, once the process is gone     */

/* Prints @pc under @m; the text in *@buf (to free), the note's flag in
 * *@unopened. */
static void print_one(struct uc_maps *m, uint64_t pc, char **buf, int *unopened)
{
	size_t len = 0;
	FILE *f = open_memstream(buf, &len);
	struct uc_print_opts o = { .unopened = unopened };

	uc_print_stack(f, m, &pc, 1, &o);
	fclose(f);
}

/*
 * The records of a process that has exited (a pid that cannot exist:
 * neither map_files nor /proc/PID/root answer): a file some snapshot of
 * a living process still holds is shared by (dev, inode) whatever its
 * path says (the path of another mount namespace); else its path here,
 * judged by the inode; else the frame goes unnamed and the stack says
 * why, with the flag set for the checker's count.
 */
static void records_tests(const char *tag)
{
	const pid_t gone = 0x3fffffff;
	struct uc_maps *self = uc_maps_snapshot(0);
	char *exe = realpath("/proc/self/exe", NULL), *buf = NULL;
	const struct uc_mapping *x = NULL;
	uint64_t pc = (uintptr_t)records_tests;
	int unopened = -1;

	for (size_t i = 0; self && i < uc_maps_count(self) && !x; i++) {
		const struct uc_mapping *mp = uc_maps_at(self, i);

		if (mp->exec && exe && !strcmp(mp->path, exe) &&
		    pc >= mp->start && pc < mp->end)
			x = mp;
	}
	if (!x) {
		fail("%s records: this program's code mapping not found", tag);
		goto out;
	}
	struct uc_map_record r = {
		.start = x->start, .end = x->end, .offset = x->offset,
		.inode = x->inode, .dev = x->dev, .exec = true,
		.path = "/nonexistent-namespace-path/prog",
	};
	struct uc_maps *m = uc_maps_from_records(gone, &r, 1);
	const struct uc_mapping *got = m ? uc_maps_find(m, pc) : NULL;

	if (got && got->fd >= 0 && got->elf_type) {
		print_one(m, pc, &buf, &unopened);
		if (unopened == 0 && strstr(buf, "records_tests") &&
		    !strstr(buf, "no symbols from"))
			pass("%s records: a file still open is shared by dev and inode, "
			     "whatever the path", tag);
		else
			fail("%s records: shared file, printed:\n%s", tag, buf);
		free(buf);
		buf = NULL;
	} else {
		fail("%s records: the open file was not shared (dev %llu inode %llu)",
		     tag, (unsigned long long)x->dev, (unsigned long long)x->inode);
	}
	uc_maps_unref(m);

	/* dev unknown: only an open of the path, accepted by the inode */
	r.dev = 0;
	r.path = exe;
	m = uc_maps_from_records(gone, &r, 1);
	got = m ? uc_maps_find(m, pc) : NULL;
	if (got && got->fd >= 0)
		pass("%s records: the path opened here, the inode matching", tag);
	else
		fail("%s records: the path %s was not opened", tag, exe);
	uc_maps_unref(m);
	r.inode = x->inode + 1;	/* another file at that path now */
	m = uc_maps_from_records(gone, &r, 1);
	got = m ? uc_maps_find(m, pc) : NULL;
	if (got && got->fd < 0)
		pass("%s records: a path whose inode differs is refused", tag);
	else
		fail("%s records: a path of another inode was accepted", tag);
	uc_maps_unref(m);

	/* nothing reaches the file: unnamed, and said */
	r.inode = x->inode + 1;
	r.path = "/nonexistent-namespace-path/prog";
	m = uc_maps_from_records(gone, &r, 1);
	if (m) {
		print_one(m, pc, &buf, &unopened);
		if (unopened == 1 &&
		    strstr(buf, "(no symbols from /nonexistent-namespace-path/prog: its file "
			   "could not be opened;"))
			pass("%s records: a file nothing opens is named, and why", tag);
		else
			fail("%s records: unopened file, printed:\n%s", tag, buf);
		free(buf);
	} else {
		fail("%s records: no snapshot", tag);
	}
	uc_maps_unref(m);
out:
	free(exe);
	uc_maps_unref(self);
}

/* ------------------------------------------------------------------ */
/* Costs, for docs/stacks.md (not a test)                              */


static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

__attribute__((noinline)) static void bench(void)
{
	const int N = 2000;
	struct uc_frame fr[16];
	uint64_t pcs[64];
	double t;

	find_stack_top();
	s_sink = self1(1);
	struct uct_record *r = &self_rec;

	t = now_us();
	for (int i = 0; i < 20; i++)
		uc_maps_unref(uc_maps_snapshot(0));
	printf("snapshot of /proc/self/maps (%zu kept mappings): %.0f us\n",
	       uc_maps_count(uc_maps_snapshot(0)), (now_us() - t) / 20);

	struct uc_maps_cache *c = uc_maps_cache_new();
	uc_maps_cache_get(c, getpid());
	t = now_us();
	for (int i = 0; i < 200; i++)
		uc_maps_cache_refresh(c, getpid());
	printf("refresh, nothing changed: %.1f us\n", (now_us() - t) / 200);
	uc_maps_cache_free(c);

	struct uc_maps *m = uc_maps_snapshot(0);
	t = now_us();
	int n = uc_unwind(m, &r->regs, r->stack, r->stack_len, pcs, 64);
	printf("first unwind (%d frames; reports modules, reads CFI): "
	       "%.0f us\n", n, now_us() - t);
	t = now_us();
	for (int i = 0; i < N; i++)
		uc_unwind(m, &r->regs, r->stack, r->stack_len, pcs, 64);
	printf("later unwinds: %.1f us each\n", (now_us() - t) / N);

	t = now_us();
	for (int i = 0; i < n; i++)
		uc_symbolize(m, pcs[i], i > 0, fr, 16);
	printf("first symbolization of the stack (loads DWARF, libc's "
	       "separate debug info): %.0f us\n", now_us() - t);
	t = now_us();
	for (int k = 0; k < N; k++)
		for (int i = 0; i < n; i++)
			uc_symbolize(m, pcs[i], i > 0, fr, 16);
	printf("later symbolizations: %.1f us per stack\n", (now_us() - t) / N);
	uc_maps_unref(m);
}

/* ------------------------------------------------------------------ */

int main(int argc, char **argv)
{
	bool is_static = false;
	int i = 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);	/* a target that died early is a FAIL */
	if (getenv("UCT_VERBOSE"))
		verbose = true;
	if (argc > 1 && !strcmp(argv[1], "--bench")) {
		bench();
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "--self")) {
		/* Small frames down to here: 8 KiB of stack must reach
		 * main's return address. */
		self_tests(argv[2], argc);
		other_tests(argv[2]);
		return failed ? 1 : 0;
	}
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--static")) {
			is_static = true;
		} else if (!strcmp(argv[i], "--debug-root") && i + 1 < argc) {
			/* Debug roots must be absolute. */
			char *path, *root = realpath(argv[++i], NULL);
			if (!root || asprintf(&path, ":.debug:%s:/usr/lib/debug",
					      root) < 0)
				return 2;
			free(root);
			uc_symbolize_set_debuginfo_path(path);
			free(path);
		} else {
			break;
		}
	}
	if (argc - i != 2) {
		fprintf(stderr, "usage: %s [--static] [--debug-root DIR] "
			"TARGET PLUGIN_DIR | --self PLUGIN_DIR\n", argv[0]);
		return 2;
	}
	run_target(argv[i], argv[i + 1], false, is_static ? 4 : 7);
	run_target(argv[i], argv[i + 1], true, is_static ? 4 : 7);
	return failed ? 1 : 0;
}
