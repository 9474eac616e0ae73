#include "stops.h"

#include <signal.h>
#include <sys/ptrace.h>

#include "syscall_names.h"

static const char *const lifecycle_names[] = {
	"fork", "vfork", "clone", "clone3", "execve", "execveat", "exit", "exit_group",
};
static bool lifecycle[SYSCALL_INDEX_COUNT]; /* by counter index, from the names */

enum stop_kind stop_kind_of(int event, int sig, bool first_stop, bool in_execve)
{
	switch (event) {
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE:
	case PTRACE_EVENT_EXEC:
	case PTRACE_EVENT_EXIT:
		return STOP_LIFECYCLE;
	case PTRACE_EVENT_STOP:
		return first_stop ? STOP_LIFECYCLE : STOP_OTHER;
	case 0:
		return sig == (SIGTRAP | 0x80) && in_execve ? STOP_LIFECYCLE : STOP_OTHER;
	default:
		return STOP_OTHER;
	}
}

void count_stop(struct image *img, enum stop_kind kind)
{
	img->rec.ptrace_stops++;
	if (kind == STOP_LIFECYCLE)
		img->rec.stops_lifecycle++;
	else if (img->late)
		img->rec.stops_late++;
	else
		img->rec.stops_early++;
}

void stops_setup(void)
{
	for (enum syscall_abi abi = 0; abi < ABI_COUNT; abi++) {
		for (size_t i = 0; i < sizeof(lifecycle_names) / sizeof(lifecycle_names[0]); i++) {
			int at = syscall_index_of(abi, lifecycle_names[i]);

			if (at >= 0)
				lifecycle[at] = true;
		}
	}
}

bool stop_call_is_lifecycle(int idx)
{
	return idx >= 0 && idx < SYSCALL_INDEX_COUNT && lifecycle[idx];
}
