/* sortlines [-u] [FILE]: sorts lines bytewise; -u drops duplicates. */
#include <string.h>

#include "tiny.h"

static int by_bytes(const void *a, const void *b)
{
    return strcmp(a, b);
}

int main(int argc, char **argv)
{
    int uniq = argc > 1 && strcmp(argv[1], "-u") == 0;
    const char *path = argc > 1 + uniq ? argv[1 + uniq] : "-";
    struct strbuf text;
    sb_init(&text);
    if (read_file(path, &text))
        die("cannot read %s", path);
    struct vec lines = {0};
    for (char *p = text.buf, *nl; *p; p = nl + 1) {
        vec_push(&lines, p);
        if (!(nl = strchr(p, '\n')))
            break;
        *nl = '\0';
    }
    vec_sort(&lines, by_bytes);
    for (size_t i = 0; i < lines.len; i++)
        if (!uniq || i == 0 || strcmp(lines.items[i], lines.items[i - 1]))
            puts(lines.items[i]);
    vec_free(&lines);
    sb_free(&text);
    return 0;
}
