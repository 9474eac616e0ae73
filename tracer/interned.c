#include "interned.h"

#include <stdlib.h>
#include <string.h>

const char *intern(const char *s)
{
	static struct interned { struct interned *next; char s[]; } *list;
	struct interned *i;

	for (i = list; i; i = i->next)
		if (strcmp(i->s, s) == 0)
			return i->s;
	i = malloc(sizeof(*i) + strlen(s) + 1);
	if (!i)
		abort();
	strcpy(i->s, s);
	i->next = list;
	list = i;
	return i->s;
}
