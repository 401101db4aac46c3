/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Session slots of the kernel side (bpf/uringcheck.h, UC_MAX_SESSIONS):
 * one per uringcheck instance using it, with its settings and owner in
 * the "sessions" map. Called with the registry lock held (shared.h), so
 * claims by instances starting together do not race.
 */
#ifndef UC_SLOTS_H
#define UC_SLOTS_H

#include <stdint.h>
#include <linux/types.h>

#include "uringcheck.h"

struct uringcheck_bpf;

/* A free slot, or one whose owner died (its leftovers cleared), now
 * @want's; -1 with errno EBUSY if all UC_MAX_SESSIONS are taken. */
int slots_claim(struct uringcheck_bpf *skel, const struct uc_session_cfg *want);
/* Frees @slot: its processes and rings forgotten, its counters zeroed. */
void slots_release(struct uringcheck_bpf *skel, uint32_t slot);

#endif
