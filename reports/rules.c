// SPDX-License-Identifier: GPL-2.0
/*
 * The hazard kinds as rules (reports/finding.h): name, SARIF
 * descriptions, help and fix, in one table. A new kind is one entry
 * here, one builder in reports/kinds/ and one enum value.
 */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#define KIND(k) .kind = (k), .severity = UC_SEV_WARNING

const struct uc_rule uc_kind_rules[UC_KIND__COUNT] = {
	[UC_KIND_OVERLAP] = { KIND(UC_KIND_OVERLAP),
		.name = "overlap",
		.sarif_id = "OverlappingInFlightBuffers",
		.short_desc = "Two in-flight io_uring requests share buffer bytes and one writes them",
		.full_desc = "Two requests were in flight at once in one process, their user "
			"buffers share at least one byte, at least one of them stores into it, "
			"and the kernel does not order them (no link chain, no drain).",
		.help = "Which data ends up in the buffer (or is sent) depends on completion "
			"order: silent corruption.",
		.fix = "Use distinct buffers, or order the requests with IOSQE_IO_LINK, or "
			"reuse the buffer only after its CQE.",
		.security_severity = "7.0" },
	[UC_KIND_BUFREG_LIFETIME] = { KIND(UC_KIND_BUFREG_LIFETIME),
		.name = "bufreg-lifetime",
		.sarif_id = "RegisteredBufferReleasedInUse",
		.short_desc = "A registered buffer was unregistered or replaced while a request used it",
		.full_desc = "IORING_UNREGISTER_BUFFERS or IORING_REGISTER_BUFFERS_UPDATE released "
			"an index that an in-flight request (READ_FIXED, WRITE_FIXED, ...) uses.",
		.help = "The kernel keeps the old pages pinned, so the call succeeds, but the "
			"request still accesses memory the program let go.",
		.fix = "Wait for the request's CQE before unregistering or updating the index.",
		.security_severity = "7.5" },
	[UC_KIND_MUNMAP_INFLIGHT] = { KIND(UC_KIND_MUNMAP_INFLIGHT),
		.name = "munmap-inflight",
		.sarif_id = "MemoryReleasedUnderInFlightRequest",
		.short_desc = "Memory an in-flight io_uring request uses was unmapped or discarded",
		.full_desc = "munmap, a shrinking or moving mremap, or "
			"madvise(DONTNEED/FREE/REMOVE) covered bytes of an in-flight request's "
			"buffer.",
		.help = "The kernel may write into released (or since reused) memory.",
		.fix = "Cancel and reap the request before releasing its buffer.",
		.security_severity = "8.0" },
	[UC_KIND_DROPPED] = { KIND(UC_KIND_DROPPED),
		.name = "dropped",
		.sarif_id = "WorkDroppedByKernel",
		.short_desc = "The kernel discarded SQEs or could not post CQEs on a ring",
		.full_desc = "The ring's sq_dropped counter rose (an SQ array entry indexed past "
			"the ring) or its cq_overflow counter rose (a CQE that neither the CQ "
			"ring nor the overflow list could take).",
		.help = "The program waits for completions that will never come.",
		.fix = "Keep SQ indexes in range; reap completions so the CQ ring does not fill.",
		.security_severity = "6.0" },
	[UC_KIND_LEFT_IN_FLIGHT] = { KIND(UC_KIND_LEFT_IN_FLIGHT),
		.name = "left-in-flight",
		.sarif_id = "RequestsLeftInFlightAtTeardown",
		.short_desc = "io_uring requests or completions were left when the ring or "
			"process went away",
		.full_desc = "At process exit, exec, a fatal signal, or the close of a ring's "
			"last descriptor, requests were still in flight or CQEs unconsumed; the "
			"kernel cancels them.",
		.fix = "Cancel (IORING_OP_ASYNC_CANCEL) and reap every request before tearing "
			"the ring down; never reuse or free a buffer before its request's CQE.",
		.security_severity = "2.0" },
	[UC_KIND_REAP_LAG] = { KIND(UC_KIND_REAP_LAG),
		.name = "reap-lag",
		.sarif_id = "CompletionReapLag",
		.short_desc = "A completion waited in the CQ ring longer than the threshold",
		.full_desc = "A CQE sat ready in the completion ring longer than --reap-lag-ms "
			"before the program consumed it.",
		.fix = "Reap completions promptly; a long lag delays whatever waits on them and "
			"fills the CQ ring.",
		.security_severity = "1.0" },
	[UC_KIND_BUFREG_UNMAPPED] = { KIND(UC_KIND_BUFREG_UNMAPPED),
		.name = "bufreg-unmapped",
		.sarif_id = "RegisteredBufferMemoryReleased",
		.short_desc = "Memory backing a registered buffer was released while it stayed "
			"registered",
		.full_desc = "munmap, a shrinking or moving mremap, "
			"madvise(DONTNEED/FREE/REMOVE), mmap(MAP_FIXED) or a shrinking brk "
			"covered memory registered with IORING_REGISTER_BUFFERS, and the index "
			"was not unregistered first.",
		.help = "The kernel keeps the old pages pinned: later fixed-buffer requests on "
			"that index use memory the program no longer sees.",
		.fix = "Unregister or update the index before releasing its memory.",
		.security_severity = "5.0" },
	[UC_KIND_SYNC_OVERLAP] = { KIND(UC_KIND_SYNC_OVERLAP),
		.name = "sync-overlap",
		.sarif_id = "SyncCallIntoInFlightBuffer",
		.short_desc = "A plain system call stored into, or sent from, an in-flight io_uring "
			"read buffer",
		.full_desc = "read, pread64, readv, preadv(2), recvfrom, recvmsg, recvmmsg or "
			"getrandom stored into bytes an in-flight read request is also storing "
			"into, or write, pwrite64, writev, pwritev(2), sendto, sendmsg or sendmmsg "
			"loaded bytes an "
			"in-flight read is filling (not the pipe or socket pair the read waits "
			"on: that data flow orders them).",
		.help = "The bytes that remain, or are sent, depend on timing: silent corruption.",
		.fix = "Wait for the request's CQE before touching its buffer with another "
			"system call.",
		.security_severity = "7.0" },
	[UC_KIND_USER_DATA_REUSE] = { KIND(UC_KIND_USER_DATA_REUSE),
		.name = "user-data-reuse",
		.sarif_id = "UserDataPointerReused",
		.short_desc = "A request reused the pointer user_data of a request still in flight",
		.full_desc = "A request was submitted with a user_data that points into the "
			"process's memory (its request context) while another request with the "
			"same user_data was still in flight on the same ring.",
		.help = "Both completions reach one context: the program cannot tell them "
			"apart, and if the context was freed and reused, the stale completion "
			"goes to its new owner.",
		.fix = "Give each in-flight request its own context.",
		.security_severity = "4.0" },
	[UC_KIND_PBUF_REPROVIDED] = { KIND(UC_KIND_PBUF_REPROVIDED),
		.name = "pbuf-reprovided",
		.sarif_id = "ProvidedBufferReprovidedInUse",
		.short_desc = "A provided buffer was put back in its buffer ring while a request "
			"still held it",
		.full_desc = "The kernel picked a buffer of a provided-buffer ring for a request, "
			"and before the CQE that hands it back, the same memory was among the "
			"ring's entries available to the kernel again.",
		.help = "The kernel can pick that memory for a second request while the first "
			"still stores into it: two receives land in one buffer, silently.",
		.fix = "Add a buffer back to the ring (io_uring_buf_ring_add + advance) only "
			"after consuming the CQE that carries its buffer id.",
		.security_severity = "7.0" },
};

