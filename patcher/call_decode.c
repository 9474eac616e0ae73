#include "call_decode.h"

#include <string.h>

static int32_t rel32(const uint8_t *p)
{
	int32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

enum call_kind call_before(const uint8_t code[CALL_BYTES], uint64_t ret, uint64_t *to)
{
	/* both forms end with their 32-bit displacement, relative to ret */
	if (code[1] == 0xe8) {
		*to = ret + (uint64_t)(int64_t)rel32(code + 2);
		return CALL_DIRECT;
	}
	if (code[0] == 0xff && code[1] == 0x15) {
		*to = ret + (uint64_t)(int64_t)rel32(code + 2);
		return CALL_THROUGH_SLOT;
	}
	return CALL_UNKNOWN;
}

bool plt_entry_slot(const uint8_t code[PLT_BYTES], uint64_t addr, uint64_t *slot)
{
	static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	size_t at = 0;

	if (memcmp(code, endbr64, sizeof(endbr64)) == 0)
		at += sizeof(endbr64);
	if (code[at] == 0xf2) /* bnd */
		at++;
	if (code[at] != 0xff || code[at + 1] != 0x25)
		return false;
	*slot = addr + at + 6 + (uint64_t)(int64_t)rel32(code + at + 2);
	return true;
}
