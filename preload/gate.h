/* The gate: one page at a fixed address whose single `syscall` instruction is the
 * only place the seccomp filter lets a syscall through without stopping. Shared by
 * the tracer (which builds the filter) and the preloaded library (which maps it).
 * The address is far from where the kernel puts executables (0x55..., 0x56...) and
 * shared objects and stacks (0x7f...). */
#ifndef SYSTRACE_GATE_H
#define SYSTRACE_GATE_H

#define SYSTRACE_GATE_HEX 0x6f5ee7000000 /* as the assembler takes it */
#define SYSTRACE_GATE_ULL(hex) hex##ULL
#define SYSTRACE_GATE_ULL_(hex) SYSTRACE_GATE_ULL(hex)
#define SYSTRACE_GATE_ADDR SYSTRACE_GATE_ULL_(SYSTRACE_GATE_HEX)
/* The instruction pointer the kernel reports for a syscall made by the gate's
 * 2-byte `syscall` at the start of the page: the address right after it. */
#define SYSTRACE_GATE_SYSCALL_IP (SYSTRACE_GATE_ADDR + 2)
/* A second `syscall; ret` in the page, for systrace's own calls in a traced process
 * (the set-up at exec, tracer/exec_blob.S): the filter lets it through too, and a
 * program's own filter never sees it (tracer/filter_rewrite.c), so that a strict
 * filter cannot refuse what systrace needs. */
#define SYSTRACE_INSTRUMENT_OFFSET 8
#define SYSTRACE_INSTRUMENT_SYSCALL_IP (SYSTRACE_GATE_ADDR + SYSTRACE_INSTRUMENT_OFFSET + 2)
/* A third, `syscall; jmp *%gs:...`, for calls whose child must not return through
 * the stack (vfork: patcher/stub.h, the stackless stub): the filter lets it through
 * as it does the first, and a program's own filter decides it as it does the first. */
#define SYSTRACE_STACKLESS_OFFSET 16
#define SYSTRACE_STACKLESS_SYSCALL_IP (SYSTRACE_GATE_ADDR + SYSTRACE_STACKLESS_OFFSET + 2)

#endif
