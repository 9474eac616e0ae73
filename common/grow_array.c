#include "grow_array.h"

#include <stdlib.h>
#include <string.h>

void *grow_array_to(void *array, size_t *cap, size_t n, size_t size)
{
	size_t c = *cap ? *cap : 16;

	if (n <= *cap)
		return array;
	while (c < n)
		c *= 2;
	array = realloc(array, c * size);
	if (!array)
		abort();
	*cap = c;
	return array;
}

void *grow_array(void *array, size_t *cap, size_t n, size_t size)
{
	return grow_array_to(array, cap, n + 1, size);
}

char *copy_string(const char *s)
{
	char *c = strdup(s);

	if (!c)
		abort();
	return c;
}
