#include "grow_array.h"

#include <stdlib.h>
#include <string.h>

void *grow_array(void *array, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return array;
	*cap = *cap ? *cap * 2 : 16;
	array = realloc(array, *cap * size);
	if (!array)
		abort();
	return array;
}

char *copy_string(const char *s)
{
	char *c = strdup(s);

	if (!c)
		abort();
	return c;
}
