/* The in-process path from an image's first instruction. Before any preloaded
 * library can run, the loader (ld.so) makes some 25 syscalls, each a stop. At the
 * exec event, before its first instruction, the tracer builds the stubs and jumps of
 * the loader's known sites for stub memory it places just below the loader, and
 * writes a short piece of code into the loader (exec_blob.S) that maps the gate, the
 * region and that memory and writes those bytes itself, the gate first and
 * everything else through it: two stops in all, and the copying is the image's.
 * Then the tracer puts the loader's bytes back and points the thread's %gs at a
 * slot. The library finds all in place; what was counted until the image's first
 * call outside the loader is early. A static program (no loader) and the first
 * images of a run (nothing known yet) go without. */
#ifndef SYSTRACE_EARLY_H
#define SYSTRACE_EARLY_H

#include <stdbool.h>

#include "tasks.h"

/* At t's exec event, t the only thread of its new image. False when t stopped
 * for something else meanwhile (a signal): its status is held (held_statuses.h)
 * and it must not be resumed now. */
bool early_on_exec(struct thread *t);

#endif
