/* The gate: one page at a fixed address whose single `syscall` instruction is the
 * only place the seccomp filter lets a syscall through without stopping. Shared by
 * the tracer (which builds the filter) and the preloaded library (which maps it).
 * The address is far from where the kernel puts executables (0x55..., 0x56...) and
 * shared objects and stacks (0x7f...). */
#ifndef SYSTRACE_GATE_H
#define SYSTRACE_GATE_H

#define SYSTRACE_GATE_ADDR 0x6f5ee7000000ULL
/* The instruction pointer the kernel reports for a syscall made by the gate's
 * 2-byte `syscall` at the start of the page: the address right after it. */
#define SYSTRACE_GATE_SYSCALL_IP (SYSTRACE_GATE_ADDR + 2)

#endif
