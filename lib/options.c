// SPDX-License-Identifier: GPL-2.0
#include "options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opcode_names.h"

#define UC_STACK_BYTES_MAX 8192	/* UC_STACK_BYTES in bpf/uringcheck.h */
#include "xalloc.h"

enum opt_kind { K_FLAG, K_INT, K_STR, K_LIST };

struct opt_desc {
	enum opt_kind kind;
	const char *name;
	const char *meta;
	const char *help;
	size_t offset;
};

static const struct opt_desc table[] = {
#define OPT(kind, field, name, def, meta, help) \
	{ K_##kind, name, meta, help, offsetof(struct uc_options, field) },
#include "options.def"
#undef OPT
};

#define NOPTS (sizeof(table) / sizeof(table[0]))

void options_defaults(struct uc_options *o)
{
	memset(o, 0, sizeof(*o));
#define OPT_DEF_FLAG(f, d) o->f = d;
#define OPT_DEF_INT(f, d) o->f = d;
#define OPT_DEF_STR(f, d) o->f = d;
#define OPT_DEF_LIST(f, d) /* empty list: memset above */
#define OPT(kind, field, name, def, meta, help) OPT_DEF_##kind(field, def)
#include "options.def"
#undef OPT
}

/* @text as lines of at most @width columns, indented by @indent. */
static void print_wrapped(FILE *out, const char *text, int indent, int width)
{
	while (*text) {
		int room = width - indent, n = (int)strlen(text);

		if (n > room) {
			n = room;
			while (n > 0 && text[n] != ' ')
				n--;
			if (n == 0)
				n = room;
		}
		fprintf(out, "%*s%.*s\n", indent, "", n, text);
		text += n;
		while (*text == ' ')
			text++;
	}
}

static const struct uc_options_kinds *kinds;

void options_set_kinds(const struct uc_options_kinds *k)
{
	kinds = k;
}

void options_help(FILE *out)
{
	char intro[2048] = "Run PROGRAM and report the io_uring buffer hazards it causes: ";
	size_t n;

	/* The kinds come from their table (checker/kinds/kinds.def), so that
	 * a new kind, or a changed default, is never missing here. */
	kinds->names(intro, sizeof(intro), true);
	n = strlen(intro);
	snprintf(intro + n, sizeof(intro) - n, " (errors) and ");
	kinds->names(intro, sizeof(intro), false);
	n = strlen(intro);
	snprintf(intro + n, sizeof(intro) - n, "%s",
		 " (warnings); --list-kinds says what each is. Reports go to "
		 "stderr; the exit status is PROGRAM's own unless an error kind was "
		 "found; events lost under load never make one "
		 "(docs/lost-events.md). With --profile (or -p, -a) it measures "
		 "instead: per-opcode counts, latency and paths, and a doctor that "
		 "names pathologies (docs/profile.md); a profile changes the exit "
		 "status only with --fail-on=doctor:SEV. Needs root (CAP_BPF, "
		 "CAP_PERFMON).");
	fprintf(out,
		"Usage: uringcheck [OPTIONS] [--] PROGRAM [ARGS...]\n"
		"       uringcheck --profile [--check] [-i SEC] [OPTIONS] [--] PROGRAM [ARGS...]\n"
		"       uringcheck [--check] -p PID [-f] | -a [-d SEC] [-i SEC] [OPTIONS]\n");
	print_wrapped(out, intro, 0, 72);
	fprintf(out, "\nOptions:\n");
	for (size_t i = 0; i < NOPTS; i++) {
		char lhs[64];

		if (table[i].meta)
			snprintf(lhs, sizeof(lhs), "--%s=%s", table[i].name, table[i].meta);
		else
			snprintf(lhs, sizeof(lhs), "--%s", table[i].name);
		fprintf(out, "  %s\n", lhs);
		print_wrapped(out, table[i].help, 8, 78);
	}
	fprintf(out,
		"  -v, --verbose\n        say what is attached; twice: libbpf and "
		"verifier logs\n"
		"  --version\n        print the version and the kernel features in "
		"use\n"
		"  --list-kinds\n");
	print_wrapped(out, "print one line per hazard kind, tab-separated: its "
		      "name, error or warning (its default), whether it fails a run "
		      "by default (yes or no), what it is; then exit", 8, 78);
	fprintf(out, "  --list-ops\n");
	print_wrapped(out, "print one line per io_uring opcode, tab-separated: "
		      "its number, its name, what it does to user memory while in "
		      "flight (stores, loads, copied at submission, none, driver) "
		      "and whether the kernel always runs it in io-wq (always, "
		      "maybe); then exit", 8, 78);
	fprintf(out,
		"  -h, --help\n        print this help\n\n");
	fprintf(out,
		"Options are also read from URINGCHECK_OPTIONS, before the command\n"
		"line: as words (\"--fail-on=all --log-file=x\") or in the sanitizer\n"
		"form (\"fail_on=all:log_file=x\", as in ASAN_OPTIONS).\n\n"
		"Exit status: PROGRAM's status (128+N if it died of signal N);\n"
		"--error-exitcode if an error kind was found (or the doctor's\n"
		"finding, with --fail-on=doctor:SEV); 127 if PROGRAM cannot\n"
		"be run; 2 for a bad option; 70 if uringcheck itself failed (an\n"
		"output that cannot be opened or written, a --diff baseline that\n"
		"cannot be read, included).\n"
		"See uringcheck(1) and docs/.\n");
}

static const struct opt_desc *find(const char *name, size_t len)
{
	for (size_t i = 0; i < NOPTS; i++)
		if (strlen(table[i].name) == len && !strncmp(table[i].name, name, len))
			return &table[i];
	return NULL;
}

/* A flag given a value, as sanitizers and Valgrind spell them
 * (fast_unwind=1, --gen-suppressions=yes): 1 on, 0 off, -1 not a boolean.
 * Valgrind's --gen-suppressions=all (every error, without asking) is what
 * ours always does. */
static int flag_value(const struct opt_desc *d, const char *val)
{
	static const char *const on[] = { "1", "yes", "true", "on" };
	static const char *const off[] = { "0", "no", "false", "off" };

	for (size_t i = 0; i < 4; i++) {
		if (!strcmp(val, on[i]))
			return 1;
		if (!strcmp(val, off[i]))
			return 0;
	}
	if (!strcmp(d->name, "gen-suppressions") && !strcmp(val, "all"))
		return 1;
	return -1;
}

static int set_value(struct uc_options *o, const struct opt_desc *d,
		     const char *val, const char *src)
{
	char *end;
	long v;
	int on;

	switch (d->kind) {
	case K_FLAG:
		on = val ? flag_value(d, val) : 1;
		if (on < 0) {
			fprintf(stderr, "uringcheck: %s--%s=%s: takes no value, or "
				"yes/no%s\n", src, d->name, val,
				strcmp(d->name, "gen-suppressions") ? "" : "/all");
			return -1;
		}
		*(int *)((char *)o + d->offset) = on;
		return 0;
	case K_STR:
		*(const char **)((char *)o + d->offset) = val;
		return 0;
	case K_LIST: {
		struct uc_optlist *l = (struct uc_optlist *)((char *)o + d->offset);

		if (l->n == UC_MAX_LIST) {
			fprintf(stderr, "uringcheck: %s--%s: at most %d\n", src,
				d->name, UC_MAX_LIST);
			return -1;
		}
		l->v[l->n++] = val;
		return 0;
	}
	case K_INT:
		errno = 0;
		v = strtol(val, &end, 0);
		if (errno || end == val || *end || v < 0) {
			fprintf(stderr, "uringcheck: %s--%s=%s: not a non-negative "
				"integer\n", src, d->name, val);
			return -1;
		}
		*(long *)((char *)o + d->offset) = v;
		return 0;
	}
	return -1;
}

/*
 * Parses options from @args until the first non-option or "--".
 * Returns the index of the first unparsed argument, or -1 on error.
 * @src prefixes error messages ("URINGCHECK_OPTIONS: " or "").
 */
static int parse_args(struct uc_options *o, int n, char **args, const char *src,
		      enum opt_result *early)
{
	int i;

	for (i = 0; i < n; i++) {
		const char *a = args[i], *name, *eq, *val = NULL;
		const struct opt_desc *d;

		if (!strcmp(a, "--"))
			return i + 1;
		if (a[0] != '-' || !a[1])
			return i;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			options_help(stdout);
			*early = OPT_EXIT_OK;
			return n;
		}
		if (!strcmp(a, "--version")) {
			*early = OPT_EXIT_VERSION;
			return n;
		}
		if (!strcmp(a, "--list-kinds")) {
			kinds->list(stdout);
			*early = OPT_EXIT_OK;
			return n;
		}
		if (!strcmp(a, "--list-ops")) {
			uc_opcodes_list(stdout);
			*early = OPT_EXIT_OK;
			return n;
		}
		if (!strcmp(a, "--verbose") || a[1] == 'v') {
			if (a[1] == 'v') {
				for (const char *c = a + 1; *c; c++) {
					if (*c != 'v')
						goto unknown;
					o->verbose++;
				}
			} else {
				o->verbose++;
			}
			continue;
		}
		if (a[1] != '-') {
			/* the short options perf and uringscope users type */
			static const char *const shorts[][2] = {
				{ "p", "pid" }, { "a", "all" }, { "d", "duration" },
				{ "i", "interval" }, { "f", "follow" }, { "e", "filter" },
				{ "c", "compact" },
			};
			const char *lname = NULL;

			for (size_t s = 0; s < sizeof(shorts) / sizeof(shorts[0]); s++)
				if (a[1] == shorts[s][0][0])
					lname = shorts[s][1];
			if (!lname)
				goto unknown;
			d = find(lname, strlen(lname));
			if (d->kind == K_FLAG) {
				if (a[2])
					goto unknown;
			} else if (a[2]) {
				val = a + 2;
			} else if (i + 1 < n) {
				val = args[++i];
			} else {
				fprintf(stderr, "uringcheck: %s-%c needs a value (%s)\n",
					src, a[1], d->meta);
				return -1;
			}
			if (set_value(o, d, val, src))
				return -1;
			continue;
		}
		name = a + 2;
		eq = strchr(name, '=');
		d = find(name, eq ? (size_t)(eq - name) : strlen(name));
		if (!d)
			goto unknown;
		if (d->kind == K_FLAG) {
			if (eq)
				val = eq + 1;
		} else if (eq) {
			val = eq + 1;
		} else if (i + 1 < n) {
			val = args[++i];
		} else {
			fprintf(stderr, "uringcheck: %s--%s needs a value (%s)\n",
				src, d->name, d->meta);
			return -1;
		}
		if (set_value(o, d, val, src))
			return -1;
	}
	return i;
unknown:
	fprintf(stderr, "uringcheck: %sunknown option '%s' (see uringcheck --help)\n",
		src, args[i]);
	return -1;
}

