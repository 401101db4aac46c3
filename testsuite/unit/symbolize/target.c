// SPDX-License-Identifier: GPL-2.0
/*
 * The process whose stacks are symbolized. test_symbolize starts it with
 * fd 3 (records out) and fd 4 (go-ahead in). It sends "ready", waits
 * until the harness has snapshotted its maps (as the checker does when it
 * first sees a process), then captures its registers and stack in each
 * scenario and sends them with the frames it expects, waits for the last
 * go-ahead, dlcloses its plugins and exits. The harness symbolizes while
 * it waits ("live") or after it has exited ("dead"). In the "-wait"
 * scenarios the target instead blocks in a syscall (read(2), liburing's
 * io_uring_enter(2)) and the harness takes its registers and stack there
 * with ptrace, which is what BPF sees at a syscall.
 *
 * Built -O2 with and without frame pointers, PIE and -static (then
 * without the library scenarios: -DUCT_STATIC).
 *
 *   target PLUGIN_DIR
 *
 * Every call site of interest records its line in a global on the same
 * line as the call.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <liburing.h>
#include <sys/syscall.h>

#include "capture.h"
#include "uct_lib.h"

#define OUT_FD	3
#define IN_FD	4

uint64_t uct_stack_top;
static struct uct_record rec;		/* global: never on the copied stack */
static const char *exe_name;
static int nsent;

static int line_cap, line_main, line_run, line_l1, line_l2;
static int line_inl_cap, line_inl_a, line_outer;
static volatile int sink;

#define NOINLINE __attribute__((noinline, noclone))

/* ------------------------------------------------------------------ */

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static void write_all(const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t w = write(OUT_FD, c, n);
		if (w <= 0)
			die("write record");
		c += w;
		n -= (size_t)w;
	}
}

static void wait_go(void)
{
	char b;
	if (read(IN_FD, &b, 1) != 1)
		die("read go");
}

static void begin(const char *name)
{
	memset(&rec, 0, sizeof(rec));
	rec.magic = UCT_MAGIC;
	snprintf(rec.name, sizeof(rec.name), "%s", name);
	snprintf(rec.exe, sizeof(rec.exe), "%s", exe_name);
	rec.pid = getpid();
}

static void expect(const char *func, const char *file, int line,
		   const char *module, int inlined)
{
	struct uct_expect *e = &rec.exp[rec.nexp++];
	snprintf(e->func, sizeof(e->func), "%s", func ? func : "");
	snprintf(e->file, sizeof(e->file), "%s", file ? file : "");
	e->line = line;
	snprintf(e->module, sizeof(e->module), "%s", module ? module : "");
	e->inlined = inlined;
}

static void send_rec(void)
{
	write_all(&rec, sizeof(rec));
	nsent++;
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
	if (!uct_stack_top)
		die("stack mapping");
}

/* ------------------------------------------------------------------ */
/* deep: main -> run_deep -> level1 -> level2 -> level3 (capture)      */

NOINLINE static int level3(int x)
{
	line_cap = __LINE__; UCT_CAPTURE(&rec);
	sink = x;
	return x + 1;
}

NOINLINE static int level2(int x)
{
	int r;
	line_l2 = __LINE__; r = level3(x * 2);
	return r + 2;
}

NOINLINE static int level1(int x)
{
	int r;
	line_l1 = __LINE__; r = level2(x + 3);
	return r * 3;
}

NOINLINE static int run_deep(int x)
{
	int r;
	line_run = __LINE__; r = level1(x);
	return r - 1;
}

/* ------------------------------------------------------------------ */
/* inline: outer -> inl_a (inlined) -> inl_b (inlined, capture)        */

static inline __attribute__((always_inline)) int inl_b(int x)
{
	line_inl_cap = __LINE__; UCT_CAPTURE(&rec);
	return x ^ 0x55;
}

static inline __attribute__((always_inline)) int inl_a(int x)
{
	int r;
	line_inl_a = __LINE__; r = inl_b(x + 9);
	return r + sink;
}

