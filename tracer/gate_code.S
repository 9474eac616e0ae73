/* The region's first page, as the tracer writes it (shared_region.c): the gate, whose
 * `syscall` is the one the seccomp filter lets through, and the log routine that
 * stubs call instead of the gate under --log (stub.h). Position-independent: it runs
 * at SYSTRACE_GATE_ADDR in every process, and reaches its thread's log buffer through
 * %gs like the stubs' counters (region.h, struct region_log).
 *
 * The log routine, entered by `push $counter ; call` from a stub that has already
 * stepped over the red zone, keeps every register but rax (the result), rcx and r11
 * (which the syscall clobbers anyway), and rflags. It writes the entry before the call
 * (so a call that never returns, exit_group, is logged) and its result after. Under
 * --log the stubs do not count: the tracer counts the entries, so that the counts
 * and the log agree whatever happens (a process killed between the two).
 * A signal can come between any two instructions; the tracer sees it first and, for
 * a thread inside (retry, committed) or (check, checked), moves rip back to retry or
 * to check (tracer/patching.c), which only re-derive what they use: an entry
 * reserved but not marked is then skipped by the tracer, its buffer is never left
 * holding a half-written entry that a handler's flush could take, an entry never
 * takes a place after a handler's with a time from before it, and a result is never
 * stored into an entry a flush took and reused. A result that comes after the
 * tracer has taken its entry is still picked up (syscall_log.c). */
#include "region.h"

	.section .rodata
	.balign 64
	.globl gate_code, gate_code_end
	.globl gate_log_call, gate_log_retry, gate_log_committed
	.globl gate_log_returned, gate_log_check, gate_log_checked
gate_code:
.Lgate:
	syscall
	ret

	.balign 64, 0xcc
gate_log_call:                   /* 0(%rsp): into the stub, 8(%rsp): counter */
	pushfq
	push %rdx                        /* the third argument: rdtsc takes rdx */
	push %rax                        /* the number */
gate_log_retry:
.Lretry:
	rdtsc                            /* again on a retry: after what came between */
	shl $32, %rdx
	or %rax, %rdx                    /* rdx: when */
	mov $1, %ecx
	xadd %rcx, %gs:REGION_LOG_HEAD   /* rcx: this entry's seq, reserved */
	mov %rcx, %r11
	sub %gs:REGION_LOG_TAIL, %r11
	cmp $REGION_LOG_ENTRIES, %r11
	jae .Lfull
	mov %rcx, %r11
	and $(REGION_LOG_ENTRIES - 1), %r11
	shl $5, %r11
	mov %rdx, %gs:REGION_LOG_ENTRY_AT(%r11)          /* tsc */
	mov (%rsp), %rax
	mov %ax, %gs:REGION_LOG_ENTRY_AT + 24(%r11)      /* nr */
	mov 32(%rsp), %eax
	mov %ax, %gs:REGION_LOG_ENTRY_AT + 26(%r11)      /* counter */
	movb $0, %gs:REGION_LOG_ENTRY_AT + 28(%r11)      /* has_ret: not yet */
	bts $63, %rcx
	mov %rcx, %gs:REGION_LOG_ENTRY_AT + 8(%r11)      /* mark: the entry is whole */
gate_log_committed:
	pop %rax
	pop %rdx
	push %rcx
	call .Lgate
gate_log_returned:               /* 0(%rsp): mark, 8: rflags, 16: into the stub, 24: counter */
	pop %rcx
gate_log_check:
	mov %rcx, %r11
	and $(REGION_LOG_ENTRIES - 1), %r11
	shl $5, %r11
	cmp %rcx, %gs:REGION_LOG_ENTRY_AT + 8(%r11)      /* still ours: not flushed since */
	jne 1f
	mov %rax, %gs:REGION_LOG_ENTRY_AT + 16(%r11)     /* ret */
	movb $1, %gs:REGION_LOG_ENTRY_AT + 28(%r11)      /* has_ret */
gate_log_checked:
1:	popfq
	ret $8

.Lfull:                          /* the tracer empties the buffer; then reserve again */
	push %rdi
	push %rsi
	mov $SYSTRACE_CONTROL_NR, %eax
	movabs $SYSTRACE_MAGIC_HEX, %rdi
	mov $CONTROL_LOG_FLUSH, %esi
	syscall
	pop %rsi
	pop %rdi
	jmp .Lretry
gate_code_end:

	.section .note.GNU-stack, "", @progbits
