/* Starting the command: finding it like execvp, then a child that waits until the
 * tracer has seized it, installs the filter and executes the command. */
#ifndef SYSTRACE_LAUNCH_H
#define SYSTRACE_LAUNCH_H

#include <stdint.h>
#include <sys/types.h>

/* Finds the program to execute (PATH search when name has no '/'). Returns a
 * malloc'd path, or NULL with *status set to 127 (not found) or 126 (found but not
 * executable) and errno describing why. */
char *launch_resolve(const char *name, int *status);

/* The ptrace options every tracee gets. */
#define LAUNCH_PTRACE_OPTIONS                                                                   \
	(PTRACE_O_TRACESECCOMP | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE \
	 | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT | PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL)

/* Forks the command and seizes it; its first traced syscall is the execve of path.
 * Returns the pid, or -1 with errno. */
pid_t launch_command(const char *path, char **argv, uint64_t allowed_ip);

#endif
