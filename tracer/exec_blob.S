/* What a new image runs before its first instruction (tracer/early.c): the set-up
 * that lets its loader make its calls in-process from the start, in two stops.
 *
 * At the exec event the tracer writes this code, its data and a copy of the gate's
 * code over the loader's entry point (through /proc/PID/mem; the bytes are put back
 * at the end) and lets the thread run:
 *
 *   entry: mmap(gate address, 4096, rwx, private|anonymous|fixed-noreplace)
 *          `syscall` here, not at the gate: stop 1 (the tracer lets it run)
 *          copy the gate's code into that page (rep movsb)
 *   then through the gate (`call` its `syscall; ret`: the filter lets it through,
 *   no stop):
 *          mprotect(gate, 4096, r-x)
 *          fd = open("/proc/<tracer>/fd/<region>", O_RDWR | O_CLOEXEC)
 *          r12 = mmap(0, region size, rw-, shared, fd, 0)        the region
 *          close(fd)
 *          r13 = mmap(0, 64 KiB, r-x, private|anonymous)          stub memory: the
 *                kernel puts it right below the loader, within its reach
 *          r14 = mmap(hint, 64 KiB, r-x, ..., fixed-noreplace)    near the executable,
 *                only when the tracer gave a hint (its sites are known)
 *   done:  getpid at a `syscall` here: stop 2, which the tracer takes: it reads r12 to
 *          r14, puts the loader's bytes back, writes the loader's known sites with
 *          stubs at r13, points %gs at the thread's slot, and gives the thread back
 *          its registers of the exec event with the call skipped: it starts at the
 *          loader's entry as if nothing had run.
 *
 * r12 holds -errno when the region could not be had (r15 says where it stopped:
 * 1 no gate, 2 no region), and the gate page is then unmapped by the tracer. The
 * return addresses of the gate calls go below the initial stack pointer, where
 * nothing lies yet. Position-independent: it runs wherever the loader's entry is. */
#include "exec_blob.h"
#include "gate.h"

#define SYS_mmap 9
#define SYS_mprotect 10
#define SYS_open 2
#define SYS_close 3
#define SYS_getpid 39
#define MAP_SHARED 0x01
#define MAP_ANON_PRIVATE 0x22
#define MAP_FIXED_NOREPLACE 0x100000
#define AREA_SIZE 0x10000

/* a call through the gate: number in eax, arguments set */
#define GATE_CALL movabs $SYSTRACE_GATE_HEX, %r11 ; call *%r11

	.section .rodata
	.balign 16
	.globl exec_blob, exec_blob_data
exec_blob:
	xor %r13d, %r13d
	xor %r14d, %r14d
	mov $1, %r15d
	mov $SYS_mmap, %eax
	movabs $SYSTRACE_GATE_HEX, %rdi
	mov $4096, %esi
	mov $7, %edx                                /* read, write, execute: for the copy */
	mov $(MAP_ANON_PRIVATE | MAP_FIXED_NOREPLACE), %r10d
	mov $-1, %r8
	xor %r9d, %r9d
	syscall                                     /* stop 1 */
	mov %rax, %r12
	cmp %rdi, %rax
	jne .Ldone
	lea exec_blob_data + EXEC_BLOB_GATE_COPY(%rip), %rsi
	mov exec_blob_data + EXEC_BLOB_GATE_LEN(%rip), %rcx
	cld
	rep movsb                                   /* rdi: the gate page */

	mov $2, %r15d
	mov $SYS_mprotect, %eax
	movabs $SYSTRACE_GATE_HEX, %rdi
	mov $4096, %esi
	mov $5, %edx                                /* read, execute */
	GATE_CALL
	mov $SYS_open, %eax
	lea exec_blob_data + EXEC_BLOB_PATH(%rip), %rdi
	mov $0x80002, %esi                          /* O_RDWR | O_CLOEXEC */
	GATE_CALL
	mov %rax, %r12
	test %rax, %rax
	js .Ldone
	mov %rax, %rbx                              /* the descriptor */
	mov $SYS_mmap, %eax
	xor %edi, %edi
	mov exec_blob_data + EXEC_BLOB_REGION_SIZE(%rip), %rsi
	mov $3, %edx                                /* read, write */
	mov $MAP_SHARED, %r10d
	mov %rbx, %r8
	xor %r9d, %r9d
	GATE_CALL
	mov %rax, %r12
	mov $SYS_close, %eax
	mov %rbx, %rdi
	GATE_CALL
	cmp $-4095, %r12
	jae .Ldone                                  /* no region: -errno */

	mov $0, %r15d
	mov $SYS_mmap, %eax
	xor %edi, %edi
	mov $AREA_SIZE, %esi
	mov $5, %edx
	mov $MAP_ANON_PRIVATE, %r10d
	mov $-1, %r8
	xor %r9d, %r9d
	GATE_CALL
	mov %rax, %r13
	mov exec_blob_data + EXEC_BLOB_EXE_HINT(%rip), %rdi
	test %rdi, %rdi
	jz .Ldone
	mov $SYS_mmap, %eax
	mov $AREA_SIZE, %esi
	mov $5, %edx
	mov $(MAP_ANON_PRIVATE | MAP_FIXED_NOREPLACE), %r10d
	mov $-1, %r8
	xor %r9d, %r9d
	GATE_CALL
	mov %rax, %r14
.Ldone:
	mov $SYS_getpid, %eax
	syscall                                     /* stop 2: the tracer takes over */
	ud2
	.balign 8
exec_blob_data:
	.space EXEC_BLOB_GATE_COPY

	.section .note.GNU-stack, "", @progbits
