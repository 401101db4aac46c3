// SPDX-License-Identifier: GPL-2.0
/*
 * A small stand-in for the kernel's BTF, for libbpf's CO-RE relocations.
 *
 * For every type a BPF object relocates against, libbpf looks for
 * candidates among all of the kernel's types, one full scan per local
 * type: ~0.8 ms each over 6.18's 126,000 types, about 20 ms of a cold
 * start for the checker's object. libbpf takes a BTF of our choosing
 * for these relocations instead (btf_custom_path; attach targets are
 * still looked up in the kernel's own). This file builds that BTF from
 * the kernel's, already parsed by the kernel probe: the kernel types
 * named like a type of the object (flavours such as "file___pre_6_13"
 * stripped to "file", as libbpf does), with everything their layout
 * depends on, copied whole. What a relocation compares is thus
 * unchanged: the same candidates, the same members, offsets and sizes,
 * the same enumerators. Only pointers to types outside that set point
 * at a forward declaration of the same name instead: a relocation
 * never looks through a pointer at the type behind it (a pointer
 * member is compatible with any pointer), it relocates that type on
 * its own, and then that type is in the set because the object names
 * it. bpftool's gen min_core_btf does the same, from the relocations
 * themselves; this is computed where the object loads, in ~3 ms, and
 * never cached.
 */
#define _GNU_SOURCE	/* memfd_create */
#include "core_btf.h"
#include "kernel_btf.h"

#include <bpf/btf.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "u64map.h"

/* FNV-1a over a name's essential part (up to a "___" flavour suffix). */
static uint64_t name_key(const char *name)
{
	const char *end = strstr(name, "___");
	uint64_t h = 0xcbf29ce484222325ULL;

	for (const char *p = name; *p && p != end; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	return h | 1;		/* never 0: u64map's empty key */
}

static bool named_layout_kind(const struct btf_type *t)
{
	return btf_is_composite(t) || btf_is_any_enum(t) || btf_is_typedef(t) ||
	       btf_is_fwd(t);
}

struct builder {
	const struct btf *kern;
	struct btf *out;
	uint32_t *new_id;	/* kernel id -> id in out; 0: not taken */
	uint32_t *order;	/* the kernel ids taken, in take order */
	uint32_t nr;
	struct u64map fwds;	/* name key -> its forward declaration in out */
	struct u64map ptrs;	/* pointee in out + 1 -> pointer in out */
};

/* A type's references to other types: members, an array's element and
 * index, a modifier's or typedef's target. */
static int nrefs(const struct btf_type *t)
{
	if (btf_is_composite(t))
		return btf_vlen(t);
	if (btf_is_array(t))
		return 2;
	return btf_is_mod(t) || btf_is_typedef(t) ? 1 : 0;
}

static uint32_t *ref_at(struct btf_type *t, int i)
{
	if (btf_is_composite(t))
		return &btf_members(t)[i].type;
	if (btf_is_array(t))
		return i ? &btf_array(t)->index_type : &btf_array(t)->type;
	return &t->type;
}

static uint32_t kern_ref(const struct builder *b, uint32_t id, int i)
{
	return *ref_at((struct btf_type *)btf__type_by_id(b->kern, id), i);
}

static bool is_ptr(const struct builder *b, uint32_t id)
{
	return id && btf_is_ptr(btf__type_by_id(b->kern, id));
}

/* Not followed: pointers (made in add_pointers) and prototypes, which a
 * typedef can name directly (they become void: no layout has one). */
static bool not_followed(const struct builder *b, uint32_t id)
{
	return id && (is_ptr(b, id) || btf_is_func_proto(btf__type_by_id(b->kern, id)));
}

/* Takes @root and everything its layout depends on, depth first on an
 * explicit stack; pointers are not followed (see above). */
static void take(struct builder *b, uint32_t root, uint32_t *stack)
{
	int sp = 0;

	if (b->new_id[root])
		return;
	b->new_id[root] = UINT32_MAX;	/* taken; numbered in copy_taken */
	stack[sp++] = root;
	while (sp) {
		uint32_t id = stack[--sp];
		int n = nrefs(btf__type_by_id(b->kern, id));

		b->order[b->nr++] = id;
		for (int i = 0; i < n; i++) {
			uint32_t r = kern_ref(b, id, i);

			if (r && !b->new_id[r] && !not_followed(b, r)) {
				b->new_id[r] = UINT32_MAX;
				stack[sp++] = r;
			}
		}
	}
}

/* Copies the taken types in take order, numbered before copying so that
 * references forward in the order resolve; pointers are left 0 here. */
static int copy_taken(struct builder *b)
{
	uint32_t first = btf__type_cnt(b->out);

	for (uint32_t i = 0; i < b->nr; i++)
		b->new_id[b->order[i]] = first + i;
	for (uint32_t i = 0; i < b->nr; i++) {
		const struct btf_type *src = btf__type_by_id(b->kern, b->order[i]);
		int id = btf__add_type(b->out, b->kern, src);
		struct btf_type *t;

		if (id < 0)
			return id;
		if (!btf_is_composite(src) && !btf_is_array(src) && !btf_is_mod(src) &&
		    !btf_is_typedef(src) && !btf_is_int(src) && !btf_is_float(src) &&
		    !btf_is_any_enum(src) && !btf_is_fwd(src))
			return -EINVAL;	/* a kind no reference should lead to */
		/* Our own copy, writable: libbpf's accessor is const only. */
		t = (struct btf_type *)btf__type_by_id(b->out, id);
		for (int j = 0; j < nrefs(t); j++) {
			uint32_t *r = ref_at(t, j);

			*r = *r && !not_followed(b, *r) ? b->new_id[*r] : 0;
		}
	}
	return 0;
}

/* What a pointer to kernel type @id points at in out: the type if taken,
 * else a forward declaration of its name (void without one, e.g. for a
 * prototype). */
static int pointee(struct builder *b, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(b->kern, id);
	const char *name;
	uint64_t key;
	int nid;

	if (!id || b->new_id[id])
		return id ? (int)b->new_id[id] : 0;
	name = btf__name_by_offset(b->kern, t->name_off);
	if (!btf_is_composite(t) || !name || !*name)
		return 0;
	key = name_key(name) ^ (btf_is_union(t) ? 2 : 0);
	if (u64map_get(&b->fwds, key))
		return (int)(uintptr_t)u64map_get(&b->fwds, key);
	nid = btf__add_fwd(b->out, name, btf_is_union(t) ? BTF_FWD_UNION : BTF_FWD_STRUCT);
	if (nid > 0)
		u64map_put(&b->fwds, key, (void *)(uintptr_t)nid);
	return nid;
}

/* The references left 0 that were pointers: each a pointer in out now,
 * one per distinct pointee, added after all taken types. */
static int add_pointers(struct builder *b)
{
	for (uint32_t i = 0; i < b->nr; i++) {
		uint32_t id = b->order[i];
		int n = nrefs(btf__type_by_id(b->kern, id));

		for (int j = 0; j < n; j++) {
			uint32_t r = kern_ref(b, id, j);
			int target, ptr;

			if (!is_ptr(b, r))
				continue;
			target = pointee(b, btf__type_by_id(b->kern, r)->type);
			if (target < 0)
				return target;
			ptr = (int)(uintptr_t)u64map_get(&b->ptrs, (uint64_t)target + 1);
			if (!ptr) {
				ptr = btf__add_ptr(b->out, target);
				if (ptr < 0)
					return ptr;
				u64map_put(&b->ptrs, (uint64_t)target + 1, (void *)(uintptr_t)ptr);
			}
			/* Looked up again: adding may have moved the types. */
			*ref_at((struct btf_type *)btf__type_by_id(b->out, b->new_id[id]), j) =
				(uint32_t)ptr;
		}
	}
	return 0;
}

/* Names of the object's own layout types. */
static void object_names(const struct btf *local, struct u64map *names)
{
	uint32_t n = btf__type_cnt(local);

	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(local, id);
		const char *name = btf__name_by_offset(local, t->name_off);

		if (named_layout_kind(t) && name && *name)
			u64map_put(names, name_key(name), (void *)1);
	}
}

