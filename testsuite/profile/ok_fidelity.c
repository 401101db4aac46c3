/* uringcheck-profile-test: expect=clean */
// SPDX-License-Identifier: GPL-2.0
/*
 * inj_fidelity.c's two rings under the default --profile-rings: both
 * profiled, nothing missed. Must stay silent.
 */
#include "inj_fidelity.c"
