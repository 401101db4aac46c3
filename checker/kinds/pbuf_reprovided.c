// SPDX-License-Identifier: GPL-2.0
/*
 * pbuf-reprovided: the memory of a provided buffer was available to the
 * kernel in its buffer ring again while a request still held it
 * (docs/hazards.md). The program puts buffers back with plain stores
 * into the ring, which no hook sees: the evidence is the ring itself at
 * the holder's CQE, and the holder's submission.
 */
#include "builder_common.h"

static void describe(struct uc_finding *f, const struct uc_report *rep)
{
	const struct uc_pbuf_finding *x = f->src;
	const struct uc_request_desc *h = &x->holder;
	char b[16];

	uc_finding_title(f, "provided buffer %u of group %u was back in its buffer ring "
			 "while %s still held it", x->bid, x->bgid, uc_opcode_name(h->opcode, b));
	kind_request_text(f, rep, "held by", h, "holder submitted");
	uc_finding_text(f, "  at the CQE that handed it back (res %d), the same memory was "
			"entry %u of the ring,\n  among the %u entries the kernel could still "
			"pick: it had been added again before\n  the program could know the "
			"request was done with it.\n", x->res, x->again_pos, x->avail);
	uc_finding_text(f, "  A second request can receive into it while the first one still "
			"stores: add a buffer\n  back only after consuming the CQE that carries "
			"its buffer id.\n");

	uc_finding_evidence(f, "group", json_object_new_int(x->bgid));
	uc_finding_evidence(f, "buffer_id", json_object_new_int(x->bid));
	uc_finding_evidence(f, "ring_position", json_object_new_int64(x->again_pos));
	uc_finding_evidence(f, "available", json_object_new_int64(x->avail));
	uc_finding_evidence(f, "res", json_object_new_int(x->res));
	uc_finding_evidence(f, "holder", kind_request_json(h));
}

void report_pbuf_reprovided(struct uc_report *rep, const struct uc_pbuf_finding *x)
{
	struct uc_finding f;
	char b[16];

	uc_finding_init(&f, &uc_kind_rules[UC_KIND_PBUF_REPROVIDED], x->tgid);
	uc_finding_headline(&f, "pbuf-reprovided buffer %u of group %u held by %s in pid %u",
			    x->bid, x->bgid, uc_opcode_name(x->holder.opcode, b), x->tgid);
	f.key = x->key;
	f.site_stack = x->holder.stack_id;
	f.describe = describe;
	f.src = x;
	report_finding(rep, &f);
}
