/* rpncalc [FILE]: evaluates one reverse-Polish expression per line. */
#include <math.h>
#include <string.h>

#include "tiny.h"

#define MAXTOK 256

static int eval(char *line, struct strbuf *out)
{
    char *tok[MAXTOK];
    double st[MAXTOK];
    size_t n = split_ws(line, tok, MAXTOK), sp = 0;
    if (n == 0)
        return 1; /* blank line */
    for (size_t i = 0; i < n; i++) {
        const char *t = tok[i];
        double a, b;
        if (parse_double(t, &a) == 0) {
            st[sp++] = a;
            continue;
        }
        if (strlen(t) != 1 || sp < 2) {
            if (strcmp(t, "sqrt") == 0 && sp >= 1) {
                st[sp - 1] = sqrt(st[sp - 1]);
                continue;
            }
            sb_adds(out, "error: bad token '");
            sb_adds(out, t);
            sb_adds(out, "'");
            return 0;
        }
        b = st[--sp];
        a = st[--sp];
        switch (t[0]) {
        case '+': st[sp++] = a + b; break;
        case '-': st[sp++] = a - b; break;
        case '*': st[sp++] = a * b; break;
        case '/': st[sp++] = a / b; break;
        case '^': st[sp++] = pow(a, b); break;
        default:
            sb_adds(out, "error: unknown operator");
            return 0;
        }
    }
    if (sp != 1) {
        sb_adds(out, "error: unbalanced expression");
        return 0;
    }
    fmt_double(out, st[0]);
    return 0;
}

int main(int argc, char **argv)
{
    FILE *in = open_input(argc > 1 ? argv[1] : "-");
    if (!in)
        die("cannot open %s", argv[1]);
    char line[4096];
    struct strbuf out;
    sb_init(&out);
    while (fgets(line, sizeof line, in)) {
        sb_reset(&out);
        if (eval(line, &out) == 0)
            puts(out.buf);
    }
    sb_free(&out);
    return 0;
}
