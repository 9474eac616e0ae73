/* A tally of the libc entry points seen at one site (struct libc_entry, in
 * first-seen order) and the one of the most calls, earliest on ties. */
#ifndef SYSTRACE_ENTRY_TALLY_H
#define SYSTRACE_ENTRY_TALLY_H

#include "image_record.h"

/* Counts one call through name (compared as a string). */
void entry_tally_add(struct libc_entry **entries, unsigned *n, const char *name);
/* The name of the most calls, the first seen among equals; NULL for none. */
const char *entry_tally_top(const struct libc_entry *entries, unsigned n);

#endif
