#include "json_write.h"

#include <inttypes.h>
#include <stdbool.h>

/* The length of the valid UTF-8 sequence at s, or 0 (overlong forms, surrogates and
 * code points past U+10FFFF are not valid). */
static int utf8_length(const unsigned char *s)
{
	unsigned code;
	int len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, code = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, code = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, code = s[0] & 0x07;
	else
		return 0;
	for (int i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		code = code << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && (code < 0x800 || (code >= 0xd800 && code <= 0xdfff))) || (len == 4 && (code < 0x10000 || code > 0x10ffff)))
		return 0;
	return len;
}

void json_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	putc('"', out);
	while (*p) {
		int len = utf8_length(p);
		bool escape = len != 1 || *p < 0x20 || *p == '<' || *p == '>' || *p == '&';

		if (*p == '"' || *p == '\\') {
			putc('\\', out);
			putc(*p++, out);
		} else if (len > 1) {
			fwrite(p, 1, (size_t)len, out);
			p += len;
		} else if (escape) {
			fprintf(out, "\\u%04x", *p++);
		} else {
			putc(*p++, out);
		}
	}
	putc('"', out);
}

void json_us(FILE *out, uint64_t ns)
{
	fprintf(out, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
}
