/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the test programs in testsuite/cases/: fail loudly on
 * any unexpected result, so a broken test can never pass quietly.
 */
#ifndef UC_TEST_H
#define UC_TEST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static inline void __attribute__((noreturn, format(printf, 1, 2)))
fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", program_invocation_short_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* libc call that returns -1 and sets errno on failure */
#define SYS(x) ({ __typeof__(x) r_ = (x); \
	if (r_ < 0) { fail("%s:%d: %s: %s", __FILE__, __LINE__, #x, strerror(errno)); } \
	r_; })
/* liburing call that returns -errno on failure */
#define URING(x) ({ int r_ = (x); \
	if (r_ < 0) { fail("%s:%d: %s: %s", __FILE__, __LINE__, #x, strerror(-r_)); } \
	r_; })

/*
 * With SQPOLL the poller posts a batch's CQEs before it moves the SQ
 * head past that batch (io_submit_sqes flushes completions, then commits
 * the SQ ring), so a program that has reaped every CQE can still find
 * the SQ full for a moment. liburing's answer is io_uring_sqring_wait();
 * without it a legal test fails by timing, more often when the poller
 * runs slower (under tracing, under TCG).
 */
static inline struct io_uring_sqe *get_sqe(struct io_uring *ring)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	for (int tries = 0; !sqe && (ring->flags & IORING_SETUP_SQPOLL) && tries < 1000; tries++) {
		if (io_uring_sqring_wait(ring) < 0)
			break;
		sqe = io_uring_get_sqe(ring);
	}
	if (!sqe)
		fail("io_uring_get_sqe: submission queue full");
	return sqe;
}

/* io_uring_submit() that must hand exactly n SQEs to the kernel */
static inline void submit_exact(struct io_uring *ring, int n)
{
	int ret = io_uring_submit(ring);

	if (ret != n)
		fail("io_uring_submit returned %d (%s), expected %d", ret,
		     ret < 0 ? strerror(-ret) : "short", n);
}

/*
 * Sanity check for "in flight at the same time": nothing may have been
 * completed yet, so every request submitted so far is still pending.
 */
static inline void require_no_cqe(struct io_uring *ring, const char *what)
{
	unsigned n = io_uring_cq_ready(ring);

	if (n)
		fail("%s: %u completion(s) already posted, the requests did not "
		     "overlap in time", what, n);
}

struct cqe_copy {
	uint64_t user_data;
	int res;
	unsigned flags;
};

/* Wait (at most 5 s) for one completion; return a copy and mark it seen. */
static inline struct cqe_copy wait_one(struct io_uring *ring)
{
	struct __kernel_timespec ts = { .tv_sec = 5 };
	struct io_uring_cqe *cqe;
	struct cqe_copy c;
	int ret = io_uring_wait_cqe_timeout(ring, &cqe, &ts);

	if (ret == -ETIME)
		fail("timed out waiting for a completion");
	if (ret < 0)
		fail("io_uring_wait_cqe: %s", strerror(-ret));
	c.user_data = cqe->user_data;
	c.res = cqe->res;
	c.flags = cqe->flags;
	io_uring_cqe_seen(ring, cqe);
	return c;
}

/*
 * Reap n completions. user_data of request i is i (0 <= i < n), each must
 * complete exactly once and its res must equal want[i].
 */
static inline void reap(struct io_uring *ring, const int *want, unsigned n)
{
	unsigned char seen[64] = { 0 };

	for (unsigned i = 0; i < n; i++) {
		struct cqe_copy c = wait_one(ring);

		if (c.user_data >= n || seen[c.user_data])
			fail("unexpected completion user_data=%llu res=%d",
			     (unsigned long long)c.user_data, c.res);
		seen[c.user_data] = 1;
		if (c.res != want[c.user_data])
			fail("request %llu: res=%d (%s), expected %d",
			     (unsigned long long)c.user_data, c.res,
			     c.res < 0 ? strerror(-c.res) : "short", want[c.user_data]);
	}
}

static inline void write_all(int fd, const void *p, size_t len)
{
	while (len) {
		ssize_t n = SYS(write(fd, p, len));

		p = (const char *)p + n;
		len -= n;
	}
}

static inline void read_all(int fd, void *p, size_t len)
{
	while (len) {
		ssize_t n = SYS(read(fd, p, len));

		if (n == 0)
			fail("read: unexpected EOF");
		p = (char *)p + n;
		len -= n;
	}
}

/* Deterministic byte pattern */
static inline void pattern(void *p, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		((unsigned char *)p)[i] = (unsigned char)(seed * 131 + i * 7 + (i >> 8));
}

