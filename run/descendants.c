// SPDX-License-Identifier: GPL-2.0
/*
 * -p PID -f: the process's existing descendants, to be followed like it
 * (the kernel side follows only what a followed process forks from then
 * on: fio's job processes, forked before the attach, would be missed).
 * Also counted without -f, for the hint at the end of a run that saw no
 * ring (run/run.c).
 *
 * Every process's parent is read from /proc/N/stat, not from
 * /proc/PID/task/TID/children: that file exists only with
 * CONFIG_PROC_CHILDREN (not on the CI kernel), and its absence would
 * look like no children.
 */
#define _GNU_SOURCE
#include "descendants.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

struct proc_parent {
	pid_t pid, ppid;
};

/* The parent of process @pid, -1 if it is gone. The command name, in
 * parentheses, may hold anything: the fields follow its last ')'. */
static pid_t parent_of(const char *pid)
{
	char path[64], buf[512], *p;
	size_t len;
	FILE *f;
	int ppid;

	snprintf(path, sizeof(path), "/proc/%.16s/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = 0;
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
		return -1;
	return ppid;
}

int descendants_list(pid_t pid, pid_t **out, int max)
{
	struct proc_parent *all = NULL;
	size_t nall = 0;
	pid_t *v = NULL;
	struct dirent *d;
	DIR *proc;
	int n = 0;

	*out = NULL;
	proc = opendir("/proc");
	if (!proc)
		return 0;
	while ((d = readdir(proc))) {
		pid_t ppid;

		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		ppid = parent_of(d->d_name);
		if (ppid <= 0)
			continue;
		all = xrealloc(all, (nall + 1) * sizeof(*all));
		all[nall++] = (struct proc_parent){ (pid_t)atol(d->d_name), ppid };
	}
	closedir(proc);
	/* Breadth first, the list its own queue (a process has one parent:
	 * none is listed twice). */
	for (int i = -1; i < n && n < max; i++) {
		pid_t parent = i < 0 ? pid : v[i];

		for (size_t j = 0; j < nall && n < max; j++) {
			if (all[j].ppid != parent)
				continue;
			v = xrealloc(v, (n + 1) * sizeof(*v));
			v[n++] = all[j].pid;
		}
	}
	free(all);
	*out = v;
	return n;
}
