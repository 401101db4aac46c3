// SPDX-License-Identifier: GPL-2.0
#include "builder_common.h"

#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>

#include <linux/types.h>
#include "uringcheck.h"

const char *kind_why_no_stack(const struct uc_report *rep, bool sqpoll)
{
	if (rep->stacks_off)
		return "none captured: --stack-size=0";
	if (sqpoll)
		return "submitted by the SQPOLL kernel thread; no io_uring_submit call "
		       "seen publishing it";
	return "none captured for this request";
}

/* The stack of an SQPOLL submission is the one of the program's call into
 * liburing that published the SQE (bpf/sqpoll_stacks.bpf.h). */
const char *kind_why_no_sqpoll_stack(const struct uc_report *rep, bool unpublished)
{
	if (rep->stacks_off)
		return "none captured: --stack-size=0";
	if (unpublished)
		return "submitted by the SQPOLL kernel thread; no io_uring_submit call "
		       "seen publishing it (liburing calls published other SQEs of this "
		       "ring: this one was written to the SQ ring directly, or published "
		       "by a call older than the last 16)";
	return "submitted by the SQPOLL kernel thread; no io_uring_submit call seen "
	       "publishing it, nor any on this ring (a program that writes the SQ ring "
	       "without liburing makes no call a stack can be taken from; liburing is "
	       "probed from the process's first SQPOLL ring on, unless a note says it "
	       "could not be)";
}

const char *kind_ring(const struct uc_report *rep, int fd, char *buf, size_t len)
{
	if (fd >= 0)
		snprintf(buf, len, "ring fd %d", fd);
	else
		snprintf(buf, len, "%s", rep->attached ? "a ring created before the attach" :
			 "a ring not seen created (inherited or received)");
	return buf;
}

void kind_request_text(struct uc_finding *f, const struct uc_report *rep,
		       const char *role, const struct uc_request_desc *d,
		       const char *stack_role)
{
	char buf[16], ring[64];

	uc_finding_text(f, "  %s %s (user_data 0x%llx) on %s", role,
			uc_opcode_name(d->opcode, buf), (unsigned long long)d->user_data,
			kind_ring(rep, d->ring_fd, ring, sizeof(ring)));
	if (d->sqpoll)
		uc_finding_text(f, ", submitted by the SQPOLL thread %u\n", d->tid);
	else
		uc_finding_text(f, ", thread %u\n", d->tid);
	if (d->direction == UC_DIR_NONE || (d->provided && d->start == d->end))
		uc_finding_text(f, "    %s", d->provided ? "no provided buffer picked yet" :
				"holds no user memory");
	else
		uc_finding_text(f, "    %s [0x%llx, 0x%llx) (%llu bytes)",
				d->direction == UC_DIR_SINK ? "stores into" : "loads from",
				(unsigned long long)d->start, (unsigned long long)d->end,
				(unsigned long long)(d->end - d->start));
	if (d->fixed_buf)
		uc_finding_text(f, ", registered buffer index %u", d->buf_index);
	if (d->vectored)
		uc_finding_text(f, ", one of %u iovecs", d->nr_ranges);
	if (d->provided)
		uc_finding_text(f, ", provided buffer %u of group %u", d->bid, d->bgid);
	uc_finding_text(f, "\n");
	/* The SQPOLL thread's stack is the kernel's: an SQPOLL request's is
	 * the program's call that published it, when one was seen. */
	uc_finding_show_stack(f, "submitted at:",
			      uc_finding_stack(f, stack_role, d->stack_id, d->sqpoll ?
					       kind_why_no_sqpoll_stack(rep, d->sq_unpublished) :
					       kind_why_no_stack(rep, false)));
}

json_object *kind_request_json(const struct uc_request_desc *d)
{
	json_object *o = json_object_new_object();
	char b[16];

	json_object_object_add(o, "opcode", json_object_new_string(uc_opcode_name(d->opcode, b)));
	json_object_object_add(o, "user_data", uc_json_hex(d->user_data));
	json_object_object_add(o, "ring_fd", json_object_new_int(d->ring_fd));
	json_object_object_add(o, "pid", json_object_new_int64(d->tgid));
	json_object_object_add(o, "tid", json_object_new_int64(d->tid));
	json_object_object_add(o, "sqpoll", json_object_new_boolean(d->sqpoll));
	json_object_object_add(o, "direction", json_object_new_string(kind_dir_name(d->direction)));
	json_object_object_add(o, "range", uc_json_range(d->start, d->end));
	json_object_object_add(o, "fixed_buffer_index",
			       d->fixed_buf ? json_object_new_int(d->buf_index) : NULL);
	json_object_object_add(o, "iovecs", json_object_new_int64(d->vectored ? d->nr_ranges : 0));
	if (d->provided) {
		json_object *pb = json_object_new_object();

		json_object_object_add(pb, "group", json_object_new_int(d->bgid));
		json_object_object_add(pb, "id", json_object_new_int(d->bid));
		json_object_object_add(o, "provided_buffer", pb);
	} else {
		json_object_object_add(o, "provided_buffer", NULL);
	}
	return o;
}

const char *kind_syscall_name(int nr, char *buf, size_t len)
{
	char *n = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, nr);

	if (n)
		snprintf(buf, len, "%s", n);
	else
		snprintf(buf, len, "syscall %d", nr);
	free(n);
	return buf;
}

const char *kind_dir_name(uint8_t d)
{
	return d == UC_DIR_SINK ? "sink" : d == UC_DIR_SOURCE ? "source" : "none";
}

const char *kind_unmap_call(uint32_t nr, uint64_t advice)
{
	switch (nr) {
	case UC_NR_MUNMAP: return "munmap";
	case UC_NR_MREMAP: return "mremap";
	case UC_NR_MMAP: return "mmap(MAP_FIXED)";
	case UC_NR_BRK: return "brk";
	case UC_NR_MADVISE:
		return advice == 4 ? "madvise(MADV_DONTNEED)" :
		       advice == 8 ? "madvise(MADV_FREE)" : "madvise(MADV_REMOVE)";
	default: return "unmap";
	}
}