/* Writes len pattern bytes (seed) into fd */
static inline void feed(int fd, size_t len, unsigned seed)
{
	char tmp[8192];

	if (len > sizeof(tmp))
		fail("feed: %zu bytes is too much", len);
	pattern(tmp, len, seed);
	write_all(fd, tmp, len);
}

/*
 * Shrink a pipe to one page and fill it completely, so that a WRITE to it
 * stays in flight until the pipe is drained. The write end is left in
 * blocking mode (io_uring returns -EAGAIN instead of waiting on O_NONBLOCK
 * files). Returns the number of bytes stored in the pipe.
 */
static inline size_t fill_pipe(int wfd)
{
	static const char junk[4096] = { 0 };
	size_t total = 0;
	int fl;

	SYS(fcntl(wfd, F_SETPIPE_SZ, 4096));
	fl = SYS(fcntl(wfd, F_GETFL));
	SYS(fcntl(wfd, F_SETFL, fl | O_NONBLOCK));
	for (size_t chunk = sizeof(junk); chunk; chunk /= 2) {
		for (;;) {
			ssize_t n = write(wfd, junk, chunk);

			if (n < 0 && errno == EAGAIN)
				break;
			if (n < 0)
				fail("fill_pipe: write: %s", strerror(errno));
			total += n;
		}
	}
	SYS(fcntl(wfd, F_SETFL, fl));
	return total;
}

/*
 * Fill the send buffer of a stream socket (shrunk to its minimum first) so
 * that a SEND on it stays in flight until the peer reads. Returns the
 * number of bytes queued.
 */
static inline size_t fill_socket(int fd)
{
	static const char junk[4096] = { 0 };
	int sz = 4096;
	size_t total = 0;

	SYS(setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz)));
	for (size_t chunk = sizeof(junk); chunk; chunk /= 2) {
		for (;;) {
			ssize_t n = send(fd, junk, chunk, MSG_DONTWAIT);

			if (n < 0 && errno == EAGAIN)
				break;
			if (n < 0)
				fail("fill_socket: send: %s", strerror(errno));
			total += n;
		}
	}
	return total;
}

/* Throw away exactly len bytes from fd */
static inline void discard(int fd, size_t len)
{
	char tmp[4096];

	while (len) {
		size_t n = len < sizeof(tmp) ? len : sizeof(tmp);

		read_all(fd, tmp, n);
		len -= n;
	}
}

/*
 * Provided-buffer rings (liburing 2.3 has no io_uring_setup_buf_ring):
 * a ring of @entries (a power of two) registered for group @bgid.
 */
#include <sys/mman.h>

static inline struct io_uring_buf_ring *buf_ring_setup(struct io_uring *ring,
						       unsigned entries, int bgid)
{
	struct io_uring_buf_reg reg = { 0 };
	void *mem = mmap(NULL, entries * sizeof(struct io_uring_buf),
			 PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED)
		fail("buf_ring_setup: mmap: %s", strerror(errno));
	io_uring_buf_ring_init((struct io_uring_buf_ring *)mem);
	reg.ring_addr = (unsigned long)mem;
	reg.ring_entries = entries;
	reg.bgid = bgid;
	URING(io_uring_register_buf_ring(ring, &reg, 0));
	return (struct io_uring_buf_ring *)mem;
}

/* Give buffer @bid at @addr back to the kernel (added and published). */
static inline void buf_ring_give(struct io_uring_buf_ring *br, unsigned entries,
				 void *addr, unsigned len, unsigned short bid)
{
	io_uring_buf_ring_add(br, addr, len, bid, io_uring_buf_ring_mask(entries), 0);
	io_uring_buf_ring_advance(br, 1);
}

/* Buffers 0..n-1 of @bsz bytes from @pool, given to the kernel in order. */
static inline void buf_ring_fill(struct io_uring_buf_ring *br, unsigned entries,
				 char *pool, unsigned n, unsigned bsz)
{
	for (unsigned i = 0; i < n; i++)
		buf_ring_give(br, entries, pool + i * bsz, bsz, i);
}

/* Run the ring's pending task work (a deferred retry, a CQE to post)
 * without waiting for anything. */
static inline void run_task_work(struct io_uring *ring)
{
	URING(io_uring_get_events(ring));
}

/*
 * A RECV of 64 bytes with MSG_WAITALL from group @bgid that gets 10 of
 * them: the kernel keeps the buffer it picked and waits for the other 54
 * (feed them to @s[1] to end it). How a test holds a provided buffer.
 */
