// SPDX-License-Identifier: GPL-2.0
#include "pidns.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

struct uc_pidns uc_pidns;

/* The pid /proc/self names: that of /proc's own namespace; -1 if this
 * process has none there (a /proc of a namespace below ours). */
static long proc_self_pid(void)
{
	char buf[32], *end;
	ssize_t n = readlink("/proc/self", buf, sizeof(buf) - 1);
	long pid;

	if (n <= 0)
		return -1;
	buf[n] = 0;
	pid = strtol(buf, &end, 10);
	return *end ? -1 : pid;
}

int pidns_detect(char *why, size_t len)
{
	struct utsname u;
	struct stat st;
	long seen;
	int ok;

	memset(&uc_pidns, 0, sizeof(uc_pidns));
	if (stat("/proc/self/ns/pid", &st)) {
		snprintf(why, len, "cannot read /proc/self/ns/pid (%s): uringcheck "
			 "needs /proc mounted to tell its PID namespace", strerror(errno));
		return -1;
	}
	/* Targets are followed, and their maps and names read, under /proc by
	 * the pids this process sees: a /proc mounted for another namespace
	 * (`unshare --pid --fork` without --mount-proc) would name others. */
	seen = proc_self_pid();
	if (seen != getpid()) {
		char as[48] = "no pid";

		if (seen > 0)
			snprintf(as, sizeof(as), "pid %ld", seen);
		snprintf(why, len, "/proc belongs to another PID namespace than "
			 "uringcheck's (it is pid %d, /proc gives it %s): mount a /proc "
			 "of this namespace (unshare --pid --fork --mount-proc, or "
			 "mount -t proc proc /proc in a mount namespace of its own)",
			 (int)getpid(), as);
		return -1;
	}
	if (st.st_ino == UC_PID_INIT_INO)
		return 0;
	/* A child namespace: bpf_get_ns_current_pid_tgid() compares the
	 * device in the kernel's encoding (MAJOR << 20 | MINOR). */
	uc_pidns.dev = (uint64_t)major(st.st_dev) << 20 | minor(st.st_dev);
	uc_pidns.ino = st.st_ino;
	ok = libbpf_probe_bpf_helper(BPF_PROG_TYPE_TRACEPOINT,
				     BPF_FUNC_get_ns_current_pid_tgid, NULL);
	if (ok == 0) {
		snprintf(why, len, "uringcheck runs in a child PID namespace (a "
			 "container?), and this kernel (%s) cannot translate pids into "
			 "it for BPF programs (bpf_get_ns_current_pid_tgid, Linux 5.7+): "
			 "its verdicts would be empty. Run it in the initial PID "
			 "namespace (on the host, or docker run --pid=host)",
			 uname(&u) ? "?" : u.release);
		return -1;
	}
	/* < 0: the probe could not tell (no permission yet): the load says. */
	return 0;
}

void pidns_show_level(void)
{
	pid_t pid;

	if (!uc_pidns.ino)
		return;
	/* vfork: the event buffers' page tables are not copied. */
	pid = vfork();
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
}
