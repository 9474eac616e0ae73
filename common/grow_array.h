/* Arrays that grow by doubling; out of memory aborts (no caller has a use for half a
 * table). Shared by the tracer, the patcher and the analyses. */
#ifndef SYSTRACE_GROW_ARRAY_H
#define SYSTRACE_GROW_ARRAY_H

#include <stddef.h>

/* array (n elements of size bytes, room for *cap) with room for one more. */
void *grow_array(void *array, size_t *cap, size_t n, size_t size);
/* array (elements of size bytes, room for *cap) with room for n: a buffer grown to
 * what it must hold, its capacity doubled as often as that takes. */
void *grow_array_to(void *array, size_t *cap, size_t n, size_t size);
/* strdup that aborts when memory runs out. */
char *copy_string(const char *s);

#endif
