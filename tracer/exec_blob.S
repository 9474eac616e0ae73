/* What a new image runs before its first instruction (tracer/early.c): the set-up
 * that lets its loader make its calls in-process from the start, with no stop of its
 * own, the image doing the work itself rather than the tracer.
 *
 * At the exec event the tracer writes this code and its data over the last bytes of
 * the loader's code that no patch touches (through /proc/PID/mem): the gate's code,
 * the path of the region, the stub memory to map (at addresses it chose). The bytes
 * to write there and over the loader's sites (the stubs and jumps of the loader's
 * known sites, built for those addresses, and the libraries' hook) it stages in the
 * region instead, in the thread's slot's staging area (a copy in its own mapping:
 * the fewer bytes through /proc/PID/mem, the fewer of the loader's pages copied
 * for the image there). Then it points the thread there and lets it run:
 *
 *   start: mmap(gate address, 4096, rwx, private|anonymous|fixed-noreplace)
 *          `syscall` here, not at the gate: the filter lets this one call through
 *          from anywhere (tracer/filter.c; under a program's own filter it stops,
 *          and the tracer lets it run)
 *          copy the gate's code into that page (rep movsb)
 *   then through the gate page's second `syscall; ret` (systrace's own: the filter lets
 *   it through, and a program's own filter never sees it: preload/gate.h;
 *   no stop):
 *          mprotect(gate, 4096, r-x)
 *          the region's descriptor (tracer/region_handout.h):
 *            stat("/proc/<tracer>/fd/<region>") says the region's device and
 *            inode: fd = open(that path, O_RDWR | O_CLOEXEC)
 *          or else (another /proc, or none, or no access), for each of the
 *          tracer's names for its socket until one connects (an abstract name,
 *          then a file's):
 *            s = socket(AF_UNIX, stream, nonblocking); connect(s, the name), or
 *            close(s) and the next name;
 *          getpid at a `syscall` here: a stop, where the tracer sends the
 *          descriptor; recvmsg(s) takes it (SCM_RIGHTS); close(s)
 *          fstat(fd): the region's device and inode, whichever way it came (a
 *            name squatted in a sandbox's own network namespace or /tmp hands
 *            out something else: close(fd), and the slow path)
 *          r12 = mmap(gate + 4096, region size, rw-, shared|fixed-noreplace,
 *                     fd, 0)                                   the region, right
 *                after the gate, far from where the loader maps the libraries
 *          close(fd)
 *          mmap(at, size, r-x, private|anonymous|fixed-noreplace)  each stub area
 *          mem = open("/proc/self/mem", O_RDWR | O_CLOEXEC)
 *          pwrite(mem, bytes, len, address)                        each write: the
 *                stubs, then the jumps, from the stage in the region (the image's
 *                own copy-on-write, not the tracer's)
 *          close(mem)
 *   tail:  when the tracer says so (EXEC_BLOB_TAIL: the code's pages hold no patch,
 *          the registers at the exec event are all zero but rsp and rflags):
 *          arch_prctl(ARCH_SET_GS, the thread's slot)
 *          jump to gate_exec_tail (tracer/gate_code.S), which, from the gate's
 *          page: madvise(these pages, MADV_DONTNEED) (private file pages: the
 *          loader's bytes come back from the file), writes the count of calls
 *          into the slot (the tracer takes it at the thread's next stop), and
 *          starts the loader with the registers of the exec event. No stop.
 *   done:  otherwise, or if a step failed: getpid at a `syscall` here: a stop,
 *          which the tracer takes: it reads r12 to r15, puts the loader's bytes
 *          back, points %gs at the thread's slot, and gives the thread back its
 *          registers of the exec event with the call skipped: it starts at the
 *          loader's entry as if nothing had run.
 *
 * r15 says how far it got (exec_blob.h); r14 holds the failing call's -errno; r13
 * counts the calls made through the gate. Its scratch memory and the return
 * addresses of the gate calls go below the initial stack pointer, where nothing lies
 * yet. Position-independent: it runs wherever it is written. */
#include "exec_blob.h"
#include "gate.h"

