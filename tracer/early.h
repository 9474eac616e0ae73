/* The in-process path from an image's first instruction. Before any preloaded
 * library can run, the loader (ld.so) makes some 25 syscalls, each a stop. At the
 * exec event, before its first instruction, the tracer writes a short piece of code
 * over the loader's entry (exec_blob.S) that maps the gate, the region and stub
 * memory near the loader, the gate first and everything else through it: two stops
 * in all. Then it puts the loader's bytes back, points the thread's %gs at a slot,
 * and patches the loader's sites that earlier images trapped at. The library finds
 * all in place; what was counted until its READY is early. A static program (no
 * loader) and the first images of a run (nothing known yet) go without. */
#ifndef SYSTRACE_EARLY_H
#define SYSTRACE_EARLY_H

#include <stdbool.h>

#include "tasks.h"

/* At t's exec event, t the only thread of its new image. False when t stopped
 * for something else meanwhile (a signal): its status is held (held_statuses.h)
 * and it must not be resumed now. */
bool early_on_exec(struct thread *t);

#endif
