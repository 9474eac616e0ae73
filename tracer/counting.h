/* Where a call is counted: in its image's record (its name, its path, its phase) and
 * at its site. A ptraced call is counted by the tracer at its stop; in-process calls
 * are counted by the stubs in the thread's slot and added here when the slot is read
 * (library.c), or one by one from the log's entries (syscall_log.c). */
#ifndef SYSTRACE_COUNTING_H
#define SYSTRACE_COUNTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tasks.h"

/* The image's record of the site at addr, of the object mapped there now: the
 * generation of its memory's record (site_reuse.h); added if add. */
struct site_record *image_site(struct image *img, uint64_t addr, bool add);
/* The image's record of its memory's record from (of from's generation). */
struct site_record *image_site_of(struct image *img, const struct site_record *from, bool add);
/* One ptraced call of syscall index idx at the site at addr; its record. */
struct site_record *count_ptraced(struct image *img, int idx, uint64_t addr);
/* calls in-process calls at the site `from` of the image's memory (NULL: the site is
 * not known), of syscall index idx (-1: counted per number by the caller). */
void count_inprocess(struct image *img, const struct site_record *from, uint64_t calls, int idx);
/* n calls of index idx at site s (NULL: not known) returned an error. */
void count_errors(struct image *img, struct site_record *s, int idx, uint64_t n);
/* A call of index idx at site s returned ret (an error when -4095..-1, as strace
 * counts). */
void count_result(struct image *img, struct site_record *s, int idx, int64_t ret);
/* An execve made in-process that succeeded, counted by its stub in the image that
 * called it (from, its slot read), moves to the image it created (to), at its site,
 * named as in from (at a site whose number varies: with no site): a successful
 * execve is its new image's first call. idx: the indexes of execve and execveat.
 * Its site's address, or 0. */
uint64_t count_move_exec(struct image *from, struct image *to, const int *idx, size_t nidx);

#endif
