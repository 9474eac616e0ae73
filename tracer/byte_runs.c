#include "byte_runs.h"

#include <string.h>

bool byte_run_add(struct byte_run *r, uint64_t addr, const uint8_t *bytes, size_t len, uint64_t gap,
		  const struct gap_bytes *from)
{
	uint64_t end = r->addr + r->len;

	if (!r->len)
		r->addr = end = addr;
	else if (addr < end || addr - end > gap || addr + len - r->addr > sizeof(r->bytes))
		return false;
	if (!from)
		memset(r->bytes + r->len, 0xcc, addr - end);
	else if (addr > end && !from->read(from->ctx, end, r->bytes + r->len, addr - end))
		return false;
	memcpy(r->bytes + (addr - r->addr), bytes, len);
	r->len = addr + len - r->addr;
	return true;
}
