/* libsystrace.so: preloaded into every dynamically linked process of a traced
 * command. It maps the gate and the shared region and tells the tracer it is ready;
 * the tracer then patches the process's syscall sites to stubs that count in the
 * region and call the gate (the sites it knows from earlier processes at once, the
 * others at their first call). Nothing here runs per syscall.
 *
 * Outside systrace (no SYSTRACE_ENV in the environment) it makes no syscall at all.
 * It uses nothing of libc but getenv and getauxval (neither makes a syscall):
 * whatever it pulls in is loaded thousands of times, and each syscall it makes
 * before it is ready is a ptrace stop. */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "gate.h"
#include "region.h"

#define STRINGIFY(x) STRINGIFY_(x)
#define STRINGIFY_(x) #x

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* The arguments of a C call (nr, a..f) moved to where the kernel takes them. */
#define SYSCALL_ARGS \
	"	mov %rdi,%rax\n" \
	"	mov %rsi,%rdi\n" \
	"	mov %rdx,%rsi\n" \
	"	mov %rcx,%rdx\n" \
	"	mov %r8,%r10\n" \
	"	mov %r9,%r8\n" \
	"	mov 8(%rsp),%r9\n"

/* Every syscall of the library until the gate is mapped, at one site the tracer
 * recognises as its own. */
long systrace_raw_syscall(long nr, long a, long b, long c, long d, long e, long f);
__asm__(".text\n"
	".globl systrace_raw_syscall\n"
	".hidden systrace_raw_syscall\n"
	".type systrace_raw_syscall,@function\n"
	"systrace_raw_syscall:\n"
	SYSCALL_ARGS
	"	syscall\n"
	"	ret\n"
	".size systrace_raw_syscall,.-systrace_raw_syscall\n");

/* Then through the gate: no stop, so the library counts these itself. */
long systrace_gate_syscall(long nr, long a, long b, long c, long d, long e, long f);
__asm__(".text\n"
	".globl systrace_gate_syscall\n"
	".hidden systrace_gate_syscall\n"
	".type systrace_gate_syscall,@function\n"
	"systrace_gate_syscall:\n"
	SYSCALL_ARGS
	"	movabs $" STRINGIFY(SYSTRACE_GATE_HEX) ",%r11\n"
	"	jmp *%r11\n"
	".size systrace_gate_syscall,.-systrace_gate_syscall\n");

/* Room for stubs in the library's own executable segment (int3 until written). */
__asm__(".section .text.systrace_stub_room,\"ax\",@progbits\n"
	".balign 4096\n"
	"systrace_stub_room:\n"
	".fill " STRINGIFY(LIBRARY_STUB_ROOM_SIZE) ",1,0xcc\n"
	".previous\n");
extern const char systrace_stub_room[];

static uint64_t gate_calls;

static long gate_syscall(long nr, long a, long b, long c, long d, long e, long f)
{
	gate_calls++;
	return systrace_gate_syscall(nr, a, b, c, d, e, f);
}

static char *format_decimal(char *p, long v)
{
	char digits[24];
	int n = 0;

	do
		digits[n++] = (char)('0' + v % 10);
	while ((v /= 10) > 0);
	while (n)
		*p++ = digits[--n];
	return p;
}

static char *append(char *p, const char *s)
{
	while (*s)
		*p++ = *s++;
	return p;
}

/* Stub memory near the executable, where the tracer asked for it. */
static int map_area(const struct systrace_hello *h, struct systrace_ready *r)
{
	if (h->area_at && gate_syscall(SYS_mmap, (long)h->area_at, (long)h->area_size, PROT_READ | PROT_EXEC,
				       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) == (long)h->area_at)
		r->area = h->area_at;
	return LIBRARY_READY;
}

static int map_region(const struct systrace_hello *h, struct systrace_ready *r)
{
	char path[64], *p = path;
	long fd, gate, region;

	p = append(p, "/proc/");
	p = format_decimal(p, h->tracer_pid);
	p = append(p, "/fd/");
	p = format_decimal(p, h->region_fd);
	*p = 0;
	fd = systrace_raw_syscall(SYS_open, (long)path, O_RDWR | O_CLOEXEC, 0, 0, 0, 0);
	if (fd < 0)
		return LIBRARY_REGION_UNREACHABLE;
	gate = systrace_raw_syscall(SYS_mmap, (long)SYSTRACE_GATE_ADDR, REGION_GATE_SIZE, PROT_READ | PROT_EXEC,
				    MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
	if (gate != (long)SYSTRACE_GATE_ADDR) {
		/* a kernel without MAP_FIXED_NOREPLACE takes the address as a hint */
		if (gate > 0 || gate < -4095)
			systrace_raw_syscall(SYS_munmap, gate, REGION_GATE_SIZE, 0, 0, 0, 0);
		systrace_raw_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
		return gate == -12 /* ENOMEM */ ? LIBRARY_REGION_UNREACHABLE : LIBRARY_GATE_TAKEN;
	}
	region = gate_syscall(SYS_mmap, 0, (long)h->region_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	gate_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
	if (region < 0 && region >= -4095)
		return LIBRARY_REGION_UNREACHABLE;
	r->region_base = (uint64_t)region;
	return map_area(h, r);
}

#ifndef HWCAP2_FSGSBASE
#define HWCAP2_FSGSBASE 2
#endif

/* Whether the tracer set this image up at exec (tracer/early.c): gate and region
 * mapped, and %gs pointed at this thread's slot, which nothing else does (glibc
 * leaves gs alone). rdgsbase reads it without a syscall where the kernel allows it. */
static int set_up_at_exec(void)
{
	uint64_t gs;

	if (!(getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE))
		return 0;
	__asm__ volatile("rdgsbase %0" : "=r"(gs));
	return gs != 0;
}

__attribute__((constructor)) static void systrace_start(void)
{
	struct systrace_hello hello = { 0 };
	struct systrace_ready ready = { .stub_room = (uint64_t)systrace_stub_room,
					.stub_room_size = LIBRARY_STUB_ROOM_SIZE };

	if (!getenv(SYSTRACE_ENV))
		return;
	/* all in place: the tracer only needs to hear that the libraries are loaded, if
	 * it has not seen so already */
	if (set_up_at_exec()) {
		uint64_t up;

		__asm__ volatile("mov %%gs:" STRINGIFY(REGION_SLOT_UP_AT) ", %0" : "=r"(up));
		if (up != REGION_UP_MAGIC)
			systrace_raw_syscall(SYSTRACE_CONTROL_NR, (long)SYSTRACE_MAGIC, CONTROL_READY, (long)&ready, 0, 0,
					     0);
		return;
	}
	/* not under systrace after all (a stale environment): the kernel says ENOSYS */
	if (systrace_raw_syscall(SYSTRACE_CONTROL_NR, (long)SYSTRACE_MAGIC, CONTROL_HELLO, (long)&hello, 0, 0, 0) != 0)
		return;
	ready.region_base = hello.region_base;
	if (hello.status != LIBRARY_READY)
		ready.status = hello.status;
	else if (hello.region_base)
		ready.status = map_area(&hello, &ready);
	else
		ready.status = map_region(&hello, &ready);
	ready.gate_calls = gate_calls;
	systrace_raw_syscall(SYSTRACE_CONTROL_NR, (long)SYSTRACE_MAGIC, CONTROL_READY, (long)&ready, 0, 0, 0);
}
