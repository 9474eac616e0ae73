/* The allow-all filter of systrace's shape; see allow_filter.h.
 * The BPF program is systrace's own (filter_build from tracer/filter.c, compiled
 * into the benchmark programs by bench/run.sh and bench/run-inprocess.sh); only its
 * return values are changed here. */
#include "allow_filter.h"
#include "filter.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The address right after the first `syscall` (0f 05) in the first bytes of fn:
 * what the kernel reports as the instruction pointer of a call made there. */
static uint64_t after_syscall(const void *fn)
{
	const unsigned char *p = fn;

	for (int i = 0; i < 64; i++)
		if (p[i] == 0x0f && p[i + 1] == 0x05)
			return (uint64_t)(uintptr_t)(p + i + 2);
	return 0;
}

int allow_filter_install(const void *site_fn)
{
	struct sock_filter code[FILTER_MAX_LEN];
	uint64_t ip = after_syscall(site_fn);
	unsigned n, changed = 0;

	if (!ip) {
		fprintf(stderr, "allow_filter: no syscall instruction at the site\n");
		return -1;
	}
	n = filter_build(code, ip, ip, ip);
	for (unsigned i = 0; i < n; i++) {
		if (code[i].code != (BPF_RET | BPF_K))
			continue;
		if (code[i].k == SECCOMP_RET_TRACE) {
			code[i].k = SECCOMP_RET_ALLOW;
			changed++;
		} else if (code[i].k != SECCOMP_RET_ALLOW) {
			fprintf(stderr, "allow_filter: filter_build returns 0x%x, expected only ALLOW and TRACE\n",
				code[i].k);
			return -1;
		}
	}
	if (!changed) {
		fprintf(stderr, "allow_filter: no TRACE return in filter_build's program\n");
		return -1;
	}

	struct sock_fprog prog = { .len = (unsigned short)n, .filter = code };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		perror("allow_filter: PR_SET_NO_NEW_PRIVS");
		return -1;
	}
	/* as filter_install does: SPEC_ALLOW, so that the kernel does not turn on the
	 * speculative-store-bypass mitigation that systrace's runs do not have */
	const char *flags = "SPEC_ALLOW";
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_SPEC_ALLOW, &prog) != 0) {
		if (errno != EINVAL || syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) {
			perror("allow_filter: seccomp");
			return -1;
		}
		flags = "no flags (SPEC_ALLOW refused)";
	}
	fprintf(stderr, "allow_filter: %u BPF instructions, %u TRACE returns made ALLOW, ip compare against %#llx, %s\n",
		n, changed, (unsigned long long)ip, flags);
	return 0;
}
