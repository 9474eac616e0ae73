/* Sweeps kept on disk between runs, keyed by the object's build-id (as perf keeps
 * objects in ~/.debug): capstone takes about 130 ms over glibc, once per run without
 * this, which would be most of the cost of tracing a short command. */
#ifndef SYSTRACE_SCAN_CACHE_H
#define SYSTRACE_SCAN_CACHE_H

#include <stdbool.h>

#include "code_scan.h"

/* The folder: $SYSTRACE_CACHE, else $XDG_CACHE_HOME/systrace, else
 * $HOME/.cache/systrace; NULL when none can be named (a malloc'd string). */
char *scan_cache_dir(void);
/* Loads the sweep of the object with build_id; false if absent or unreadable. */
bool scan_cache_load(const char *dir, const char *build_id, struct code_scan *s);
/* Stores it (written aside, then renamed); failures are silent: it is a cache. */
void scan_cache_store(const char *dir, const char *build_id, const struct code_scan *s);

#endif
