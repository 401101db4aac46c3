/* SPDX-License-Identifier: GPL-2.0 */
/* A fresh set of the checker's programs, loaded in parallel pieces
 * (cold_load.c says how and why). */
#ifndef UC_COLD_LOAD_H
#define UC_COLD_LOAD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "core_btf.h"

struct bpf_map;
struct btf;
struct uringcheck_bpf;

struct cold_load {
	struct uringcheck_bpf *skel;	/* the session's: the first half */
	struct uringcheck_bpf *second;	/* the programs verified beside it */
	struct core_btf_file core;	/* the halves' CO-RE BTF (core_btf.h) */
	struct bpf_map **maps;		/* the object's, in its order */
	int *map_fds;			/* ... made by the thread (or main) */
	int nr_maps;
	int next_map;			/* the next one not yet taken */
	int btf_fd;			/* the object's BTF, for the maps' types */
	const void *btf_raw;		/* the object's BTF, for the maps' types */
	uint32_t btf_size;
	pthread_t thread;
	bool running;
	int maps_err;
	int loaded_fd;			/* an eventfd written to as each half
					 * has loaded, -1: none (early_buffer.h) */
};

/* Opens @skel, the session's skeleton (half of the programs), to be
 * configured by the caller. */
int cold_load_open(struct cold_load *c, struct uringcheck_bpf **skel);
/* Starts creating @skel's maps, sized and preset as configured, on a
 * thread of their own. */
int cold_load_maps(struct cold_load *c, struct uringcheck_bpf *skel);
/* Builds the CO-RE stand-in from the kernel's BTF for @skel's programs
 * and the second half's, and lends them that BTF until they are loaded
 * (core_btf.h). */
void cold_load_core_btf(struct cold_load *c, struct btf *kernel,
			const struct uringcheck_bpf *skel);
/* Waits for the maps; loads @skel's programs and the second half's at
 * once. 0 or a negative errno (libbpf_load_cause() names it). */
int cold_load_programs(struct cold_load *c, struct uringcheck_bpf *skel);
int cold_load_attach(struct cold_load *c);
/* The instance holding a program of that name, for sharing. */
struct uringcheck_bpf *cold_load_second(struct cold_load *c);
void cold_load_free(struct cold_load *c);

#endif
