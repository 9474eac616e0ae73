#include "tracee_wait.h"

#include <errno.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

bool tracee_wait(pid_t tid, int *status)
{
	pid_t got;

	while ((got = waitpid(tid, status, TRACEE_WAIT_FLAGS)) < 0 && errno == EINTR)
		;
	return got == tid;
}

bool tracee_event_message(pid_t tid, int event, unsigned long *msg)
{
	siginfo_t si;

	return ptrace(PTRACE_GETEVENTMSG, tid, 0, msg) == 0 && ptrace(PTRACE_GETSIGINFO, tid, 0, &si) == 0
	       && si.si_code >> 8 == event;
}
