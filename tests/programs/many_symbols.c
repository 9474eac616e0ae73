/* many_symbols N: makes exactly N getppid syscalls (default 1000) and exits 0, from
 * a program whose symbol table holds 16,384 function symbols more (aliases of one
 * function; 390 KiB of .symtab and 340 of names): a table systrace leaves for the
 * first lookup, holding a descriptor of the file till then (tracer/objects.c). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

void many_symbols_base(void)
{
}

#define ALIAS(n) extern void many_symbols_##n(void) __attribute__((alias("many_symbols_base")));
#define ALIAS4(n) ALIAS(n##0) ALIAS(n##1) ALIAS(n##2) ALIAS(n##3)
#define ALIAS16(n) ALIAS4(n##0) ALIAS4(n##1) ALIAS4(n##2) ALIAS4(n##3)
#define ALIAS64(n) ALIAS16(n##0) ALIAS16(n##1) ALIAS16(n##2) ALIAS16(n##3)
#define ALIAS256(n) ALIAS64(n##0) ALIAS64(n##1) ALIAS64(n##2) ALIAS64(n##3)
#define ALIAS1K(n) ALIAS256(n##0) ALIAS256(n##1) ALIAS256(n##2) ALIAS256(n##3)
#define ALIAS4K(n) ALIAS1K(n##0) ALIAS1K(n##1) ALIAS1K(n##2) ALIAS1K(n##3)
ALIAS4K(0)
ALIAS4K(1)
ALIAS4K(2)
ALIAS4K(3)

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;

	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	return 0;
}
