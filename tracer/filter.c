#include "filter.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "exec_blob.h"

#ifndef __X32_SYSCALL_BIT
#define __X32_SYSCALL_BIT 0x40000000
#endif

#define LOAD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
#define LOAD_AT(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
/* unless the accumulator equals k, jump forward over to_trace instructions to the TRACE return */
#define REQUIRE_EQ(k, to_trace) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), 0, (to_trace))

unsigned filter_build(struct sock_filter *prog, uint64_t allowed_ip, uint64_t instrument_ip, uint64_t stackless_ip)
{
	const uint32_t ip_lo = (uint32_t)allowed_ip, ip_hi = (uint32_t)(allowed_ip >> 32);
	const uint64_t page = allowed_ip & ~(uint64_t)4095;
	const unsigned ip_off = offsetof(struct seccomp_data, instruction_pointer);
	const unsigned arg_off = offsetof(struct seccomp_data, args);
	struct sock_filter code[] = {
		LOAD(arch),
		REQUIRE_EQ(AUDIT_ARCH_X86_64, 19),
		LOAD(nr),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, __X32_SYSCALL_BIT, 17, 0),
		LOAD_AT(ip_off),          /* low half first: x86-64 is little-endian */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ip_lo, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)instrument_ip, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)stackless_ip, 0, 2),
		LOAD_AT(ip_off + 4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ip_hi, 10, 0),
		/* elsewhere, the one call that maps the gate's page (exec_blob.S) */
		LOAD(nr),
		REQUIRE_EQ(SYS_mmap, 9),
		LOAD_AT(arg_off),
		REQUIRE_EQ((uint32_t)page, 7),
		LOAD_AT(arg_off + 4),
		REQUIRE_EQ((uint32_t)(page >> 32), 5),
		LOAD_AT(arg_off + 2 * 8),
		REQUIRE_EQ(EXEC_BLOB_GATE_PROT, 3),
		LOAD_AT(arg_off + 3 * 8),
		REQUIRE_EQ(EXEC_BLOB_GATE_FLAGS, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE),
	};
	unsigned n = sizeof(code) / sizeof(code[0]);

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
