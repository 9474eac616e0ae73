/* Strings that live as long as the run, one copy of each: names of pseudo-objects
 * ("[vdso]"), states of sites ("unpatchable:branch-target"). */
#ifndef SYSTRACE_INTERNED_H
#define SYSTRACE_INTERNED_H

const char *intern(const char *s);

#endif
