// SPDX-License-Identifier: GPL-2.0
/*
 * known_work: a fixed workload that counts itself, for the profile's
 * fidelity test (testsuite/profile/tests.sh, "profile: fidelity"). Each
 * figure is known independently of uringcheck:
 *
 *   ring A: 200 READs of a pipe, each answered by a writer thread after
 *     a fixed sleep: 180 after 1 ms, 20 after 20 ms (p50 ~1 ms, p99
 *     ~20 ms); their latency measured here, submission to CQE
 *     (CLOCK_MONOTONIC)
 *   ring C: 300 WRITEs to /dev/null of 1000 + i bytes (bytes summed here),
 *     then 64 READs of 1 MiB of a file with IOSQE_ASYNC: each one punted,
 *     and the io-wq workers copy 64 MiB (their CPU time)
 *   ring B (SQPOLL, sq_thread_idle 10 ms): NOPs in batches for 300 ms, so
 *     the poller is on a CPU for about that long; then 100 ms of rest, so
 *     it has gone to sleep before its time is read (and adds little at
 *     the close)
 * The io threads' time on CPU comes from the kernel's own per-thread
 * account, /proc/self/task/TID/schedstat (its first field, ns on CPU),
 * read for every iou-sqp-* and iou-wrk-* thread just before the rings
 * close (io-wq workers live 5 s idle: none has gone yet).
 *
 * Prints one line "known_work: {JSON}" with what it knows; exits 1 if a
 * result is not what it should be.
 */
#include "../cases/uc_test.h"

#include <dirent.h>
#include <pthread.h>
#include <time.h>

#define NPIPE	200
#define NSLOW	20		/* every tenth read: 20 ms */
#define NWRITE	300
#define NASYNC	64
#define ASYNC_LEN	(1 << 20)

static int pfd[2];
static uint64_t lat[NPIPE];

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ull + t.tv_nsec;
}

static void sleep_ms(int ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&t, NULL);
}

/* the writer: waits for each read's go, sleeps its fixed time, answers */
static int go[2];
static void *writer(void *arg)
{
	char c;

	for (int i = 0; i < NPIPE; i++) {
		if (read(go[0], &c, 1) != 1)
			fail("go pipe");
		sleep_ms(i % 10 == 9 ? 20 : 1);
		if (write(pfd[1], "x", 1) != 1)
			fail("pipe write");
	}
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* ns on CPU of this process's io threads whose name starts with @prefix */
static uint64_t io_thread_ns(const char *prefix, int *count)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	uint64_t sum = 0;

	*count = 0;
	if (!d)
		fail("opendir /proc/self/task");
	while ((e = readdir(d))) {
		char path[300], comm[32] = "";
		unsigned long long ns = 0;
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = 0;
		fclose(f);
		if (strncmp(comm, prefix, strlen(prefix)))
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/schedstat", e->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		if (fscanf(f, "%llu", &ns) == 1) {
			sum += ns;
			(*count)++;
		}
		fclose(f);
	}
	closedir(d);
	return sum;
}

