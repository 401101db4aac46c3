// SPDX-License-Identifier: GPL-2.0
/*
 * What the running kernel offers, read from its BTF with libbpf's BTF API
 * (it reads /sys/kernel/btf/vmlinux on every kernel; mapping the file,
 * as an earlier home-made scanner did, works only from 6.16 on), from
 * the types the kernel really has, never from its version number.
 *
 * Everything here reads one table, features.def, a line per kernel
 * change: the names the probe looks for (all in one walk over the
 * kernel's types), how each answer sets a field of struct uc_kernel,
 * the refusal of a kernel that lacks a needed piece (one sentence,
 * however long) and --version's hook lines. Which program variant each
 * feature loads is load/variants.def (load.c).
 */
#define _GNU_SOURCE	/* asprintf */
#include "kernel_features.h"
#include "kernel_btf.h"
#include "../reports/report.h"

#include <bpf/btf.h>
#include <errno.h>
#include <stdlib.h>
#include <zlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/*
 * What the probe asks the kernel's BTF for by name. libbpf finds a name by
 * walking all of the kernel's types (~126,000 on 6.18); the twenty-odd
 * lookups one after another cost ~2 ms of every cold start, on its
 * critical path. All are found in one walk instead, each at its first
 * match in type order, as btf__find_by_name_kind() would find it.
 */
enum want_kind { WANT_ENUMERATOR, WANT_TYPEDEF, WANT_FUNC, WANT_STRUCT, WANT_KINDS };

struct want {
	const char *name;
	enum want_kind kind;
	int64_t got;		/* an enumerator's value or a type's id; -1: none */
};

/* @name against the wants of its kind (@k, @nk of them). */
static void want_match(struct want **k, int nk, const char *name, int64_t got, int *left)
{
	/* The first character before strcmp(): most names differ there,
	 * and half a million calls were ~2 ms of the walk. */
	for (int i = 0; i < nk; i++)
		if (k[i]->got < 0 && k[i]->name[0] == name[0] && !strcmp(k[i]->name, name)) {
			k[i]->got = got;
			(*left)--;
		}
}

static void find_wanted(const struct btf *btf, struct want *w, int nw)
{
	int n = btf__type_cnt(btf), left = nw, nk[WANT_KINDS] = { 0 };
	struct want *k[WANT_KINDS][nw];		/* the wants of each kind */

	for (int i = 0; i < nw; i++) {
		w[i].got = -1;
		k[w[i].kind][nk[w[i].kind]++] = &w[i];
	}
	for (int id = 1; id < n && left > 0; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		switch (btf_kind(t)) {
		case BTF_KIND_ENUM:
			for (int i = 0; nk[WANT_ENUMERATOR] && i < btf_vlen(t); i++)
				want_match(k[WANT_ENUMERATOR], nk[WANT_ENUMERATOR],
					   btf__name_by_offset(btf, btf_enum(t)[i].name_off),
					   btf_enum(t)[i].val, &left);
			break;
		case BTF_KIND_TYPEDEF:
			want_match(k[WANT_TYPEDEF], nk[WANT_TYPEDEF],
				   btf__name_by_offset(btf, t->name_off), id, &left);
			break;
		case BTF_KIND_FUNC:
			want_match(k[WANT_FUNC], nk[WANT_FUNC],
				   btf__name_by_offset(btf, t->name_off), id, &left);
			break;
		case BTF_KIND_STRUCT:
			want_match(k[WANT_STRUCT], nk[WANT_STRUCT],
				   btf__name_by_offset(btf, t->name_off), id, &left);
			break;
		default:
			break;
		}
	}
}

/* @w and @extra (a loader's names, kernel_btf.h) in the same walk. */
static void find_all(const struct btf *btf, struct want *w, int nw,
		     struct kernel_btf_name *extra, int nextra)
{
	struct want all[nw + nextra];
	int n = nw;

