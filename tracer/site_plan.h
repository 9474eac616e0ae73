/* Planning a site: whether and how the `syscall` at a site of a live process can be
 * patched. patcher/patch_plan.c decides from the bytes memory holds now and the
 * object's sweep (where instructions and branch targets lie); what one process
 * learns is kept per object (objects.h), so that a plan made once serves every later
 * image, and so does a refusal that holds for the code itself. */
#ifndef SYSTRACE_SITE_PLAN_H
#define SYSTRACE_SITE_PLAN_H

#include <sys/types.h>

#include "tasks.h"

/* Decides site s of t's memory, trapped with raw x86-64 number nr: p is planned
 * (and the plan kept for its object) or refused, with the reason. */
void site_plan(struct thread *t, struct addr_space *as, struct site_record *s, struct patch *p, long nr);
/* --prepatch: every syscall the sweep finds in the objects mapped in tid's memory,
 * planned and kept as known, once per object in the run. */
void site_plan_ahead(pid_t tid);

#endif
