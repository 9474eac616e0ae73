/* The in-process path of every dynamically linked image, from its first
 * instruction: nothing is loaded into the process. At the exec event, before the
 * loader (ld.so) runs, the tracer builds the stubs and jumps of the loader's known
 * sites (none in the run's first images) for stub memory it places just below the
 * loader, and writes a short piece of code into the loader (exec_blob.S) that maps
 * the gate, the region (region_handout.h) and that memory and writes those bytes
 * itself, the gate first and everything else through it, and the copying is the
 * image's. It ends without a stop when it can (its pages, dropped, take the
 * loader's bytes back from the file; it points its %gs at its slot itself), else at
 * a stop where the tracer puts the loader's bytes back and points %gs at the slot
 * (and one stop more when it must ask the tracer for the region). At the image's
 * first call outside the loader its path is up
 * (library_up); what was counted until then is early. A static
 * program (no loader) stays on the slow path. */
#ifndef SYSTRACE_EARLY_H
#define SYSTRACE_EARLY_H

#include <stdbool.h>

#include "tasks.h"

/* At t's exec event, t the only thread of its new image: the set-up starts when it
 * can be made (t->setup), and t is resumed by the caller either way. The image's
 * executable path is set when the mappings read for the set-up said it. */
void early_on_exec(struct thread *t);
/* At a seccomp stop (raw number nr) of a thread in its set-up: true if it is one of
 * the set-up's own (counted as a stop, the call not the program's), false if not. */
bool early_on_seccomp(struct thread *t, long nr);
/* At any stop of t, first: a set-up that ended without a stop (gate_exec_tail) is
 * taken as done, with the calls it made. */
void early_on_stop(struct thread *t);
/* At a signal stop of a thread in its set-up: a fault the set-up code raised is
 * undone, and the image starts without it (true: resume without the signal). */
bool early_on_fault(struct thread *t, int sig);

#endif
