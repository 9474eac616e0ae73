/* The bytes of one patch in this memory: its stub (patcher/stub.h), built for the
 * region's counters and the gate (or, under --log, the gate's log routine), and the
 * jump that replaces the covered bytes; and what is noted once both are written. */
#ifndef SYSTRACE_PATCH_BUILD_H
#define SYSTRACE_PATCH_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "addr_space.h"

/* Builds p's stub to sit at `at` (room from as_stub_room) into stub (*len bytes) and
 * the jump to it into jump; false with p refused when it cannot be (its counter is
 * only taken once the patch is written). */
bool patch_build(struct addr_space *as, struct patch *p, uint64_t at, uint8_t stub[STUB_MAX_LEN], size_t *len,
		 uint8_t jump[PATCH_MAX_COVER]);
/* p's stub (len bytes) and jump are in memory now: its room and counter are taken. */
void patch_mark_written(struct addr_space *as, struct patch *p, size_t len, enum patch_origin origin,
			uint64_t cost_ns);

#endif
