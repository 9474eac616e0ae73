/* Patching a site at its trap: after a ptraced call has been counted, its site is
 * decided (site_plan.h) and, in an image whose in-process path is up, written
 * through the write protocol (write_protocol.h), with stub memory mapped near it
 * first if there is none (borrowing the trapped thread for the mmap). Before the
 * path is up a trap only plans the site for the images to come, and, where the gate
 * was mapped at exec, brings the path up, writing what is known of the objects
 * mapped (known_sites.h). The protocol is in docs/patching.md. */
#ifndef SYSTRACE_PATCHING_H
#define SYSTRACE_PATCHING_H

#include <stdbool.h>
#include <stdint.h>

#include "options.h"
#include "tasks.h"

enum patch_result {
	PATCH_RESUME,  /* go on as usual */
	PATCH_REISSUE, /* t made an mmap for stub room and makes its own call again:
	                  resume it with PTRACE_CONT; that entry is not a new call */
	PATCH_HELD,    /* t did not come back (killed): its status is held */
};

/* ahead: --prepatch, every site that can be patched is, at each image's start. */
void patching_setup(enum patch_mode mode, bool ahead);
/* After the trapped call of t (raw x86-64 number nr) at site has been counted;
 * at_stub: it trapped at the site's stub (its slow syscall: as_site_of). */
enum patch_result patching_on_call(struct thread *t, uint64_t site, bool at_stub, long nr);
/* At t's fork event (the child made): what its children taught its memory is
 * written, when t has the memory to itself. */
void patching_on_fork(struct thread *t);
/* At a munmap's entry: patches in the range no longer stand for what is there. */
void patching_on_munmap(struct thread *t, uint64_t addr, uint64_t len);

#endif
