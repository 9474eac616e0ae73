#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tiny.h"

void sb_init(struct strbuf *sb)
{
    sb->cap = 32;
    sb->len = 0;
    sb->buf = xmalloc(sb->cap);
    sb->buf[0] = '\0';
}

static void sb_reserve(struct strbuf *sb, size_t extra)
{
    if (sb->len + extra + 1 > sb->cap) {
        sb->cap = grow_cap(sb->cap, sb->len + extra + 1);
        sb->buf = xrealloc(sb->buf, sb->cap);
    }
}

void sb_addn(struct strbuf *sb, const char *s, size_t n)
{
    sb_reserve(sb, n);
    memcpy(sb->buf + sb->len, s, n);
    sb->len += n;
    sb->buf[sb->len] = '\0';
}

void sb_addch(struct strbuf *sb, char c)
{
    sb_addn(sb, &c, 1);
}

void sb_adds(struct strbuf *sb, const char *s)
{
    sb_addn(sb, s, strlen(s));
}

void sb_reset(struct strbuf *sb)
{
    sb->len = 0;
    sb->buf[0] = '\0';
}

void sb_free(struct strbuf *sb)
{
    free(sb->buf);
    sb->buf = NULL;
    sb->len = sb->cap = 0;
}
