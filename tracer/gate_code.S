/* The region's first page, as the tracer writes it (shared_region.c): the gate, whose
 * `syscall` is the one the seccomp filter lets through, its stackless entry (a
 * vfork's, which comes back through the slot: patcher/stub.h), the log routine that stubs
 * call instead of the gate under --log (stub.h), the time routine they call instead
 * under --time (below the log routine's comment), and the return pads through which
 * the tracer sends ptraced calls back to learn their results without a second stop
 * (tracer/results.c draws them; the second one, under --time, also reads the TSC
 * when the call returns), and the end of an image's set-up at exec (gate_exec_tail,
 * drawn there). Position-independent: it runs
 * at SYSTRACE_GATE_ADDR in every process, and reaches its thread's log buffer through
 * %gs like the stubs' counters (region.h, struct region_log).
 *
 * The log routine, entered by `push $counter ; call` from a stub that has already
 * stepped over the red zone, keeps every register but rax (the result), rcx and r11
 * (which the syscall clobbers anyway), and rflags. It writes the entry before the call
 * (so a call that never returns, exit_group, is logged) and its result after. Under
 * --log the stubs do not count: the tracer counts the entries, so that the counts
 * and the log agree whatever happens (a process killed between the two).
 * A signal can come between any two instructions; the tracer sees it first and
 * (tracer/signal_fixups.c, log_routine_rewind, leave_gate):
 *  - inside (retry, committed): moves rip back to retry, which only re-derives what
 *    it uses: an entry reserved but not marked is skipped by the tracer;
 *  - at committed, or at the gate's `syscall` not yet made under this routine's
 *    frame: the entry is whole but its call not made; the tracer unmarks it and
 *    moves the thread back to retry (the frame is the same there but for the gate's
 *    return address), and the call takes an entry again after the handler's;
 *  - in the call (the gate's syscall IP): leave_gate gives the entry its result;
 *  - from returned to checked: the call returned, its result in rax; the tracer
 *    gives the entry its result, and moves a thread inside (check, checked) back to
 *    check, which re-derives what it uses.
 * So the buffer is never left holding a half-written entry that a handler's flush
 * could take, an entry never takes a place after a handler's with a time from
 * before it, a result is never stored into an entry a flush took and reused, and no
 * entry is taken by a handler's drain while its result is still to come from the
 * routine: the thread may run on for a whole buffer before its next stop, or stay
 * on the same instruction through a thousand handlers (a timer faster than the
 * tracer), and the result would come after the entry's place was taken again. A
 * result that comes after the tracer took its entry all the same (a call the kernel
 * turned into restart_syscall, waiting at the gate) is still picked up if its place
 * was not taken (syscall_log.c). */
#include "gate.h"
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
	.fill SYSTRACE_INSTRUMENT_OFFSET - 3, 1, 0xcc     /* past the 3 bytes above */
.Linstrument:
	syscall                          /* systrace's own calls (preload/gate.h) */
	ret
	.if .Linstrument - .Lgate - SYSTRACE_INSTRUMENT_OFFSET
	.error "the instrument gate is not at SYSTRACE_INSTRUMENT_OFFSET"
	.endif
	.fill SYSTRACE_STACKLESS_OFFSET - SYSTRACE_INSTRUMENT_OFFSET - 3, 1, 0xcc
	.globl gate_stackless
gate_stackless:                  /* a vfork's way in and out (patcher/stub.h): the */
	syscall                          /* child runs on, and may overwrite, the stack */
	jmp *%gs:REGION_SLOT_STACKLESS_AT
	.if gate_stackless - .Lgate - SYSTRACE_STACKLESS_OFFSET
	.error "the stackless gate is not at SYSTRACE_STACKLESS_OFFSET"
	.endif

	.balign 64, 0xcc
gate_log_call:                   /* 0(%rsp): into the stub, 8(%rsp): counter */
	pushfq
	push %rdx                        /* the third argument: rdtsc takes rdx */
	push %rax                        /* the number */
	push %rax                        /* room for the mark */
