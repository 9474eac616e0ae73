/* What earlier processes patched, written into a new image in batches: the sites
 * known in each object it maps (objects.h) are planned in its memory and written all
 * at once while one thread has the memory to itself (at exec, for the loader's; at
 * the first call outside the loader, before any library has run, for every object
 * mapped; at the first trap in an object the image mapped later). Nothing
 * else runs the bytes being written, so no thread is stopped or moved: stubs go into
 * runs of consecutive bytes (byte_runs.h), and the bytes each plan replaces are
 * checked first, in one read (a site whose code differs waits for its trap). */
#ifndef SYSTRACE_KNOWN_SITES_H
#define SYSTRACE_KNOWN_SITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "byte_runs.h"
#include "tasks.h"

/* ahead: --prepatch, every site the sweep finds is known at each image's start. */
void known_sites_setup(bool ahead);
/* Plans, in t's memory, the sites known in the object mapped at addr; how many.
 * (With --prepatch, every object mapped is swept first.) */
size_t known_sites_plan_at(struct thread *t, uint64_t addr);
/* Writes every site planned and not yet patched in the memory t has to itself, but
 * one whose bytes hold avoid (t's rip; 0 for none). */
void known_sites_write_planned(struct thread *t, struct addr_space *as, uint64_t avoid);
/* The same, at t's exec event, for a memory that will write the bytes itself
 * (tracer/early.c), whose bytes are the mapped files' (not read back): each run
 * of bytes goes to put (false: it could not take it, and the patches whose bytes it
 * held are not written); the others are marked written as if they were. Jumps near
 * each other share a run where `original` (may be NULL) gives the bytes between. */
void known_sites_build_for(struct thread *t, struct addr_space *as, bool (*put)(void *, const struct byte_run *),
			   void *ctx, const struct gap_bytes *original);
/* The same for the known sites of where->o, expected where the image's loader will
 * map it (where's addresses from anchor: the loader's code; lib_hook.h), not
 * mapped yet: its bytes are not read. Only that object's patches are built. */
struct layout_entry;
void known_sites_build_predicted(struct thread *t, struct addr_space *as, const struct layout_entry *where,
				 uint64_t anchor, bool (*put)(void *, const struct byte_run *), void *ctx);
/* At t's trap at site (t stands right after its syscall), if t is alone in its
 * memory: the known sites of every object mapped (all), or of the one object site
 * lies in, planned and written; with all, the libraries' layout is kept for the
 * executable's next images (lib_hook.h). */
void known_sites_write_all(struct thread *t, struct addr_space *as, uint64_t site);
void known_sites_write_object(struct thread *t, struct addr_space *as, uint64_t site);
/* As img is complete: which of its known sites ran, for the sites written at the
 * start of the images to come (site_history.h). A vfork child's (an image sharing
 * its memory) count as its memory owner's. */
void known_sites_note_image(struct image *img);
/* img, if it shares its memory (a vfork child), ran the call at site (0: not known)
 * for its memory's owner: also the execve that ended it, which is counted in the
 * image it created. */
void known_sites_note_ran(struct image *img, uint64_t site);

#endif
