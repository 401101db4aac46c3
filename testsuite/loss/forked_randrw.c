/*
 * Loss under load (testsuite/run.sh, section "loss"): the shape of
 * `fio --ioengine=io_uring --rw=randrw --numjobs=N`. N forked processes,
 * each with its own ring at queue depth 32 and one buffer per slot, do
 * random buffered reads and writes on a temporary file for ITER
 * requests. A slot is resubmitted, with the same user_data, only after
 * its CQE was reaped: legal however fast it goes. Run under a tiny event
 * buffer, many of the checker's end events are lost, and an end it never
 * hears of must not turn the slot's next request into an overlap.
 *
 *   forked_randrw NPROC ITER [hazard|munmap]
 *
 * hazard: each process also reads from an empty pipe into a spare
 *         buffer before the load, and again into the same buffer one
 *         second after it (a real overlap whose window spans the loss),
 *         then submits two reads into one buffer at once (a real overlap
 *         after the loss). Both must still be found.
 * munmap: at the end each process unmaps its buffers after reaping them
 *         all (legal: nothing is in flight).
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <stdbool.h>
#include <sys/wait.h>

#include "../cases/uc_test.h"

#define QD	32
#define BSZ	4096
#define FILE_SZ	(4 << 20)

/* A random read or write of one block, tagged with its slot only. */
static void queue_rw(struct io_uring *ring, int fd, char *bufs, unsigned slot,
		     unsigned *seed)
{
	struct io_uring_sqe *sqe = get_sqe(ring);
	off_t off = (off_t)(rand_r(seed) % (FILE_SZ / BSZ)) * BSZ;

	if (rand_r(seed) & 1)
		io_uring_prep_read(sqe, fd, bufs + slot * BSZ, BSZ, off);
	else
		io_uring_prep_write(sqe, fd, bufs + slot * BSZ, BSZ, off);
	sqe->user_data = slot;
}

static void worker(int fd, unsigned long iter, const char *mode, unsigned seed)
{
	char *bufs = mmap(NULL, (QD + 1) * BSZ, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	bool hazard = !strcmp(mode, "hazard");
	unsigned long submitted = 0, done = 0;
	char *spare = bufs + QD * BSZ;
	struct io_uring ring;
	int pipes[2][2];

	if (bufs == MAP_FAILED)
		fail("mmap: %s", strerror(errno));
	URING(io_uring_queue_init(QD + 2, &ring, 0));
	if (hazard) {
		/* In flight through the whole load: its CQE is not counted. */
		struct io_uring_sqe *sqe = get_sqe(&ring);

		SYS(pipe(pipes[0]));
		io_uring_prep_read(sqe, pipes[0][0], spare, BSZ, 0);
		sqe->user_data = 2000;
		URING(io_uring_submit(&ring));
	}
	for (unsigned slot = 0; slot < QD && submitted < iter; slot++, submitted++)
		queue_rw(&ring, fd, bufs, slot, &seed);
	while (done < iter) {
		struct io_uring_cqe *cqe;
		unsigned head, n = 0;

		URING(io_uring_submit_and_wait(&ring, 1));
		io_uring_for_each_cqe(&ring, head, cqe) {
			unsigned slot = cqe->user_data;

			if (slot >= QD)
				fail("unexpected CQE %u", slot);

			if (cqe->res != BSZ)
				fail("request on slot %u: res=%d", slot, cqe->res);
			n++;
			done++;
			/* Reaped: the slot's buffer is free again. */
			if (submitted < iter) {
				queue_rw(&ring, fd, bufs, slot, &seed);
				submitted++;
			}
		}
		io_uring_cq_advance(&ring, n);
	}
	if (hazard) {
		struct io_uring_sqe *sqe;
		struct io_uring_cqe *cqe;

		/* Time for the checker to catch up, then a second read into the
		 * spare buffer while the first is still in flight. */
		sleep(1);
		SYS(pipe(pipes[1]));
		sqe = get_sqe(&ring);
		io_uring_prep_read(sqe, pipes[1][0], spare, BSZ, 0);
		sqe->user_data = 2001;
		URING(io_uring_submit(&ring));
		write_all(pipes[0][1], "a", 1);
		write_all(pipes[1][1], "b", 1);
		for (int i = 0; i < 2; i++) {
			URING(io_uring_wait_cqe(&ring, &cqe));
			io_uring_cqe_seen(&ring, cqe);
		}
		/* Two reads into one buffer, in flight together. */
		for (int i = 0; i < 2; i++) {
			struct io_uring_sqe *sqe = get_sqe(&ring);

			io_uring_prep_read(sqe, fd, bufs, BSZ, 0);
			sqe->user_data = 1000 + i;
		}
		URING(io_uring_submit_and_wait(&ring, 2));
		for (int i = 0; i < 2; i++) {
			struct io_uring_cqe *cqe;

			URING(io_uring_wait_cqe(&ring, &cqe));
			io_uring_cqe_seen(&ring, cqe);
		}
	}
	io_uring_queue_exit(&ring);
	if (!strcmp(mode, "munmap"))
		SYS(munmap(bufs, (QD + 1) * BSZ));
}

int main(int argc, char **argv)
{
	int nproc = argc > 1 ? atoi(argv[1]) : 2;
	unsigned long iter = argc > 2 ? strtoul(argv[2], NULL, 0) : 100000;
	const char *mode = argc > 3 ? argv[3] : "clean";
	char tmpl[] = "/tmp/uc_loss_XXXXXX";
	static char blk[1 << 16];
	int fd, status, bad = 0;

	fd = SYS(mkstemp(tmpl));
	SYS(unlink(tmpl));
	memset(blk, 'x', sizeof(blk));
	for (int i = 0; i < FILE_SZ / (int)sizeof(blk); i++)
		write_all(fd, blk, sizeof(blk));
	for (int p = 0; p < nproc; p++) {
		pid_t pid = SYS(fork());

		if (pid == 0) {
			worker(fd, iter, mode, 1234 + p);
			_exit(0);
		}
	}
	for (int p = 0; p < nproc; p++) {
		SYS(wait(&status));
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad = 1;
	}
	return bad;
}
