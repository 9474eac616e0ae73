#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tiny.h"

uint32_t hash_str(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

void hm_init(struct hashmap *h)
{
    h->nbuckets = HM_INITIAL_BUCKETS;
    h->count = 0;
    h->buckets = calloc(h->nbuckets, sizeof *h->buckets);
    if (!h->buckets)
        die("out of memory");
}

static void hm_grow(struct hashmap *h)
{
    size_t n = h->nbuckets * 2;
    struct hm_entry **b = calloc(n, sizeof *b);
    if (!b)
        die("out of memory");
    for (size_t i = 0; i < h->nbuckets; i++) {
        struct hm_entry *e = h->buckets[i], *next;
        for (; e; e = next) {
            next = e->next;
            size_t j = hash_str(e->key) & (n - 1);
            e->next = b[j];
            b[j] = e;
        }
    }
    free(h->buckets);
    h->buckets = b;
    h->nbuckets = n;
}

long *hm_get(struct hashmap *h, const char *key, int create)
{
    size_t i = hash_str(key) & (h->nbuckets - 1);
    for (struct hm_entry *e = h->buckets[i]; e; e = e->next)
        if (strcmp(e->key, key) == 0)
            return &e->value;
    if (!create)
        return NULL;
    if (h->count >= h->nbuckets * HM_MAX_LOAD) {
        hm_grow(h);
        i = hash_str(key) & (h->nbuckets - 1);
    }
    struct hm_entry *e = xmalloc(sizeof *e);
    e->key = xstrdup(key);
    e->value = 0;
    e->next = h->buckets[i];
    h->buckets[i] = e;
    h->count++;
    return &e->value;
}

void hm_entries(const struct hashmap *h, struct vec *out)
{
    for (size_t i = 0; i < h->nbuckets; i++)
        for (struct hm_entry *e = h->buckets[i]; e; e = e->next)
            vec_push(out, e);
}

void hm_free(struct hashmap *h)
{
    for (size_t i = 0; i < h->nbuckets; i++) {
        struct hm_entry *e = h->buckets[i], *next;
        for (; e; e = next) {
            next = e->next;
            free(e->key);
            free(e);
        }
    }
    free(h->buckets);
    h->buckets = NULL;
    h->nbuckets = h->count = 0;
}
