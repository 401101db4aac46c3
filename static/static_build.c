// SPDX-License-Identifier: GPL-2.0
/*
 * The static binary's start-up note (static_build.h): a server named in
 * DEBUGINFOD_URLS is not asked, and the user is told so before any
 * report, rather than finding frames without names and no reason.
 */
#include "static_build.h"

#include <stdlib.h>

void static_build_notes(FILE *err)
{
	const char *urls = getenv("DEBUGINFOD_URLS");

	if (urls && *urls)
		fprintf(err, "uringcheck: note: DEBUGINFOD_URLS is ignored: this is the "
			"static build, which has no debuginfod client; debug info is "
			"looked up on this machine only (by build-id under "
			"/usr/lib/debug, by .gnu_debuglink)\n");
}
