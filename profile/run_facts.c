// SPDX-License-Identifier: GPL-2.0
#include "run_facts.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The kernel's tables see each worker that ran; how many were alive at
 * once (the fan-out) is a count of threads: /proc is read once a second,
 * for the processes that have rings only. */
void pf_sample_threads(struct pf_run_facts *f, uint32_t tgid)
{
	char path[64], comm[32];
	uint32_t wrk = 0, sqp = 0;
	struct dirent *d;
	struct pf_peak *p = NULL;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%u/task", tgid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		FILE *c;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%u/task/%.16s/comm", tgid, d->d_name);
		c = fopen(path, "r");
		if (!c)
			continue;
		if (fgets(comm, sizeof(comm), c)) {
			if (!strncmp(comm, "iou-wrk-", 8))
				wrk++;
			else if (!strncmp(comm, "iou-sqp-", 8))
				sqp++;
		}
		fclose(c);
	}
	closedir(dir);
	for (size_t i = 0; i < f->npeaks; i++)
		if (f->peaks[i].tgid == tgid)
			p = &f->peaks[i];
	if (!p) {
		void *n = realloc(f->peaks, (f->npeaks + 1) * sizeof(*f->peaks));

		if (!n)
			return;
		f->peaks = n;
		p = &f->peaks[f->npeaks++];
		*p = (struct pf_peak){ .tgid = tgid };
	}
	if (wrk > p->workers)
		p->workers = wrk;
	if (sqp > p->sqpoll)
		p->sqpoll = sqp;
}

void pf_run_facts_free(struct pf_run_facts *f)
{
	free(f->submits_per_s);
	free(f->completes_per_s);
	free(f->peaks);
	free(f->hazards);
	memset(f, 0, sizeof(*f));
}
