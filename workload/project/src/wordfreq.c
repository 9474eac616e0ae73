/* wordfreq [-n N] [FILE...]: the N most frequent words (default 10). */
#include <stdlib.h>
#include <string.h>

#include "tiny.h"

static int by_count(const void *a, const void *b)
{
    const struct hm_entry *x = a, *y = b;
    if (x->value != y->value)
        return x->value > y->value ? -1 : 1;
    return strcmp(x->key, y->key);
}

static void count_text(struct hashmap *h, const char *text, long *total)
{
    struct strbuf word;
    sb_init(&word);
    while (next_word(&text, &word)) {
        ++*hm_get(h, word.buf, 1);
        ++*total;
    }
    sb_free(&word);
}

int main(int argc, char **argv)
{
    long top = 10, total = 0;
    int i = 1;
    if (i + 1 < argc && strcmp(argv[i], "-n") == 0) {
        if (parse_long(argv[i + 1], &top) || top < 0)
            die("bad count: %s", argv[i + 1]);
        i += 2;
    }
    struct hashmap h;
    hm_init(&h);
    struct strbuf text;
    sb_init(&text);
    for (char *stdin_only[] = {"-"}; i < argc || stdin_only[0]; i++) {
        const char *path = i < argc ? argv[i] : stdin_only[0];
        stdin_only[0] = NULL;
        sb_reset(&text);
        if (read_file(path, &text))
            die("cannot read %s", path);
        count_text(&h, text.buf, &total);
    }
    struct vec v = {0};
    hm_entries(&h, &v);
    vec_sort(&v, by_count);
    printf("%ld words, %zu distinct\n", total, h.count);
    for (size_t k = 0; k < v.len && k < (size_t)top; k++) {
        const struct hm_entry *e = v.items[k];
        printf("%7ld %s\n", e->value, e->key);
    }
    vec_free(&v);
    sb_free(&text);
    hm_free(&h);
    return 0;
}
