/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The io_uring opcodes, from one table (lib/opcodes.def): their names, what
 * each does to user memory while in flight, and whether the kernel always
 * runs it in the io-wq worker pool.
 */
#ifndef UC_OPCODE_NAMES_H
#define UC_OPCODE_NAMES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum uc_op_memory {
	UC_OP_NONE,	/* touches no user memory */
	UC_OP_COPIED,	/* its arguments are copied at submission */
	UC_OP_STORES,	/* stores into user memory while in flight */
	UC_OP_LOADS,	/* loads from user memory while in flight */
	UC_OP_DRIVER,	/* decided by the driver (URING_CMD) */
};

/* "READ", "SEND_ZC", ... (the IORING_OP_ suffix); "OP_<n>" if unknown. */
const char *uc_opcode_name(uint8_t opcode, char buf[16]);
/* Whether the table knows @opcode (an opcode newer than it is not). */
bool uc_opcode_known(uint8_t opcode);
/* The kernel sends every such request to io-wq: a punt is its design. */
bool uc_opcode_always_async(uint8_t opcode);
/* The number of the opcode named @name ("READ", "read"); -1 if none. */
int uc_opcode_lookup(const char *name);
/* --list-ops: one tab-separated line per opcode: number, name, memory
 * (stores, loads, copied, none, driver), async (always, maybe). */
void uc_opcodes_list(FILE *out);

#endif
