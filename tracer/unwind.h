/* Walking a stopped thread's stack from the tracer, with libunwind's ptrace
 * accessors (--libc-calls). One unwinder per process image: its libunwind address
 * space caches what it learns of the code by address, which holds as long as the
 * image's mappings do. */
#ifndef SYSTRACE_UNWIND_H
#define SYSTRACE_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Frames walked at most: a corrupt or cyclic stack ends there, as a failure. */
#define UNWIND_MAX_FRAMES 64

struct unwinder;

struct unwinder *unwinder_new(void);
void unwinder_free(struct unwinder *u);

enum unwind_end {
	UNWIND_LEFT,    /* a frame outside the range was reached: outside_ip holds */
	UNWIND_BOTTOM,  /* the stack ended inside the range */
	UNWIND_FAILED,  /* no unwind information, unreadable memory, a thread gone,
	                   too many frames, or the innermost frame outside the range */
};

struct unwind_walk {
	uint64_t inside_ip;     /* the outermost frame inside the range */
	uint64_t outside_ip;    /* the first frame outside it: a return address */
};

/* Reads len bytes at addr of the walked process from a copy the tracer holds (an
 * object's read-only segments, as its file has them); false: read the process. The
 * unwind information is read so, word by word, instead of one ptrace call a word. */
typedef bool unwind_local_read(void *arg, uint64_t addr, void *buf, size_t len);

/* Walks tid (stopped, of u's image) outward from its innermost frame while the
 * frames' instruction pointers lie in [lo, hi). Only frames inside the range are
 * unwound, so only their code's unwind information is read. */
enum unwind_end unwind_within(struct unwinder *u, pid_t tid, uint64_t lo, uint64_t hi,
			      unwind_local_read *local, void *arg, struct unwind_walk *w);

#endif