const char *uc_kind_name(enum uc_kind k)
{
	return k < UC_KIND__COUNT ? uc_kind_rules[k].name : "unknown";
}

int uc_kind_lookup(const char *name)
{
	for (int k = 0; k < UC_KIND__COUNT; k++)
		if (!strcmp(name, uc_kind_rules[k].name))
			return k;
	/* Before 0.2, unconsumed CQEs at a teardown were a kind of their
	 * own; they are a count in the left-in-flight report now. */
	if (!strcmp(name, "unreaped-cqe"))
		return UC_KIND_LEFT_IN_FLIGHT;
	return -1;
}

void uc_kinds_print(FILE *out)
{
	for (int k = 0; k < UC_KIND__COUNT; k++)
		fprintf(out, " %s", uc_kind_rules[k].name);
}

int uc_kinds_parse(const char *list, unsigned int *mask, const char *option)
{
	char *copy = strdup(list), *save = NULL, *tok;
	unsigned int m = 0;

	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int k;

		if (!strcmp(tok, "all")) {
			m = UC_KINDS_ALL;
			continue;
		}
		if (!strcmp(tok, "none"))
			continue;
		k = uc_kind_lookup(tok);
		if (k < 0) {
			fprintf(stderr, "uringcheck: %s: unknown kind '%s'; valid kinds:",
				option, tok);
			uc_kinds_print(stderr);
			fprintf(stderr, " (or all, none)\n");
			free(copy);
			return -1;
		}
		m |= UC_KIND_BIT(k);
	}
	free(copy);
	*mask = m;
	return 0;
}
