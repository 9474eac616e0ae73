/* A library the user preloads whose constructor tries to map a page at systrace's
 * gate address. systrace maps the gate at exec, before the loader runs any
 * constructor (tracer/early.c), so the squatter finds the address taken and the
 * program still counts in-process. Built as a shared object (name ends in _preload). */
#include <sys/mman.h>

#include "gate.h"

__attribute__((constructor)) static void squat(void)
{
	mmap((void *)SYSTRACE_GATE_ADDR, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
}
