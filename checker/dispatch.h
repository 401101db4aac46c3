/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The check mode's dispatcher: it takes each record of the event stream
 * in the order the kernel produced it, brings the model (tracker.h) and
 * the loss evidence (evidence.h) up to it, and runs the rules (rules/)
 * around each change, so that a new request is judged against exactly
 * the requests in flight then.
 */
#ifndef UC_DISPATCH_H
#define UC_DISPATCH_H

#include <stddef.h>

#include "ring_fds.h"
#include "rules/rule.h"

struct uc_report;

struct uc_dispatch {
	struct uc_check ck;		/* what the rules are given */
	void **state;			/* each rule's, in table order */
	struct ring_fds fds;		/* descriptors of rings made before
					 * the attach (ring_fds.h) */
};

void dispatch_init(struct uc_dispatch *d, struct uc_report *report);
/* The last record read: the rules' finish hooks (before the verdict). */
void dispatch_finish(struct uc_dispatch *d);
void dispatch_free(struct uc_dispatch *d);
/* Consumes one ring-buffer record. */
void dispatch_record(struct uc_dispatch *d, const void *data, size_t size);

#endif