	memcpy(all, w, nw * sizeof(*w));
	for (int i = 0; i < nextra; i++)
		if (extra[i].kind == BTF_KIND_TYPEDEF || extra[i].kind == BTF_KIND_FUNC)
			all[n++] = (struct want){ extra[i].name, extra[i].kind == BTF_KIND_FUNC ?
						  WANT_FUNC : WANT_TYPEDEF, -1 };
	find_wanted(btf, all, n);
	memcpy(w, all, nw * sizeof(*w));
	for (int i = 0, j = nw; i < nextra; i++)
		if (extra[i].kind == BTF_KIND_TYPEDEF || extra[i].kind == BTF_KIND_FUNC)
			extra[i].id = all[j++].got;
}

/* Parameters of a raw tracepoint, from its btf_trace_<tp> typedef @id (a
 * pointer to a prototype whose first parameter is the context), -1 if
 * absent. */
static int tp_params(const struct btf *btf, int64_t id)
{
	const struct btf_type *t;

	if (id < 0)
		return -1;
	t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);	/* PTR */
	if (!t || !btf_is_ptr(t))
		return -1;
	t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_func_proto(t))
		return -1;
	return btf_vlen(t) - 1;
}

/* 1 << @bit, 0 if there is no such bit. */
static uint64_t flag_of(int64_t bit)
{
	return bit >= 0 && bit < 64 ? 1ULL << bit : 0;
}

/* CONFIG_HZ from the kernel's config where libbpf would look for it
 * (/boot/config-RELEASE, /proc/config.gz); 0 if there is none. */
static unsigned kconfig_hz(const char *release)
{
	char path[128], line[256];
	unsigned hz = 0;
	gzFile f;

	snprintf(path, sizeof(path), "/boot/config-%s", release);
	f = gzopen(path, "r");	/* reads plain files too */
	if (!f)
		f = gzopen("/proc/config.gz", "r");
	if (!f)
		return 0;
	while (gzgets(f, line, sizeof(line)))
		if (!strncmp(line, "CONFIG_HZ=", 10)) {
			hz = strtoul(line + 10, NULL, 10);
			break;
		}
	gzclose(f);
	return hz;
}

/* The probe's wants: one per line of features.def, in its order. */
enum {
#define KFEAT(field, ...) W_##field,
#define KVALUE(field, ...) W_##field,
#include "features.def"
#undef KFEAT
#undef KVALUE
	W_COUNT
};

static const struct want wants[W_COUNT] = {
#define KFEAT(field, want, kind, ...) [W_##field] = { want, WANT_##kind },
#define KVALUE(field, type, want, kind, ...) [W_##field] = { want, WANT_##kind },
#include "features.def"
#undef KFEAT
#undef KVALUE
};

/* A KFEAT line's test of what the walk found (@got, the want's). */
#define ARGS(n)		(tp_params(btf, got) == (n))
#define FOUND		(got > 0)
/* A KVALUE line's value. */
#define BIT		flag_of(got)
#define VALUE		(got > 0 ? got : 0)

