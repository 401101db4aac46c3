// SPDX-License-Identifier: GPL-2.0
#include "btf_scan.h"

#include <fcntl.h>
#include <stdio.h>
#include <linux/btf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct btf_scan {
	void *map;
	size_t size;
	const char *strs;
	uint32_t str_len;
	const uint8_t *types;
	uint32_t *offsets;		/* type id -> offset into types */
	uint32_t count;			/* ids 1..count-1 */
};

static uint32_t extra_size(const struct btf_type *t)
{
	uint32_t vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT: return 4;
	case BTF_KIND_ARRAY: return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: return vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM: return vlen * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO: return vlen * sizeof(struct btf_param);
	case BTF_KIND_VAR: return sizeof(struct btf_var);
	case BTF_KIND_DATASEC: return vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_DECL_TAG: return sizeof(struct btf_decl_tag);
	case BTF_KIND_ENUM64: return vlen * sizeof(struct btf_enum64);
	default: return 0;	/* PTR, FWD, TYPEDEF, qualifiers, FUNC, FLOAT, TYPE_TAG */
	}
}

struct btf_scan *btf_scan_open(const char *path)
{
	struct btf_scan *b = calloc(1, sizeof(*b));
	const struct btf_header *h;
	struct stat st;
	uint32_t off, cap = 1 << 17;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (!b || fd < 0 || fstat(fd, &st) || st.st_size < (off_t)sizeof(*h))
		goto fail;
	b->size = st.st_size;
	b->map = mmap(NULL, b->size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (b->map == MAP_FAILED) {
		b->map = NULL;
		goto fail;
	}
	close(fd);
	fd = -1;
	h = b->map;
	if (h->magic != BTF_MAGIC ||
	    (uint64_t)h->hdr_len + h->type_off + h->type_len > b->size ||
	    (uint64_t)h->hdr_len + h->str_off + h->str_len > b->size)
		goto fail;
	b->types = (const uint8_t *)b->map + h->hdr_len + h->type_off;
	b->strs = (const char *)b->map + h->hdr_len + h->str_off;
	b->str_len = h->str_len;
	b->offsets = malloc(cap * sizeof(*b->offsets));
	b->count = 1;
	for (off = 0; b->offsets && off + sizeof(struct btf_type) <= h->type_len;) {
		const struct btf_type *t = (const void *)(b->types + off);

		if (b->count == cap) {
			uint32_t *n = realloc(b->offsets, (cap *= 2) * sizeof(*n));

			if (!n)
				goto fail;
			b->offsets = n;
		}
		b->offsets[b->count++] = off;
		off += sizeof(*t) + extra_size(t);
	}
	if (!b->offsets)
		goto fail;
	return b;
fail:
	if (fd >= 0)
		close(fd);
	btf_scan_close(b);
	return NULL;
}

void btf_scan_close(struct btf_scan *b)
{
	if (!b)
		return;
	if (b->map)
		munmap(b->map, b->size);
	free(b->offsets);
	free(b);
}

static const struct btf_type *type_at(const struct btf_scan *b, uint32_t id)
{
	return id && id < b->count ? (const void *)(b->types + b->offsets[id]) : NULL;
}

static const char *str(const struct btf_scan *b, uint32_t off)
{
	return off < b->str_len ? b->strs + off : "";
}

static const struct btf_type *find(const struct btf_scan *b, const char *name,
				   int kind)
{
	for (uint32_t id = 1; id < b->count; id++) {
		const struct btf_type *t = type_at(b, id);

		if ((int)BTF_INFO_KIND(t->info) == kind && !strcmp(str(b, t->name_off), name))
			return t;
	}
	return NULL;
}

int btf_scan_tp_params(const struct btf_scan *b, const char *tp)
{
	char name[128];
	const struct btf_type *t;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	t = find(b, name, BTF_KIND_TYPEDEF);
	if (!t)
		return -1;
	t = type_at(b, t->type);
	if (!t || BTF_INFO_KIND(t->info) != BTF_KIND_PTR)
		return -1;
	t = type_at(b, t->type);
	if (!t || BTF_INFO_KIND(t->info) != BTF_KIND_FUNC_PROTO)
		return -1;
	return (int)BTF_INFO_VLEN(t->info) - 1;
}

bool btf_scan_enum_value(const struct btf_scan *b, const char *name, int64_t *val)
{
	for (uint32_t id = 1; id < b->count; id++) {
		const struct btf_type *t = type_at(b, id);
		uint32_t vlen = BTF_INFO_VLEN(t->info);

		if (BTF_INFO_KIND(t->info) != BTF_KIND_ENUM)
			continue;
		const struct btf_enum *e = (const void *)(t + 1);

		for (uint32_t i = 0; i < vlen; i++) {
			if (!strcmp(str(b, e[i].name_off), name)) {
				*val = e[i].val;
				return true;
			}
		}
	}
	return false;
}
