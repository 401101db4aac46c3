// SPDX-License-Identifier: GPL-2.0
/*
 * Opening the files a user names with that user's rights, without
 * following another user's symlinks, without blocking, and without
 * leaving an output behind that could not be written whole
 * (user_files.h).
 */
#define _GNU_SOURCE
#include "user_files.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exit_codes.h"
#include "xalloc.h"

static struct uc_user user;

void uf_set_user(const struct uc_user *u)
{
	user = *u;
}

/* ---- the user's identity, for one open ------------------------------------ */

struct saved_ident {
	gid_t egid;
	gid_t *groups;
	int ngroups;
};

/*
 * Only the effective ids change (the real and saved ones stay root's, so
 * that leave() can come back); the kernel then makes the process
 * non-dumpable, so the user cannot ptrace or signal it meanwhile. glibc
 * applies the change to every thread; the opens are made before the
 * modes start any.
 */
static int enter(struct saved_ident *s)
{
	memset(s, 0, sizeof(*s));
	if (!user.sudo)
		return 0;
	s->egid = getegid();
	s->ngroups = getgroups(0, NULL);
	s->groups = xcalloc(s->ngroups > 0 ? s->ngroups : 1, sizeof(gid_t));
	if (s->ngroups < 0 || getgroups(s->ngroups, s->groups) < 0)
		s->ngroups = 0;
	if (setgroups(user.ngroups, user.groups) || setresgid(-1, user.gid, -1) ||
	    setresuid(-1, user.uid, -1)) {
		int e = errno;

		setresuid(-1, 0, -1);
		setresgid(-1, s->egid, -1);
		setgroups(s->ngroups, s->groups);
		free(s->groups);
		s->groups = NULL;
		errno = e;
		return -1;
	}
	return 0;
}

static void leave(struct saved_ident *s)
{
	int e = errno;

	if (!user.sudo)
		return;
	/* the uid first: root's effective capabilities come back with it */
	if (setresuid(-1, 0, -1) || setresgid(-1, s->egid, -1) ||
	    setgroups(s->ngroups, s->groups)) {
		fputs("uringcheck: cannot take back root's identity after opening "
		      "a file as the invoking user\n", stderr);
		_exit(UC_EXIT_TOOL_ERROR);
	}
	free(s->groups);
	s->groups = NULL;
	errno = e;
}

static uid_t me(void)
{
	return user.sudo ? user.uid : geteuid();
}

/* ---- opening, checked ------------------------------------------------------ */

enum how { H_READ, H_WRITE, H_CREATE, H_DIR };

/* The directory @path is in ("." if none). */
static void parent_of(const char *path, char *dir, size_t len)
{
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/')
		n--;
	while (n > 0 && path[n - 1] != '/')
		n--;
	while (n > 1 && path[n - 1] == '/')
		n--;
	if (n == 0)
		snprintf(dir, len, ".");
	else
		snprintf(dir, len, "%.*s", (int)n, path);
}

/* The kernel's fs.protected_symlinks rule, whatever the sysctl says: a
 * symlink in a sticky world-writable directory is followed only if its
 * owner is the one following it or the directory's owner. */
static bool symlink_ok(const char *path, const struct stat *lst)
{
	char dir[PATH_MAX];
	struct stat ds;

	parent_of(path, dir, sizeof(dir));
	if (stat(dir, &ds))
		return false;
	if (!(ds.st_mode & S_ISVTX) || !(ds.st_mode & S_IWOTH))
		return true;
	return lst->st_uid == me() || lst->st_uid == ds.st_uid;
}

static const char *type_name(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISCHR(m) ? "a character device" :
	       S_ISBLK(m) ? "a block device" : S_ISFIFO(m) ? "a FIFO" :
	       S_ISSOCK(m) ? "a socket" : S_ISLNK(m) ? "a symlink" : "not a regular file";
}

/*
 * Opens @path for @how, in the current identity. Returns the descriptor
 * or -1 with the reason in @why. Never blocks (O_NONBLOCK, kept for
 * writing), never truncates what is not a regular file.
 */
