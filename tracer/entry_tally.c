#include "entry_tally.h"

#include <stdlib.h>
#include <string.h>

void entry_tally_add(struct libc_entry **entries, unsigned *n, const char *name)
{
	struct libc_entry *e = *entries;

	for (unsigned i = 0; i < *n; i++)
		if (strcmp(e[i].name, name) == 0) {
			e[i].calls++;
			return;
		}
	/* a site is reached from few entry points: grow one at a time */
	e = realloc(e, (*n + 1) * sizeof(*e));
	if (!e)
		abort();
	e[(*n)++] = (struct libc_entry){ name, 1 };
	*entries = e;
}

const char *entry_tally_top(const struct libc_entry *entries, unsigned n)
{
	const struct libc_entry *top = NULL;

	for (unsigned i = 0; i < n; i++)
		if (!top || entries[i].calls > top->calls)
			top = &entries[i];
	return top ? top->name : NULL;
}
