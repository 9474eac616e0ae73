/* The calls that must stop in the tracer, so their sites are never patched when the
 * number is fixed there, and a stub whose number varies sends them to its own traced
 * `syscall`:
 *   - they change the stack or never return to the stub: rt_sigreturn, clone, clone3,
 *     fork, vfork (a child would return into the stub on a stack it does not have);
 *   - they may take away the stack the gate call returns through: munmap and exit (a
 *     thread that unmaps its own stack and exits, as musl's pthread_exit does);
 *   - the tracer needs their entry: execve, execveat (the environment), the
 *     affinity calls (placement.c), arch_prctl (a program that sets its own %gs base
 *     takes the stubs' counters away).
 * All are rare in a run but munmap, which is under 1% of a build's calls. */
#ifndef SYSTRACE_MUST_STOP_H
#define SYSTRACE_MUST_STOP_H

#include <stddef.h>

void must_stop_setup(void);
/* Why a site whose fixed x86-64 number is nr stays traced ("syscall-munmap"), or
 * NULL when it need not. */
const char *must_stop_reason(int nr);
/* Their counter indexes (x86-64), n of them, for the stubs' run-time checks. */
const int *must_stop_indexes(size_t *n);

#endif
