/* The tracer's side of the shared region (preload/region.h): created once per run,
 * a slot handed to each thread of a process whose in-process path is up, read back
 * when the thread ends. Its size is set at start (pages are only used once written); when
 * every slot is taken, the processes that would need one stay on the ptrace path
 * (said once on stderr), and nothing is lost. */
#ifndef SYSTRACE_SHARED_REGION_H
#define SYSTRACE_SHARED_REGION_H

#include <stdbool.h>
#include <stdint.h>

#include "region.h"

#define REGION_DEFAULT_SLOTS 4096
/* Per slot, right after it: where the tracer stages what a new image's set-up
 * copies into its stub memory (tracer/exec_blob.S), so that only the set-up's code
 * goes through the image's /proc/PID/mem. */
#define REGION_STAGE_SIZE 16384

/* Creates the region with room for slots threads (each with a log buffer when
 * with_log, with time counters when with_time: not both); false with errno on
 * failure. */
bool region_create(unsigned slots, bool with_log, bool with_time);
int region_fd(void);
uint64_t region_size(void);
/* A zeroed slot, or -1 when the region is full (said once on stderr). */
int region_slot_take(void);
/* Zeroes what a thread with counters site counters can have written in its slot. */
void region_slot_clear(int slot, int counters);
/* The slot is free again, cleared (counters: as for region_slot_clear). */
void region_slot_release(int slot, int counters);
struct region_slot *region_slot(int slot);
/* The slot's log buffer (only with --log). */
struct region_log *region_log(int slot);
/* The slot's time counters (only with --time), at %gs:REGION_TIME_AT in its thread. */
struct region_time *region_time(int slot);
uint64_t region_slot_offset(int slot);
/* The slot whose counters begin offset bytes into the region, or -1. */
int region_slot_at(uint64_t offset);
/* The slot's staging area (REGION_STAGE_SIZE bytes), and its offset in the region. */
uint8_t *region_stage(int slot);
uint64_t region_stage_offset(int slot);
void region_destroy(void);

#endif
