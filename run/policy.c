// SPDX-License-Identifier: GPL-2.0
/* What sudo lets a user do with uringcheck (policy.h). */
#define _GNU_SOURCE
#include "policy.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exit_codes.h"
#include "options.h"
#include "runner.h"

struct config {
	bool as_root, attach_any;
};

/*
 * The administrator's settings. A file that root does not own, or that
 * others could write, grants nothing (and says so). Its lines are never
 * echoed: only their numbers.
 */
static void config_read(struct config *c)
{
	int fd = open(UC_CONFIG_FILE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	char buf[65536];
	struct stat st;
	ssize_t n;
	int line = 0;

	memset(c, 0, sizeof(*c));
	if (fd < 0) {
		if (errno != ENOENT)
			fprintf(stderr, "uringcheck: %s: %s (ignored)\n", UC_CONFIG_FILE,
				strerror(errno));
		return;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		fprintf(stderr, "uringcheck: %s: ignored: not a regular file owned by "
			"root and writable by root alone\n", UC_CONFIG_FILE);
		close(fd);
		return;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0 || n == sizeof(buf) - 1) {
		fprintf(stderr, "uringcheck: %s: ignored: %s\n", UC_CONFIG_FILE,
			n < 0 ? strerror(errno) : "larger than 64 KiB");
		return;
	}
	buf[n] = 0;
	for (char *p = buf, *nl; p && *p; p = nl) {
		char *e;

		nl = strchr(p, '\n');
		if (nl)
			*nl++ = 0;
		line++;
		while (isspace((unsigned char)*p))
			p++;
		e = p + strlen(p);
		while (e > p && isspace((unsigned char)e[-1]))
			*--e = 0;
		if (!*p || *p == '#')
			continue;
		if (!strcmp(p, "allow-as-root"))
			c->as_root = true;
		else if (!strcmp(p, "allow-attach-any"))
			c->attach_any = true;
		else
			fprintf(stderr, "uringcheck: %s:%d: unknown setting (ignored; "
				"allow-as-root, allow-attach-any)\n", UC_CONFIG_FILE, line);
	}
}

/* The ptrace rule without capabilities: every uid and gid of @pid is the
 * user's. */
static bool owns_process(long pid, const struct uc_run_as *ra)
{
	char path[64], line[256];
	bool uid_ok = false, gid_ok = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT;	/* gone: the run says "no such process" */
	while (fgets(line, sizeof(line), f)) {
		unsigned long v[4];

		if (sscanf(line, "Uid: %lu %lu %lu %lu", &v[0], &v[1], &v[2], &v[3]) == 4)
			uid_ok = v[0] == ra->uid && v[1] == ra->uid && v[2] == ra->uid &&
				 v[3] == ra->uid;
		else if (sscanf(line, "Gid: %lu %lu %lu %lu", &v[0], &v[1], &v[2], &v[3]) == 4)
			gid_ok = v[0] == ra->gid && v[1] == ra->gid && v[2] == ra->gid &&
				 v[3] == ra->gid;
	}
	fclose(f);
	return uid_ok && gid_ok;
}

int policy_check(const struct uc_options *o, const struct uc_run_as *ra)
{
	struct config c;

	if (!ra->sudo)
		return 0;
	config_read(&c);
	if (o->as_root && !c.as_root) {
		fprintf(stderr, "uringcheck: --as-root: refused: under sudo the program "
			"runs as the invoking user (uid %u); an administrator can allow "
			"it with 'allow-as-root' in %s (SECURITY in uringcheck(1))\n",
			(unsigned)ra->uid, UC_CONFIG_FILE);
		return UC_EXIT_USAGE;
	}
	if (o->all && !c.attach_any) {
		fprintf(stderr, "uringcheck: -a: refused: under sudo it would watch "
			"other users' processes; an administrator can allow it with "
			"'allow-attach-any' in %s\n", UC_CONFIG_FILE);
		return UC_EXIT_USAGE;
	}
	if (o->pid && !c.attach_any && !owns_process(o->pid, ra)) {
		fprintf(stderr, "uringcheck: -p %ld: refused: under sudo only a process "
			"of the invoking user (uid %u, gid %u) can be watched; an "
			"administrator can allow others with 'allow-attach-any' in %s\n",
			o->pid, (unsigned)ra->uid, (unsigned)ra->gid, UC_CONFIG_FILE);
		return UC_EXIT_USAGE;
	}
	if (o->metrics) {
		const char *port = strrchr(o->metrics, ':');
		long v = strtol(port ? port + 1 : o->metrics, NULL, 10);

		if (v > 0 && v < 1024) {
			fprintf(stderr, "uringcheck: --metrics=%s: refused: under sudo a "
				"port below 1024 is not the invoking user's to bind\n",
				o->metrics);
			return UC_EXIT_USAGE;
		}
	}
	return 0;
}

bool policy_may_watch(long pid, const struct uc_run_as *ra)
{
	struct config c;

	if (!ra->sudo)
		return true;
	config_read(&c);
	return c.attach_any || owns_process(pid, ra);
}
