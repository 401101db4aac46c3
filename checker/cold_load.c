// SPDX-License-Identifier: GPL-2.0
/*
 * A cold start's load, spread over two CPUs and cut of its scans.
 *
 * Loading the checker's object alone took ~95 ms of a ~110 ms cold start
 * on the 6.18 test machine: the kernel's BTF parsed twice (the probe's
 * and libbpf's, ~10 ms each), libbpf's CO-RE candidate scans over all of
 * its types (~20 ms, core_btf.c), the maps (~13 ms) and the verifier
 * (~60 ms), each after the other on one CPU. Here:
 *
 *   maps    a thread creates every map as libbpf would (same types,
 *           sizes, flags and BTF types) while the main thread probes
 *           the kernel, and the main thread makes those left once it
 *           has probed (wait_maps). Not through a libbpf load of an
 *           instance that loads no program: a third libbpf load (its
 *           externs, its object's BTF, ~10 ms before kernel_btf.c lent
 *           the kernel's BTF) costs more than making them directly;
 *   skel    the session's own skeleton verifies half of the programs,
 *   second  a second instance the other half, on a thread, at the same
 *           time. Both take every map from the thread
 *           (bpf_map__reuse_fd, as an instance joining a warm set does)
 *           except their read-only data, which each creates and the
 *           kernel freezes, so that both verifiers see it as constants
 *           and prune the same dead code; and both relocate against the
 *           small stand-in core_btf.c builds from the probe's BTF.
 *
 * The halves are balanced by measured verification time (second_half),
 * not by count: on 6.18 each verifies about half of the ~47 ms.
 */
#include "cold_load.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "uringcheck.skel.h"

/* uc_submit, the heaviest with uc_sys_enter (~11 and ~13 ms on 6.18),
 * stays with the many small ones in skel; uc_sys_enter leads this half
 * (~24 ms a half, summed). */
static const char *const second_half[] = {
	"uc_sys_enter", "uc_complete", "uc_complete_fields", "uc_poll_arm",
	"uc_async_work", "uc_cqe_overflow",
};

static bool in_second_half(const struct bpf_program *p)
{
	for (size_t i = 0; i < sizeof(second_half) / sizeof(second_half[0]); i++)
		if (!strcmp(bpf_program__name(p), second_half[i]))
			return true;
	return false;
}

/* Read-only data (.rodata, .kconfig): each half creates its own. */
static bool own_copy(const struct bpf_map *m)
{
	return bpf_map__is_internal(m) && (bpf_map__map_flags(m) & BPF_F_RDONLY_PROG);
}

static struct uringcheck_bpf *open_instance(struct cold_load *c)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .btf_custom_path = c->core.path);

	return uringcheck_bpf__open_opts(&opts);
}

int cold_load_open(struct cold_load *c, struct uringcheck_bpf **skel)
{
	memset(c, 0, sizeof(*c));
	c->loaded_fd = -1;
	c->btf_fd = -1;
	if (core_btf_file_open(&c->core))
		return -errno;
	*skel = open_instance(c);
	return *skel ? 0 : -errno;
}

