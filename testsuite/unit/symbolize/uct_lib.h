/* SPDX-License-Identifier: GPL-2.0 */
/* The test libraries' entry points; each calls @fn(arg) a few frames
 * down and records the line of its own call in *_line. */
#ifndef UCT_LIB_H
#define UCT_LIB_H

#ifdef __cplusplus
extern "C" {
#endif

typedef int (*uct_fn)(int);

/* libuct_cb.so: linked into the target, built with -g. */
int uct_cb_call(uct_fn fn, int arg);
extern int uct_cb_line;

/* libuct_cxx.so: C++, dlopen'ed, -g; the call is made by a member
 * function uct::Walker::step(int). */
int uct_cxx_entry(uct_fn fn, int arg);
extern int uct_cxx_line;

/* libuct_stripped.so: dlopen'ed, no -g, strip --strip-all; entry calls a
 * static (symbol-less) function that calls fn. */
int uct_stripped_entry(uct_fn fn, int arg);

#ifdef __cplusplus
}
#endif

#endif
