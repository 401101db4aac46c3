/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --events=FILE: the trace records as rows of the io_uring event
 * catalogue (ENTER, SUBMIT, COMPLETE, WORKER, plus POLL_ARM, PUNT,
 * REGISTER, SETUP), as CSV (FILE.csv) or JSON lines (FILE.jsonl).
 */
#ifndef UC_EV_EXPORT_H
#define UC_EV_EXPORT_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trace.h"

struct ev_export;

/* NULL with a message in @err (bad name, cannot create). */
struct ev_export *ev_export_open(const char *path, char *err, size_t errlen);
void ev_export_record(struct ev_export *x, const void *rec, size_t size);
/* Closes, after a LOST row (result: how many records) if @lost; the
 * number of rows written in *rows. -1 on a write error. */
int ev_export_close(struct ev_export *x, uint64_t *rows, uint64_t lost);

#endif
