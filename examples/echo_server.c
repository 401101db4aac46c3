/*
 * echo_server -- a tiny io_uring echo server, self-contained: a client
 * thread on the other end of a socketpair sends NMSG messages of MSGSZ
 * bytes, one at a time, checks every echo, then shuts its side down.
 *
 * THE BUG: to save a round trip the server queues the SEND of the echo and
 * the RECV of the next message together -- but both use the same buffer.
 * The SEND (64 KiB through a socket with a small send buffer) stays in
 * flight until the client has read most of the echo, while the RECV is
 * already armed to store the next message into the very bytes the SEND is
 * still reading from.
 *
 * Why nobody notices: this client only sends message i+1 after it received
 * the complete echo of message i, so the RECV never actually stores data
 * before the SEND has consumed it. Every echo checks out and the program
 * exits 0. A client that pipelines requests (or any other timing) gets
 * corrupted echoes. uringcheck reports the overlap on every run.
 *
 * See echo_fixed.c for the corrected version.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <liburing.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MSGSZ	(64 * 1024)
#define NMSG	8

enum { OP_RECV = 1, OP_SEND = 2 };

static char buf[MSGSZ];		/* the server's message buffer */

static void die(const char *what, int err)
{
	fprintf(stderr, "echo: %s: %s\n", what, strerror(err));
	exit(1);
}

static void fill_msg(char *p, int i)
{
	for (int j = 0; j < MSGSZ; j++)
		p[j] = (char)(i * 31 + j * 7 + (j >> 10));
}

/* ---- client (plain blocking sockets) ---- */

static void *client(void *arg)
{
	static char msg[MSGSZ], echo[MSGSZ];
	int fd = *(int *)arg;

	for (int i = 0; i < NMSG; i++) {
		fill_msg(msg, i);
		for (size_t done = 0; done < MSGSZ; ) {
			ssize_t n = write(fd, msg + done, MSGSZ - done);

			if (n < 0)
				die("client write", errno);
			done += n;
		}
		for (size_t done = 0; done < MSGSZ; ) {
			ssize_t n = read(fd, echo + done, MSGSZ - done);

			if (n <= 0)
				die("client read", n ? errno : EPIPE);
			done += n;
		}
		if (memcmp(msg, echo, MSGSZ)) {
			fprintf(stderr, "echo: message %d came back corrupted\n", i);
			exit(1);
		}
	}
	shutdown(fd, SHUT_WR);	/* tells the server we are done */
	return NULL;
}

/* ---- server ---- */

static void queue_recv(struct io_uring *ring, int fd, char *dst)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_recv(sqe, fd, dst, MSGSZ, MSG_WAITALL);
	io_uring_sqe_set_data64(sqe, OP_RECV);
}

static void queue_send(struct io_uring *ring, int fd, const char *src, int len)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	io_uring_prep_send(sqe, fd, src, len, MSG_WAITALL);
	io_uring_sqe_set_data64(sqe, OP_SEND);
}

/* wait for n completions; returns the RECV result (-1 if none) */
static int wait_events(struct io_uring *ring, int n, int sent_len)
{
	int got = -1;

	while (n--) {
		struct io_uring_cqe *cqe;
		int ret = io_uring_wait_cqe(ring, &cqe);

		if (ret < 0)
			die("io_uring_wait_cqe", -ret);
		if (cqe->res < 0)
			die(cqe->user_data == OP_RECV ? "recv" : "send", -cqe->res);
		if (cqe->user_data == OP_RECV)
			got = cqe->res;
		else if (cqe->res != sent_len)
			die("short send", EIO);
		io_uring_cqe_seen(ring, cqe);
	}
	return got;
}

int main(void)
{
	int sv[2], ret, len, small = 4096, served = 0;
	struct io_uring ring;
	pthread_t tid;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		die("socketpair", errno);
	/* a modest send buffer: a 64 KiB echo cannot be sent in one go */
	if (setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small)) < 0)
		die("SO_SNDBUF", errno);
	ret = io_uring_queue_init(8, &ring, 0);
	if (ret < 0)
		die("io_uring_queue_init", -ret);
	ret = pthread_create(&tid, NULL, client, &sv[1]);
	if (ret)
		die("pthread_create", ret);

	queue_recv(&ring, sv[0], buf);
	io_uring_submit(&ring);
	len = wait_events(&ring, 1, 0);
	while (len > 0) {
		if (len != MSGSZ)
			die("truncated message", EPROTO);
		served++;
		/* echo it back and already wait for the next message */
		queue_send(&ring, sv[0], buf, len);
		queue_recv(&ring, sv[0], buf);		/* BUG: buf is still being sent */
		ret = io_uring_submit(&ring);
		if (ret != 2)
			die("io_uring_submit", ret < 0 ? -ret : EIO);
		len = wait_events(&ring, 2, len);
	}

	pthread_join(tid, NULL);
	if (served != NMSG)
		die("lost messages", EPROTO);
	io_uring_queue_exit(&ring);
	close(sv[0]);
	close(sv[1]);
	return 0;
}
