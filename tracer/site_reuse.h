/* Another object's code where a site was. munmap runs in-process, so a dlclose and a
 * dlopen that maps another object at the same address go by unseen: a call at the
 * new object's site would be counted in the old site's record, named from the old
 * object, and its site never patched (the old patch's state says written). Sites
 * belong to the object mapped when the call was made: each object's site at an
 * address is a record of its own (site_record.gen). */
#ifndef SYSTRACE_SITE_REUSE_H
#define SYSTRACE_SITE_REUSE_H

#include <stdbool.h>
#include <stdint.h>

#include "tasks.h"

/* t trapped at site (its own syscall instruction, not a stub's), before the call
 * is counted. When the memory's record of site is one whose code may have gone (a
 * patch with a counter: the trap says its jump is not there; or a munmap the
 * tracer saw covered it; or, for a site whose calls all stop, a munmap made
 * in-process since the object there was last known, which the stubs count in each
 * thread's slot) and the object mapped there now is another than the one
 * it was named from, the record is retired: it keeps its patch and counter, so the
 * counts threads made through the old stub still go to the old row when their
 * slots are read; and a new record, of the next generation, takes the address:
 * the call is counted in a row of its own, named from the new object, and the site
 * is planned again. */
void site_reuse_on_trap(struct thread *t, uint64_t site);
/* A munmap of [addr, addr + len) that stopped (the image's sites there were named
 * just before): the sites the image ran there are marked so that their next trap
 * checks the object mapped then (the tracer does not see what is mapped next). */
void site_reuse_on_munmap(struct thread *t, uint64_t addr, uint64_t len);
/* t took a counter slot; t's slot is given up, or emptied (it stays t's): the
 * munmaps its stubs count there are read at its memory's traps (above). */
void site_reuse_slot_taken(struct thread *t);
void site_reuse_slot_left(struct thread *t, bool emptied);

#endif
