/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uringcheck's own exit statuses. When nothing is found the target's
 * status passes through unchanged (128+N if it died of signal N), so these
 * avoid the values test harnesses give meaning to: 1 (generic failure),
 * 77 (skip), 99 (hard error), 124-127 (timeout(1)/shell) and 128+.
 */
#ifndef UC_EXIT_CODES_H
#define UC_EXIT_CODES_H

#define UC_EXIT_FINDINGS	66	/* default of --error-exitcode */
#define UC_EXIT_TOOL_ERROR	70	/* uringcheck itself failed */
#define UC_EXIT_USAGE		2	/* bad command line / options */
#define UC_EXIT_NOT_FOUND	127	/* target missing or not executable */

#endif
