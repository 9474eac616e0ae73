#include <errno.h>
#include <stdlib.h>

#include "tiny.h"

int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (end == s || *end || errno == ERANGE)
        return -1;
    *out = d;
    return 0;
}

int parse_long(const char *s, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno == ERANGE)
        return -1;
    *out = v;
    return 0;
}
