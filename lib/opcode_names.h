/* SPDX-License-Identifier: GPL-2.0 */
#ifndef UC_OPCODE_NAMES_H
#define UC_OPCODE_NAMES_H

#include <stdint.h>

/* "READ", "SEND_ZC", ... (the IORING_OP_ suffix); "OP_<n>" if unknown. */
const char *uc_opcode_name(uint8_t opcode, char buf[16]);

#endif
