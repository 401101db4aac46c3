/* SPDX-License-Identifier: GPL-2.0 */
#ifndef UC_VERSION_H
#define UC_VERSION_H

#include <stdio.h>

#define UC_VERSION "0.3.0"

#endif
