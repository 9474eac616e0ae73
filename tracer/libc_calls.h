/* --libc-calls: which libc entry point led to each syscall site. At every ptraced
 * x86-64 call whose site lies in glibc's libc.so.6, the stopped thread's stack is
 * walked outward (tracer/unwind.h) to the first frame outside libc; the entry point
 * is the libc function that frame called (its call instruction, through the PLT or
 * GOT), else the function of the outermost libc frame. Tallied per site of the image
 * (sites.csv's libc_function, libc_functions) and per site of the libc object for
 * the whole run, which names the sites of later processes that never stopped there
 * (patched at their start). docs/output.md has the rules. */
#ifndef SYSTRACE_LIBC_CALLS_H
#define SYSTRACE_LIBC_CALLS_H

#include <stdbool.h>

#include "tasks.h"

void libc_calls_setup(bool enabled);
/* One counted ptraced call at s of thread t stopped at instruction pointer ip. */
void libc_calls_on_call(struct thread *t, struct site_record *s, uint64_t ip);
/* Before img's rows are written (a tasks.h hook): its sites with no entry point of
 * their own get the one learned in other processes, and its unwinder goes. */
void libc_calls_complete(struct image *img);
/* Whether path is glibc's libc: its file name is the soname libc.so.6 (or the
 * libc-VERSION.so it linked to before glibc 2.34), " (deleted)" allowed. */
bool libc_calls_is_glibc(const char *path);

#endif
