/* Syscall sites with known places:
 *  - own_site(): an inline `syscall` (getppid) in this program, called 7 times; its
 *    row in sites.csv must name this program, symbol own_site+0x..., at an offset
 *    that addr2line -f -e PROGRAM maps back to own_site;
 *  - JIT code: a page of anonymous memory written at run time with
 *    `mov $110, %eax; syscall; ret` (getppid), called 5 times, then rewritten to
 *    `mov $39, %eax; syscall; ret` (getpid) and called 3 times: one [anon] site at
 *    the same address that saw two numbers (syscall `?`, 8 calls).
 * Exits 0 when the calls returned what they should. */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

__attribute__((noinline)) long own_site(void)
{
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(110L) : "rcx", "r11", "memory");
	return ret;
}

static void write_code(unsigned char *page, unsigned char nr)
{
	/* mov $nr, %eax; syscall; ret */
	const unsigned char code[] = { 0xb8, nr, 0, 0, 0, 0x0f, 0x05, 0xc3 };

	memcpy(page, code, sizeof(code));
}

int main(void)
{
	unsigned char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long (*jit)(void) = (long (*)(void))page;
	int ok = page != MAP_FAILED;

	for (int i = 0; i < 7; i++)
		ok &= own_site() == getppid();
	if (!ok)
		return 1;
	write_code(page, 110);
	for (int i = 0; i < 5; i++)
		ok &= jit() == getppid();
	write_code(page, 39);
	for (int i = 0; i < 3; i++)
		ok &= jit() == getpid();
	return ok ? 0 : 1;
}
