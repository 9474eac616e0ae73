#include <errno.h>
#include <string.h>

#include "tiny.h"

/* "-" means standard input. */
FILE *open_input(const char *path)
{
    if (strcmp(path, "-") == 0)
        return stdin;
    return fopen(path, "rb");
}

int read_file(const char *path, struct strbuf *out)
{
    char buf[4096];
    size_t n;
    FILE *f = open_input(path);
    if (!f)
        return -1;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sb_addn(out, buf, n);
    int err = ferror(f);
    if (f != stdin)
        fclose(f);
    if (err) {
        errno = EIO;
        return -1;
    }
    return 0;
}
