/* SPDX-License-Identifier: GPL-2.0 */
#ifndef UC_LIBBPF_LOG_H
#define UC_LIBBPF_LOG_H

/* Routes libbpf's messages: -v shows warnings, -vv everything. */
void libbpf_log_setup(int verbose);
/* libbpf's first warning since setup ("which program or map, and why"),
 * or NULL. */
const char *libbpf_load_cause(void);
/* "uringcheck: cannot load @what on kernel @release: <cause>", the cause
 * libbpf's first warning (else -@err's text), and where the verifier's
 * log is when @verbose does not show it yet. */
void libbpf_load_failed(const char *what, const char *release, int err, int verbose);

#endif