int main(void)
{
	struct io_uring a, b, cr;
	struct io_uring_params p = { .flags = IORING_SETUP_SQPOLL, .sq_thread_idle = 10 };
	struct io_uring_cqe *cqe;
	static char buf[ASYNC_LEN];
	char c, path[] = "/tmp/uc-known-XXXXXX";
	uint64_t bytes = 0, t0, nops = 0, sqp_ns, wrk_ns;
	int nullfd, fd, nsqp, nwrk;
	pthread_t th;

	URING(io_uring_queue_init(64, &a, 0));
	URING(io_uring_queue_init(128, &cr, 0));
	URING(io_uring_queue_init_params(64, &b, &p));
	SYS(pipe(pfd));
	SYS(pipe(go));
	if (pthread_create(&th, NULL, writer, NULL))
		fail("pthread_create");

	/* known latency: one read at a time, answered after a fixed sleep */
	for (int i = 0; i < NPIPE; i++) {
		io_uring_prep_read(get_sqe(&a), pfd[0], &c, 1, 0);
		t0 = now_ns();
		URING(io_uring_submit(&a));
		SYS(write(go[1], "g", 1));
		URING(io_uring_wait_cqe(&a, &cqe));
		lat[i] = now_ns() - t0;
		if (cqe->res != 1)
			fail("pipe read: %d", cqe->res);
		io_uring_cqe_seen(&a, cqe);
	}
	pthread_join(th, NULL);

	/* known bytes */
	nullfd = SYS(open("/dev/null", O_WRONLY));
	for (int i = 0; i < NWRITE; i++) {
		io_uring_prep_write(get_sqe(&cr), nullfd, buf, 1000 + i, 0);
		URING(io_uring_submit_and_wait(&cr, 1));
		URING(io_uring_wait_cqe(&cr, &cqe));
		if (cqe->res != 1000 + i)
			fail("write: %d", cqe->res);
		bytes += cqe->res;
		io_uring_cqe_seen(&cr, cqe);
	}

	/* known punts: IOSQE_ASYNC reads of a regular file */
	fd = SYS(mkstemp(path));
	unlink(path);
	if (SYS(write(fd, buf, ASYNC_LEN)) != ASYNC_LEN)
		fail("short write of the file");
	for (int i = 0; i < NASYNC; i++) {
		struct io_uring_sqe *sqe = get_sqe(&cr);

		io_uring_prep_read(sqe, fd, buf, ASYNC_LEN, 0);
		sqe->flags |= IOSQE_ASYNC;
	}
	URING(io_uring_submit_and_wait(&cr, NASYNC));
	for (int i = 0; i < NASYNC; i++) {
		URING(io_uring_wait_cqe(&cr, &cqe));
		if (cqe->res != ASYNC_LEN)
			fail("async read: %d", cqe->res);
		io_uring_cqe_seen(&cr, cqe);
	}

	/* the SQPOLL thread busy for ~300 ms */
	t0 = now_ns();
	while (now_ns() - t0 < 300000000ull) {
		for (int i = 0; i < 16; i++)
			io_uring_prep_nop(get_sqe(&b));
		URING(io_uring_submit(&b));
		for (int i = 0; i < 16; i++) {
			URING(io_uring_wait_cqe(&b, &cqe));
			io_uring_cqe_seen(&b, cqe);
		}
		nops += 16;
	}

	sleep_ms(100);
	sqp_ns = io_thread_ns("iou-sqp-", &nsqp);
	wrk_ns = io_thread_ns("iou-wrk-", &nwrk);
	qsort(lat, NPIPE, sizeof(lat[0]), cmp_u64);
	printf("known_work: {\"pipe_reads\": %d, \"read_p50_ns\": %llu, \"read_p99_ns\": %llu, "
	       "\"writes\": %d, \"write_bytes\": %llu, \"async_reads\": %d, "
	       "\"async_read_bytes\": %llu, \"sqpoll_nops\": %llu, \"sqpoll_threads\": %d, "
	       "\"sqpoll_oncpu_ns\": %llu, \"iowq_threads\": %d, \"iowq_oncpu_ns\": %llu}\n",
	       NPIPE, (unsigned long long)lat[NPIPE / 2 - 1],
	       (unsigned long long)lat[NPIPE * 99 / 100 - 1], NWRITE,
	       (unsigned long long)bytes, NASYNC, (unsigned long long)NASYNC * ASYNC_LEN,
	       (unsigned long long)nops,
	       nsqp, (unsigned long long)sqp_ns, nwrk, (unsigned long long)wrk_ns);
	fflush(stdout);
	io_uring_queue_exit(&b);
	io_uring_queue_exit(&cr);
	io_uring_queue_exit(&a);
	return 0;
}
