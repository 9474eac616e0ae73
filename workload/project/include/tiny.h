/* tiny.h: public interface of libtiny, the demo project's small library. */
#ifndef TINY_H
#define TINY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* xalloc.c: allocation that never returns NULL, and fatal errors */
void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* strbuf.c: growable strings */
struct strbuf {
    char *buf;
    size_t len, cap;
};
void sb_init(struct strbuf *sb);
void sb_addch(struct strbuf *sb, char c);
void sb_addn(struct strbuf *sb, const char *s, size_t n);
void sb_adds(struct strbuf *sb, const char *s);
void sb_reset(struct strbuf *sb);
void sb_free(struct strbuf *sb);

/* vec.c: growable arrays of pointers; sort.c: stable merge sort */
struct vec {
    void **items;
    size_t len, cap;
};
void vec_push(struct vec *v, void *item);
void vec_free(struct vec *v);
void vec_sort(struct vec *v, int (*cmp)(const void *a, const void *b));

/* hashmap.c: string -> long */
struct hm_entry {
    char *key;
    long value;
    struct hm_entry *next;
};
struct hashmap {
    struct hm_entry **buckets;
    size_t nbuckets, count;
};
uint32_t hash_str(const char *s);
void hm_init(struct hashmap *h);
long *hm_get(struct hashmap *h, const char *key, int create);
void hm_entries(const struct hashmap *h, struct vec *out);
void hm_free(struct hashmap *h);

/* crc32.c: IEEE 802.3 CRC-32 (table generated at build time) */
uint32_t crc32_update(uint32_t crc, const void *buf, size_t n);

/* tokenize.c */
size_t split_ws(char *line, char **tokens, size_t max);
int next_word(const char **p, struct strbuf *word);

/* numparse.c */
int parse_double(const char *s, double *out);
int parse_long(const char *s, long *out);

/* fmt.c */
void fmt_double(struct strbuf *sb, double d);
void fmt_hex32(char out[9], uint32_t v);

/* fileio.c */
int read_file(const char *path, struct strbuf *out);
FILE *open_input(const char *path);

/* version.c */
const char *tiny_version(void);

#endif
