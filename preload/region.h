/* The shared region and the handshake between the tracer and the preloaded library.
 *
 * The tracer creates the region (a memfd) once per run. Page 0 holds the gate code,
 * which the library maps at SYSTRACE_GATE_ADDR; the rest is an array of counter
 * slots, one per live thread, which the thread's %gs base points at (glibc leaves gs
 * alone on x86-64): each thread only ever writes its own, so the stubs count without
 * a lock. The tracer reads a slot when its thread ends: a killed process's counts
 * are already there.
 *
 * The library asks for nothing unless SYSTRACE_ENV is in its environment (the tracer
 * keeps it there across execve, with LD_PRELOAD). It then talks to the tracer with a
 * syscall number no kernel has, which the filter traps and the tracer answers:
 *   control(SYSTRACE_MAGIC, CONTROL_HELLO, &hello)     the tracer fills hello
 *   control(SYSTRACE_MAGIC, CONTROL_READY, status, region_base)
 * Every syscall between the two is made at the library's own site and counted as
 * instrument_syscalls, not as the program's. */
#ifndef SYSTRACE_REGION_H
#define SYSTRACE_REGION_H

#include <stdint.h>

#define SYSTRACE_ENV "SYSTRACE_TRACER"
#define SYSTRACE_CONTROL_NR 0x5157ace
#define SYSTRACE_MAGIC 0x7379737472616365ULL /* "systrace" */

enum { CONTROL_HELLO = 1, CONTROL_READY = 2 };

/* The library's state, as CONTROL_READY reports it and processes.csv shows it. */
enum library_status {
	LIBRARY_READY,
	LIBRARY_REGION_UNREACHABLE, /* could not open or map the region */
	LIBRARY_GATE_TAKEN,         /* something else is mapped at the gate address */
	LIBRARY_REGION_FULL,        /* no free slot: set by the tracer at CONTROL_HELLO */
	LIBRARY_STATUS_COUNT
};

struct systrace_hello {
	int32_t status;         /* LIBRARY_READY, or LIBRARY_REGION_FULL */
	int32_t tracer_pid;     /* the region is /proc/<tracer_pid>/fd/<region_fd> */
	int32_t region_fd;
	int32_t pad;            /* region_size on an 8-byte boundary */
	uint64_t region_size;
};

#define REGION_GATE_SIZE 4096
#define REGION_NRS 512          /* per-number counters, for sites whose number varies */
#define REGION_SLOT_SITES 2552  /* site counters per slot (per address space's sites) */

struct region_slot {
	uint64_t pad[8];            /* the counters start on a cache line of their own */
	uint64_t nr_calls[REGION_NRS];
	uint64_t site_calls[REGION_SLOT_SITES];
};

#define REGION_SLOT_SIZE sizeof(struct region_slot)

#endif