static inline void recv_hold(struct io_uring *ring, int s[2], int bgid, __u64 ud)
{
	struct io_uring_sqe *sqe = get_sqe(ring);

	io_uring_prep_recv(sqe, s[0], NULL, 64, MSG_WAITALL);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = bgid;
	sqe->user_data = ud;
	submit_exact(ring, 1);
	feed(s[1], 10, 1);
	run_task_work(ring);
	require_no_cqe(ring, "the MSG_WAITALL RECV waits for the rest");
}

/*
 * Newer than liburing 2.3's headers (the uapi values): bundles (6.10+),
 * incremental buffer rings (6.12+, the flag goes in what 2.3 calls the
 * registration's pad, newer headers its flags).
 */
#ifndef IORING_RECVSEND_BUNDLE
#define IORING_RECVSEND_BUNDLE	(1U << 4)
#endif
#define UC_IOU_PBUF_RING_INC	2
#ifndef IORING_CQE_F_BUF_MORE
#define IORING_CQE_F_BUF_MORE	(1U << 4)
#endif

/* An incremental ring (IOU_PBUF_RING_INC): buffers consumed piece by
 * piece. Exits 77 (skip) where the kernel has none. */
static inline struct io_uring_buf_ring *buf_ring_setup_inc(struct io_uring *ring,
							   unsigned entries, int bgid)
{
	struct io_uring_buf_reg reg = { 0 };
	void *mem = mmap(NULL, entries * sizeof(struct io_uring_buf),
			 PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int ret;

	if (mem == MAP_FAILED)
		fail("buf_ring_setup_inc: mmap: %s", strerror(errno));
	io_uring_buf_ring_init((struct io_uring_buf_ring *)mem);
	reg.ring_addr = (unsigned long)mem;
	reg.ring_entries = entries;
	reg.bgid = bgid;
	reg.pad = UC_IOU_PBUF_RING_INC;
	ret = io_uring_register_buf_ring(ring, &reg, 0);
	if (ret == -EINVAL)
		exit(77);
	URING(ret);
	return (struct io_uring_buf_ring *)mem;
}

/*
 * SQPOLL cases about stacks: uringcheck plants its uprobes on liburing's
 * publishing calls when the process makes its first SQPOLL ring, some
 * milliseconds later (checker/sqpoll_probes.c), io_uring_submit's first
 * and io_uring_submit_and_wait's next. A planted uprobe is an int3 (0xcc)
 * at the function's first byte in this process's text; the kernel plants
 * it before the program is attached to it, so the case waits for the
 * second one (10 s at most): io_uring_submit is then fully probed.
 */
static inline void wait_submit_probed(void)
{
	const volatile unsigned char *entry =
		(const volatile unsigned char *)(uintptr_t)io_uring_submit_and_wait;

	for (int i = 0; *entry != 0xcc; i++) {
		if (i >= 10000)
			fail("io_uring_submit_and_wait was not probed within 10 s");
		usleep(1000);
	}
}

/*
 * free-inflight's cases: a READ from the empty pipe @rfd into a 4 KiB
 * heap chunk, in flight (poll armed: the copy happens when data comes)
 * until read_lands() writes the pipe.
 */
static inline void read_in_flight(struct io_uring *ring, int rfd, char *buf, __u64 ud)
{
	struct io_uring_sqe *sqe = get_sqe(ring);

	io_uring_prep_read(sqe, rfd, buf, 4096, 0);
	sqe->user_data = ud;
	submit_exact(ring, 1);
	require_no_cqe(ring, "READ submitted");
}

/* ... completes it with 100 bytes, which land in @rec, the chunk's new
 * owner (filled with 'R' when it took the chunk). */
static inline void read_lands(struct io_uring *ring, int wfd, __u64 ud, const char *rec)
{
	struct cqe_copy c;

	feed(wfd, 100, 1);
	c = wait_one(ring);
	if (c.user_data != ud || c.res != 100)
		fail("READ: user_data=%llu res=%d, expected 100",
		     (unsigned long long)c.user_data, c.res);
	if (rec && rec[0] == 'R')
		fail("the READ did not land in the new record");
}

/*
 * free-inflight's probes on a libc the checker could not probe before the
 * program ran (a container's own, checker/mapped_files.h) are planted at
 * the process's first ring, some milliseconds later: an int3 (0xcc) in
 * free's first bytes (glibc's free is probed past its first test and
 * branch, at +9 on Debian 12; no 0xcc there otherwise). Waits for it
 * (10 s at most).
 */
static inline void wait_free_probed(void)
{
	const volatile unsigned char *entry = (const volatile unsigned char *)(uintptr_t)free;

	for (int i = 0;; i++) {
		for (int b = 0; b < 32; b++)
			if (entry[b] == 0xcc)
				return;
		if (i >= 10000)
			fail("free was not probed within 10 s");
		usleep(1000);
	}
}

#endif /* UC_TEST_H */
