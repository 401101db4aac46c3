// SPDX-License-Identifier: GPL-2.0
/* Built without -g and stripped (strip --strip-all): the static function
 * has no symbol left, so it can only be module+offset; the exported entry
 * keeps its .dynsym name but has no line. .eh_frame survives stripping,
 * so unwinding through both still works. */
#include "uct_lib.h"

static volatile int sink;

__attribute__((noinline)) static int hidden_step(uct_fn fn, int arg)
{
	int r = fn(arg ^ 5);
	sink = r;		/* no tail call */
	return r + 7;
}

__attribute__((noinline)) int uct_stripped_entry(uct_fn fn, int arg)
{
	int r = hidden_step(fn, arg + 2);
	sink = r;
	return r - 1;
}