gate_log_retry:                  /* 0: mark, 8: number, 16: rdx, 24: rflags, 32: into the stub, 40: counter */
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
	mov 8(%rsp), %rax
	mov %ax, %gs:REGION_LOG_ENTRY_AT + 24(%r11)      /* nr */
	mov 40(%rsp), %eax
	mov %ax, %gs:REGION_LOG_ENTRY_AT + 26(%r11)      /* counter */
	movb $0, %gs:REGION_LOG_ENTRY_AT + 28(%r11)      /* has_ret: not yet */
	bts $63, %rcx
	mov %rcx, (%rsp)                                 /* for after the call */
	mov 8(%rsp), %rax
	mov 16(%rsp), %rdx
	mov %rcx, %gs:REGION_LOG_ENTRY_AT + 8(%r11)      /* mark: the entry is whole */
gate_log_committed:              /* the stack as at retry; rcx: the mark */
	call .Lgate
gate_log_returned:
	pop %rcx
	lea 16(%rsp), %rsp               /* the number and rdx */
gate_log_check:                  /* 0(%rsp): rflags, 8: into the stub, 16: counter */
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

/* The time routine (--time), entered by `push $site_ticks ; call` from a stub that has
 * already stepped over the red zone and counted the call (patcher/stub.h), makes the
 * call through the gate between two readings of the TSC and adds the difference, in
 * ticks, to the site's counter (%gs:site_ticks) and to the number's (ticks, longest,
 * shortest: region.h, struct region_time). It keeps every register but rax (the
 * result), rcx and r11; it changes no flag before the call, so that the syscall
 * saves the program's in r11, and the stub restores them from r11 after it (its
 * errors' popfq), so the flags it changes after the call do not show.
 *
 *   gate_time_call:  push rdx, the number, room for the start
 *   start:           rdtsc -> the start, in the frame; rax, rdx from the frame
 *   timed:           call the gate (syscall; ret)
 *   returned:        rcx = the result; rdtsc
 *   took:            rdx = end - start; site += rdx; number's ticks += rdx
 *   max:             number's max = rdx if larger     (compare, store)
 *   max_done:        rdx = ~rdx
 *   min:             number's ~min = rdx if larger    (compare, store)
 *   min_done:        rax = the result, rdx back; ret $8
 *
 * A signal can come between any two instructions; the tracer sees it first and
 * (tracer/time_fixups.c, from signal_fixups.c):
 *  - inside (start, timed], or at the gate's `syscall` not yet made under this
 *    routine's frame with the number still in rax: moves the thread back to start
 *    (popping the gate's return address), which only re-derives what it uses, so
 *    that the handler's time is not taken for the call's;
 *  - in the call (the gate's syscall IP): leave_gate takes the thread out of this
 *    frame too, and gives the call's time to the counters itself (to the stop);
 *  - in [returned, took): completes the reading with the tracer's TSC, so that the
 *    handler's time is not taken for the call's either;
 *  - inside (max, max_done) or (min, min_done): moves it back to the compare, so
 *    that a handler's shorter (or longer) call stored meanwhile is not overwritten.
 * The sums are each one instruction (add to memory), which a handler cannot split:
 * they need nothing. Everywhere else a handler's calls only add to what this call
 * adds to, in any order. */
	.balign 64, 0xcc
	.globl gate_time_call, gate_time_start, gate_time_timed, gate_time_returned, gate_time_took
	.globl gate_time_max, gate_time_max_done, gate_time_min, gate_time_min_done
gate_time_call:                  /* 0(%rsp): into the stub, 8: the site's ticks */
	push %rdx                        /* the third argument: rdtsc takes rdx */
	push %rax                        /* the number */
	push %rax                        /* room for the start */
gate_time_start:                 /* 0: start, 8: number, 16: rdx, 24: into the stub, 32: site */
	rdtsc                            /* again after a rewind: after what came between */
	mov %eax, (%rsp)
	mov %edx, 4(%rsp)
	mov 8(%rsp), %rax
	mov 16(%rsp), %rdx
gate_time_timed:                 /* no flag changed so far: the syscall saves the program's */
	call .Lgate
gate_time_returned:
	mov %rax, %rcx                   /* the result */
	rdtsc
gate_time_took:                  /* edx:eax: the end; rcx: the result */
	shl $32, %rdx
	or %rax, %rdx
	sub (%rsp), %rdx                 /* rdx: the call's ticks */
	mov %rcx, (%rsp)                 /* the result, kept */
	mov 8(%rsp), %rax                /* the number */
	cmp $REGION_NRS, %rax
	jae gate_time_min_done           /* (the stubs let no such number through) */
	mov 32(%rsp), %rcx
	add %rdx, %gs:(%rcx)             /* the site's ticks */
	add %rdx, %gs:REGION_TIME_NR_TICKS(,%rax,8)
