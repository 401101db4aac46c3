// SPDX-License-Identifier: GPL-2.0
#include "describe.h"

#include <string.h>

void describe_request(struct uc_request_desc *d, const struct uc_request *r,
		      uint64_t start, uint64_t end)
{
	memset(d, 0, sizeof(*d));
	d->seq = r->sub.seq;
	d->user_data = r->sub.user_data;
	d->start = start;
	d->end = end;
	d->submit_ts = r->sub.hdr.ts;
	d->tgid = r->sub.hdr.tgid;
	d->tid = r->sub.hdr.tid;
	d->ring_fd = r->ring ? r->ring->fd : -1;
	d->buf_index = r->sub.buf_index;
	d->opcode = r->sub.opcode;
	d->direction = r->sub.direction;
	d->fixed_buf = r->sub.flags & UC_SUB_FIXED_BUF;
	d->vectored = r->sub.flags & UC_SUB_VECTORED;
	d->sqpoll = r->sub.flags & UC_SUB_SQPOLL;
	d->sq_unpublished = r->sub.flags & UC_SUB_SQ_UNPUBLISHED;
	d->nr_ranges = r->sub.nr_ranges;
	d->stack_id = r->sub.stack_id;
	if (r->sub.flags & UC_SUB_BUFFER_SELECT) {
		d->provided = true;
		d->bgid = r->sub.buf_index;	/* the group, for these */
		d->bid = r->pick_bid;
	}
}
