#include "shared_region.h"

#include "gate_code.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MFD_EXEC
#define MFD_EXEC 0x10U
#endif

static int fd = -1;
static uint8_t *base;
static uint64_t size;
static unsigned nslots;
static uint64_t stride; /* a slot, and its log buffer with --log or time counters with --time */
static int *free_slots, nfree; /* under slots_lock: every tracer thread takes slots */
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;
static bool said_full, timed;

bool region_create(unsigned slots, bool with_log, bool with_time)
{
	if (with_log && with_time) {
		errno = EINVAL; /* they would share the place after the slot */
		return false;
	}
	/* the gate page is mapped executable: say so where vm.memfd_noexec asks */
	fd = memfd_create("systrace-region", MFD_CLOEXEC | MFD_EXEC);
	if (fd < 0 && errno == EINVAL)
		fd = memfd_create("systrace-region", MFD_CLOEXEC);
	if (fd < 0)
		return false;
	stride = REGION_SLOT_SIZE + (with_log ? sizeof(struct region_log) : 0)
		 + (with_time ? sizeof(struct region_time) : 0);
	timed = with_time;
	size = REGION_GATE_SIZE + (uint64_t)slots * (stride + REGION_STAGE_SIZE);
	if (ftruncate(fd, (off_t)size) < 0)
		goto fail;
	base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		goto fail;
	/* the gate and the log routine, then traps */
	memset(base, 0xcc, REGION_GATE_SIZE);
	memcpy(base, gate_code, (size_t)(gate_code_end - gate_code));
	free_slots = malloc(slots * sizeof(*free_slots));
	if (!free_slots)
		abort();
	nslots = slots;
	for (unsigned i = 0; i < slots; i++)
		free_slots[nfree++] = (int)(slots - 1 - i);
	return true;
fail:
	close(fd);
	fd = -1;
	return false;
}

int region_fd(void)
{
	return fd;
}

uint64_t region_size(void)
{
	return size;
}

/* Each slot is followed by its stage: the slots in use at once are few and the
 * lowest (a LIFO free list), so a new image's gate, slot and stage share the page
 * tables of the region's first 2 MB; each new range of page tables an image
 * touches costs it 60-90 us on a VM with shadow paging (bench/first_touch.c). */
uint64_t region_slot_offset(int slot)
{
	return REGION_GATE_SIZE + (uint64_t)slot * (stride + REGION_STAGE_SIZE);
}

uint64_t region_stage_offset(int slot)
{
	return region_slot_offset(slot) + stride;
}

uint8_t *region_stage(int slot)
{
	return base + region_stage_offset(slot);
}

int region_slot_at(uint64_t offset)
{
	uint64_t span = stride + REGION_STAGE_SIZE;

	if (offset < REGION_GATE_SIZE || (offset - REGION_GATE_SIZE) % span || (offset - REGION_GATE_SIZE) / span >= nslots)
		return -1;
	return (int)((offset - REGION_GATE_SIZE) / span);
}

struct region_slot *region_slot(int slot)
{
	return (struct region_slot *)(base + region_slot_offset(slot));
}

struct region_log *region_log(int slot)
{
	return (struct region_log *)(base + region_slot_offset(slot) + REGION_SLOT_SIZE);
}

struct region_time *region_time(int slot)
{
	return (struct region_time *)(base + region_slot_offset(slot) + REGION_TIME_AT);
}

int region_slot_take(void)
{
	int slot = -1;

	pthread_mutex_lock(&slots_lock);
	if (nfree)
		slot = free_slots[--nfree];
	else if (!said_full) {
		fprintf(stderr, "systrace: warning: the shared region is full (%u thread slots): "
				"processes that need one stay on the ptrace path (see --region-slots)\n", nslots);
		said_full = true;
	}
	pthread_mutex_unlock(&slots_lock);
	return slot;
}

void region_slot_clear(int slot, int counters)
{
	struct region_slot *s = region_slot(slot);
	size_t used = counters < 0 ? 0 : counters > REGION_SLOT_SITES ? REGION_SLOT_SITES : (size_t)counters;

	if (s->pad[REGION_SLOT_ERRORS])
		memset(s->nr_errors, 0, sizeof(s->nr_errors) + used * sizeof(s->site_errors[0]));
	memset(s, 0, offsetof(struct region_slot, site_calls) + used * sizeof(s->site_calls[0]));
	if (timed)
		memset(region_time(slot), 0, offsetof(struct region_time, site_ticks) + used * sizeof(uint64_t));
	else if (stride > REGION_SLOT_SIZE)
		memset(region_log(slot), 0, sizeof(struct region_log));
}

void region_slot_release(int slot, int counters)
{
	/* zero again for the next thread: the part a thread can have written (a punch of
	 * the whole slot cost ten times as much; the free list is LIFO, so the pages of
	 * the few slots in use at once are what stays resident) */
	region_slot_clear(slot, counters);
	pthread_mutex_lock(&slots_lock);
	free_slots[nfree++] = slot;
	pthread_mutex_unlock(&slots_lock);
}

void region_destroy(void)
{
	if (base)
		munmap(base, size);
	if (fd >= 0)
		close(fd);
	free(free_slots);
	base = NULL;
	fd = -1;
	free_slots = NULL;
	nfree = 0;
	timed = false;
}
