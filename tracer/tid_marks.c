#include "tid_marks.h"

#include <stdio.h>
#include <stdlib.h>

static _Atomic uint8_t *marks;
static size_t nmarks;

void tid_marks_setup(void)
{
	FILE *f = fopen("/proc/sys/kernel/pid_max", "re");
	unsigned long max = 0;

	if (f) {
		if (fscanf(f, "%lu", &max) != 1)
			max = 0;
		fclose(f);
	}
	/* (calloc maps it untouched: only the pages of the tids marked are made) */
	if (max && (marks = calloc(max, sizeof(*marks))))
		nmarks = max;
}

static _Atomic uint8_t *mark_of(pid_t tid)
{
	return tid > 0 && (size_t)tid < nmarks ? &marks[tid] : NULL;
}

uint8_t tid_marks(pid_t tid)
{
	_Atomic uint8_t *m = mark_of(tid);

	return m ? *m : 0;
}

void tid_mark_set(pid_t tid, enum tid_mark mark)
{
	_Atomic uint8_t *m = mark_of(tid);

	if (m)
		*m |= (uint8_t)mark;
}

void tid_mark_clear(pid_t tid, uint8_t clear)
{
	_Atomic uint8_t *m = mark_of(tid);

	if (m)
		*m &= (uint8_t)~clear;
}

void tid_marks_forget(pid_t tid)
{
	_Atomic uint8_t *m = mark_of(tid);

	if (m)
		*m = 0;
}

void tid_marks_move(pid_t from, pid_t to)
{
	_Atomic uint8_t *n = mark_of(to);
	uint8_t taken = tid_marks(from);

	tid_marks_forget(from);
	if (n)
		*n = taken;
}