static int checked_open(const char *path, enum how how, char *why, size_t len)
{
	int flags = O_CLOEXEC | O_NOCTTY | O_NONBLOCK, fd;
	struct stat st, lst;

	switch (how) {
	case H_READ:	flags |= O_RDONLY; break;
	case H_WRITE:	flags |= O_WRONLY | O_CREAT; break;
	case H_CREATE:	flags |= O_WRONLY | O_CREAT | O_EXCL; break;
	case H_DIR:	flags |= O_RDONLY | O_DIRECTORY; break;
	}
	fd = open(path, flags | O_NOFOLLOW, 0666);
	/* The last component is a symlink (ELOOP; EACCES with O_CREAT in a
	 * sticky directory): followed only if allowed. */
	if (fd < 0 && (errno == ELOOP || errno == EACCES) && how != H_CREATE &&
	    !lstat(path, &lst) && S_ISLNK(lst.st_mode)) {
		if (!symlink_ok(path, &lst)) {
			snprintf(why, len, "a symlink owned by another user (uid %u) in "
				 "a sticky directory: not followed", (unsigned)lst.st_uid);
			return -1;
		}
		fd = open(path, flags, 0666);
	}
	if (fd < 0) {
		if (errno == ENXIO)
			snprintf(why, len, "a FIFO or socket with no reader");
		else if (errno == EEXIST)
			snprintf(why, len, "exists already (a %%p name is always a new "
				 "file)");
		else
			snprintf(why, len, "%s", strerror(errno));
		return -1;
	}
	if (fstat(fd, &st)) {
		snprintf(why, len, "%s", strerror(errno));
		close(fd);
		return -1;
	}
	switch (how) {
	case H_READ:
		if (!S_ISREG(st.st_mode)) {
			snprintf(why, len, "%s, not a regular file", type_name(st.st_mode));
			close(fd);
			return -1;
		}
		break;
	case H_WRITE:
	case H_CREATE:
		if (S_ISREG(st.st_mode)) {
			if (how == H_WRITE && ftruncate(fd, 0)) {
				snprintf(why, len, "%s", strerror(errno));
				close(fd);
				return -1;
			}
		} else if (!S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode)) {
			snprintf(why, len, "%s: an output is a regular file, a "
				 "character device or a FIFO", type_name(st.st_mode));
			close(fd);
			return -1;
		}
		/* O_NONBLOCK stays: a write that would block waits in
		 * out_write, where a termination signal ends the wait */
		break;
	case H_DIR:
		break;
	}
	return fd;
}

/*
 * /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: the descriptor
 * uringcheck was given, duplicated (reopening it through /proc would
 * need root's rights under sudo, and would truncate a file the shell
 * redirected to). -1 if @path names none of them.
 */
static int given_fd(const char *path)
{
	const char *n = NULL;
	char *end;
	long v;

	if (!strcmp(path, "/dev/stdout"))
		return 1;
	if (!strcmp(path, "/dev/stderr"))
		return 2;
	if (!strncmp(path, "/dev/fd/", 8))
		n = path + 8;
	else if (!strncmp(path, "/proc/self/fd/", 14))
		n = path + 14;
	if (!n || !*n)
		return -1;
	v = strtol(n, &end, 10);
	return *end || v < 0 || v > 1 << 20 ? -1 : (int)v;
}

/* checked_open as the invoking user. */
static int user_open(const char *path, enum how how, char *why, size_t len)
{
	struct saved_ident s;
	int fd;

	if (strlen(path) >= PATH_MAX) {
		snprintf(why, len, "path longer than PATH_MAX (%d bytes)", PATH_MAX);
		return -1;
	}
	if (enter(&s)) {
		snprintf(why, len, "cannot take the invoking user's identity: %s",
			 strerror(errno));
		return -1;
	}
	fd = checked_open(path, how, why, len);
	leave(&s);
	return fd;
}

char *uf_read(const char *path, size_t max, size_t *len, char *err, size_t errlen)
{
	int fd = user_open(path, H_READ, err, errlen);
	size_t n = 0;
	struct stat st;
	char *buf;

	if (fd < 0)
		return NULL;
	if (!fstat(fd, &st) && (unsigned long long)st.st_size > max) {
		snprintf(err, errlen, "larger than %zu MiB", max >> 20);
		close(fd);
		return NULL;
	}
	buf = xmalloc(max + 2);
	for (;;) {
		ssize_t r = read(fd, buf + n, max + 1 - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(err, errlen, "%s", strerror(errno));
			goto fail;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max) {	/* it grew while being read */
			snprintf(err, errlen, "larger than %zu MiB", max >> 20);
			goto fail;
		}
	}
	close(fd);
	buf[n] = 0;
	*len = n;
	return buf;
fail:
	close(fd);
	free(buf);
	return NULL;
}

