/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A lean, read-only walk over the kernel's raw BTF: just enough to answer
 * "does this tracepoint/function exist, with how many arguments" and
 * "what is this enumerator's value" in a few milliseconds. libbpf parses
 * the same file again to load the programs; parsing it twice with libbpf
 * cost ~40 ms of start-up per run.
 */
#ifndef UC_BTF_SCAN_H
#define UC_BTF_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct btf_scan;

struct btf_scan *btf_scan_open(const char *path);
void btf_scan_close(struct btf_scan *b);
/* Parameters of raw tracepoint @tp (btf_trace_<tp>), not counting the
 * leading context pointer; -1 if absent. */
int btf_scan_tp_params(const struct btf_scan *b, const char *tp);
bool btf_scan_enum_value(const struct btf_scan *b, const char *name, int64_t *val);

#endif
