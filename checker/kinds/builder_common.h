/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kind builders (checker/kinds/KIND.c, one file each) share: how
 * a request is described in the text and in the evidence, and the names
 * of system calls and directions. One builder per kind: it turns the
 * checker's struct (kind_reports.h) into a struct uc_finding
 * (reports/finding.h) and calls report_finding(); no builder writes to a
 * stream. They live in the check mode, not in reports/, because they read
 * the BPF side's constants (bpf/uringcheck.h), which reports/ never sees.
 */
#ifndef UC_BUILDER_COMMON_H
#define UC_BUILDER_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "finding.h"
#include "json.h"
#include "opcode_names.h"
#include "kind_reports.h"

/* Why a request has no stack, when it has none (a capture the checker
 * could not keep says so itself: checker/stacks.c). */
const char *kind_why_no_stack(const struct uc_report *rep, bool sqpoll);
/* ... for a request the SQPOLL thread submitted: @unpublished, publishing
 * calls were seen on its ring, none that published it. */
const char *kind_why_no_sqpoll_stack(const struct uc_report *rep, bool unpublished);

/*
 * The two lines about request @d ("  ROLE READ (user_data 0x..) on ring
 * fd 5, thread N" and the range it stores into or loads from), then its
 * submission stack, added with @stack_role ("request submitted", ...).
 */
void kind_request_text(struct uc_finding *f, const struct uc_report *rep,
		       const char *role, const struct uc_request_desc *d,
		       const char *stack_role);
/* REQUEST of docs/json.md. */
json_object *kind_request_json(const struct uc_request_desc *d);

/* "ring fd N"; for a ring whose descriptor is not known (-1: not seen
 * created, and not found among its process's descriptors,
 * checker/ring_fds.h), words that say where it came from instead. */
const char *kind_ring(const struct uc_report *rep, int fd, char *buf, size_t len);

/* x86-64 system call @nr by name (libseccomp's table), else "syscall N". */
const char *kind_syscall_name(int nr, char *buf, size_t len);
/* "sink", "source", "none" (enum uc_direction) */
const char *kind_dir_name(uint8_t d);
/* "munmap", "madvise(MADV_DONTNEED)", ... */
const char *kind_unmap_call(uint32_t nr, uint64_t advice);

#endif
