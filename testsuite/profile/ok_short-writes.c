/* uringcheck-profile-test: expect=clean */
// SPDX-License-Identifier: GPL-2.0
/*
 * inj_short-writes.c's 20 WRITEs at 4 KiB: they fit the pipe and move
 * every byte. Must stay silent.
 */
#define LEN (4 * 1024)
#include "inj_short-writes.c"
