/* Names syscall sites: which mapped object each lies in, at which offset and in which
 * symbol. Objects are read once per run, keyed by device, inode, size and mtime. */
#ifndef SYSTRACE_OBJECTS_H
#define SYSTRACE_OBJECTS_H

#include <stddef.h>
#include <sys/types.h>

#include "image_record.h"

/* Reads the code mappings of a live process, for the calls below. */
void objects_load_maps(pid_t pid);
/* Names a site from the mappings last loaded (of the same process); marks it named. */
void objects_name_site(pid_t pid, struct site_record *s);
/* Frees every object read so far (at the end of the run). */
void objects_free_all(void);

#endif
