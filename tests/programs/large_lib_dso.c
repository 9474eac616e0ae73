/* A library of more than 2 MB (its .bss), that large_lib_user links before libc
 * (tests/e2e/test_lib_hook.sh): the kernel puts a file mapping that large at a 2 MB
 * boundary, so where it and the libraries mapped after it lie depends on where the
 * loader lies in its 2 MB page (tracer/layouts.h). A syscall site of its own. */
long large_lib_getppid(void);

static char large[3 << 20];

long large_lib_getppid(void)
{
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(110L) : "rcx", "r11", "memory");
	large[ret % sizeof(large)]++;
	return ret;
}
