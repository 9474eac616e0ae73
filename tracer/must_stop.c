#include "must_stop.h"

#include <stdio.h>
#include <sys/syscall.h>

#include "interned.h"
#include "syscall_names.h"

static const char *const names[] = {
	"rt_sigreturn", "clone3", "vfork", "exit", "sched_setaffinity", "sched_getaffinity", "ptrace", "seccomp",
	/* last: in-process when only counting (must_stop_setup) */
	"clone", "fork", "execve", "execveat",
};
#define NCOUNTING_ONLY 4
#define NCALLS (sizeof(names) / sizeof(names[0]))
static int indexes[NCALLS];
static const char *reasons[NCALLS];
static size_t ncalls;
static struct stub_guard guards[] = {
	{ .kind = GUARD_SETS_GS }, /* arch_prctl */
	{ .kind = GUARD_UNMAPS_OWN }, /* munmap */
	{ .kind = GUARD_SETS_SECCOMP }, /* prctl */
	{ .kind = GUARD_NOT_A_FORK }, /* clone, last: when only counting */
};
static size_t nguards;

void must_stop_setup(bool counting_only)
{
	char reason[64];

	ncalls = counting_only ? NCALLS - NCOUNTING_ONLY : NCALLS;
	for (size_t i = 0; i < ncalls; i++) {
		indexes[i] = syscall_index_of(ABI_X86_64, names[i]);
		snprintf(reason, sizeof(reason), "syscall-%s", names[i]);
		reasons[i] = intern(reason);
	}
	guards[0].nr = syscall_index_of(ABI_X86_64, "arch_prctl");
	guards[1].nr = syscall_index_of(ABI_X86_64, "munmap");
	guards[2].nr = syscall_index_of(ABI_X86_64, "prctl");
	guards[3].nr = syscall_index_of(ABI_X86_64, "clone");
	nguards = counting_only ? 4 : 3;
}

const char *must_stop_reason(int nr)
{
	/* only counting (the last calls not must-stop): their sites get stubs of their
	 * own (stub.h), the numbers stay slow elsewhere */
	if (ncalls < NCALLS && (nr == SYS_rt_sigreturn || nr == SYS_vfork))
		return NULL;
	for (size_t i = 0; nr >= 0 && i < ncalls; i++)
		if (indexes[i] == syscall_index(ABI_X86_64, nr))
			return reasons[i];
	return NULL;
}

const int *must_stop_indexes(size_t *n)
{
	*n = ncalls;
	return indexes;
}

bool must_stop_waits(long nr)
{
	return nr < 0 || nr == SYS_wait4 || nr == SYS_waitid;
}

const struct stub_guard *must_stop_guards(size_t *n)
{
	*n = nguards;
	return guards;
}
