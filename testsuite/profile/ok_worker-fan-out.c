/* uringcheck-profile-test: expect=clean */
// SPDX-License-Identifier: GPL-2.0
/*
 * inj_worker-fan-out.c with 4 pipes: 4 blocked workers, a routine count
 * on any machine. Must stay silent.
 */
#define N 4
#include "inj_worker-fan-out.c"