/*
 * --fail-on: hazard kinds, and doctor:SEV for the profile's doctor. The
 * doctor's item is taken out and the rest goes to the kinds' parser; a
 * list of the doctor's item alone keeps the kinds' default, so that
 * adding the gate never stops the checker's errors from failing a run
 * (none,doctor:warning for the doctor alone).
 */
static int fail_on_parse(struct uc_options *o)
{
	char *copy = xstrdup(o->fail_on), *save = NULL, *tok, *rest;
	size_t n = 0;
	int err = 0;

	rest = xcalloc(1, strlen(o->fail_on) + 1);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (strncmp(tok, "doctor:", 7)) {
			n += sprintf(rest + n, "%s%s", n ? "," : "", tok);
			continue;
		}
		if (!strcmp(tok + 7, "note")) {
			o->fail_doctor = UC_FAIL_DOCTOR_NOTE;
		} else if (!strcmp(tok + 7, "warning")) {
			o->fail_doctor = UC_FAIL_DOCTOR_WARNING;
		} else {
			fprintf(stderr, "uringcheck: --fail-on: unknown doctor severity "
				"'%s'; the doctor's are note and warning (doctor:note, "
				"doctor:warning)\n", tok + 7);
			err = -1;
			break;
		}
	}
	if (!err && (n || !o->fail_doctor))
		err = kinds->parse(rest, &o->fail_mask, "--fail-on");
	free(rest);
	free(copy);
	return err;
}

