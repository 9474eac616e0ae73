/* The known sites of a program's libraries, written by the image itself once its
 * loader has mapped them, with no stop (lib_hook_code.S runs in the image;
 * lib_hook.c builds what it writes, and takes what it did).
 *
 * Why: the loader maps the libraries where ASLR puts them, so the tracer cannot
 * write their known sites at the exec event, and it used to write them at the
 * image's first call outside the loader (libc's getrlimit in __libc_early_init), a
 * stop of its own, with the writes made by the tracer into the image's memory. But
 * the libraries lie at the same distance from the loader's code in every image of
 * one executable that loads the same objects: the layout seen at that stop is kept
 * per executable (objects.h, objects_layout), and the next image of it gets its
 * libraries' known sites built at its exec event for where they will be, to be
 * written by the image once the loader has put them there:
 *
 *   exec event (early.c, lib_hook_build)       the image
 *     the stubs and jumps of each library's    exec_blob.S writes, with the
 *     known sites, built for the predicted     loader's own patches: this code
 *     addresses; this code and that payload    and its payload into stub memory
 *     go to stub memory near the loader, and   near the loader, and `jmp hook`
 *     `jmp hook` over the first instructions   over _dl_allocate_tls_init
 *     of _dl_allocate_tls_init, which the      the loader maps and relocates the
 *     loader calls once, when every object is  objects, then calls it: the hook
 *     mapped and relocated and before libc's     opens /proc/self/mem
 *     early initialisation makes a call          per library: preads its build-id
 *                                                where it should lie; the same:
 *                                                pwrites its runs (stubs, jumps)
 *                                                pwrites the function's bytes back
 *                                                closes; sums the early calls (the
 *                                                loader's sites' counters) into
 *                                                the slot, then DONE with the
 *                                                libraries written; goes on to the
 *                                                function through its trampoline
 *                                              libc's initialisation, the
 *                                              constructors and main run
 *                                              patched: no stop
 *   the thread's next stop, whatever it is (lib_hook_settle): the patches of the
 *   libraries written are the memory's; the others go back to unplanned (their
 *   first trap plans them as before); the image's in-process path is up, and its
 *   slot's counts so far are split at the hook's sum into early and late.
 *
 * Every call the hook makes goes through the gate's instrument `syscall` (systrace's
 * own: instrument_syscalls). A build-id that differs, or a hole where a library was
 * expected (pread's EIO: no fault), leaves that library unwritten; a run that did not
 * go leaves it partly written, which the tracer reads back. The hook acts once per
 * memory: it puts the function's bytes back, and a thread whose slot says DONE or
 * INERT (every thread but the one the image began with: library.c sets it when it
 * gives a slot) goes straight on to the function, so that a later call (a thread's
 * TLS, in a fork child too), whatever happened, never runs it again.
 *
 * Offsets of the payload below are from lib_hook_data, which follows the code. */
#ifndef SYSTRACE_LIB_HOOK_H
#define SYSTRACE_LIB_HOOK_H

#define LIB_HOOK_ENTRY 0        /* address of _dl_allocate_tls_init, where the jump is */
#define LIB_HOOK_ORIGINAL 8     /* its first 8 bytes as they were (5 are put back) */
#define LIB_HOOK_COUNTERS 16    /* site counters in use before the libraries' (the
                                   loader's and the program's): their calls are early */
#define LIB_HOOK_NOBJECTS 24
#define LIB_HOOK_TRAMPOLINE 32  /* its first instructions (what the jump covers, whole
                                   instructions that need no relocating), then a jump
                                   to the one after them */
#define LIB_HOOK_TRAMPOLINE_MAX 32
#define LIB_HOOK_OBJECTS 64     /* the libraries, one after the other: */
#define LIB_HOOK_OBJ_CHECK 0    /*   where its build-id should lie */
#define LIB_HOOK_OBJ_CHECK_LEN 8 /*  its length (at most LIB_HOOK_CHECK_MAX) */
#define LIB_HOOK_OBJ_CHECK_BYTES 16
#define LIB_HOOK_CHECK_MAX 32
#define LIB_HOOK_OBJ_NRUNS 48   /*   how many runs follow, */
#define LIB_HOOK_OBJ_RUNS 56    /*   each {address, length, bytes padded to 8} */
#define LIB_HOOK_MAX_OBJECTS 30 /* a bit each in the slot's DONE word (region.h) */

#ifndef __ASSEMBLER__
#include <stdbool.h>
#include <stdint.h>

#include "objects.h"
#include "tasks.h"

extern const uint8_t lib_hook[], lib_hook_data[];

/* What the exec event's set-up writes for the hook: its code and payload at `at`
 * (code_and_data, len bytes), and the jump over _dl_allocate_tls_init at `entry`. */
struct lib_hook_writes {
	uint64_t at, entry;
	uint8_t *code_and_data;
	size_t len;
	uint8_t jump[5];
};

/* At t's exec event (the set-up's code being built): the known sites of the
 * libraries its executable mapped before, where they lay for the loader's place in
 * its 2 MB page (layouts.h), built for the image to write once its loader has
 * mapped them; false if there are
 * none to predict (or no room, no hook point): the image's first call outside the
 * loader writes them, as before. The patches built are marked written and hooked,
 * pending lib_hook_settle. */
bool lib_hook_build(struct thread *t, const struct exec_code *code, struct lib_hook_writes *w);
/* The set-up could not write it all, or the image is gone before the hook ran: the
 * hook's patches go back to unplanned (before early.c undoes the rest), and nothing
 * waits for it. */
void lib_hook_forget(struct addr_space *as);
/* enabled: images are set up at exec, and calls only counted (not --log, --time,
 * --prepatch, --patch=off). */
void lib_hook_setup(bool enabled);
/* At any stop of t (and before its memory is copied for a child): if the hook has
 * run in t's image, its patches are settled and the in-process path is up; if t is
 * the hook's thread and dies (gone) before it ran, it never will. */
void lib_hook_settle(struct thread *t, bool gone);
#endif

#endif
