/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --trace=FILE: the trace records drawn as a Perfetto timeline (native
 * protobuf, streamed; docs/trace.md).
 */
#ifndef UC_TIMELINE_H
#define UC_TIMELINE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace.h"

struct timeline;

struct tl_stats {
	uint64_t packets, bytes;
	uint64_t requests, slices, flows, findings, lost;
};

/* NULL with a message in @err. */
struct timeline *tl_open(const char *path, char *err, size_t errlen);
/* One record of bpf/trace.h, in time order. */
void tl_record(struct timeline *t, const void *rec, size_t size);
/* A checker finding: an instant on the lane of the request in flight in
 * @pid with @user_data (without one, or none such: on the process track),
 * carrying @text. */
void tl_finding(struct timeline *t, uint64_t ts, uint32_t pid, bool has_ud,
		uint64_t user_data, const char *kind, const char *text);
/* Ends what is open at @ts_end, writes the losses (per enum tr_type) into
 * the trace, closes the file and frees @t; its figures in @out. -1 if the
 * file could not be written. */
int tl_close(struct timeline *t, uint64_t ts_end, const uint64_t *lost,
	     uint64_t lost_total, struct tl_stats *out);

#endif
