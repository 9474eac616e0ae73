#include "interned.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

const char *intern(const char *s)
{
	/* one list for every tracer thread, never freed: the strings outlive the
	 * threads that made them, in the writer's rows */
	static struct interned { struct interned *next; char s[]; } *list;
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	struct interned *i;

	pthread_mutex_lock(&lock);
	for (i = list; i && strcmp(i->s, s) != 0; i = i->next)
		;
	if (!i) {
		if (!(i = malloc(sizeof(*i) + strlen(s) + 1)))
			abort();
		strcpy(i->s, s);
		i->next = list;
		list = i;
	}
	pthread_mutex_unlock(&lock);
	return i->s;
}
