/* uringcheck-test: expect=free-inflight match="free\(\) of heap chunk" */
/*
 * C++: a READ from an empty pipe into a new[]'d buffer owned by an object
 * is in flight when the object is destroyed (delete[] in its destructor):
 * operator delete[] reaches glibc's free, free-inflight. Built with g++
 * (the Makefile's .cc rule).
 */
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <liburing.h>
#include <unistd.h>

#include "uc_test.h"

/* ---- end of common helpers ---- */

class Reader {
public:
	explicit Reader(size_t n) : buf_(new char[n]), len_(n) {}
	~Reader() { delete[] buf_; }
	void start(struct io_uring *ring, int fd)
	{
		struct io_uring_sqe *sqe = get_sqe(ring);

		io_uring_prep_read(sqe, fd, buf_, len_, 0);
		sqe->user_data = 3;
		submit_exact(ring, 1);
	}
private:
	char *buf_;
	size_t len_;
};

int main()
{
	struct io_uring ring;
	struct cqe_copy c;
	int a[2];

	SYS(pipe(a));
	URING(io_uring_queue_init(8, &ring, 0));
	{
		Reader *r = new Reader(4096);

		r->start(&ring, a[0]);
		require_no_cqe(&ring, "READ submitted");
		delete r;		/* the READ still holds its buffer */
	}
	feed(a[1], 100, 1);
	c = wait_one(&ring);
	if (c.user_data != 3 || c.res != 100)
		fail("READ: user_data=%llu res=%d, expected 100",
		     (unsigned long long)c.user_data, c.res);
	io_uring_queue_exit(&ring);
	close(a[0]); close(a[1]);
	return 0;
}
