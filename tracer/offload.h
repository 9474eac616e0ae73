/* The work at an image's end that no tracee waits for, done by a second thread of
 * the tracer: its rows of processes.csv, syscalls.csv and sites.csv, freeing its
 * memory, and closing the /proc descriptors of its threads and memory (a close that
 * drops the last hold on a process's mm_struct frees it: the kernel's work, on the
 * closer's CPU).
 *
 * The tracer's own thread serves every stop of every tracee: what it does between
 * stops is time a stopped thread waits (docs/scaling.md). Writing an image's rows
 * was a quarter of its exit's work, 24 us of a libiberty image; the closes 9 more.
 * Here the serving thread hands the image over (a list under a mutex, the writer
 * woken once a batch has gathered) and goes on; the writer takes them in order, so
 * the files' rows keep the order of the images' ends, as before.
 *
 *   serving thread                          writer thread (all signals blocked)
 *   image_write: hooks, unlink, as_put
 *     offload_image(rec, free_image, img) -> output_dir_image(d, rec)
 *     offload_close(fd)                   -> free_image(img); close(fd)
 *   ...
 *   offload_finish()  (before the totals   -> drains the list, exits; joined
 *                      and the files are read)
 *
 * Nothing the writer reads changes after the hand-over: the record and its sites
 * are the image's own; names point into objects.c's tables, freed only after
 * offload_finish. The totals (output_dir.h) are the writer's until then. If the
 * thread cannot be made, every call does its work at once, in the caller. */
#ifndef SYSTRACE_OFFLOAD_H
#define SYSTRACE_OFFLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "image_record.h"
#include "output_dir.h"

/* The writer, for rows into d (NULL: none written); before the command's first
 * process, and before placement pins the tracer to a CPU (the writer runs on any). */
void offload_start(struct output_dir *d);
/* rec's rows (unless rec is NULL), then done(arg): rec is not touched by the caller
 * again, nor what done frees. */
void offload_image(const struct image_record *rec, void (*done)(void *), void *arg);
/* Closes fd after the images handed over before it. */
void offload_close(int fd);
/* Everything handed over done, the writer gone. */
void offload_finish(void);
/* The CPU time the writer used (user + system), once finished. */
uint64_t offload_cpu_ns(void);

#endif