struct btf *core_btf_build(const struct btf *kern, const struct btf *local)
{
	uint32_t n = btf__type_cnt(kern), *stack;
	struct builder b = { .kern = kern };
	struct u64map names;
	int err = -ENOMEM;

	u64map_init(&names);
	u64map_init(&b.fwds);
	u64map_init(&b.ptrs);
	b.new_id = calloc(n, sizeof(*b.new_id));
	b.order = calloc(n, sizeof(*b.order));
	stack = calloc(n, sizeof(*stack));
	b.out = btf__new_empty();
	if (!b.new_id || !b.order || !stack || !b.out)
		goto out;
	object_names(local, &names);
	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(kern, id);

		if (named_layout_kind(t) && !btf_is_fwd(t) && t->name_off &&
		    u64map_get(&names, name_key(btf__name_by_offset(kern, t->name_off))))
			take(&b, id, stack);
	}
	err = copy_taken(&b);
	if (!err)
		err = add_pointers(&b);
out:
	u64map_free(&names);
	u64map_free(&b.fwds);
	u64map_free(&b.ptrs);
	free(b.new_id);
	free(b.order);
	free(stack);
	if (err) {
		btf__free(b.out);
		errno = -err;
		return NULL;
	}
	return b.out;
}

int core_btf_file_open(struct core_btf_file *f)
{
	f->kernel = NULL;
	f->fd = memfd_create("uringcheck-core-btf", MFD_CLOEXEC);
	if (f->fd < 0)
		return -1;
	snprintf(f->path, sizeof(f->path), "/proc/self/fd/%d", f->fd);
	return 0;
}

static int put_btf(struct core_btf_file *f, const struct btf *btf)
{
	uint32_t size;
	const void *raw = btf__raw_data(btf, &size);

	if (!raw || ftruncate(f->fd, 0) || pwrite(f->fd, raw, size, 0) != (ssize_t)size)
		return -1;
	return 0;
}

int core_btf_file_fill(struct core_btf_file *f, struct btf *kern, const struct btf *local)
{
	/* URINGCHECK_CORE_BTF=kernel: the kernel's own, as libbpf would take
	 * it (the test suite loads both ways and compares the programs). */
	const char *how = getenv("URINGCHECK_CORE_BTF");
	struct btf *core = how && !strcmp(how, "kernel") ? NULL : core_btf_build(kern, local);
	int err = core ? put_btf(f, core) : -1;

	if (err)
		err = put_btf(f, kern);
	btf__free(core);
	f->kernel = kern;
	kernel_btf_lend(kern);
	return err;
}

void core_btf_file_close(struct core_btf_file *f)
{
	if (f->kernel) {
		kernel_btf_lend(NULL);
		f->kernel = NULL;	/* the lender's (load.c) */
	}
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}
