#include "filter.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "exec_blob.h"
#include "park.h"

#ifndef __X32_SYSCALL_BIT
#define __X32_SYSCALL_BIT 0x40000000
#endif

#define LOAD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
#define LOAD_AT(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
/* unless the accumulator equals k, jump forward over `to_trace` instructions to the TRACE return */
#define REQUIRE_EQ(k, to_trace) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), 0, (to_trace))

unsigned filter_build(struct sock_filter *prog, uint64_t allowed_ip, uint64_t instrument_ip, uint64_t stackless_ip)
{
	const uint32_t ip_lo = (uint32_t)allowed_ip, ip_hi = (uint32_t)(allowed_ip >> 32);
	const uint64_t page = allowed_ip & ~(uint64_t)4095;
	const unsigned ip_off = offsetof(struct seccomp_data, instruction_pointer);
	const unsigned arg_off = offsetof(struct seccomp_data, args);
	/* where the paths end: TRACE last, ALLOW before it */
	enum { PARK_AT = 22, ALLOW_AT = 30, TRACE_AT = 31 };
#define TO(label, i) ((label) - (i) - 1)
	struct sock_filter code[] = {
		/* 0 */ LOAD(arch),
		/* 1 */ REQUIRE_EQ(AUDIT_ARCH_X86_64, TO(TRACE_AT, 1)),
		/* 2 */ LOAD(nr),
		/* 3 */ BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, __X32_SYSCALL_BIT, TO(TRACE_AT, 3), 0),
		/* 4 */ LOAD_AT(ip_off),          /* low half first: x86-64 is little-endian */
		/* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ip_lo, 2, 0),
		/* 6 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)instrument_ip, 1, 0),
		/* 7 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)stackless_ip, 0, 2),
		/* 8 */ LOAD_AT(ip_off + 4),
		/* 9 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ip_hi, TO(ALLOW_AT, 9), 0),
		/* elsewhere, the one call that maps the gate's page (exec_blob.S) */
		/* 10 */ LOAD(nr),
		/* 11 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ppoll, TO(PARK_AT, 11), 0),
		/* 12 */ REQUIRE_EQ(SYS_mmap, TO(TRACE_AT, 12)),
		/* 13 */ LOAD_AT(arg_off),
		/* 14 */ REQUIRE_EQ((uint32_t)page, TO(TRACE_AT, 14)),
		/* 15 */ LOAD_AT(arg_off + 4),
		/* 16 */ REQUIRE_EQ((uint32_t)(page >> 32), TO(TRACE_AT, 16)),
		/* 17 */ LOAD_AT(arg_off + 2 * 8),
		/* 18 */ REQUIRE_EQ(EXEC_BLOB_GATE_PROT, TO(TRACE_AT, 18)),
		/* 19 */ LOAD_AT(arg_off + 3 * 8),
		/* 20 */ REQUIRE_EQ(EXEC_BLOB_GATE_FLAGS, TO(TRACE_AT, 20)),
		/* 21 */ BPF_STMT(BPF_JMP | BPF_JA, TO(ALLOW_AT, 21)),
		/* and the call an image handed to another tracer thread waits in (park.h) */
		/* 22 */ LOAD_AT(arg_off),
		/* 23 */ REQUIRE_EQ((uint32_t)PARK_FDS, TO(TRACE_AT, 23)),
		/* 24 */ LOAD_AT(arg_off + 4),
		/* 25 */ REQUIRE_EQ((uint32_t)(PARK_FDS >> 32), TO(TRACE_AT, 25)),
		/* 26 */ LOAD_AT(arg_off + 4 * 8),
		/* 27 */ REQUIRE_EQ((uint32_t)PARK_SIGSETSIZE, TO(TRACE_AT, 27)),
		/* 28 */ LOAD_AT(arg_off + 4 * 8 + 4),
		/* 29 */ REQUIRE_EQ((uint32_t)(PARK_SIGSETSIZE >> 32), TO(TRACE_AT, 29)),
		/* 30 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		/* 31 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE),
	};
#undef TO
	unsigned n = sizeof(code) / sizeof(code[0]);

	_Static_assert(sizeof(code) / sizeof(code[0]) == TRACE_AT + 1, "the labels are the instructions' places");
	_Static_assert(sizeof(code) / sizeof(code[0]) <= FILTER_MAX_LEN, "FILTER_MAX_LEN holds the filter");
	for (unsigned i = 0; i < n; i++)
		prog[i] = code[i];
	return n;
}

int filter_install(uint64_t allowed_ip, uint64_t instrument_ip, uint64_t stackless_ip)
{
	struct sock_filter code[FILTER_MAX_LEN];
	struct sock_fprog prog = { .len = (unsigned short)filter_build(code, allowed_ip, instrument_ip, stackless_ip),
				   .filter = code };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	/* SPEC_ALLOW: systrace is a measuring tool, not a sandbox; without it the
	 * kernel turns on speculative-store-bypass mitigation, slowing the program. */
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_SPEC_ALLOW, &prog) == 0)
		return 0;
	if (errno == EINVAL)
		return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
	/* no seccomp(2) (kernels before 3.17, or systrace itself under valgrind) */
	if (errno == ENOSYS)
		return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
	return -1;
}
