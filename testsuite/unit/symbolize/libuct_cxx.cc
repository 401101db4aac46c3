// SPDX-License-Identifier: GPL-2.0
/* A C++ frame (dlopen'ed, later dlclose'd): the name must come back
 * demangled, uct::Walker::step(int). */
#include "uct_lib.h"

int uct_cxx_line;

namespace uct {
class Walker {
public:
	explicit Walker(uct_fn fn) : fn_(fn) {}
	__attribute__((noinline)) int step(int arg);
private:
	uct_fn fn_;
};

int Walker::step(int arg)
{
	int r;
	uct_cxx_line = __LINE__; r = fn_(arg + 1);
	return r * 2 + arg;	/* no tail call */
}
} // namespace uct

extern "C" __attribute__((noinline)) int uct_cxx_entry(uct_fn fn, int arg)
{
	uct::Walker w(fn);
	return w.step(arg) + 1;
}