gate_time_max:
	cmp %gs:REGION_TIME_NR_MAX(,%rax,8), %rdx
	jbe gate_time_max_done
	mov %rdx, %gs:REGION_TIME_NR_MAX(,%rax,8)
gate_time_max_done:
	not %rdx                         /* the shortest is kept as its NOT: 0 is none */
gate_time_min:
	cmp %gs:REGION_TIME_NR_MIN_NOT(,%rax,8), %rdx
	jbe gate_time_min_done
	mov %rdx, %gs:REGION_TIME_NR_MIN_NOT(,%rax,8)
gate_time_min_done:
	pop %rax                         /* the result */
	lea 8(%rsp), %rsp                /* the number */
	pop %rdx
	ret $8

	.balign 64, 0xcc
	.globl gate_pad_syscall, gate_pad, gate_pad_end
	.globl gate_time_pad_syscall, gate_time_pad, gate_time_pad_saved, gate_time_pad_rdx_saved
	.globl gate_time_pad_stamped
gate_pad_syscall:                /* entered only by a restart the tracer did not see */
	syscall
gate_pad:                        /* a ptraced call's way back (tracer/results.c) */
	mov %rax, %gs:REGION_SLOT_RESULT_AT
	jmp *%gs:REGION_SLOT_RETURN_AT
gate_time_pad_syscall:           /* the same, under --time */
	syscall
gate_time_pad:                   /* and the TSC when the call returned; no flag changed */
	mov %rax, %gs:REGION_SLOT_RESULT_AT
gate_time_pad_saved:             /* the result in the slot from here on */
	mov %rdx, %gs:REGION_SLOT_PAD_RDX_AT
gate_time_pad_rdx_saved:         /* and rdx */
	rdtsc
	mov %eax, %gs:REGION_SLOT_PAD_END_AT
	mov %edx, %gs:REGION_SLOT_PAD_END_AT + 4   /* last: a high half, whole */
gate_time_pad_stamped:
	mov %gs:REGION_SLOT_PAD_RDX_AT, %rdx
	mov %gs:REGION_SLOT_RESULT_AT, %rax
	jmp *%gs:REGION_SLOT_RETURN_AT
gate_pad_end:                    /* of both pads */

/* The end of an image's set-up at exec (tracer/exec_blob.S) when it needs no stop:
 * entered by a jump from the set-up code, which ran from the loader's pages it drops
 * here, with
 *   rsp -> { the loader's entry, rflags at the exec event, where to go if the drop
 *            fails (the set-up's last stop), the stack pointer at the exec event }
 *   rdi, rsi: the loader's pages the set-up code was written over; r13: its calls
 * madvise(MADV_DONTNEED) gives those private file pages back their bytes from the
 * file (nothing else was written there), the slot learns how many calls the set-up
 * made, and the thread starts at the loader's entry with the registers of the exec
 * event: all zero but rsp and rflags (early.c sends it here only then). */
	.globl gate_exec_tail
gate_exec_tail:
	mov $28, %eax                    /* madvise */
	mov $4, %edx                     /* MADV_DONTNEED */
	inc %r13
	call .Linstrument                /* systrace's own: no filter of the program decides it */
	mov %rax, %r14
	test %rax, %rax
	jz 1f
	jmp *16(%rsp)
1:	lea 1(%r13), %rax                /* and the gate's own mapping */
	mov %rax, %gs:REGION_SLOT_SETUP_AT
	mov 24(%rsp), %rdx
	mov 0(%rsp), %rax
	mov %rax, -8(%rdx)               /* the entry, for the ret */
	mov 8(%rsp), %rax
	mov %rax, -16(%rdx)              /* rflags, for the popfq */
	lea -16(%rdx), %rsp
	popfq
	mov $0, %eax                     /* from here on no flag changes */
	mov $0, %ebx
	mov $0, %ecx
	mov $0, %edx
	mov $0, %esi
	mov $0, %edi
	mov $0, %ebp
	mov $0, %r8d
	mov $0, %r9d
	mov $0, %r10d
	mov $0, %r11d
	mov $0, %r12d
	mov $0, %r13d
	mov $0, %r14d
	mov $0, %r15d
	ret
gate_code_end:

	.section .note.GNU-stack, "", @progbits
