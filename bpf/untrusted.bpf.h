/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A trusted pointer (a tracepoint's argument) made untrusted before a
 * pointer is read from it. Reading a pointer from a trusted one makes a
 * 6.5+ verifier ask whether the result stays trusted: it looks up
 * "<type>__safe_trusted", "..._or_null", "__safe_rcu" and "..._or_null"
 * by name through the kernel's whole BTF (~126,000 types on 6.18, a
 * linear search each), ~1.3 ms of start-up for one such read. Loads
 * through an untrusted pointer are checked as probe reads, with no
 * lookup; bpf_rdonly_cast() costs nothing at run time (the verifier
 * turns it into a move).
 *
 * Kernels before 6.2 have no bpf_rdonly_cast, and none before 6.5 does
 * the lookups: there the ids are 0 and the pointer is used as it is (the
 * verifier drops the other branch; the call is dead code it removes).
 */
#ifndef __UNTRUSTED_BPF_H
#define __UNTRUSTED_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

/* The kernel's BTF ids of the types cast (load/kernel_features.c);
 * 0 where there is no bpf_rdonly_cast. */
const volatile __u32 btf_id_io_kiocb = 0;
const volatile __u32 btf_id_io_ring_ctx = 0;
const volatile __u32 btf_id_task_struct = 0;
const volatile __u32 btf_id_file = 0;

#define UC_UNTRUSTED(p, id) \
	((id) ? (typeof(p))bpf_rdonly_cast((p), (id)) : (p))

#endif /* __UNTRUSTED_BPF_H */
