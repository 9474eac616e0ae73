/* The tracer's open file descriptors. It holds descriptors that grow with the run
 * (one /proc/PID/mem per live address space, perf counters per image, objects kept
 * open by objects.c's pin cache, the mappings proc_maps.c keeps open per thread, a
 * few /proc/TID/stat files procfs.c keeps), so
 * at start it raises its soft RLIMIT_NOFILE to the hard limit; the command starts
 * with the soft limit systrace was given, as it would natively. When descriptors
 * still run short, what can be given back (the pins, the kept mappings) is. */
#ifndef SYSTRACE_FD_LIMIT_H
#define SYSTRACE_FD_LIMIT_H

#include <stdbool.h>

/* At start: the soft limit raised to the hard one, the inherited one kept. */
void fd_limit_raise(void);
/* In the command's child, before execve: the inherited soft limit. */
void fd_limit_restore_inherited(void);
/* What gives descriptors back when the tracer has none left: true if it closed any
 * (objects.c's pins, proc_maps.c's kept mappings, procfs.c's stat files, the closes
 * handed to offload.c's writer; each registered once, when it first holds one). */
void fd_limit_on_short(bool (*release)(void));
/* After a call failed with errno: if it was for want of descriptors (EMFILE), the
 * releaser is asked for some; true if it gave any back, and the call is worth
 * making again. */
bool fd_limit_retry(int err);
/* open(2), made again once if the tracer had no descriptor left and some were
 * given back. */
int fd_open(const char *path, int flags);

#endif
