/* What the tracer reads from /proc about a traced process. */
#ifndef SYSTRACE_PROCFS_H
#define SYSTRACE_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

uint64_t monotonic_ns(void);
/* User and system time of the whole thread group so far. */
bool procfs_times(pid_t pid, uint64_t *user_ns, uint64_t *sys_ns);
/* systrace's own peak resident memory. (getrusage's ru_maxrss would not do: Linux
 * carries the parent's peak across fork and execve into it.) */
uint64_t procfs_self_peak_rss_kb(void);
/* The executable's path (malloc'd), or NULL. */
char *procfs_exe(pid_t pid);

#endif
