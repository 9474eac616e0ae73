/* The calls that must stop in the tracer, so their sites are never patched when the
 * number is fixed there, and a stub whose number varies sends them to its own traced
 * `syscall`:
 *   - they change the stack or never return to the stub: rt_sigreturn, clone3, vfork
 *     (a child would return into the stub on a stack it does not have, or share it
 *     with its parent); clone and fork too under --log and --time, whose routines'
 *     frames and buffers a child would return through and write as its parent's.
 *     rt_sigreturn's own site (a restorer: `mov $15,%rax; syscall`) gets a stub of
 *     its own that neither moves the stack nor calls (patcher/stub.h), and so does
 *     a vfork site whose number is fixed (glibc's vfork: the stackless stub, which
 *     comes back through the slot), but not under --log and --time either;
 *   - exit may run on a stack the thread itself unmapped (musl's pthread_exit:
 *     munmap, then exit), which the stub's call to the gate would need;
 *   - the tracer needs their entry: execve, execveat under --log and --time (the
 *     log's entries of the image it may end, the call's start; else they go
 *     in-process, and the exec event moves a successful one to its new image:
 *     counting.h), the affinity calls (placement.c), ptrace (a traced program's ptrace of threads
 *     systrace traces is answered by the tracer: nested_ptrace.h), seccomp (a
 *     program's own filter is rewritten before the kernel takes it: own_filter.h).
 * And the calls that must stop only in some cases (the stubs check, patcher/stub.h):
 *   - arch_prctl(ARCH_SET_GS): a program that sets its own %gs base takes the stubs'
 *     counters away (library.c withdraws the patches first); glibc's loader makes
 *     one arch_prctl(ARCH_SET_FS) per image, which goes in-process;
 *   - munmap of a range that holds the thread's stack pointer, the stub itself or
 *     the gate: the gate call would return through what it unmapped;
 *   - prctl(PR_SET_SECCOMP): the older way to install a filter, as seccomp above;
 *   - clone, unless a plain fork (a copy of the process, its own copy of the stack):
 *     the child returns through the stub and the gate as its parent does, and
 *     stops before its first instruction, where it gets a slot of its own; its
 *     creation is told by its event (events.c). */
#ifndef SYSTRACE_MUST_STOP_H
#define SYSTRACE_MUST_STOP_H

#include <stdbool.h>
#include <stddef.h>

#include "stub.h"

/* counting_only (no --log, no --time): clone and fork go in-process when they
 * make a plain copy, execve and execveat go in-process, and rt_sigreturn sites are
 * patched. */
void must_stop_setup(bool counting_only);
/* Why a site whose fixed x86-64 number is nr stays traced ("syscall-execve"), or
 * NULL when it need not. */
const char *must_stop_reason(int nr);
/* Their counter indexes (x86-64), n of them, for the stubs' run-time checks. */
const int *must_stop_indexes(size_t *n);
/* The calls that stop only in some cases, for the stubs (x86-64 numbers). */
const struct stub_guard *must_stop_guards(size_t *n);
/* In a memory whose waits must reach the tracer (its process ptraces threads that
 * systrace traces: nested_ptrace.h), whether a site of number nr (-1: it varies)
 * must stay traced: wait4, waitid, and every site whose number varies. */
bool must_stop_waits(long nr);

#endif
