#include "must_stop.h"

#include <stdio.h>
#include <sys/syscall.h>

#include "interned.h"
#include "syscall_names.h"

static const char *const names[] = {
	"rt_sigreturn", "clone", "clone3", "fork", "vfork", "execve", "execveat",
	"exit", "sched_setaffinity", "sched_getaffinity", "ptrace", "seccomp",
};
#define NCALLS (sizeof(names) / sizeof(names[0]))
static int indexes[NCALLS];
static const char *reasons[NCALLS];
static struct stub_guard guards[] = {
	{ .kind = GUARD_SETS_GS }, /* arch_prctl */
	{ .kind = GUARD_UNMAPS_OWN }, /* munmap */
	{ .kind = GUARD_SETS_SECCOMP }, /* prctl */
};

void must_stop_setup(void)
{
	char reason[64];

	for (size_t i = 0; i < NCALLS; i++) {
		indexes[i] = syscall_index_of(ABI_X86_64, names[i]);
		snprintf(reason, sizeof(reason), "syscall-%s", names[i]);
		reasons[i] = intern(reason);
	}
	guards[0].nr = syscall_index_of(ABI_X86_64, "arch_prctl");
	guards[1].nr = syscall_index_of(ABI_X86_64, "munmap");
	guards[2].nr = syscall_index_of(ABI_X86_64, "prctl");
}

const char *must_stop_reason(int nr)
{
	for (size_t i = 0; nr >= 0 && i < NCALLS; i++)
		if (indexes[i] == syscall_index(ABI_X86_64, nr))
			return reasons[i];
	return NULL;
}

const int *must_stop_indexes(size_t *n)
{
	*n = NCALLS;
	return indexes;
}

bool must_stop_waits(long nr)
{
	return nr < 0 || nr == SYS_wait4 || nr == SYS_waitid;
}

const struct stub_guard *must_stop_guards(size_t *n)
{
	*n = sizeof(guards) / sizeof(guards[0]);
	return guards;
}
