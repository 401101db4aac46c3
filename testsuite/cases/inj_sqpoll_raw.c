/* uringcheck-test: expect=overlap match="no io_uring_submit call seen publishing it, nor any on this ring" */
/*
 * An SQPOLL ring driven without liburing: io_uring_setup(2), the rings
 * mapped and the SQ tail stored by the program itself. No call of the
 * program publishes the SQEs (the kernel's SQ thread takes them from
 * memory), so no stack can exist for them: the report must say so and
 * why. Two READs from two empty pipes into one buffer: overlap.
 */
#define _GNU_SOURCE
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

#include "uc_test.h"

/* ---- end of common helpers ---- */
#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/syscall.h>

static char buf[4096] __attribute__((aligned(4096)));

int main(void)
{
	struct io_uring_params p = { .flags = IORING_SETUP_SQPOLL, .sq_thread_idle = 2000 };
	unsigned *sq_head, *sq_tail, *sq_array, *sq_flags, *cq_head, *cq_tail, mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	size_t sq_len, cq_len;
	char *sq, *cq;
	int fd, a[2], b[2], seen = 0;

	SYS(pipe(a));
	SYS(pipe(b));
	fd = SYS((int)syscall(__NR_io_uring_setup, 8, &p));
	sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd,
		  IORING_OFF_SQ_RING);
	cq = mmap(NULL, cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd,
		  IORING_OFF_CQ_RING);
	sqes = mmap(NULL, p.sq_entries * sizeof(*sqes), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED)
		fail("mmap of the rings: %s", strerror(errno));
	sq_head = (unsigned *)(sq + p.sq_off.head);
	sq_tail = (unsigned *)(sq + p.sq_off.tail);
	sq_array = (unsigned *)(sq + p.sq_off.array);
	sq_flags = (unsigned *)(sq + p.sq_off.flags);
	cq_head = (unsigned *)(cq + p.cq_off.head);
	cq_tail = (unsigned *)(cq + p.cq_off.tail);
	cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	mask = p.sq_entries - 1;

	/* two READs into one buffer, written to the SQ ring by hand */
	for (unsigned i = 0; i < 2; i++) {
		struct io_uring_sqe *sqe = &sqes[i];

		memset(sqe, 0, sizeof(*sqe));
		sqe->opcode = IORING_OP_READ;
		sqe->fd = i ? b[0] : a[0];
		sqe->addr = (uintptr_t)(i ? buf + 1024 : buf);
		sqe->len = i ? 1024 : sizeof(buf);
		sqe->user_data = i;
		sq_array[i & mask] = i;
	}
	__atomic_store_n(sq_tail, 2, __ATOMIC_RELEASE);
	if (__atomic_load_n(sq_flags, __ATOMIC_ACQUIRE) & IORING_SQ_NEED_WAKEUP)
		syscall(__NR_io_uring_enter, fd, 0, 0, IORING_ENTER_SQ_WAKEUP, NULL, 0);
	for (int i = 0; __atomic_load_n(sq_head, __ATOMIC_ACQUIRE) != 2; i++) {
		if (i >= 2000)
			fail("SQ thread did not consume the SQEs within 2 s");
		usleep(1000);
	}
	usleep(50 * 1000);
	if (__atomic_load_n(cq_tail, __ATOMIC_ACQUIRE) != *cq_head)
		fail("a READ completed before its pipe was written");

	feed(a[1], 100, 1);
	feed(b[1], 200, 2);
	for (int i = 0; seen < 2; i++) {
		unsigned head = *cq_head;

		if (i >= 5000)
			fail("READs did not complete within 5 s");
		if (head == __atomic_load_n(cq_tail, __ATOMIC_ACQUIRE)) {
			usleep(1000);
			continue;
		}
		if (cqes[head & (p.cq_entries - 1)].res < 0)
			fail("READ failed: %s", strerror(-cqes[head & (p.cq_entries - 1)].res));
		__atomic_store_n(cq_head, head + 1, __ATOMIC_RELEASE);
		seen++;
	}
	close(fd);
	close(a[0]); close(a[1]); close(b[0]); close(b[1]);
	return 0;
}
