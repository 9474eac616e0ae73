/* Names syscall sites: which mapped object each lies in, at which offset and in which
 * symbol. Objects are read once per run, keyed by device, inode, size and mtime. */
#ifndef SYSTRACE_OBJECTS_H
#define SYSTRACE_OBJECTS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "image_record.h"

/* Opens the mappings of tid, a live thread, for the calls below; false if gone. */
bool objects_begin(pid_t tid);
/* Names a site from those mappings and marks it named. */
void objects_name_site(pid_t tid, struct site_record *s);
void objects_end(void);
/* Frees every object read so far (at the end of the run). */
void objects_free_all(void);

#endif
