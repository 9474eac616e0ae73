/* A library that lib_hook_user links (tests/e2e/test_lib_hook.sh): a syscall site of
 * its own, so that its known sites are among those the libraries' hook writes
 * (tracer/lib_hook.h). */
long lib_hook_getppid(void);

long lib_hook_getppid(void)
{
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(110L) : "rcx", "r11", "memory");
	return ret;
}
