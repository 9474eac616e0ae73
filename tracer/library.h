/* The tracer's side of the preloaded library: keeping it in every process's
 * environment, answering its handshake (preload/region.h), giving each process image
 * its counter slot, and reading the slot back when the image ends. */
#ifndef SYSTRACE_LIBRARY_H
#define SYSTRACE_LIBRARY_H

#include <stdbool.h>
#include <stdint.h>

#include "options.h"
#include "tasks.h"

/* Finds libsystrace.so next to the systrace executable (or in ../lib/systrace) and
 * puts it in systrace's own environment for the command. False with a message when
 * it cannot be found or the region cannot be made. */
bool library_setup(enum patch_mode mode, unsigned region_slots, char *err, size_t errlen);
bool library_enabled(void);
/* At an execve's seccomp stop (args as the kernel has them): puts the library back in
 * the environment the new program gets if the caller took it out. */
void library_on_execve(struct thread *t, bool is_execveat, const uint64_t *args);
/* Whether a seccomp stop is the library talking (SYSTRACE_CONTROL_NR with the magic). */
bool library_is_control(long nr, const uint64_t *args);
/* Answers it; the call itself never reaches the kernel. */
void library_on_control(struct thread *t, uint64_t site, const uint64_t *args);
/* A new image's library state and address space: an exec'd image starts without
 * either; a child inherits its creator's (a fork child with a copy of the patches
 * and its own slot; a child sharing the memory with the same patches). */
void library_image_starts(struct image *img, const struct image *creator, bool shares_memory);
/* Moves the image's in-process counts from its slot into its record and names the
 * state of each of its sites; frees the slot. */
void library_image_ends(struct image *img);
/* The state sites.csv gives a site of img that the address space never decided. */
const char *library_site_state(const struct image *img);

#endif