NOINLINE static int outer(int x)
{
	int r;
	line_outer = __LINE__; r = inl_a(x * 5);
	sink = r;
	return r + 4;
}

NOINLINE static int run_inline(int x)
{
	int r;
	line_run = __LINE__; r = outer(x);
	return r - 1;
}

/* ------------------------------------------------------------------ */
/* syscall: the harness stops us inside read(2) and takes the user     */
/* registers and stack with ptrace, as BPF takes them at a syscall.    */

NOINLINE static int blocked_read(int x)
{
	char b;
	int r;
	line_run = __LINE__; r = (int)read(IN_FD, &b, 1);
	return r + x;
}

/* liburing: blocked in io_uring_enter(2) inside liburing (Debian's: no
 * debug info installed, only .dynsym and .eh_frame), waiting for a read
 * of the go-ahead pipe. */
static struct io_uring ring;
static int have_ring;

NOINLINE static int uring_wait(int x)
{
	static char b;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
	int r;
	io_uring_prep_read(sqe, IN_FD, &b, 1, (uint64_t)-1);
	/* The harness's ptrace stop ends the wait with -EINTR (BPF's
	 * capture would not): wait again, the read is submitted. */
	line_run = __LINE__; do r = io_uring_submit_and_wait(&ring, 1); while (r == -EINTR);
	if (io_uring_peek_cqe(&ring, &cqe) == 0)
		io_uring_cqe_seen(&ring, cqe);
	return r + x;
}

/* ------------------------------------------------------------------ */
/* Library scenarios: a callback captures below a library frame.      */

#ifndef UCT_STATIC
NOINLINE static int callback(int x)
{
	line_cap = __LINE__; UCT_CAPTURE(&rec);
	sink = x;
	return x + 11;
}

static int (*cxx_entry)(uct_fn, int);
static int (*stripped_entry)(uct_fn, int);
static int *cxx_line;
static void *h_cxx, *h_stripped;

NOINLINE static int run_shlib(int x)
{
	int r;
	line_run = __LINE__; r = uct_cb_call(callback, x);
	return r - 1;
}

NOINLINE static int run_cxx(int x)
{
	int r;
	line_run = __LINE__; r = cxx_entry(callback, x);
	return r - 1;
}

NOINLINE static int run_stripped(int x)
{
	int r;
	line_run = __LINE__; r = stripped_entry(callback, x);
	return r - 1;
}

static void load_plugins(const char *dir)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/libuct_cxx.so", dir);
	h_cxx = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	snprintf(path, sizeof(path), "%s/libuct_stripped.so", dir);
	h_stripped = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h_cxx || !h_stripped) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		exit(2);
	}
	cxx_entry = (int (*)(uct_fn, int))dlsym(h_cxx, "uct_cxx_entry");
	cxx_line = dlsym(h_cxx, "uct_cxx_line");
	stripped_entry = (int (*)(uct_fn, int))dlsym(h_stripped,
						     "uct_stripped_entry");
	if (!cxx_entry || !cxx_line || !stripped_entry)
		die("dlsym");
}
#endif

/* ------------------------------------------------------------------ */

#define SRC "target.c"
#ifdef UCT_STATIC
#define LIBC_MODULE exe_name		/* libc is linked in */
#define URING_MODULE exe_name
#define URING_FRAMES "*"		/* one frame, then the caller's */
#else
#define LIBC_MODULE "libc.so.6"
#define URING_MODULE "liburing.so.2"
#define URING_FRAMES "**"		/* all frames in the library */
#endif

