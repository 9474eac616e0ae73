/* A stable merge sort over pointer vectors (qsort is not stable). */
#include <stdlib.h>
#include <string.h>

#include "tiny.h"

static void merge_sort(void **a, void **tmp, size_t n,
                       int (*cmp)(const void *, const void *))
{
    if (n < 2)
        return;
    size_t mid = n / 2, i = 0, j = mid, k = 0;
    merge_sort(a, tmp, mid, cmp);
    merge_sort(a + mid, tmp, n - mid, cmp);
    while (i < mid && j < n)
        tmp[k++] = cmp(a[j], a[i]) < 0 ? a[j++] : a[i++];
    while (i < mid)
        tmp[k++] = a[i++];
    while (j < n)
        tmp[k++] = a[j++];
    memcpy(a, tmp, n * sizeof *a);
}

void vec_sort(struct vec *v, int (*cmp)(const void *a, const void *b))
{
    void **tmp = xmalloc(v->len * sizeof *tmp);
    merge_sort(v->items, tmp, v->len, cmp);
    free(tmp);
}
