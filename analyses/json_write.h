/* JSON output for the exports: strings escaped so that any path (any bytes) gives
 * valid JSON that is also safe inside an HTML <script> element. */
#ifndef SYSTRACE_JSON_WRITE_H
#define SYSTRACE_JSON_WRITE_H

#include <stdint.h>
#include <stdio.h>

/* s as a quoted JSON string: quote, backslash and control characters escaped, '<',
 * '>' and '&' as \u escapes (no "</script>" can end an inline script), and each byte
 * that is not part of valid UTF-8 as the character of that code (Latin-1). */
void json_string(FILE *out, const char *s);
/* ns as a JSON number of microseconds with three decimals (the trace-event unit). */
void json_us(FILE *out, uint64_t ns);

#endif