static enum opt_result check(struct uc_options *o)
{
	long mb = o->event_buffer_mb;

	if (o->error_exitcode > 255) {
		fprintf(stderr, "uringcheck: --error-exitcode=%ld: must be 0..255\n",
			o->error_exitcode);
		return OPT_EXIT_USAGE;
	}
	if (mb < 1 || mb > 4096 || (mb & (mb - 1))) {
		fprintf(stderr, "uringcheck: --event-buffer=%ld: must be a power of "
			"two between 1 and 4096 (MiB)\n", mb);
		return OPT_EXIT_USAGE;
	}
	if (o->stack_size > UC_STACK_BYTES_MAX) {
		fprintf(stderr, "uringcheck: --stack-size=%ld: at most %d\n",
			o->stack_size, UC_STACK_BYTES_MAX);
		return OPT_EXIT_USAGE;
	}
	o->fail_mask = kinds->fail_default();	/* no --fail-on: the table's */
	if ((o->fail_on && fail_on_parse(o)) ||
	    kinds->parse(o->hazards, &o->hazard_mask, "--hazards"))
		return OPT_EXIT_USAGE;
	if (o->keep_warm > 3600) {
		fprintf(stderr, "uringcheck: --keep-warm=%ld: at most 3600 seconds\n",
			o->keep_warm);
		return OPT_EXIT_USAGE;
	}
	if (o->reap_lag_ms > 3600 * 1000) {
		fprintf(stderr, "uringcheck: --reap-lag-ms=%ld: at most one hour\n",
			o->reap_lag_ms);
		return OPT_EXIT_USAGE;
	}
	/* Attached, the profile is the default; --check -p judges instead
	 * (add --profile for both). */
	if ((o->pid || o->all) && !o->check)
		o->profile = 1;
	if (o->pid && o->all) {
		fprintf(stderr, "uringcheck: -p and -a exclude each other\n");
		return OPT_EXIT_USAGE;
	}
	if ((o->pid || o->all) && o->target_argv) {
		fprintf(stderr, "uringcheck: -p/-a attach to what runs already: no "
			"program to start ('%s')\n", o->target_argv[0]);
		return OPT_EXIT_USAGE;
	}
	if (o->follow && !o->pid) {
		fprintf(stderr, "uringcheck: -f/--follow needs -p PID (%s)\n", o->all ?
			"-a follows every process already" :
			"a program started by uringcheck is followed with all it forks");
		return OPT_EXIT_USAGE;
	}
	if (o->check && !o->profile && !o->pid && !o->all) {
		fprintf(stderr, "uringcheck: --check is the default mode; it combines "
			"with --profile\n");
		return OPT_EXIT_USAGE;
	}
	if (o->duration && !o->pid && !o->all) {
		fprintf(stderr, "uringcheck: -d/--duration needs -p or -a (a program "
			"started by uringcheck ends when it exits)\n");
		return OPT_EXIT_USAGE;
	}
	if ((o->interval || o->metrics || o->baseline || o->diff || o->filter ||
	     o->compact || o->fail_doctor) && !o->profile) {
		fprintf(stderr, "uringcheck: %s needs --profile\n",
			o->interval ? "-i/--interval" : o->metrics ? "--metrics" :
			o->baseline ? "--baseline" : o->diff ? "--diff" :
			o->filter ? "-e/--filter" : o->compact ? "-c/--compact" :
			"--fail-on=doctor:...");
		return OPT_EXIT_USAGE;
	}
	if (o->filter && uc_filter_parse(o->filter, &o->filt, "-e/--filter"))
		return OPT_EXIT_USAGE;
	if (o->events) {
		const char *dot = strrchr(o->events, '.');

		if (!dot || (strcmp(dot, ".csv") && strcmp(dot, ".jsonl"))) {
			fprintf(stderr, "uringcheck: --events=%s: the name must end in "
				".csv or .jsonl\n", o->events);
			return OPT_EXIT_USAGE;
		}
	}
	if (o->sample < 1 || o->sample > 1000000) {
		fprintf(stderr, "uringcheck: --sample=%ld: must be between 1 and 1000000\n",
			o->sample);
		return OPT_EXIT_USAGE;
	}
	if (o->sample > 1 && !o->trace && !o->events) {
		fprintf(stderr, "uringcheck: --sample needs --trace or --events\n");
		return OPT_EXIT_USAGE;
	}
	if (o->trace_buffer_mb < 1 || o->trace_buffer_mb > 4096 ||
	    (o->trace_buffer_mb & (o->trace_buffer_mb - 1))) {
		fprintf(stderr, "uringcheck: --trace-buffer=%ld: must be a power of two "
			"between 1 and 4096 (MiB)\n", o->trace_buffer_mb);
		return OPT_EXIT_USAGE;
	}
#ifdef UC_STATIC
	/* Refused here, before anything runs (static/static_build.h). */
	if (o->metrics) {
		fprintf(stderr, "uringcheck: --metrics is not in the static build: it "
			"loads libmicrohttpd, a shared library, at run time; use the "
			"dynamically linked uringcheck (make, or Debian's build)\n");
		return OPT_EXIT_USAGE;
	}
#endif
	if (o->metrics) {
		const char *port = strrchr(o->metrics, ':');
		char *end;
		long v;

		port = port ? port + 1 : o->metrics;
		v = strtol(port, &end, 10);
		if (end == port || *end || v < 0 || v > 65535) {
			fprintf(stderr, "uringcheck: --metrics=%s: not [HOST:]PORT\n",
				o->metrics);
			return OPT_EXIT_USAGE;
		}
	}
	if (o->profile_sample < 1 || o->profile_sample > 65536 ||
	    (o->profile_sample & (o->profile_sample - 1))) {
		fprintf(stderr, "uringcheck: --profile-sample=%ld: must be a power of "
			"two between 1 and 65536\n", o->profile_sample);
		return OPT_EXIT_USAGE;
	}
	if (o->profile_rings != -1 && (o->profile_rings < 1 || o->profile_rings > 4096)) {
		fprintf(stderr, "uringcheck: --profile-rings=%ld: must be between 1 "
			"and 4096\n", o->profile_rings);
		return OPT_EXIT_USAGE;
	}
	if (o->pid > 0x7fffffff) {
		fprintf(stderr, "uringcheck: -p %ld: not a PID\n", o->pid);
		return OPT_EXIT_USAGE;
	}
	if (o->max_inflight < 64 || o->max_inflight > (1 << 24)) {
		fprintf(stderr, "uringcheck: --max-inflight=%ld: must be between 64 "
			"and 16777216\n", o->max_inflight);
		return OPT_EXIT_USAGE;
	}
	return OPT_RUN;
}

