// SPDX-License-Identifier: GPL-2.0
/*
 * toggle N: loads toggle.bpf.c's empty programs once, then N times
 * attaches all of them and detaches them again, so that the kernel
 * rewrites the sys_enter, sys_exit and sched_switch tracepoint sites 2N
 * times each, as uringcheck's runs do, without uringcheck (issue #30:
 * does 7.3's guest die of the text patching alone?). Prints a line every
 * 1000 rounds and "toggle: N rounds" at the end; exit 0, or 70 when
 * loading or attaching fails.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toggle.skel.h"

int main(int argc, char **argv)
{
	struct bpf_program *progs[3];
	struct bpf_link *links[3];
	struct toggle_bpf *skel;
	long n, i;
	int p;

	n = argc == 2 ? strtol(argv[1], NULL, 10) : -1;
	if (n <= 0) {
		fprintf(stderr, "usage: toggle ROUNDS (a positive number)\n");
		return 2;
	}
	skel = toggle_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "toggle: cannot load: %s\n", strerror(errno));
		return 70;
	}
	progs[0] = skel->progs.toggle_sys_enter;
	progs[1] = skel->progs.toggle_sys_exit;
	progs[2] = skel->progs.toggle_sched_switch;
	for (i = 0; i < n; i++) {
		for (p = 0; p < 3; p++) {
			links[p] = bpf_program__attach(progs[p]);
			if (!links[p]) {
				fprintf(stderr, "toggle: cannot attach %s in round %ld: %s\n",
					bpf_program__name(progs[p]), i, strerror(errno));
				return 70;
			}
		}
		for (p = 0; p < 3; p++)
			bpf_link__destroy(links[p]);
		if ((i + 1) % 1000 == 0) {
			printf("toggle: %ld rounds\n", i + 1);
			fflush(stdout);
		}
	}
	printf("toggle: %ld rounds\n", n);
	toggle_bpf__destroy(skel);
	return 0;
}
