/* Prints where its loader, the large library it links (large_lib_dso.so, found
 * through LD_LIBRARY_PATH) and libc lie, as "loader=A large=B libc=C" in hex, then
 * calls getppid 10 times through the library's site and once through libc's.
 * Exits 0 when every result is its parent's pid (tests/e2e/test_lib_hook.sh). */
#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

long large_lib_getppid(void);

struct bases {
	unsigned long loader, large, libc;
};

static int note(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct bases *b = arg;

	(void)size;
	if (strstr(info->dlpi_name, "ld-linux"))
		b->loader = info->dlpi_addr;
	else if (strstr(info->dlpi_name, "large_lib_dso"))
		b->large = info->dlpi_addr;
	else if (strstr(info->dlpi_name, "libc.so"))
		b->libc = info->dlpi_addr;
	return 0;
}

int main(void)
{
	struct bases b = { 0, 0, 0 };

	dl_iterate_phdr(note, &b);
	printf("loader=%lx large=%lx libc=%lx\n", b.loader, b.large, b.libc);
	fflush(stdout);
	for (int i = 0; i < 10; i++)
		if (large_lib_getppid() != getppid())
			return 1;
	return !b.loader || !b.large || !b.libc;
}