int uf_realpath_dir(const char *path, char *out, size_t outlen, char *err,
		    size_t errlen)
{
	int fd = user_open(path, H_DIR, err, errlen);
	char link[64];
	ssize_t n;

	if (fd < 0)
		return -1;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, out, outlen - 1);
	close(fd);
	if (n < 0 || (size_t)n >= outlen - 1) {
		snprintf(err, errlen, "%s", n < 0 ? strerror(errno) : "path too long");
		return -1;
	}
	out[n] = 0;
	return 0;
}

/* ---- outputs ---------------------------------------------------------------- */

#define MAX_OUTPUTS 8

struct output {
	const char *option, *pattern;
	char *path;
	int fd;
	int dirfd;			/* the real directory, for removal */
	char *base;			/* the real name in it */
	dev_t dev;
	ino_t ino;
	bool regular;
	FILE *f;
	bool closed;			/* fclose'd by its writer */
	int err;			/* the first write's errno */
};

static struct output outs[MAX_OUTPUTS];
static volatile sig_atomic_t nouts;

static bool termination_pending(void)
{
	sigset_t p;

	return !sigpending(&p) && (sigismember(&p, SIGINT) || sigismember(&p, SIGTERM) ||
				   sigismember(&p, SIGHUP) || sigismember(&p, SIGQUIT));
}

static ssize_t out_write(void *cookie, const char *buf, size_t size)
{
	struct output *o = cookie;
	size_t done = 0;

	if (o->err)
		return -1;
	while (done < size) {
		ssize_t w = write(o->fd, buf + done, size - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			/* a FIFO or terminal nobody reads: wait, but never past
			 * a termination signal (blocked while the target runs,
			 * so only seen pending) */
			struct pollfd p = { .fd = o->fd, .events = POLLOUT };

			if (poll(&p, 1, 200) == 0 && termination_pending()) {
				o->err = EINTR;
				return -1;
			}
			continue;
		}
		if (w <= 0) {
			o->err = w < 0 ? errno : EIO;
			return -1;
		}
		done += (size_t)w;
	}
	return (ssize_t)size;
}

static int out_close(void *cookie)
{
	struct output *o = cookie;

	o->closed = true;	/* the descriptor is closed by uf_outputs_finish */
	return o->err ? -1 : 0;
}

static char *expand(const char *pattern, pid_t pid, bool *has_pid)
{
	size_t cap = strlen(pattern) + 1, o = 0;
	char *path;

	for (const char *p = pattern; *p; p++)
		if (p[0] == '%' && p[1] == 'p')
			cap += 12;
	path = xmalloc(cap);
	*has_pid = false;
	for (const char *p = pattern; *p; p++) {
		if (p[0] == '%' && p[1] == 'p') {
			o += (size_t)snprintf(path + o, cap - o, "%d", (int)pid);
			*has_pid = true;
			p++;
		} else {
			path[o++] = *p;
		}
	}
	path[o] = 0;
	return path;
}

/* Where a regular output really is, so that it can be removed by its
 * directory and name even after a symlink was followed to it. */
static void note_location(struct output *o)
{
	char link[64], real[PATH_MAX], dir[PATH_MAX];
	struct saved_ident s;
	const char *slash;
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", o->fd);
	n = readlink(link, real, sizeof(real) - 1);
	if (n <= 0 || (size_t)n >= sizeof(real) - 1 || real[0] != '/')
		return;
	real[n] = 0;
	slash = strrchr(real, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash == real ? 1 : (int)(slash - real), real);
	if (enter(&s))
		return;
	o->dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	leave(&s);
	if (o->dirfd >= 0)
		o->base = xstrdup(slash + 1);
}