int main(int argc, char **argv)
{
	exe_name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	find_stack_top();
#ifndef UCT_STATIC
	load_plugins(argc > 1 ? argv[1] : ".");
#endif
	have_ring = io_uring_queue_init(4, &ring, 0) == 0;
	begin("ready");
	send_rec();
	nsent = 0;
	wait_go();

	begin("deep");
	line_main = __LINE__; sink = run_deep(argc);
	expect("level3", SRC, line_cap, exe_name, 0);
	expect("level2", SRC, line_l2, exe_name, 0);
	expect("level1", SRC, line_l1, exe_name, 0);
	expect("run_deep", SRC, line_run, exe_name, 0);
	expect("main", SRC, line_main, exe_name, 0);
	snprintf(rec.beyond_module, sizeof(rec.beyond_module), "%s",
		 LIBC_MODULE);
	send_rec();

	begin("inline");
	line_main = __LINE__; sink = run_inline(argc);
	expect("inl_b", SRC, line_inl_cap, exe_name, 1);
	expect("inl_a", SRC, line_inl_a, exe_name, 1);
	expect("outer", SRC, line_outer, exe_name, 0);
	expect("run_inline", SRC, line_run, exe_name, 0);
	expect("main", SRC, line_main, exe_name, 0);
	send_rec();

#ifndef UCT_STATIC
	begin("shlib");
	line_main = __LINE__; sink = run_shlib(argc);
	expect("callback", SRC, line_cap, exe_name, 0);
	expect("uct_cb_call", "libuct_cb.c", uct_cb_line, "libuct_cb.so", 0);
	expect("run_shlib", SRC, line_run, exe_name, 0);
	expect("main", SRC, line_main, exe_name, 0);
	send_rec();

	begin("cxx-dlclosed");
	line_main = __LINE__; sink = run_cxx(argc);
	expect("callback", SRC, line_cap, exe_name, 0);
	expect("uct::Walker::step(int)", "libuct_cxx.cc", *cxx_line,
	       "libuct_cxx.so", 0);
	expect("uct_cxx_entry", NULL, 0, "libuct_cxx.so", 0);
	expect("run_cxx", SRC, line_run, exe_name, 0);
	expect("main", SRC, line_main, exe_name, 0);
	/* uct_cxx_entry's line is not asserted: only that it is there. */
	rec.exp[2].line = -1;
	send_rec();

	begin("stripped-lib");
	line_main = __LINE__; sink = run_stripped(argc);
	expect("callback", SRC, line_cap, exe_name, 0);
	expect(NULL, NULL, 0, "libuct_stripped.so", 0);
	expect("uct_stripped_entry", NULL, 0, "libuct_stripped.so", 0);
	expect("run_stripped", SRC, line_run, exe_name, 0);
	expect("main", SRC, line_main, exe_name, 0);
	send_rec();
#endif

	/* "syscall-wait": we are about to block in read(2); the harness
	 * captures us there, then writes the byte we read. */
	begin("syscall-wait");
	rec.wait_syscall = SYS_read;
	write_all(&rec, sizeof(rec));
	line_main = __LINE__; sink = blocked_read(argc);
	begin("syscall");
	/* Frame 0 is libc's read, whatever its name and inlining. */
	expect("*", NULL, -1, LIBC_MODULE, 0);
	expect("blocked_read", SRC, line_run, exe_name, 0);
	expect("main", SRC, line_main, exe_name, 0);
	send_rec();

	begin("liburing-wait");
	rec.wait_syscall = have_ring ? SYS_io_uring_enter : -1;
	write_all(&rec, sizeof(rec));
	if (have_ring) {
		line_main = __LINE__; sink = uring_wait(argc);
		begin("liburing");
		/* liburing's own frames; io_uring_submit_and_wait itself
		 * is gone: it tail-calls __io_uring_submit. */
		expect(URING_FRAMES, NULL, -1, URING_MODULE, 0);
		expect("uring_wait", SRC, line_run, exe_name, 0);
		expect("main", SRC, line_main, exe_name, 0);
		send_rec();
	}

	begin("end");
	rec.nsent = nsent;
	write_all(&rec, sizeof(rec));
	wait_go();
#ifndef UCT_STATIC
	/* Gone from the address space before anyone symbolizes. */
	dlclose(h_cxx);
	dlclose(h_stripped);
#endif
	return 0;
}
