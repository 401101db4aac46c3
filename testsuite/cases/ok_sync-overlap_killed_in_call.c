/* uringcheck-test: expect=clean */
/*
 * A sync call killed in the call: while a READ holds buf, a thread
 * read(2)s an empty pipe into buf + 16 and blocks (judged at its entry:
 * it may store into the READ's bytes). The READ then completes and is
 * reaped, and the process exits with the thread still in its call
 * (exit_group kills it there). The call returns -ERESTARTSYS on its way
 * out, having moved nothing: silent, and no "return not seen" warning
 * (that one is for a return whose mark was lost, rules/calls.c).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/syscall.h>

#include "uc_test.h"

static char buf[4096] __attribute__((aligned(4096)));
static int q[2];

static void *blocked_reader(void *arg)
{
	(void)arg;
	if (read(q[0], buf + 16, 32) >= 0)	/* nothing ever comes */
		fail("read: returned");
	return NULL;
}

/* The thread is asleep in its read: its state in /proc is S. */
static int thread_sleeps(pid_t tid)
{
	char path[64], line[256];
	FILE *f;
	int sleeping = 0;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fgets(line, sizeof(line), f)) {
		char *p = strrchr(line, ')');

		sleeping = p && p[1] == ' ' && p[2] == 'S';
	}
	fclose(f);
	return sleeping;
}

static pid_t reader_tid;

static void *start(void *arg)
{
	reader_tid = (pid_t)syscall(SYS_gettid);
	return blocked_reader(arg);
}

int main(void)
{
	const int want[1] = { 64 };
	struct io_uring ring;
	pthread_t t;
	int p[2];

	SYS(pipe(p));
	SYS(pipe(q));
	URING(io_uring_queue_init(8, &ring, 0));
	read_in_flight(&ring, p[0], buf, 0);

	if (pthread_create(&t, NULL, start, NULL))
		fail("pthread_create");
	for (int i = 0; i < 5000 && !(__atomic_load_n(&reader_tid, __ATOMIC_ACQUIRE) &&
				       thread_sleeps(reader_tid)); i++)
		usleep(1000);
	if (!thread_sleeps(reader_tid))
		fail("the reader never blocked");

	feed(p[1], 64, 1);
	reap(&ring, want, 1);
	io_uring_queue_exit(&ring);
	_exit(0);	/* the reader dies in its read */
}