FILE *uf_output_open(const char *option, const char *pattern, pid_t pid)
{
	int given;
	struct output *o;
	char why[256];
	bool has_pid;
	struct stat st;
	cookie_io_functions_t io = { .write = out_write, .close = out_close };
	char *path;
	int fd;

	if (nouts == MAX_OUTPUTS) {
		fprintf(stderr, "uringcheck: --%s: too many outputs\n", option);
		return NULL;
	}
	path = expand(pattern, pid, &has_pid);
	if (!*path) {
		fprintf(stderr, "uringcheck: --%s: an empty path\n", option);
		free(path);
		return NULL;
	}
	given = has_pid ? -1 : given_fd(path);
	if (given >= 0) {
		int fl = fcntl(given, F_GETFL);

		fd = fl < 0 || (fl & O_ACCMODE) == O_RDONLY ? -1 :
		     fcntl(given, F_DUPFD_CLOEXEC, 3);
		if (fd < 0)
			snprintf(why, sizeof(why), "descriptor %d is not open for writing",
				 given);
	} else {
		fd = user_open(path, has_pid ? H_CREATE : H_WRITE, why, sizeof(why));
	}
	if (fd < 0) {
		fprintf(stderr, "uringcheck: --%s=%s: %s\n", option, path, why);
		free(path);
		return NULL;
	}
	o = &outs[nouts];
	*o = (struct output){ .option = option, .pattern = pattern, .path = path,
			      .fd = fd, .dirfd = -1 };
	if (!fstat(fd, &st)) {
		/* a given descriptor's file is the caller's: never removed */
		o->regular = S_ISREG(st.st_mode) && given < 0;
		o->dev = st.st_dev;
		o->ino = st.st_ino;
	}
	if (o->regular)
		note_location(o);
	o->f = fopencookie(o, "w", io);
	if (!o->f) {
		fprintf(stderr, "uringcheck: --%s=%s: %s\n", option, path, strerror(errno));
		close(fd);
		if (o->dirfd >= 0)
			close(o->dirfd);
		free(o->base);
		free(path);
		return NULL;
	}
	setvbuf(o->f, NULL, _IOFBF, 1 << 16);
	nouts = nouts + 1;
	return o->f;
}

FILE *uf_output_stream(const char *option, const char *pattern)
{
	for (int i = 0; i < nouts; i++)
		if (!strcmp(outs[i].option, option) && !outs[i].closed &&
		    (outs[i].pattern == pattern || !strcmp(outs[i].pattern, pattern)))
			return outs[i].f;
	return NULL;
}

/* Async-signal-safe: empties and unlinks @o if it is still the regular
 * file that was opened and the invoking user owns it. True if removed. */
static bool remove_output(struct output *o)
{
	struct stat st;

	if (!o->regular)
		return false;
	if (o->fd >= 0)
		(void)!ftruncate(o->fd, 0);
	if (o->dirfd < 0 || !o->base ||
	    fstatat(o->dirfd, o->base, &st, AT_SYMLINK_NOFOLLOW) ||
	    st.st_dev != o->dev || st.st_ino != o->ino || !S_ISREG(st.st_mode) ||
	    st.st_uid != me())
		return false;
	return unlinkat(o->dirfd, o->base, 0) == 0;
}

void uf_outputs_abandon(void)
{
	for (int i = 0; i < nouts; i++)
		remove_output(&outs[i]);
}

static const char *write_error(int err)
{
	if (err == EINTR)
		return "nobody read it, and a termination signal came";
	if (err == EPIPE)
		return "its reader went away";
	return strerror(err);
}

int uf_outputs_finish(bool complete)
{
	int ret = 0;

	for (int i = 0; i < nouts; i++) {
		struct output *o = &outs[i];

		if (!o->closed)
			fclose(o->f);
		if (!complete) {
			remove_output(o);
		} else if (o->err) {
			bool gone = remove_output(o);

			fprintf(stderr, "uringcheck: --%s=%s: cannot write: %s%s\n",
				o->option, o->path, write_error(o->err),
				gone ? " (the incomplete file is removed)" :
				o->regular ? " (the incomplete file is emptied)" : "");
			ret = -1;
		}
		/* a late error (NFS, a full quota) may only show at close */
		if (close(o->fd) && complete && !o->err) {
			o->err = errno;
			o->fd = -1;
			fprintf(stderr, "uringcheck: --%s=%s: cannot write: %s%s\n",
				o->option, o->path, write_error(o->err),
				remove_output(o) ? " (the incomplete file is removed)" : "");
			ret = -1;
		}
		o->fd = -1;
		if (o->dirfd >= 0)
			close(o->dirfd);
		free(o->base);
		free(o->path);
	}
	nouts = 0;
	return ret;
}
