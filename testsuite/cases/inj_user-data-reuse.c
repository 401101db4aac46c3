/* uringcheck-test: expect=user-data-reuse status=0 match="user-data-reuse: READ submitted with user_data 0x[0-9a-f]+, a pointer, while READ with the same user_data is in flight" */
/*
 * One request context for two requests: a READ from an empty pipe is in
 * flight with user_data = a heap context, and the program submits a
 * second READ (another pipe, another buffer) with the same context.
 * Both CQEs reach that context; the program cannot tell which is which.
 * user-data-reuse, a warning: the program's status (0) is kept.
 */
#include "uc_test.h"

struct req_ctx {
	int kind;
	char buf[4096];
};

int main(void)
{
	struct req_ctx *ctx = malloc(sizeof(*ctx));
	static char other[4096];
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	int a[2], b[2];

	if (!ctx)
		fail("malloc");
	SYS(pipe(a));
	SYS(pipe(b));
	URING(io_uring_queue_init(8, &ring, 0));

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, a[0], ctx->buf, sizeof(ctx->buf), 0);
	io_uring_sqe_set_data(sqe, ctx);
	submit_exact(&ring, 1);
	require_no_cqe(&ring, "first READ submitted");

	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, b[0], other, sizeof(other), 0);
	io_uring_sqe_set_data(sqe, ctx);		/* the same context */
	submit_exact(&ring, 1);

	feed(a[1], 10, 1);
	feed(b[1], 20, 2);
	for (int i = 0; i < 2; i++) {
		struct cqe_copy c = wait_one(&ring);

		if (c.user_data != (uint64_t)(uintptr_t)ctx)
			fail("CQE %d: user_data 0x%llx", i, (unsigned long long)c.user_data);
	}
	io_uring_queue_exit(&ring);
	free(ctx);
	return 0;
}