#define SYS_open 2
#define SYS_close 3
#define SYS_stat 4
#define SYS_fstat 5
#define SYS_mmap 9
#define SYS_mprotect 10
#define SYS_pwrite64 18
#define SYS_getpid 39
#define SYS_socket 41
#define SYS_connect 42
#define SYS_recvmsg 47
#define SYS_arch_prctl 158
#define ARCH_SET_GS 0x1001
#define MAP_SHARED 0x01
#define MAP_ANON_PRIVATE 0x22
#define MAP_FIXED_NOREPLACE 0x100000
#define O_RDWR_CLOEXEC 0x80002
#define AF_UNIX 1
#define SOCK_STREAM_NONBLOCK_CLOEXEC 0x80801
#define MSG_CMSG_CLOEXEC 0x40000000
#define SOL_SOCKET 1
#define SCM_RIGHTS 1
#define CMSG_LEN_INT 20     /* a cmsghdr (16 bytes) and one descriptor */
#define CMSG_SPACE_INT 24
#define ENOENT 2
#define EPROTO 71

/* Scratch memory, from the stack pointer after its move: a struct stat; recvmsg's
 * struct msghdr, its iovec, its control buffer and its one byte. */
#define SCRATCH 512
#define STAT_AT 0
#define MSG_AT 160
#define IOV_AT 224
#define CMSG_AT 240
#define BYTE_AT 272
#define TAIL_AT 288   /* gate_exec_tail's four words */

/* a call through the gate: number in eax, arguments set; counted in r13 */
#define GATE_CALL inc %r13 ; movabs $(SYSTRACE_GATE_HEX + SYSTRACE_INSTRUMENT_OFFSET), %r11 ; call *%r11
#define DATA(off) exec_blob_data + (off)(%rip)
/* to label unless the struct stat at STAT_AT says the region's st_dev and st_ino */
#define IF_NOT_REGION(label) \
	mov STAT_AT(%rsp), %rax ; cmp DATA(EXEC_BLOB_REGION_DEV), %rax ; jne label ; \
	mov STAT_AT+8(%rsp), %rax ; cmp DATA(EXEC_BLOB_REGION_INO), %rax ; jne label

	.section .rodata
	.balign 16
	.globl exec_blob, exec_blob_data
exec_blob:
	sub $SCRATCH, %rsp
	xor %r13d, %r13d
	xor %r14d, %r14d
	mov $EXEC_BLOB_NO_GATE, %r15d
	mov $SYS_mmap, %eax
	movabs $SYSTRACE_GATE_HEX, %rdi
	mov $4096, %esi
	mov $EXEC_BLOB_GATE_PROT, %edx              /* read, write, execute: for the copy */
	mov $EXEC_BLOB_GATE_FLAGS, %r10d
	mov $-1, %r8
	xor %r9d, %r9d
	syscall                                     /* the filter lets it through */
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
	/* the region through its path, if the path names it here */
	mov $SYS_stat, %eax
	lea DATA(EXEC_BLOB_PATH), %rdi
	lea STAT_AT(%rsp), %rsi
	GATE_CALL
	test %rax, %rax
	jnz .Lask
	IF_NOT_REGION(.Lask)
	mov $SYS_open, %eax
	lea DATA(EXEC_BLOB_PATH), %rdi
	mov $O_RDWR_CLOEXEC, %esi
	GATE_CALL
	test %rax, %rax
	jns .Lhave_region
.Lask:                                          /* or from the tracer, by its socket */
	mov $-ENOENT, %r12                          /* (if it has no name) */
	xor %ebp, %ebp                              /* rbp: the name's index */
.Lask_name:
	cmp $EXEC_BLOB_NSOCKETS, %rbp
	jae .Ldone                                  /* r12: the last name's error */
	imul $EXEC_BLOB_SOCKET_SIZE, %rbp, %rax
	lea DATA(EXEC_BLOB_SOCKETS), %rsi
	add %rax, %rsi
	cmpq $0, (%rsi)
	je .Lask_next                               /* none by this name */
	mov $SYS_socket, %eax
	mov $AF_UNIX, %edi
	mov $SOCK_STREAM_NONBLOCK_CLOEXEC, %esi
	xor %edx, %edx
	GATE_CALL
	mov %rax, %r12
	test %rax, %rax
	js .Ldone
	mov %rax, %rbx                              /* the socket */
	imul $EXEC_BLOB_SOCKET_SIZE, %rbp, %rax
	lea DATA(EXEC_BLOB_SOCKETS), %rsi
	add %rax, %rsi
	mov (%rsi), %rdx                            /* the name's length */
	add $8, %rsi                                /* the name */
	mov $SYS_connect, %eax
	mov %rbx, %rdi
	GATE_CALL
	mov %rax, %r12
	test %rax, %rax
	jns .Lconnected
	mov $SYS_close, %eax                        /* hidden here: the next name */
	mov %rbx, %rdi
	GATE_CALL
