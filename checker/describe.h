/* SPDX-License-Identifier: GPL-2.0 */
#ifndef UC_DESCRIBE_H
#define UC_DESCRIBE_H

#include "tracker.h"
#include "kinds/kind_reports.h"

/* What a report needs to know of @r, for its range [start, end). */
void describe_request(struct uc_request_desc *d, const struct uc_request *r,
		      uint64_t start, uint64_t end);

#endif
