#include <ctype.h>

#include "tiny.h"

/* Split line in place at whitespace; returns the number of tokens stored. */
size_t split_ws(char *line, char **tokens, size_t max)
{
    size_t n = 0;
    char *p = line;
    while (*p && n < max) {
        while (isspace((unsigned char)*p))
            p++;
        if (!*p)
            break;
        tokens[n++] = p;
        while (*p && !isspace((unsigned char)*p))
            p++;
        if (*p)
            *p++ = '\0';
    }
    return n;
}

/* Next run of letters (lowercased, apostrophes kept inside) from *p. */
int next_word(const char **p, struct strbuf *word)
{
    const char *s = *p;
    sb_reset(word);
    while (*s && !isalpha((unsigned char)*s))
        s++;
    if (!*s) {
        *p = s;
        return 0;
    }
    while (isalpha((unsigned char)*s) ||
           (*s == '\'' && isalpha((unsigned char)s[1]) && word->len))
        sb_addch(word, (char)tolower((unsigned char)*s++));
    *p = s;
    return 1;
}
