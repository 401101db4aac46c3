/* uringcheck-test: expect=clean */
/*
 * The legal look-alikes of inj_user-data-reuse:
 *  - two in-flight READs tagged with the same small integer (liburing's
 *    tests share tags across hundreds of requests);
 *  - a heap context reused only after its first request's CQE;
 *  - a linked READ -> WRITE chain carrying one context (one operation,
 *    ordered by the kernel).
 */
#include "uc_test.h"

struct req_ctx {
	char buf[4096];
};

int main(void)
{
	struct req_ctx *ctx = malloc(sizeof(*ctx));
	static char b1[4096], b2[4096];
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	struct cqe_copy c;
	int a[2], b[2], null;

	if (!ctx)
		fail("malloc");
	SYS(pipe(a));
	SYS(pipe(b));
	null = SYS(open("/dev/null", O_WRONLY));
	URING(io_uring_queue_init(8, &ring, 0));

	/* Small integer tags, shared. */
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], b1, sizeof(b1), 0);
	sqe->user_data = 7;
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, b[0], b2, sizeof(b2), 0);
	sqe->user_data = 7;
	submit_exact(&ring, 2);
	feed(a[1], 10, 1);
	feed(b[1], 20, 2);
	wait_one(&ring);
	wait_one(&ring);

	/* A context reused after its CQE. */
	for (int i = 0; i < 2; i++) {
		sqe = get_sqe(&ring);
		io_uring_prep_read(sqe, a[0], ctx->buf, sizeof(ctx->buf), 0);
		io_uring_sqe_set_data(sqe, ctx);
		submit_exact(&ring, 1);
		feed(a[1], 10, 3);
		c = wait_one(&ring);
		if (c.res != 10)
			fail("READ %d: res=%d", i, c.res);
	}

	/* One context over a linked READ -> WRITE. */
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], ctx->buf, 10, 0);
	io_uring_sqe_set_data(sqe, ctx);
	sqe->flags |= IOSQE_IO_LINK;
	sqe = get_sqe(&ring);
	io_uring_prep_write(sqe, null, ctx->buf, 10, 0);
	io_uring_sqe_set_data(sqe, ctx);
	submit_exact(&ring, 2);
	feed(a[1], 10, 4);
	wait_one(&ring);
	wait_one(&ring);

	io_uring_queue_exit(&ring);
	free(ctx);
	return 0;
}
