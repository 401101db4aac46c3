// SPDX-License-Identifier: GPL-2.0
/*
 * uc_unwind: libdw's thread-state unwinder run on a register + stack
 * snapshot. Why libdw rather than libunwind: see unwind.h.
 *
 * The session (Dwfl with the snapshot's modules) is attached once, with
 * one pseudo-thread whose tid is the snapshot's pid; each uc_unwind
 * points the session at its capture and asks for that thread's frames.
 */
#define _GNU_SOURCE
#include "unwind.h"
#include "dwfl_session.h"

#include <errno.h>
#include <string.h>

/* x86-64 DWARF register numbers (psABI figure 3.36). */
enum {
	DW_RBX = 3,
	DW_RBP = 6,
	DW_RSP = 7,
	DW_R12 = 12,
	DW_RIP = 16,
};

static pid_t thread_tid(struct uc_dw *dw)
{
	pid_t pid = uc_maps_pid(dw->maps);
	return pid > 0 ? pid : 1;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct uc_dw *dw = arg;
	if (*thread_argp)
		return 0;		/* one thread only */
	*thread_argp = dw;
	return thread_tid(dw);
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	struct uc_dw *dw = arg;
	if (tid != thread_tid(dw))
		return false;
	*thread_argp = dw;
	return true;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			void *arg)
{
	struct uc_dw *dw = arg;
	uint64_t sp = dw->regs->sp;

	if (addr >= sp && dw->stack_len >= 8 &&
	    addr - sp <= dw->stack_len - 8) {
		memcpy(result, dw->stack + (addr - sp), 8);
		if (addr - sp + 8 > dw->stack_need)
			dw->stack_need = addr - sp + 8;
		if (dw->reads) {
			if (dw->nreads < dw->reads_max)
				dw->reads[dw->nreads++] = (uint16_t)(addr - sp);
			else
				dw->reads_over = true;
		}
		return true;
	}
	/* Above the copy but where a longer one would have reached: the
	 * stack went on past what was copied. */
	if (addr >= sp + dw->stack_len && addr - sp < UC_STACK_COPY_MAX)
		dw->ran_out = true;
	/* Outside the copy: only read-only file contents are known. */
	uint64_t v;
	if (uc_maps_read(dw->maps, addr, &v, sizeof(v))) {
		*result = v;
		return true;
	}
	return false;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct uc_dw *dw = arg;
	const struct uc_user_regs *r = dw->regs;
	const Dwarf_Word bx = r->bx;
	const Dwarf_Word bp_sp[2] = { r->bp, r->sp };
	const Dwarf_Word r12_15[4] = { r->r12, r->r13, r->r14, r->r15 };
	const Dwarf_Word ip = r->ip;

	/* rax, rdx, rcx, rsi, rdi, r8-r11 are not captured: left unset,
	 * libdw treats them as undefined. */
	if (!dwfl_thread_state_registers(thread, DW_RBX, 1, &bx) ||
	    !dwfl_thread_state_registers(thread, DW_RBP, 2, bp_sp) ||
	    !dwfl_thread_state_registers(thread, DW_R12, 4, r12_15) ||
	    !dwfl_thread_state_registers(thread, DW_RIP, 1, &ip))
		return false;
	dwfl_thread_state_register_pc(thread, ip);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

struct collect {
	uint64_t *pcs;
	int n, max;
	bool full;			/* stopped at @max frames */
};

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct collect *c = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	/* A zero return address ends the chain (outermost frame). */
	if (c->n > 0 && pc == 0)
		return DWARF_CB_ABORT;
	/* No check for repeated pcs: recursion repeats return addresses
	 * legitimately. A looping unwind (bogus frame pointers) just
	 * fills @max. */
	c->pcs[c->n++] = pc;
	c->full = c->n >= c->max;
	return c->full ? DWARF_CB_ABORT : DWARF_CB_OK;
}

int uc_unwind(struct uc_maps *m, const struct uc_user_regs *regs,
	      const void *stack, size_t len, uint64_t *pcs, int max)
{
	return uc_unwind_info(m, regs, stack, len, pcs, max, NULL);
}

int uc_unwind_info(struct uc_maps *m, const struct uc_user_regs *regs,
		   const void *stack, size_t len, uint64_t *pcs, int max,
		   struct uc_unwind_info *info)
{
	return uc_unwind_reads(m, regs, stack, len, pcs, max, info, NULL, 0, NULL);
}

int uc_unwind_reads(struct uc_maps *m, const struct uc_user_regs *regs,
		    const void *stack, size_t len, uint64_t *pcs, int max,
		    struct uc_unwind_info *info, uint16_t *reads, size_t reads_max,
		    size_t *nreads)
{
	int rc;

	if (info)
		memset(info, 0, sizeof(*info));
	if (nreads)
		*nreads = 0;
	if (!m || !regs || (!pcs && max > 0)) {
		errno = EINVAL;
		return -1;
	}
	if (max < 1)
		return 0;

	struct uc_dw *dw = uc_dw_get(m);
	if (dw && !dw->attached && !dw->attach_failed) {
		/* NULL Elf: libdw picks the architecture from a module. */
		if (dwfl_attach_state(dw->dwfl, NULL, thread_tid(dw),
				      &thread_callbacks, dw))
			dw->attached = true;
		else
			dw->attach_failed = true;
	}
	if (!dw || !dw->attached) {
		pcs[0] = regs->ip;
		return 1;
	}

	dw->regs = regs;
	dw->stack = stack;
	dw->stack_len = stack ? len : 0;
	dw->stack_need = 0;
	dw->ran_out = false;
	dw->reads = reads;
	dw->reads_max = reads_max;
	dw->nreads = 0;
	dw->reads_over = false;
	struct collect c = { .pcs = pcs, .max = max };
	/* Ends with an error at the first frame that cannot be unwound
	 * (stack copy exhausted, no CFI, pc outside every module): what
	 * was collected until then is the answer. 0: the outermost frame
	 * was reached (its return address undefined); DWARF_CB_ABORT:
	 * frame_cb stopped it (@max frames, or a zero return address). */
	rc = dwfl_getthread_frames(dw->dwfl, thread_tid(dw), frame_cb, &c);
	if (info) {
		info->need = dw->stack_need;
		info->ran_out = dw->ran_out;
		info->outermost = rc == 0 || (rc == DWARF_CB_ABORT && !c.full);
	}
	if (nreads)
		*nreads = dw->reads_over ? reads_max + 1 : dw->nreads;
	dw->regs = NULL;
	dw->stack = NULL;
	dw->stack_len = 0;
	dw->reads = NULL;
	if (c.n == 0)
		pcs[c.n++] = regs->ip;
	return c.n;
}
