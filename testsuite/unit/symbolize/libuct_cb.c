// SPDX-License-Identifier: GPL-2.0
/* A shared library frame between two frames of the target: the target
 * calls uct_cb_call, which calls back into the target. */
#include "uct_lib.h"

int uct_cb_line;

__attribute__((noinline)) int uct_cb_call(uct_fn fn, int arg)
{
	int r;
	uct_cb_line = __LINE__; r = fn(arg * 3);
	return r + arg;		/* no tail call */
}
