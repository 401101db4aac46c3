// SPDX-License-Identifier: GPL-2.0
#include "slots.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>

#include "uringcheck.skel.h"

/* Rings of the processes of session @slot. */
static void forget_rings(struct uringcheck_bpf *skel, uint32_t slot)
{
	int rings = bpf_map__fd(skel->maps.rings);
	/* struct ring_info starts with tgid and session (bpf/rings.bpf.h) */
	uint32_t val[bpf_map__value_size(skel->maps.rings) / 4];
	uint64_t key, next;
	bool more;

	/* The next key is taken before the current one may be deleted. A key
	 * the kernel side deletes meanwhile restarts the walk (the next key
	 * of a missing one is the first): at most twice the table's size,
	 * so that a table always changing cannot keep this loop going. */
	size_t steps = 2 * (size_t)bpf_map__max_entries(skel->maps.rings);

	for (more = !bpf_map_get_next_key(rings, NULL, &next); more && steps--;) {
		key = next;
		more = !bpf_map_get_next_key(rings, &key, &next);
		if (!bpf_map_lookup_elem(rings, &key, val) && val[1] == slot)
			bpf_map_delete_elem(rings, &key);
	}
}

/* Processes session @slot follows. */
static void forget_processes(struct uringcheck_bpf *skel, uint32_t slot)
{
	int tracked = bpf_map__fd(skel->maps.tracked);
	uint32_t key, next;
	bool more;
	/* bounded as forget_rings' walk */
	size_t steps = 2 * (size_t)bpf_map__max_entries(skel->maps.tracked);

	for (more = !bpf_map_get_next_key(tracked, NULL, &next); more && steps--;) {
		struct uc_tracked t;

		key = next;
		more = !bpf_map_get_next_key(tracked, &key, &next);
		if (!bpf_map_lookup_elem(tracked, &key, &t) && t.session == slot)
			bpf_map_delete_elem(tracked, &key);
	}
}

/*
 * A slot whose instance is gone (or leaving): forget its processes
 * (descendants that outlive the target are not followed further) and
 * their rings (the reap-lag sampler would otherwise go on judging them,
 * and report to the slot's next owner), and start its counters from
 * zero. Ends of its requests still in flight reach the next owner's
 * buffer as sequence numbers it never saw, which it ignores.
 *
 * The event buffer stays in place until the slot's next owner replaces
 * it: every change of a map-in-map entry waits for an RCU grace period
 * (~10-20 ms here), which a delete would add to every run's exit.
 */
static void reclaim(struct uringcheck_bpf *skel, uint32_t slot)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t zeros[ncpu > 0 ? ncpu : 1];

	forget_processes(skel, slot);
	forget_rings(skel, slot);
	memset(zeros, 0, sizeof(zeros));
	for (uint32_t i = 0; i < UC_STAT__COUNT; i++) {
		uint32_t k = slot * UC_STAT__COUNT + i;

		bpf_map__update_elem(skel->maps.stats, &k, sizeof(k), zeros,
				     sizeof(zeros), BPF_ANY);
	}
}

int slots_claim(struct uringcheck_bpf *skel, const struct uc_session_cfg *want)
{
	int cfgs = bpf_map__fd(skel->maps.sessions);

	for (uint32_t slot = 0; slot < UC_MAX_SESSIONS; slot++) {
		struct uc_session_cfg c;

		if (bpf_map_lookup_elem(cfgs, &slot, &c))
			return -1;
		if (c.owner && !(kill(c.owner, 0) && errno == ESRCH))
			continue;
		reclaim(skel, slot);
		if (bpf_map_update_elem(cfgs, &slot, want, BPF_ANY))
			return -1;
		return slot;
	}
	errno = EBUSY;
	return -1;
}

void slots_release(struct uringcheck_bpf *skel, uint32_t slot)
{
	struct uc_session_cfg none = { 0 };

	reclaim(skel, slot);
	bpf_map__update_elem(skel->maps.sessions, &slot, sizeof(slot), &none,
			     sizeof(none), BPF_ANY);
}
