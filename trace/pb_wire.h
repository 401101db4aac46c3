/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Protobuf's wire format, written straight into a byte buffer: varints,
 * tags, fixed64 and length-delimited fields. The trace's event packets
 * (trace/pb_stream.c) are built with it, a field at a time as the
 * timeline adds them, the way Perfetto's protozero writes: protobuf-c's
 * generic pack walks each message's descriptor twice (once to size it,
 * once to write it), and that was 42% of the trace reader's CPU beside a
 * batched fio (perf). protobuf-c still writes the rare packets and reads
 * every packet back in the unit test, which checks that the bytes here
 * are the ones it would have written (testsuite/unit/test_pb_stream.c).
 */
#ifndef UC_PB_WIRE_H
#define UC_PB_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { PBW_VARINT = 0, PBW_FIXED64 = 1, PBW_BYTES = 2 };

/* A growable buffer; @failed once an allocation failed (the bytes after
 * are dropped, and the writer says so at close). */
struct pbw_buf {
	uint8_t *p;
	size_t len, cap;
	bool failed;
};

static inline size_t pbw_varint_size(uint64_t v)
{
	size_t n = 1;

	while (v > 0x7f) {
		v >>= 7;
		n++;
	}
	return n;
}

static inline size_t pbw_tag_size(unsigned field)
{
	return pbw_varint_size((uint64_t)field << 3);
}

/* Room for @n more bytes, or false (and @b->failed). */
static inline bool pbw_reserve(struct pbw_buf *b, size_t n)
{
	if (b->len + n <= b->cap)
		return true;
	if (b->failed)
		return false;
	size_t cap = b->cap ? b->cap : 256;
	uint8_t *np;

	while (cap < b->len + n)
		cap *= 2;
	np = realloc(b->p, cap);
	if (!np) {
		b->failed = true;
		return false;
	}
	b->p = np;
	b->cap = cap;
	return true;
}

/* The field writers below reserve at most this many bytes beyond the
 * field's own: a buffer sized exactly (on the stack) needs this much more
 * room, or they would try to grow it. */
#define PBW_SLACK 20

/* The unchecked writers: the caller reserved the room. */
static inline void pbw_put_varint_raw(struct pbw_buf *b, uint64_t v)
{
	while (v > 0x7f) {
		b->p[b->len++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b->p[b->len++] = (uint8_t)v;
}

static inline void pbw_put_bytes_raw(struct pbw_buf *b, const void *p, size_t n)
{
	if (!n)		/* an empty buffer's p may be NULL */
		return;
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

/* A varint field (uint32/64, int64 as its two's complement, enums,
 * bools): at most 10 bytes of tag, 10 of value. */
static inline void pbw_varint(struct pbw_buf *b, unsigned field, uint64_t v)
{
	if (!pbw_reserve(b, 20))
		return;
	pbw_put_varint_raw(b, (uint64_t)field << 3 | PBW_VARINT);
	pbw_put_varint_raw(b, v);
}

static inline void pbw_fixed64(struct pbw_buf *b, unsigned field, uint64_t v)
{
	if (!pbw_reserve(b, 18))
		return;
	pbw_put_varint_raw(b, (uint64_t)field << 3 | PBW_FIXED64);
	for (int i = 0; i < 8; i++)		/* little-endian, whatever the host */
		b->p[b->len++] = (uint8_t)(v >> (8 * i));
}

/* The tag and length of a length-delimited field whose @n bytes the
 * caller writes next (a message written in place, its size known first):
 * false if there is no room for the whole field. */
static inline bool pbw_open(struct pbw_buf *b, unsigned field, size_t n)
{
	if (!pbw_reserve(b, 20 + n))
		return false;
	pbw_put_varint_raw(b, (uint64_t)field << 3 | PBW_BYTES);
	pbw_put_varint_raw(b, n);
	return true;
}

/* A length-delimited field: a string, bytes, or a message already
 * written elsewhere. */
static inline void pbw_bytes(struct pbw_buf *b, unsigned field, const void *p, size_t n)
{
	if (pbw_open(b, field, n))
		pbw_put_bytes_raw(b, p, n);
}

/* The bytes a varint field takes, tag included. */
static inline size_t pbw_varint_field_size(unsigned field, uint64_t v)
{
	return pbw_tag_size(field) + pbw_varint_size(v);
}

/* ... a length-delimited one of @n bytes. */
static inline size_t pbw_bytes_field_size(unsigned field, size_t n)
{
	return pbw_tag_size(field) + pbw_varint_size(n) + n;
}

#endif
