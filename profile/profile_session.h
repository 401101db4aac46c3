/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The profile mode's BPF object (bpf/profile.bpf.c): loaded through
 * load/load.h with the profile's settings; follows processes; reads the
 * tables.
 */
#ifndef UC_PF_SESSION_H
#define UC_PF_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "snapshot.h"

struct profile_bpf;
struct pf_config;

struct pf_session {
	struct profile_bpf *skel;
	uint32_t max_rings;
	int ncpus;
	bool all;			/* -a */
	bool paths;			/* poll/punt attribution is available */
	void *percpu;			/* scratch for one per-CPU value */
	const struct pf_config *config;	/* while starting */
};

struct pf_config {
	bool all;			/* every process on the machine */
	uint32_t max_rings;		/* rings profiled one by one */
	uint32_t sample;		/* time one request in this many */
	int verbose;
};

/* 0, or -1 with a one-line error on stderr naming the cause. */
int pf_session_start(struct pf_session *s, const struct pf_config *c);
/* Follows @pid and, from now on, the processes it forks. */
int pf_session_follow(struct pf_session *s, pid_t pid);
/* Reads every table into @out (freed with pf_snapshot_free). */
int pf_session_read(struct pf_session *s, struct pf_snapshot *out);
/* Detaches and unloads everything. */
void pf_session_stop(struct pf_session *s);

#endif