/* Creates @m as libbpf's load would; 0 or a negative errno. */
static int create_like(const struct bpf_map *m, int btf_fd)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts,
		.map_flags = bpf_map__map_flags(m),
		.numa_node = bpf_map__numa_node(m),
		.map_extra = bpf_map__map_extra(m),
		.btf_fd = btf_fd,
		.btf_key_type_id = bpf_map__btf_key_type_id(m),
		.btf_value_type_id = bpf_map__btf_value_type_id(m));
	const void *data;
	size_t sz;
	int fd, zero = 0;

	fd = bpf_map_create(bpf_map__type(m), bpf_map__name(m), bpf_map__key_size(m),
			    bpf_map__value_size(m), bpf_map__max_entries(m), &opts);
	if (fd < 0)
		return -errno;
	/* Global data (.bss, .data) starts as the object says. */
	data = bpf_map__is_internal(m) ? bpf_map__initial_value((struct bpf_map *)m, &sz) : NULL;
	if (data && bpf_map_update_elem(fd, &zero, data, 0)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* Makes maps not yet taken until none is left (or one failed); run by the
 * thread, and by the main thread once it waits for them (wait_maps). */
static void create_some(struct cold_load *c)
{
	int btf_fd = __atomic_load_n(&c->btf_fd, __ATOMIC_ACQUIRE);

	for (;;) {
		int i = __atomic_fetch_add(&c->next_map, 1, __ATOMIC_RELAXED), fd;
		const struct bpf_map *m;

		if (i >= c->nr_maps || __atomic_load_n(&c->maps_err, __ATOMIC_RELAXED))
			return;
		m = c->maps[i];
		/* Preset (the maps of maps, early_buffer.c), or each
		 * half's own copy. */
		if (bpf_map__fd(m) >= 0 || own_copy(m))
			continue;
		/* A map of maps is made only with its inner map's descriptor. */
		fd = bpf_map__inner_map((struct bpf_map *)m) ? -EINVAL : create_like(m, btf_fd);
		if (fd < 0) {
			int none = 0;

			__atomic_compare_exchange_n(&c->maps_err, &none, fd, false,
						    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
			return;
		}
		c->map_fds[i] = fd;
	}
}

static void *create_maps(void *arg)
{
	struct cold_load *c = arg;
	int btf_fd = bpf_btf_load(c->btf_raw, c->btf_size, NULL);

	if (btf_fd < 0) {
		c->maps_err = -errno;
		return NULL;
	}
	__atomic_store_n(&c->btf_fd, btf_fd, __ATOMIC_RELEASE);
	create_some(c);
	return NULL;
}

int cold_load_maps(struct cold_load *c, struct uringcheck_bpf *skel)
{
	struct bpf_map *m;
	int n = 0;

	bpf_object__for_each_map(m, skel->obj)
		n++;
	c->map_fds = malloc(n * sizeof(*c->map_fds));
	c->maps = malloc(n * sizeof(*c->maps));
	if (!c->map_fds || !c->maps)
		return -ENOMEM;
	n = 0;
	bpf_object__for_each_map(m, skel->obj) {
		c->maps[n] = m;
		c->map_fds[n++] = -1;
	}
	c->nr_maps = n;
	c->skel = skel;
	/* Read here: the thread must not race the main one on libbpf's
	 * lazily built copy. */
	c->btf_raw = btf__raw_data(bpf_object__btf(skel->obj), &c->btf_size);
	if (!c->btf_raw)
		return -EINVAL;
	c->running = !pthread_create(&c->thread, NULL, create_maps, c);
	if (!c->running)
		create_maps(c);
	return 0;
}

void cold_load_core_btf(struct cold_load *c, struct btf *kernel,
			const struct uringcheck_bpf *skel)
{
	/* Should even that fail, the halves cannot load: the error names it. */
	core_btf_file_fill(&c->core, kernel, bpf_object__btf(skel->obj));
}

/* The main thread gets here with the kernel probed while the thread is
 * still making maps (the in-flight table and the lost-ends hash are the
 * large ones; the session's stack store is made with its event buffer,
 * early_buffer.c): it makes the rest beside it. */
static int wait_maps(struct cold_load *c)
{
	if (c->running) {
		if (__atomic_load_n(&c->btf_fd, __ATOMIC_ACQUIRE) >= 0)
			create_some(c);
		pthread_join(c->thread, NULL);
	}
	c->running = false;
	if (c->btf_fd >= 0)
		close(c->btf_fd);
	c->btf_fd = -1;
	return c->maps_err;
}

/* Every map of @obj but its read-only data becomes the thread's. */
static int take_maps(struct cold_load *c, struct bpf_object *obj)
{
	struct bpf_map *m;
	int i = 0;

	bpf_object__for_each_map(m, obj) {
		if (i >= c->nr_maps)
			return -EINVAL;
		if (c->map_fds[i] >= 0 && bpf_map__reuse_fd(m, c->map_fds[i]))
			return -errno;
		i++;
	}
	return 0;
}

/* The second half: @skel's preset maps, read-only data and its share of
 * the programs. */
static int configure_second(struct bpf_object *second, struct bpf_object *skel)
{
	struct bpf_program *p, *q = bpf_object__next_program(second, NULL);
	struct bpf_map *m, *f = bpf_object__next_map(second, NULL);

	bpf_object__for_each_map(m, skel) {
		const void *data;
		size_t sz;

		if (!f || strcmp(bpf_map__name(m), bpf_map__name(f)))
			return -EINVAL;
		if (bpf_map__fd(m) >= 0 && bpf_map__reuse_fd(f, bpf_map__fd(m)))
			return -errno;
		data = own_copy(m) ? bpf_map__initial_value(m, &sz) : NULL;
		if (data && bpf_map__set_initial_value(f, data, sz))
			return -EINVAL;
		f = bpf_object__next_map(second, f);
	}
	bpf_object__for_each_program(p, skel) {
		bool second_half = in_second_half(p);

		if (!q)
			return -EINVAL;
		bpf_program__set_autoload(q, bpf_program__autoload(p) && second_half);
		if (second_half)
			bpf_program__set_autoload(p, false);
		q = bpf_object__next_program(second, q);
	}
	return 0;
}

/* A half has loaded: its CPU is free for whoever waits for one. */
static void half_loaded(struct cold_load *c)
{
	if (c->loaded_fd >= 0)
		eventfd_write(c->loaded_fd, 1);
}

static void *load_second(void *arg)
{
	struct cold_load *c = arg;
	int err = uringcheck_bpf__load(c->second);

	half_loaded(c);
	return (void *)(long)err;
}

int cold_load_programs(struct cold_load *c, struct uringcheck_bpf *skel)
{
	pthread_t thread;
	void *ret;
	int err = wait_maps(c);

	if (err)
		return err;
	c->second = open_instance(c);
	if (!c->second)
		return -errno;
	err = configure_second(c->second->obj, skel->obj);
	if (!err)
		err = take_maps(c, skel->obj);
	if (!err)
		err = take_maps(c, c->second->obj);
	if (err)
		return err;
	if (pthread_create(&thread, NULL, load_second, c)) {
		err = uringcheck_bpf__load(skel) ?: uringcheck_bpf__load(c->second);
	} else {
		err = uringcheck_bpf__load(skel);
		half_loaded(c);
		pthread_join(thread, &ret);
		err = err ?: (int)(long)ret;
	}
	/* Both halves read the kernel's BTF lent by it: no longer. */
	core_btf_file_close(&c->core);
	return err;
}

int cold_load_attach(struct cold_load *c)
{
	return c->second ? uringcheck_bpf__attach(c->second) : 0;
}

struct uringcheck_bpf *cold_load_second(struct cold_load *c)
{
	return c->second;
}

void cold_load_free(struct cold_load *c)
{
	wait_maps(c);
	uringcheck_bpf__destroy(c->second);
	c->second = NULL;
	for (int i = 0; i < c->nr_maps; i++)
		if (c->map_fds[i] >= 0)
			close(c->map_fds[i]);
	free(c->map_fds);
	free(c->maps);
	c->map_fds = NULL;
	c->maps = NULL;
	c->nr_maps = 0;
	/* 0 is never ours: a cold_load never opened is all zeros. */
	if (c->core.fd > 0)
		core_btf_file_close(&c->core);
}
