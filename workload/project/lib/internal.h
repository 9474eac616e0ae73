/* internal.h: helpers shared by libtiny's own files. */
#ifndef TINY_INTERNAL_H
#define TINY_INTERNAL_H

#include <stddef.h>

#define HM_INITIAL_BUCKETS 64
#define HM_MAX_LOAD 2 /* entries per bucket before growing */

/* next capacity for a growable array holding at least need elements */
static inline size_t grow_cap(size_t cap, size_t need)
{
    if (cap < 16)
        cap = 16;
    while (cap < need)
        cap *= 2;
    return cap;
}

#endif
