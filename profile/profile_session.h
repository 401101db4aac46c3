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

struct ring_buffer;

struct pf_session {
	struct profile_bpf *skel;
	struct ring_buffer *notes;	/* pf_notify: closed rings, rings left out */
	/* closed rings' final figures, collected from their freed slots */
	struct pf_ring_view *retired;	/* PF_RETIRED_MAX, then the folded row */
	uint32_t nretired;		/* rows used, the folded one included */
	uint64_t folded;		/* rings added into the folded row */
	struct pf_errno_view *retired_errs;
	size_t nretired_errs;
	uint32_t notes_lost_seen;	/* pf_notify losses already handled */
	bool unprofiled;		/* a ring has gone unprofiled */
	bool slots_freed;		/* closed rings' slots are reused */
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
/* Collects the closed rings the kernel side announced (their figures
 * move to the retired rows, their slots go back for new rings). Returns
 * 1 when a ring has gone unprofiled for the first time, else 0 (-1:
 * error). Not safe against a concurrent pf_session_read: the caller
 * serialises. */
int pf_session_collect(struct pf_session *s);
/* The descriptor that is readable when a note waits. */
int pf_session_notes_fd(struct pf_session *s);
/* Rings still open in their slots whose process is gone (exited, or a
 * zombie): their teardown (io_ring_exit_work) is still to run. */
unsigned pf_session_rings_closing(struct pf_session *s);
/* Reads every table into @out (freed with pf_snapshot_free): the closed
 * rings' rows first, then the slots in use. */
int pf_session_read(struct pf_session *s, struct pf_snapshot *out);
/* Detaches and unloads everything. */
void pf_session_stop(struct pf_session *s);

#endif
