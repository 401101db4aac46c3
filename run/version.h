/* SPDX-License-Identifier: GPL-2.0 */
/* --version: uringcheck's version, its kinds, the kernel's hooks. */
#ifndef UC_RUN_VERSION_H
#define UC_RUN_VERSION_H

#include <stdio.h>

#include "../lib/version.h"

/* The version, the hazard kinds, and which kernel hooks this kernel
 * offers (probed). */
void print_version(FILE *out);

#endif
