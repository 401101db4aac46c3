/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the symbolize tests share: a capture of this thread's registers
 * and stack the way the BPF side takes one, and the record a target sends
 * the harness: the capture plus the frames the target expects, named
 * from its own __LINE__ markers.
 */
#ifndef UCT_CAPTURE_H
#define UCT_CAPTURE_H

#include <stdint.h>
#include <string.h>

#include "../../../symbolize/unwind.h"

#define UCT_MAGIC	0x75637431u
#define UCT_MAX_EXPECT	10

struct uct_expect {
	char func[64];		/* "" : the frame must have no function;
				 * "*" : any, then skip the frames inlined
				 * at its pc; "**" : one or more frames of
				 * module, one of them named @has if set.
				 * For these two, module is a prefix
				 * ("liburing.so.2" matches liburing.so.2.3,
				 * the file /proc/PID/maps names) */
	char has[48];
	char file[48];		/* basename; "" : must have no line info */
	int line;
	char module[48];	/* basename; "" : not checked */
	int inlined;
};

struct uct_record {
	uint32_t magic;
	char name[48];		/* scenario; "end" closes the stream */
	int32_t pid;
	int32_t nsent;		/* in "end": scenarios sent before it */
	int32_t wait_syscall;	/* in "NAME-wait": the syscall the target
				 * is about to block in, for the harness
				 * to capture it there with ptrace; the
				 * next record, NAME, gets that capture.
				 * -1: scenario skipped, no NAME follows */
	char exe[48];		/* basename of the target */
	struct uc_user_regs regs;
	uint32_t stack_len;
	uint32_t nexp;
	/* Frames past the expected ones that must still be unwound into
	 * this module ("" : none required). */
	char beyond_module[48];
	struct uct_expect exp[UCT_MAX_EXPECT];
	unsigned char stack[UC_STACK_COPY_MAX] __attribute__((aligned(8)));
};

/* Top of the stack mapping holding sp: the copy must not run past it. */
extern uint64_t uct_stack_top;

/* Word by word, not memcpy, and not instrumented: under ASan the live
 * stack is full of redzones, which a raw copy must not trip on. */
__attribute__((no_sanitize_address)) static inline void
uct_copy_stack(struct uct_record *r)
{
	uint64_t sp = r->regs.sp, n = UC_STACK_COPY_MAX;
	if (uct_stack_top > sp && uct_stack_top - sp < n)
		n = uct_stack_top - sp;
	n &= ~(uint64_t)7;
	const volatile uint64_t *from = (const volatile uint64_t *)(uintptr_t)sp;
	uint64_t *to = (uint64_t *)(void *)r->stack;
	for (uint64_t i = 0; i < n / 8; i++)
		to[i] = from[i];
	r->stack_len = (uint32_t)n;
}

/*
 * The registers at the label "1:" (its own address is the ip, so the
 * line of the capture is the line of this macro), then the stack from
 * that sp up. rax is the scratch register, so %0 is never rax. The copy
 * runs after the registers are taken: its call writes only below sp.
 */
#define UCT_CAPTURE(rec) do {						\
	__asm__ volatile(						\
		"1:	lea 1b(%%rip), %%rax\n\t"			\
		"mov %%rax, 0(%0)\n\t"					\
		"mov %%rsp, 8(%0)\n\t"					\
		"mov %%rbp, 16(%0)\n\t"					\
		"mov %%rbx, 24(%0)\n\t"					\
		"mov %%r12, 32(%0)\n\t"					\
		"mov %%r13, 40(%0)\n\t"					\
		"mov %%r14, 48(%0)\n\t"					\
		"mov %%r15, 56(%0)\n\t"					\
		: : "r"(&(rec)->regs) : "rax", "memory");		\
	uct_copy_stack(rec);						\
} while (0)

#endif
