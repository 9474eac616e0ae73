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
 *   control(SYSTRACE_MAGIC, CONTROL_READY, &ready)     the library filled ready
 * Between the two, the library's syscalls are made at its own site (each a stop) until
 * the gate is mapped, then through the gate (no stop: the library counts them); both
 * are instrument_syscalls, not the program's. At READY, with the process still
 * single-threaded and before main, the tracer writes every patch it knows for the
 * objects loaded; their stubs go in the library's own stub room (near the shared
 * libraries) and in the area it asked the library to map near the executable. */
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
	uint64_t area_at;       /* map stub memory here (the tracer found it free), or 0 */
	uint64_t region_base;   /* gate and region are mapped already, the region here; or 0 */
	uint64_t area_size;
};

struct systrace_ready {
	int64_t status;         /* enum library_status */
	uint64_t region_base;
	uint64_t stub_room, stub_room_size;  /* in the library's own code */
	uint64_t area;          /* hello.area_at if it could be mapped, else 0 */
	uint64_t gate_calls;    /* the library's own syscalls made through the gate */
};

/* Stub memory inside the library's text: executable, near the shared libraries the
 * loader maps next to it, and there without a syscall. */
#define LIBRARY_STUB_ROOM_SIZE (64 * 1024)

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
