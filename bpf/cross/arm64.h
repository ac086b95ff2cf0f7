/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * cross/arm64.h - for `make bpf-cross` only, when no arm64 vmlinux.h is at
 * hand: the one arm64 type the BPF programs need that an x86-64 kernel's
 * BTF lacks. libbpf's PT_REGS_PARM*_CORE macros cast struct pt_regs to it
 * under __TARGET_ARCH_arm64 (bpf/bpf_tracing.h). Layout as in
 * arch/arm64/include/uapi/asm/ptrace.h. A real arm64 build gets it from its
 * own vmlinux.h and never includes this file.
 */
#ifndef TRACER_CROSS_ARM64_H
#define TRACER_CROSS_ARM64_H

struct user_pt_regs {
	unsigned long long regs[31]; /* x0..x30 */
	unsigned long long sp;
	unsigned long long pc;
	unsigned long long pstate;
};

#endif /* TRACER_CROSS_ARM64_H */