/* Fills @k's features from the walk's answers @w. */
static void decide(struct uc_kernel *k, const struct btf *btf, const struct want *w)
{
	int64_t got;

#define KFEAT(field, want, kind, test, ...) \
	got = w[W_##field].got; \
	k->field = test;
#define KVALUE(field, type, want, kind, how, ...) \
	got = w[W_##field].got; \
	k->field = (type)(how);
#include "features.def"
#undef KFEAT
#undef KVALUE
	(void)got;
	/* The ids serve bpf_rdonly_cast only (bpf/untrusted.bpf.h). */
	if (!k->rdonly_cast)
		k->btf_id_io_kiocb = k->btf_id_io_ring_ctx = k->btf_id_task_struct =
			k->btf_id_file = 0;
}

#undef ARGS
#undef FOUND
#undef BIT
#undef VALUE

int kernel_probe_from(struct uc_kernel *k, struct btf *parsed, struct btf **keep,
		      struct kernel_btf_name *extra, int nextra, char **err)
{
	struct want w[W_COUNT];
	struct utsname u;
	struct btf *btf;

	memset(k, 0, sizeof(*k));
	*err = NULL;
	if (keep)
		*keep = NULL;
	if (!uname(&u))
		snprintf(k->release, sizeof(k->release), "%s", u.release);
	if (!parsed && access("/sys/kernel/btf/vmlinux", R_OK)) {
		if (asprintf(err, "kernel %s has no BTF (/sys/kernel/btf/vmlinux): "
			     "uringcheck needs CONFIG_DEBUG_INFO_BTF=y", k->release) < 0)
			*err = NULL;
		return -1;
	}
	k->hz = kconfig_hz(k->release);
	btf = parsed ? parsed : kernel_btf_read();
	if (!btf) {
		if (asprintf(err, "cannot read the kernel's BTF "
			     "(/sys/kernel/btf/vmlinux): %s", strerror(errno)) < 0)
			*err = NULL;
		return -1;
	}
	k->btf = true;
	memcpy(w, wants, sizeof(w));
	find_all(btf, w, W_COUNT, extra, nextra);
	decide(k, btf, w);
	if (keep)
		*keep = btf;
	else
		btf__free(btf);

	*err = kernel_probe_verdict(k);
	return *err ? -1 : 0;
}

int kernel_probe(struct uc_kernel *k, char **err)
{
	return kernel_probe_from(k, NULL, NULL, NULL, 0, err);
}

/*
 * The lines of features.def as groups: the forms of one hook (lines in a
 * row with the same --version line), or a line of its own. Each group
 * is there if the kernel has any of its forms.
 */
struct feature_line {
	size_t offset;		/* of its bool in struct uc_kernel */
	const char *line, *present, *absent, *need;
};

static const struct feature_line feature_lines[] = {
#define KFEAT(field, want, kind, test, since, commit, line, present, absent, need) \
	{ offsetof(struct uc_kernel, field), line, present, absent, need },
#define KVALUE(...)
#include "features.def"
#undef KFEAT
#undef KVALUE
};
#define NLINES (sizeof(feature_lines) / sizeof(feature_lines[0]))

static bool has(const struct uc_kernel *k, const struct feature_line *f)
{
	return *(const bool *)((const char *)k + f->offset);
}

/* The group starting at @i: its end (one past), and the first of its
 * forms the kernel has in *@found (NULL: none). */
static size_t group(const struct uc_kernel *k, size_t i, const struct feature_line **found)
{
	size_t end = i + 1;

	while (feature_lines[i].line && end < NLINES && feature_lines[end].line &&
	       !strcmp(feature_lines[end].line, feature_lines[i].line))
		end++;
	*found = NULL;
	for (size_t j = i; j < end && !*found; j++)
		if (has(k, &feature_lines[j]))
			*found = &feature_lines[j];
	return end;
}

/* NULL if the kernel has what the programs need, else one line naming
 * every missing piece, in the table's order (however long). */
char *kernel_probe_verdict(const struct uc_kernel *k)
{
	const struct feature_line *found;
	char *miss = NULL, *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&miss, &len);

	if (!f)
		return strdup("out of memory");
	for (size_t i = 0, end; i < NLINES; i = end) {
		end = group(k, i, &found);
		if (!found && feature_lines[end - 1].need)
			fprintf(f, ", %s", feature_lines[end - 1].need);
	}
	fclose(f);
	if (miss && *miss && asprintf(&out, "kernel %s lacks what uringcheck needs: %s; "
				      "supported: 6.1 and later (run --version for details)",
				      k->release, miss + 2) < 0)
		out = strdup("out of memory");
	free(miss);
	return out;
}

void kernel_print(const struct uc_kernel *k, FILE *out)
{
	const struct feature_line *found;

	fprintf(out, "kernel %s, BTF %s\n", k->release, k->btf ? "yes" : "no");
	fprintf(out, "tier: %s\n", kernel_tier(k));
	/* A line per hook, from the table: the form the kernel has. */
	for (size_t i = 0, end; i < NLINES; i = end) {
		end = group(k, i, &found);
		if (feature_lines[i].line)
			fprintf(out, "  %-16s %s\n", feature_lines[i].line,
				found ? found->present : feature_lines[end - 1].absent);
	}
	if (!strcmp(kernel_tier(k), "unsupported")) {
		/* The probe's own sentence says what is missing. */
		char *why = kernel_probe_verdict(k);

		fprintf(out, "  nothing active: %s\n", why ? why : "no BTF");
		free(why);
		return;
	}
	fprintf(out, "  hazards         ");
	uc_kinds_print(out);
	fprintf(out, ": active\n");
	fprintf(out, "  stacks           active; mappings sent by BPF at ring creation: %s\n",
		k->task_vma_iter ? "yes (task-VMA iterator, v6.7+)" :
		"no (before v6.7: read from /proc/PID/maps, so a target that exits at "
		"once may lose names)");
	fprintf(out, "  SQPOLL stacks    the liburing call that published the SQEs (uprobes on "
		"io_uring_submit and siblings, per process from its first SQPOLL ring); "
		"none for a program that writes the SQ ring itself (docs/stacks.md)\n");
	fprintf(out, "  reap-lag sampler active (perf cpu-clock), timed %s; "
		"--liburing-uprobes available\n", k->hz ?
		"in jiffies for thresholds of 10 ticks or more" :
		"with the precise clock (no kernel config found for CONFIG_HZ)");
	fprintf(out, "  shared programs  active (/run/uringcheck; --no-share: private)\n");
	fprintf(out, "  REQ_F_REISSUE    %s\n",
		k->reissue_flag ? "found" : "not found (io-wq reissues end early)");
	fprintf(out, "  sync loads       %s\n", kernel_judges_loads(k) ?
		"judged (write, send from a read's buffer; a waiting read's channel "
		"from io_uring_poll_arm/queue_async_work)" :
		"not judged (the wait tracepoints do not take the request)");
	/* free-inflight's uprobes are uprobe_multi links, or perf events of
	 * this PMU (checker/uprobe_events.c); without either every process is
	 * told unjudged. */
	if (!k->uprobe_multi && access("/sys/bus/event_source/devices/uprobe/type", R_OK))
		fprintf(out, "  heap releases    not judged: no uprobes (each process "
			"that uses io_uring is said and counted)\n");
	else
		fprintf(out, "  heap releases    active: glibc malloc's free/realloc (uprobes on "
			"the target's libc.so.6; --heap-probes=no: off); said and counted as "
			"not judged: static binaries, other allocators (jemalloc, tcmalloc, "
			"...); never seen: custom pools\n");
	fprintf(out, "  heap new owners  with --heap-alloc-probes: the glibc allocation call that "
		"got a freed chunk back before its request ended, named in free-inflight "
		"(uretprobes on malloc, calloc, realloc, memalign, posix_memalign, valloc, "
		"pvalloc); without it, none\n");
	fprintf(out, "  stack frames     judged in each thread's own stack (main: [stack]; "
		"others: the mapping of their stack pointer at clone) at system calls and "
		"handled signals, not at the process's teardown; not judged: coroutine stacks carved from that stack, "
		"SQPOLL, threads started before being followed (docs/hazards.md)\n");
	fprintf(out, "  provided buffers %s\n",
		!k->buffer_selected_flag || !k->buffer_ring_flag ?
		"judged at their CQEs only (REQ_F_BUFFER_* not found)" :
		k->iobl_buf_ring ? "judged at their CQEs and while held" :
		"judged at their CQEs and while held (ring entries on the "
		"ring's first page only: no group flags, so a 6.1-era kernel whose "
		"ring pages are mapped one by one)");
	fprintf(out, "  profile          active (--profile, -p, -a); request paths %s; "
		"cqring waits %s\n",
		k->tp_poll_arm_req && k->tp_async_work_req ?
		"attributed (poll_arm, queue_async_work take the request, v5.19+)" :
		"not attributed (tracepoints without the request)",
		k->tp_cqring_wait ? "counted" : "not counted");
}

bool kernel_judges_loads(const struct uc_kernel *k)
{
	return k->tp_poll_arm_req && k->tp_async_work_req;
}

const char *kernel_tier(const struct uc_kernel *k)
{
	char *why = k->btf ? kernel_probe_verdict(k) : NULL;

	free(why);
	if (!k->btf || why)
		return "unsupported";
	if (!k->task_vma_iter)
		return "full check mode (stack mappings from /proc)";
	return "full check mode";
}
