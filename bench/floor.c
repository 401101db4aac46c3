// SPDX-License-Identifier: GPL-2.0
/*
 * floor PROGRAM [ARGS...]: runs PROGRAM with the empty programs of
 * floor.bpf.c attached, then detaches them. Its exit status is PROGRAM's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "floor.skel.h"

int main(int argc, char **argv)
{
	struct floor_bpf *skel;
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: floor PROGRAM [ARGS...]\n");
		return 2;
	}
	skel = floor_bpf__open_and_load();
	if (!skel || floor_bpf__attach(skel)) {
		fprintf(stderr, "floor: cannot load or attach: %s\n", strerror(errno));
		return 70;
	}
	pid = fork();
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		fprintf(stderr, "floor: %s: %s\n", argv[1], strerror(errno));
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		status = 70 << 8;
	floor_bpf__destroy(skel);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
