/* SPDX-License-Identifier: GPL-2.0 */
#ifndef UC_LIBBPF_LOG_H
#define UC_LIBBPF_LOG_H

/* Routes libbpf's messages: -v shows warnings, -vv everything. */
void libbpf_log_setup(int verbose);
/* libbpf's first warning since setup ("which program or map, and why"),
 * or NULL. */
const char *libbpf_load_cause(void);

#endif
