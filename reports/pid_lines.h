/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every line a report prints carries the "==PID==" prefix of the finding
 * it belongs to, so that the lines of one process can be picked out of an
 * interleaved log (grep ==1234==), as the sanitizers' header lines allow.
 *
 * A stream over the real output: a line that already starts with
 * "==PID==" passes unchanged and sets the PID for the lines after it;
 * every other non-empty line gets that prefix. Suppression blocks
 * (--gen-suppressions, from a "{" line to a "}" line) pass unchanged, to
 * be pasted into a suppressions file as they are.
 */
#ifndef UC_PID_LINES_H
#define UC_PID_LINES_H

#include <stdio.h>

/* A stream writing to @out as above; @out is not closed with it. Lines
 * before the first "==PID==" header get @pid's prefix (0: none). */
FILE *pid_lines_open(FILE *out, int pid);

#endif
