// SPDX-License-Identifier: GPL-2.0
/* The opcode table (opcodes.def) as lookups; one row per uapi opcode. */
#include "opcode_names.h"

#include <strings.h>

struct opcode_row {
	const char *name;
	enum uc_op_memory memory;
	bool always_async;
};

#define NONE	UC_OP_NONE
#define COPIED	UC_OP_COPIED
#define STORES	UC_OP_STORES
#define LOADS	UC_OP_LOADS
#define DRIVER	UC_OP_DRIVER
#define ALWAYS	true
#define MAYBE	false
static const struct opcode_row rows[] = {
#define OPCODE(num, name, memory, async) [num] = { #name, memory, async },
#include "opcodes.def"
#undef OPCODE
};
#undef NONE
#undef COPIED
#undef STORES
#undef LOADS
#undef DRIVER
#undef ALWAYS
#undef MAYBE

#define NROWS (sizeof(rows) / sizeof(rows[0]))

bool uc_opcode_known(uint8_t opcode)
{
	return opcode < NROWS && rows[opcode].name;
}

const char *uc_opcode_name(uint8_t opcode, char buf[16])
{
	if (uc_opcode_known(opcode))
		return rows[opcode].name;
	snprintf(buf, 16, "OP_%u", opcode);
	return buf;
}

bool uc_opcode_always_async(uint8_t opcode)
{
	return uc_opcode_known(opcode) && rows[opcode].always_async;
}

void uc_opcodes_list(FILE *out)
{
	static const char *const memory[] = {
		[UC_OP_NONE] = "none", [UC_OP_COPIED] = "copied",
		[UC_OP_STORES] = "stores", [UC_OP_LOADS] = "loads",
		[UC_OP_DRIVER] = "driver",
	};

	for (unsigned op = 0; op < NROWS; op++)
		if (rows[op].name)
			fprintf(out, "%u\t%s\t%s\t%s\n", op, rows[op].name,
				memory[rows[op].memory],
				rows[op].always_async ? "always" : "maybe");
}

int uc_opcode_lookup(const char *name)
{
	for (unsigned op = 0; op < NROWS; op++)
		if (rows[op].name && !strcasecmp(rows[op].name, name))
			return (int)op;
	return -1;
}