.Lask_next:
	inc %rbp
	jmp .Lask_name
.Lconnected:
	mov $EXEC_BLOB_ASKS, %r15d
	mov $SYS_getpid, %eax
	syscall                                     /* a stop: the tracer sends it */
	mov $EXEC_BLOB_NO_REGION, %r15d
	lea MSG_AT(%rsp), %rsi                      /* struct msghdr */
	movq $0, 0(%rsi)                            /* no name */
	movq $0, 8(%rsi)
	lea IOV_AT(%rsp), %rax
	mov %rax, 16(%rsi)                          /* one iovec ... */
	movq $1, 24(%rsi)
	lea BYTE_AT(%rsp), %rax
	mov %rax, IOV_AT(%rsp)                      /* ... of one byte */
	movq $1, IOV_AT+8(%rsp)
	lea CMSG_AT(%rsp), %rax
	mov %rax, 32(%rsi)                          /* room for one descriptor */
	movq $CMSG_SPACE_INT, 40(%rsi)
	movq $0, 48(%rsi)
	movq $0, CMSG_AT(%rsp)
	movq $0, CMSG_AT+8(%rsp)
	movq $-1, CMSG_AT+16(%rsp)
	mov $SYS_recvmsg, %eax
	mov %rbx, %rdi
	mov $MSG_CMSG_CLOEXEC, %edx
	GATE_CALL
	mov %rax, %r12
	cmp $1, %rax
	jne .Lclose_socket
	mov $-EPROTO, %r12
	cmpq $CMSG_LEN_INT, CMSG_AT(%rsp)
	jne .Lclose_socket
	cmpl $SOL_SOCKET, CMSG_AT+8(%rsp)
	jne .Lclose_socket
	cmpl $SCM_RIGHTS, CMSG_AT+12(%rsp)
	jne .Lclose_socket
	movslq CMSG_AT+16(%rsp), %r12               /* the descriptor */
	mov $SYS_close, %eax
	mov %rbx, %rdi
	GATE_CALL
	mov %r12, %rax
.Lhave_region:
	mov %rax, %rbx                              /* the region's descriptor, if */
	mov $SYS_fstat, %eax                        /* fstat says so (not a squatter's) */
	mov %rbx, %rdi
	lea STAT_AT(%rsp), %rsi
	GATE_CALL
	mov %rax, %r12
	test %rax, %rax
	jnz .Lclose_socket
	mov $-EPROTO, %r12
	IF_NOT_REGION(.Lclose_socket)
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
	mov DATA(EXEC_BLOB_STAGE), %rsi
	add %r12, %rsi                              /* the stage, in the region */
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
	cmpq $0, DATA(EXEC_BLOB_TAIL)
	je .Ldone
	mov $SYS_arch_prctl, %eax                   /* %gs at the thread's slot */
	mov $ARCH_SET_GS, %edi
	mov DATA(EXEC_BLOB_GS), %rsi
	GATE_CALL
	mov %rax, %r14
	test %rax, %rax
	jnz .Ldone
	mov DATA(EXEC_BLOB_ENTRY), %rax             /* what the tail needs, off these pages */
	mov %rax, TAIL_AT(%rsp)
	mov DATA(EXEC_BLOB_RFLAGS), %rax
	mov %rax, TAIL_AT+8(%rsp)
	lea .Ldone(%rip), %rax
	mov %rax, TAIL_AT+16(%rsp)
	lea SCRATCH(%rsp), %rax                     /* the stack pointer at the exec event */
	mov %rax, TAIL_AT+24(%rsp)
	mov DATA(EXEC_BLOB_DROP_START), %rdi
	mov DATA(EXEC_BLOB_DROP_LEN), %rsi
	mov DATA(EXEC_BLOB_TAIL), %rax
	lea TAIL_AT(%rsp), %rsp
	jmp *%rax                                   /* gate_exec_tail: no stop */
.Ldone:
	mov $SYS_getpid, %eax
	syscall                                     /* the last stop: the tracer takes over */
	ud2
.Lwrite_failed:
.Lclose_socket:                                 /* rbx: the descriptor to close */
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
