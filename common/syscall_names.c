#include "syscall_names.h"

#include <stdio.h>
#include <string.h>

static const char *const *const tables[ABI_COUNT] = {
	[ABI_X86_64] = syscall_names_x86_64,
	[ABI_I386] = syscall_names_i386,
	[ABI_X32] = syscall_names_x32,
};

int syscall_index(enum syscall_abi abi, long nr)
{
	if ((unsigned)abi >= ABI_COUNT || nr < 0 || nr >= SYSCALL_NR_SPAN)
		return -1;
	return (int)abi * SYSCALL_NR_SPAN + (int)nr;
}

const char *syscall_index_name(int index, char *buf, size_t len)
{
	int abi = index / SYSCALL_NR_SPAN, nr = index % SYSCALL_NR_SPAN;
	const char *name = tables[abi][nr];

	if (name)
		return name;
	if (nr == SYSCALL_NR_OUT_OF_RANGE)
		return "syscall_out_of_range";
	snprintf(buf, len, "syscall_%#x", nr);
	return buf;
}

int syscall_index_of(enum syscall_abi abi, const char *name)
{
	for (int nr = 0; nr < SYSCALL_NR_SPAN; nr++)
		if (tables[abi][nr] && strcmp(tables[abi][nr], name) == 0)
			return syscall_index(abi, nr);
	return -1;
}
