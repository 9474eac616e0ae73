/* The libraries' hook (tracer/lib_hook.h draws where it sits and why): entered by
 * the `jmp` written over the first instructions of the loader's
 * _dl_allocate_tls_init, so with the loader's return address on the stack and its
 * arguments in registers. The loader calls it once all objects are mapped and
 * relocated, before libc's early initialisation (glibc's dl_main: the thread's TLS
 * set up, then __libc_early_init): no library's code has made a call yet. It keeps
 * every register and the flags, and goes on to the function through its first
 * instructions copied into the payload (the trampoline), whatever it did:
 *
 *   DONE (or INERT) in the slot: to the trampoline  (%gs: the thread's slot)
 *   r14 = open("/proc/self/mem")                 failed: DONE, nothing written
 *   for each library k (rbp), its record at r15:
 *     pread(r14, scratch, check length, check address)   a hole: an error, no fault
 *     the build-id read is the one expected:
 *       for each run (rbx, r9 left): pwrite(r14, bytes, length, address)
 *         all went: bit k in r13; one did not: bit 32 + k, the rest left
 *     rbx past the runs left: the next record
 *   pwrite(r14, the original bytes, 5, the function)   the jump is gone: RESTORED
 *   close(r14)
 *   the slot's counters below LIB_HOOK_COUNTERS summed: HOOK_EARLY
 *   r12 (its calls): HOOK_CALLS; r13 | DONE: HOOK_DONE, last
 *   to the trampoline: the first instructions, `jmp` to the rest of the function
 *
 * Every call goes through the gate's instrument syscall: not the program's, and no
 * filter of the program's decides it. Position-independent: copied into stub memory
 * with its payload (lib_hook_data) by the set-up at exec. */
#include "gate.h"
#include "lib_hook.h"
#include "region.h"

#define SYS_close 3
#define SYS_open 2
#define SYS_pread64 17
#define SYS_pwrite64 18
#define O_RDWR_CLOEXEC 0x80002
#define SCRATCH 64

/* a call through the gate: number in eax, arguments set; counted in r12 */
#define GATE_CALL inc %r12 ; movabs $(SYSTRACE_GATE_HEX + SYSTRACE_INSTRUMENT_OFFSET), %r11 ; call *%r11
#define DATA(off) lib_hook_data + (off)(%rip)
/* rbx past the run it points at: 16 bytes and its bytes padded to 8 */
#define NEXT_RUN mov 8(%rbx), %rax ; add $7, %rax ; and $-8, %rax ; lea 16(%rbx,%rax), %rbx

	.section .rodata
	.balign 16
	.globl lib_hook, lib_hook_data
lib_hook:
	pushfq
	push %rax
	push %rcx
	push %rdx
	push %rsi
	push %rdi
	push %r8
	push %r9
	push %r10
	push %r11
	push %rbx
	push %rbp
	push %r12
	push %r13
	push %r14
	push %r15
	sub $SCRATCH, %rsp
	cmpq $0, %gs:REGION_SLOT_HOOK_DONE_AT
	jne .Lout
	cld
	xor %r12d, %r12d
	xor %r13d, %r13d
	mov $SYS_open, %eax
	lea .Lself_mem(%rip), %rdi
	mov $O_RDWR_CLOEXEC, %esi
	xor %edx, %edx
	GATE_CALL
	test %rax, %rax
	js .Ldone
	mov %rax, %r14
	lea DATA(LIB_HOOK_OBJECTS), %r15
	xor %ebp, %ebp
.Lobject:
	cmp DATA(LIB_HOOK_NOBJECTS), %rbp
	jae .Lrestore
	mov LIB_HOOK_OBJ_NRUNS(%r15), %r9
	lea LIB_HOOK_OBJ_RUNS(%r15), %rbx
	mov $SYS_pread64, %eax
	mov %r14, %rdi
	mov %rsp, %rsi
	mov LIB_HOOK_OBJ_CHECK_LEN(%r15), %rdx
	mov LIB_HOOK_OBJ_CHECK(%r15), %r10
	GATE_CALL
	cmp LIB_HOOK_OBJ_CHECK_LEN(%r15), %rax
	jne .Lpass
	mov %rsp, %rdi
	lea LIB_HOOK_OBJ_CHECK_BYTES(%r15), %rsi
	mov %rax, %rcx
	repe cmpsb
	jne .Lpass
.Lrun:                                          /* rbx: the run; r9: runs left */
	test %r9, %r9
	jz .Lwritten
	mov $SYS_pwrite64, %eax
	mov %r14, %rdi
	lea 16(%rbx), %rsi
	mov 8(%rbx), %rdx
	mov 0(%rbx), %r10
	GATE_CALL
	cmp 8(%rbx), %rax
	jne .Lfailed
	NEXT_RUN
	dec %r9
	jmp .Lrun
.Lfailed:
	lea REGION_HOOK_PART_SHIFT(%rbp), %rax
	bts %rax, %r13
	jmp .Lpass
.Lwritten:
	bts %rbp, %r13
.Lpass:                                         /* past the runs left */
	test %r9, %r9
	jz .Lnext
	NEXT_RUN
	dec %r9
	jmp .Lpass
.Lnext:
	mov %rbx, %r15
	inc %rbp
	jmp .Lobject
.Lrestore:
	mov $SYS_pwrite64, %eax
	mov %r14, %rdi
	lea DATA(LIB_HOOK_ORIGINAL), %rsi
	mov $5, %edx
	mov DATA(LIB_HOOK_ENTRY), %r10
	GATE_CALL
	cmp $5, %rax
	jne 1f
	bts $REGION_HOOK_RESTORED_BIT, %r13
1:	mov $SYS_close, %eax
	mov %r14, %rdi
	GATE_CALL
.Ldone:
	xor %eax, %eax
	xor %ecx, %ecx
	mov DATA(LIB_HOOK_COUNTERS), %rdx
.Lsum:
	cmp %rdx, %rcx
	jae .Lsummed
	add %gs:REGION_SLOT_SITE_CALLS_AT(,%rcx,8), %rax
	inc %rcx
	jmp .Lsum
.Lsummed:
	mov %rax, %gs:REGION_SLOT_HOOK_EARLY_AT
	mov %r12, %gs:REGION_SLOT_HOOK_CALLS_AT
	bts $REGION_HOOK_DONE_BIT, %r13
	mov %r13, %gs:REGION_SLOT_HOOK_DONE_AT
.Lout:
	add $SCRATCH, %rsp
	pop %r15
	pop %r14
	pop %r13
	pop %r12
	pop %rbp
	pop %rbx
	pop %r11
	pop %r10
	pop %r9
	pop %r8
	pop %rdi
	pop %rsi
	pop %rdx
	pop %rcx
	pop %rax
	popfq
	jmp lib_hook_data + LIB_HOOK_TRAMPOLINE
.Lself_mem:
	.asciz "/proc/self/mem"
	.balign 8
lib_hook_data:

	.section .note.GNU-stack, "", @progbits
