// SPDX-License-Identifier: GPL-2.0
/*
 * Start-up checks that name what is missing, and the flags that grant it,
 * instead of a failed load's errno: a container (docker, podman, a CI job)
 * is where uringcheck most often lacks something.
 */
#define _GNU_SOURCE
#include "preflight.h"

#include <errno.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pidns.h"

#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#endif

/* How to give a container what uringcheck needs (README "Containers and
 * CI"). */
#define GRANT_HINT							\
	"  In a container, grant it with docker run --privileged (podman run\n"	\
	"  --privileged as root), or with --cap-add=BPF --cap-add=PERFMON\n"	\
	"  (--cap-add=SYS_ADMIN before Linux 5.8) and --security-opt\n"	\
	"  seccomp=PROFILE, a profile that also allows io_uring_setup,\n"	\
	"  io_uring_enter and io_uring_register: Docker's default blocks them."

static void say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

static long read_long(const char *path, long dflt)
{
	FILE *f = fopen(path, "r");
	long v = dflt;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = dflt;
		fclose(f);
	}
	return v;
}

/* A field of /proc/self/status ("Seccomp"), -1 if absent. */
static long status_field(const char *name)
{
	FILE *f = fopen("/proc/self/status", "r");
	size_t n = strlen(name);
	char line[256];
	long v = -1;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ':') {
			v = strtol(line + n + 1, NULL, 10);
			break;
		}
	if (f)
		fclose(f);
	return v;
}

/* Signs of a container; a child PID namespace is one too. */
static bool in_container(void)
{
	struct stat st;

	return (!stat("/proc/self/ns/pid", &st) && st.st_ino != UC_PID_INIT_INO) ||
	       !access("/.dockerenv", F_OK) ||
	       !access("/run/.containerenv", F_OK) || getenv("container");
}

/* Capabilities count for BPF only in the initial user namespace: in
 * another (rootless docker or podman) uid 0 and a full set still cannot
 * load a program. */
static int check_userns(char *why, size_t len)
{
	FILE *f = fopen("/proc/self/uid_map", "r");
	unsigned long in = 0, out = 0, count = 0;
	int n = f ? fscanf(f, "%lu %lu %lu", &in, &out, &count) : 0;

	if (f)
		fclose(f);
	if (n != 3 || (in == 0 && out == 0 && count == 4294967295ul))
		return 0;
	say(why, len, "cannot load its BPF programs from a user namespace (uid_map "
	    "\"%lu %lu %lu\"): capabilities there, as in a rootless container, do "
	    "not reach the kernel's BPF.\n"
	    "  Run uringcheck as root in the host's user namespace: rootful docker "
	    "or podman\n  with --privileged, not rootless.", in, out, count);
	return -1;
}

static int check_caps(char *why, size_t len)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = {};
	bool sys_admin, bpf, perfmon, has_cap_bpf;
	char missing[64] = "";

	if (syscall(SYS_capget, &h, d))
		return geteuid() == 0 ? 0 : (say(why, len, "needs root to load its "
						"BPF programs: run it with sudo"), -1);
	sys_admin = d[0].effective & (1u << CAP_SYS_ADMIN);
	bpf = d[1].effective & (1u << (CAP_BPF - 32));
	perfmon = d[1].effective & (1u << (CAP_PERFMON - 32));
	/* CAP_BPF and CAP_PERFMON: Linux 5.8; before, CAP_SYS_ADMIN alone. */
	has_cap_bpf = read_long("/proc/sys/kernel/cap_last_cap", CAP_BPF) >= CAP_BPF;
	if (sys_admin || (has_cap_bpf && bpf && perfmon))
		return 0;
	if (has_cap_bpf)
		snprintf(missing, sizeof(missing), "%s%s%s (or CAP_SYS_ADMIN)",
			 bpf ? "" : "CAP_BPF", !bpf && !perfmon ? " and " : "",
			 perfmon ? "" : "CAP_PERFMON");
	else
		snprintf(missing, sizeof(missing), "CAP_SYS_ADMIN (this kernel has no CAP_BPF)");
	say(why, len, "cannot load its BPF programs: it lacks %s.\n%s", missing,
	    in_container() ? GRANT_HINT :
	    geteuid() ? "  Run it as root (sudo uringcheck ...)." :
	    "  It runs as root with a reduced capability set: give it back those "
	    "(capsh, setpriv, systemd's CapabilityBoundingSet=).");
	return -1;
}

/* The kernel's types: /sys/kernel/btf/vmlinux. A kernel built without
 * BTF is the load's to say (load/kernel_features.c); sysfs not mounted at
 * all is a container's. */
static int check_sysfs(char *why, size_t len)
{
	if (!access("/sys/kernel/btf/vmlinux", R_OK) || !access("/sys/kernel", F_OK))
		return 0;
	say(why, len, "cannot read the kernel's types: /sys is not mounted here, so "
	    "/sys/kernel/btf/vmlinux is absent.\n"
	    "  Mount sysfs (mount -t sysfs sysfs /sys); docker and podman mount it "
	    "by default,\n  read-only, which is enough. uringcheck needs no tracefs "
	    "nor debugfs.");
	return -1;
}

/* A spawned target inherits uringcheck's seccomp filter: if io_uring is
 * refused here, it makes no ring and the run would pass checking nothing. */
static int check_io_uring(char *why, size_t len)
{
	long disabled, seccomp;

	/* entries 0: EINVAL or EFAULT where io_uring is allowed. */
	if (syscall(__NR_io_uring_setup, 0, NULL) >= 0 ||
	    (errno != EPERM && errno != ENOSYS && errno != EACCES))
		return 0;
	disabled = read_long("/proc/sys/kernel/io_uring_disabled", 0);
	seccomp = status_field("Seccomp");
	if (disabled == 2)
		say(why, len, "io_uring is disabled on this machine (sysctl "
		    "kernel.io_uring_disabled=2): the program could not make a ring, "
		    "and there would be nothing to check.");
	else if (seccomp > 0)
		say(why, len, "io_uring_setup is refused here (%s) by a seccomp filter, "
		    "which the program would inherit: it could not make a ring, and "
		    "the run would pass checking nothing.\n"
		    "  Docker's default seccomp profile blocks io_uring: run the "
		    "container with\n  --security-opt seccomp=PROFILE, a profile that "
		    "allows io_uring_setup,\n  io_uring_enter and io_uring_register "
		    "(or --privileged, which sets no filter).",
		    strerror(errno));
	else
		say(why, len, "io_uring_setup fails here (%s): %s", strerror(errno),
		    errno == ENOSYS ? "this kernel has no io_uring (CONFIG_IO_URING)" :
		    "the program could not make a ring");
	return -1;
}

int preflight(bool spawning, char *why, size_t len)
{
	return check_userns(why, len) || check_caps(why, len) ||
	       check_sysfs(why, len) || (spawning && check_io_uring(why, len)) ? -1 : 0;
}
