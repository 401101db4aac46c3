// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the suppression parser and matcher
 * (reports/suppressions.c). The input is a suppression file's bytes,
 * handed over in a buffer of exactly that size (no NUL after it: the
 * parser must stay within @len). A file that parses is matched against
 * a fixed short stack and a long one (past the matcher's 64-frame
 * buffer on the stack), for every kind, then freed.
 *
 *   make fuzz && .output-fuzz/fuzz_suppressions testsuite/fuzz/corpus/suppressions
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kind_registry.h"
#include "suppressions.h"
#include "kinds/kinds.h"

static struct uc_supp_frame short_stack[8], long_stack[80];
static char long_names[80][24];
static FILE *devnull;

static void setup(void)
{
	static const struct uc_supp_frame s[8] = {
		{ "io_uring_submit", "queue.c", "liburing.so.2", 0x1000, 0x100, 12, false },
		{ "submit_read", "legacy/copy.c", "copier", 0x2000, 0x200, 40, true },
		{ NULL, NULL, "libfoo.so", 0x3000, 0x300, 0, false },
		{ "copy_file", "legacy/copy.c", "copier", 0x4000, 0x400, 88, false },
		{ "std::vector<int>::push_back(int&&)", "/usr/include/c++/12/bits/stl_vector.h",
		  "copier", 0x5000, 0x500, 1201, true },
		{ "main", NULL, "copier", 0x6000, 0x600, 0, false },
		{ NULL, NULL, NULL, 0x7000, 0, 0, false },
		{ "__libc_start_main", "../csu/libc-start.c", "libc.so.6", 0x8000, 0x800, 392, false },
	};

	kinds_register();
	memcpy(short_stack, s, sizeof(s));
	for (int i = 0; i < 80; i++) {
		snprintf(long_names[i], sizeof(long_names[i]), "frame_%d", i);
		long_stack[i] = (struct uc_supp_frame){
			.function = i % 7 == 3 ? NULL : long_names[i],
			.file = i % 2 ? "a.c" : "dir/b.c",
			.module = i % 5 ? "prog" : "libx.so.1",
			.pc = 0x400000 + 16 * (uint64_t)i,
			.line = i,
		};
	}
	long_stack[79].function = "io_uring_submit";
	devnull = fopen("/dev/null", "w");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct uc_suppressions s = { 0 };
	char *text;

	if (!ready) {
		setup();
		ready = 1;
	}
	text = malloc(size ? size : 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	if (supp_parse(&s, "fuzz.supp", text, size) == 0) {
		for (int k = 0; k < uc_kinds_count(); k++) {
			const char *kind = uc_kind_name(k);

			supp_count_hit(&s, supp_match(&s, kind, short_stack, 8));
			supp_match(&s, kind, long_stack, 80);
			supp_match(&s, kind, short_stack, 0);
		}
		supp_match(&s, "no-such-kind", short_stack, 8);
		if (devnull) {
			supp_print_used(&s, devnull, 42);
			supp_print_entry(devnull, uc_kind_name(0), short_stack, 8);
		}
	}
	supp_free(&s);
	free(text);
	return 0;
}