/*
 * URINGCHECK_OPTIONS as option words: split on blanks; a word that is not
 * an option ("name=value:name2=value2", the ASAN_OPTIONS form) becomes
 * one "--name=value" word per ':'-separated item, '_' read as '-'. The
 * words live until options_free.
 */
static int env_words(const char *env, char ***out)
{
	char *copy = xstrdup(env), *save = NULL, *tok;
	char **v = NULL;
	int n = 0;

	for (tok = strtok_r(copy, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		char *isave = NULL, *item;

		if (tok[0] == '-') {
			v = xrealloc(v, (n + 1) * sizeof(*v));
			v[n++] = xstrdup(tok);
			continue;
		}
		for (item = strtok_r(tok, ":", &isave); item;
		     item = strtok_r(NULL, ":", &isave)) {
			char *w = xmalloc(strlen(item) + 3), *c;

			sprintf(w, "--%s", item);
			for (c = w + 2; *c && *c != '='; c++)
				if (*c == '_')
					*c = '-';
			v = xrealloc(v, (n + 1) * sizeof(*v));
			v[n++] = w;
		}
	}
	free(copy);
	*out = v;
	return n;
}

void options_free(struct uc_options *o)
{
	for (int i = 0; i < o->env_n; i++)
		free(o->env_v[i]);
	free(o->env_v);
	o->env_v = NULL;
	o->env_n = 0;
}

enum opt_result options_parse(struct uc_options *o, int argc, char **argv)
{
	enum opt_result early = OPT_RUN;
	const char *env = getenv("URINGCHECK_OPTIONS");
	int first;

	if (env && *env) {
		char **v = NULL;
		int n = env_words(env, &v), used;

		o->env_v = v;	/* the options point into them: kept until options_free */
		o->env_n = n;

		used = parse_args(o, n, v, "URINGCHECK_OPTIONS: ", &early);
		if (used < 0)
			return OPT_EXIT_USAGE;
		if (early != OPT_RUN)
			return early;
		if (used < n) {
			fprintf(stderr, "uringcheck: URINGCHECK_OPTIONS: '%s' is not an "
				"option (the program to run goes on the command line)\n",
				v[used]);
			return OPT_EXIT_USAGE;
		}
	}

	first = parse_args(o, argc - 1, argv + 1, "", &early);
	if (first < 0)
		return OPT_EXIT_USAGE;
	if (early != OPT_RUN)
		return early;
	if (first >= argc - 1 && (o->pid || o->all)) {
		o->target_argv = NULL;
		return check(o);
	}
	if (first >= argc - 1) {
		fprintf(stderr, "uringcheck: no program to run (usage: uringcheck "
			"[OPTIONS] [--] PROGRAM [ARGS...])\n");
		return OPT_EXIT_USAGE;
	}
	o->target_argv = argv + 1 + first;
	return check(o);
}
