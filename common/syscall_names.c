#include "syscall_names.h"

#include <stdio.h>
#include <stdlib.h>
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

int syscall_index_parse(enum syscall_abi abi, const char *name)
{
	int idx = syscall_index_of(abi, name);
	char *end;
	unsigned long nr;

	if (idx >= 0 || (unsigned)abi >= ABI_COUNT)
		return idx;
	if (!strcmp(name, "syscall_out_of_range"))
		return syscall_index(abi, SYSCALL_NR_OUT_OF_RANGE);
	if (strncmp(name, "syscall_0x", 10) || !name[10])
		return -1;
	nr = strtoul(name + 10, &end, 16);
	/* only the numbers the tables do not name are written so */
	if (*end || nr >= SYSCALL_NR_OUT_OF_RANGE || tables[abi][nr])
		return -1;
	return syscall_index(abi, (long)nr);
}

const char *const syscall_abi_names[ABI_COUNT] = { "x86_64", "i386", "x32" };

int syscall_abi_parse(const char *name)
{
	for (int abi = 0; abi < ABI_COUNT; abi++)
		if (!strcmp(name, syscall_abi_names[abi]))
			return abi;
	return -1;
}
