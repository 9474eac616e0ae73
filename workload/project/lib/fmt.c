#include <stdio.h>

#include "tiny.h"

void fmt_double(struct strbuf *sb, double d)
{
    char tmp[64];
    if (d == 0)
        d = 0; /* no "-0" */
    snprintf(tmp, sizeof tmp, "%.10g", d);
    sb_adds(sb, tmp);
}

void fmt_hex32(char out[9], uint32_t v)
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 7; i >= 0; i--, v >>= 4)
        out[i] = digits[v & 0xf];
    out[8] = '\0';
}
