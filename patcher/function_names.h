/* Which of several names of one function to print. A shared library exports many
 * functions under aliases (fopen, fopen64 and _IO_fopen are one address in glibc);
 * the name to show is the one a program calls, and the same in every run whatever
 * the order of the symbol table: fewest leading underscores (the public name before
 * the internal ones), then the shortest (fopen before fopen64), then the first in
 * byte order. */
#ifndef SYSTRACE_FUNCTION_NAMES_H
#define SYSTRACE_FUNCTION_NAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "elf_object.h"

/* Whether name a goes before name b by the rule above. */
bool function_name_preferred(const char *a, const char *b);
/* The preferred name among o's symbols that start at vaddr (exact), or else among
 * those that contain it and start closest below it; NULL if none. */
const char *function_name_at(struct elf_object *o, uint64_t vaddr, bool exact);

#endif
