/* uringcheck-test: expect=clean args=10,100,1 options=--reap-lag-ms=0 */
/*
 * Many pipe WRITEs of one buffer with IOSQE_CQE_SKIP_SUCCESS, in linked
 * chains, each chain ended by a NOP whose CQE the program waits for. Then a
 * READ into that same buffer. Every WRITE ended before its chain's NOP
 * posted, so the READ overlaps nothing. On kernels that punt pipe writes to
 * io-wq (6.1), the skipped WRITEs end there, where no event names them: a
 * checker that misses those ends reports a false overlap (issue #30).
 * The pipe is drained between chains so no WRITE blocks.
 * Run as 10 chains of 100 WRITEs: longer than the 64 members the chain
 * walk once reached, with the members found ended hiding the rest below
 * the depth the free-stack walk read (a false overlap on 6.18 too). The
 * kernel matrix runs it 20 times per kernel, and profiles it: every
 * WRITE counted, with its bytes, though none posts a CQE. reap-lag is off:
 * what is judged here is the overlap, and under TCG on a loaded machine a
 * NOP's CQE can wait past 100 ms (a timing warning, not this test's).
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

#define CHUNK 64

static char buf[4096];
static char sink[1 << 20];

/* args: CHAINS WRITES_PER_CHAIN [CHAINS_PER_SUBMIT] (default 50 20 1) */
int main(int argc, char **argv)
{
	int chains = argc > 1 ? atoi(argv[1]) : 50;
	int per_chain = argc > 2 ? atoi(argv[2]) : 20;
	int per_submit = argc > 3 ? atoi(argv[3]) : 1;
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	int p[2];

	if (chains < 1 || per_chain < 1 || per_submit < 1 ||
	    (size_t)CHUNK * per_chain * per_submit > sizeof(sink) ||
	    per_submit * (per_chain + 1) > 4096)
		fail("bad arguments");
	SYS(pipe(p));
	SYS(fcntl(p[1], F_SETPIPE_SZ, 1 << 20));
	memset(buf, 'w', sizeof(buf));
	URING(io_uring_queue_init(4096, &ring, 0));
	for (int chain = 0; chain < chains; chain += per_submit) {
	    for (int k = 0; k < per_submit; k++) {
		for (int i = 0; i < per_chain; i++) {
			sqe = get_sqe(&ring);
			io_uring_prep_write(sqe, p[1], buf, CHUNK, 0);
			sqe->flags |= IOSQE_CQE_SKIP_SUCCESS | IOSQE_IO_LINK;
			sqe->user_data = 100 + i;
		}
		sqe = get_sqe(&ring);
		io_uring_prep_nop(sqe);
		sqe->user_data = 1;
	    }
		submit_exact(&ring, per_submit * (per_chain + 1));
		for (int k = 0; k < per_submit; k++) {
			c = wait_one(&ring);
			if (c.user_data != 1 || c.res != 0)
				fail("chain %d: expected a NOP's CQE, got user_data=%llu res=%d",
				     chain, (unsigned long long)c.user_data, c.res);
		}
		size_t want = (size_t)CHUNK * per_chain * per_submit;
		if (read(p[0], sink, want) != (ssize_t)want)
			fail("chain %d: the pipe holds fewer bytes than written", chain);
	}
	/* Now buf belongs to the program again: READ into it. */
	SYS(write(p[1], "done", 4));
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, p[0], buf, 4, 0);
	sqe->user_data = 2;
	submit_exact(&ring, 1);
	c = wait_one(&ring);
	if (c.user_data != 2 || c.res != 4)
		fail("READ: res=%d", c.res);
	io_uring_queue_exit(&ring);
	return 0;
}
