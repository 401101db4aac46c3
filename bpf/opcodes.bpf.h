/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The opcode table (lib/opcodes.def, the one user space prints with
 * --list-ops) as constants the check programs test a request against:
 * how many opcodes it knows, and which of them hold user memory while in
 * flight. A request the classification reads no range of, of an opcode
 * that holds memory or that the table does not know, is counted
 * (UC_STAT_OPS_UNJUDGED), never passed over in silence.
 */
#ifndef __OPCODES_BPF_H
#define __OPCODES_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

/* The table's memory column: does a request hold user memory? */
#define UC_OPMEM_NONE	0ull
#define UC_OPMEM_COPIED	0ull
#define UC_OPMEM_STORES	1ull
#define UC_OPMEM_LOADS	1ull
#define UC_OPMEM_DRIVER	1ull

/* How many opcodes the table knows (its numbers are dense from 0). */
#define OPCODE(num, name, memory, async) + 1
enum { UC_OPS_KNOWN = 0
#include "../lib/opcodes.def"
};
#undef OPCODE

_Static_assert(UC_OPS_KNOWN <= 64, "one bit per opcode below");

/*
 * Whether a request of opcode @op may hold user memory while in flight:
 * the table says it does (bit @op of a mask the compiler folds from the
 * table: no map, no load), or the table does not know @op.
 */
static __always_inline bool opcode_may_hold(__u32 op)
{
#define OPCODE(num, name, memory, async) | (UC_OPMEM_##memory << (num))
	const __u64 holding = 0ull
#include "../lib/opcodes.def"
		;
#undef OPCODE

	return op >= UC_OPS_KNOWN || ((holding >> op) & 1);
}

/*
 * Whether a request of opcode @op that the classification read no range
 * of goes unjudged: one that may hold memory (above).
 */
static __always_inline bool opcode_unjudged(__u32 op)
{
	return opcode_may_hold(op);
}

#endif /* __OPCODES_BPF_H */
