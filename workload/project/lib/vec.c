#include <stdlib.h>

#include "internal.h"
#include "tiny.h"

void vec_push(struct vec *v, void *item)
{
    if (v->len == v->cap) {
        v->cap = grow_cap(v->cap, v->len + 1);
        v->items = xrealloc(v->items, v->cap * sizeof *v->items);
    }
    v->items[v->len++] = item;
}

void vec_free(struct vec *v)
{
    free(v->items);
    v->items = NULL;
    v->len = v->cap = 0;
}
