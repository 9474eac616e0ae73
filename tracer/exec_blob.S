/* What a new image runs before its first instruction (tracer/early.c): the set-up
 * that lets its loader make its calls in-process from the start, in two stops, with
 * the image doing the work itself rather than the tracer.
 *
 * At the exec event the tracer writes this code and its data over the last bytes of
 * the loader's code that no patch touches (through /proc/PID/mem; they are put back
 * at the end): the gate's code, the path of the region, the stub memory to map (at
 * addresses it chose) and the bytes to write there and over the loader's sites (the
 * stubs and jumps of the loader's known sites, built for those addresses). Then it
 * points the thread there and lets it run:
 *
 *   start: mmap(gate address, 4096, rwx, private|anonymous|fixed-noreplace)
 *          `syscall` here, not at the gate: stop 1 (the tracer lets it run)
 *          copy the gate's code into that page (rep movsb)
 *   then through the gate (`call` its `syscall; ret`: the filter lets it through,
 *   no stop):
 *          mprotect(gate, 4096, r-x)
 *          fd = open("/proc/<tracer>/fd/<region>", O_RDWR | O_CLOEXEC)
 *          r12 = mmap(gate + 4096, region size, rw-, shared|fixed-noreplace,
 *                     fd, 0)                                   the region, right
 *                after the gate, far from where the loader maps the libraries
 *          close(fd)
 *          mmap(at, size, r-x, private|anonymous|fixed-noreplace)  each stub area
 *          mem = open("/proc/self/mem", O_RDWR | O_CLOEXEC)
 *          pwrite(mem, bytes, len, address)                        each write: the
 *                stubs, then the jumps (the image's own copy-on-write, not the
 *                tracer's)
 *          close(mem)
 *   done:  getpid at a `syscall` here: stop 2, which the tracer takes: it reads r12
 *          to r15, puts the loader's bytes back, points %gs at the thread's slot, and
 *          gives the thread back its registers of the exec event with the call
 *          skipped: it starts at the loader's entry as if nothing had run.
 *
 * r15 says how far it got (exec_blob.h); r14 holds the failing call's -errno. The
 * return addresses of the gate calls go below the initial stack pointer, where
 * nothing lies yet. Position-independent: it runs wherever it is written. */
#include "exec_blob.h"
#include "gate.h"

#define SYS_mmap 9
#define SYS_mprotect 10
#define SYS_open 2
#define SYS_close 3
#define SYS_pwrite64 18
#define SYS_getpid 39
#define MAP_SHARED 0x01
#define MAP_ANON_PRIVATE 0x22
#define MAP_FIXED_NOREPLACE 0x100000
#define O_RDWR_CLOEXEC 0x80002

/* a call through the gate: number in eax, arguments set */
#define GATE_CALL movabs $SYSTRACE_GATE_HEX, %r11 ; call *%r11
#define DATA(off) exec_blob_data + (off)(%rip)

	.section .rodata
	.balign 16
	.globl exec_blob, exec_blob_data
exec_blob:
	xor %r14d, %r14d
	mov $EXEC_BLOB_NO_GATE, %r15d
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
	lea exec_blob_data(%rip), %rsi
	add DATA(EXEC_BLOB_GATE_AT), %rsi
	mov DATA(EXEC_BLOB_GATE_LEN), %rcx
	cld
	rep movsb                                   /* rdi: the gate page */

	mov $EXEC_BLOB_NO_REGION, %r15d
	mov $SYS_mprotect, %eax
	movabs $SYSTRACE_GATE_HEX, %rdi
	mov $4096, %esi
	mov $5, %edx                                /* read, execute */
	GATE_CALL
	mov $SYS_open, %eax
	lea DATA(EXEC_BLOB_PATH), %rdi
	mov $O_RDWR_CLOEXEC, %esi
	GATE_CALL
	mov %rax, %r12
	test %rax, %rax
	js .Ldone
	mov %rax, %rbx                              /* the region's descriptor */
	mov $SYS_mmap, %eax
	movabs $(SYSTRACE_GATE_HEX + 4096), %rdi
	mov DATA(EXEC_BLOB_REGION_SIZE), %rsi
	mov $3, %edx                                /* read, write */
	mov $(MAP_SHARED | MAP_FIXED_NOREPLACE), %r10d
	mov %rbx, %r8
	xor %r9d, %r9d
	GATE_CALL
	mov %rax, %r12
	mov $SYS_close, %eax
	mov %rbx, %rdi
	GATE_CALL
	cmp $-4095, %r12
	jae .Ldone                                  /* no region: -errno */

	mov $EXEC_BLOB_NO_AREA, %r15d
	xor %ebp, %ebp
.Larea:                                         /* rbp: the area's index */
	cmp DATA(EXEC_BLOB_NAREAS), %rbp
	jae .Lwrites
	mov %rbp, %rcx
	shl $4, %rcx
	lea DATA(EXEC_BLOB_AREAS), %rax
	mov (%rax,%rcx), %rdi
	mov 8(%rax,%rcx), %rsi
	mov $SYS_mmap, %eax
	mov $5, %edx
	mov $(MAP_ANON_PRIVATE | MAP_FIXED_NOREPLACE), %r10d
	mov $-1, %r8
	xor %r9d, %r9d
	GATE_CALL
	mov %rax, %r14
	cmp %rdi, %rax
	jne .Ldone
	xor %r14d, %r14d
	inc %rbp
	jmp .Larea

.Lwrites:
	mov $EXEC_BLOB_NO_WRITE, %r15d
	cmpq $0, DATA(EXEC_BLOB_NWRITES)
	je .Lall
	mov $SYS_open, %eax
	lea .Lself_mem(%rip), %rdi
	mov $O_RDWR_CLOEXEC, %esi
	GATE_CALL
	mov %rax, %r14
	test %rax, %rax
	js .Ldone
	mov %rax, %rbx                              /* /proc/self/mem */
	xor %ebp, %ebp
.Lwrite:                                        /* rbp: the write's index */
	cmp DATA(EXEC_BLOB_NWRITES), %rbp
	jae .Lwritten
	lea exec_blob_data(%rip), %rsi
	mov DATA(EXEC_BLOB_WRITES_AT), %rax
	add %rsi, %rax
	mov %rbp, %rcx
	shl $4, %rcx
	add %rcx, %rax                              /* the record */
	mov (%rax), %r10                            /* its address: pwrite's offset */
	mov 8(%rax), %edx                           /* its length */
	mov 12(%rax), %ecx
	add %rcx, %rsi                              /* its bytes */
	mov %rbx, %rdi
	mov $SYS_pwrite64, %eax
	GATE_CALL
	mov %rax, %r14
	cmp %rdx, %rax
	jne .Lwrite_failed
	inc %rbp
	jmp .Lwrite
.Lwritten:
	xor %r14d, %r14d
	mov $SYS_close, %eax
	mov %rbx, %rdi
	GATE_CALL
.Lall:
	mov $EXEC_BLOB_DONE, %r15d
.Ldone:
	mov $SYS_getpid, %eax
	syscall                                     /* stop 2: the tracer takes over */
	ud2
.Lwrite_failed:
	mov $SYS_close, %eax
	mov %rbx, %rdi
	GATE_CALL
	jmp .Ldone
.Lself_mem:
	.asciz "/proc/self/mem"
	.balign 8
exec_blob_data:
	.space EXEC_BLOB_HEADER

	.section .note.GNU-stack, "", @progbits
