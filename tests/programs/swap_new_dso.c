/* The object that same_address.c loads where swap_old_dso.so was (built as
 * swap_new_dso.so): no syscall, and under swap_old's patched bytes [+9, +15) code
 * that returns 1234 whichever way it runs:
 *   +0  mov $1234,%eax
 *   +5  mov %esi,%edx      edx: the second argument
 *   +7  test %edi,%edi     the first: spin or not
 *   +9  jz +13
 *   +11 jmp +11            spins until a signal handler moves its rip to +13
 *   +13 nop ; nop          (+13: an instruction start of swap_old's patch too)
 *   +15 ret
 * Run from +13 through swap_old's stub, it returns edx instead (the stub's copy of
 * `mov %edx,%eax`, then its jump back to +15); with swap_old's original bytes written
 * over +9..+14 it makes syscall 1234 and returns -ENOSYS. */
__asm__(".text\n"
	".balign 4096\n"
	".globl swap_new\n"
	".type swap_new,@function\n"
	"swap_new:\n"
	"	mov $1234,%eax\n"
	"	mov %esi,%edx\n"
	"	test %edi,%edi\n"
	"	jz 1f\n"
	".globl swap_new_spin\n"
	"swap_new_spin:\n"
	"	jmp swap_new_spin\n"
	"1:	nop\n"
	"	nop\n"
	"	ret\n"
	".size swap_new,.-swap_new\n");
