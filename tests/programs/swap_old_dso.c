/* The object that same_address.c loads first and unloads (built as swap_old_dso.so).
 * swap_old() makes getppid at +9 behind a branch, so that its patch is PATCH_AFTER
 * and covers [+9, +15): `syscall` (+9), `mov %eax,%edx` (+11), `mov %edx,%eax` (+13).
 * It starts a page, so that swap_new_dso.c's function, loaded at the same address,
 * lies over the same bytes. */
__asm__(".text\n"
	".balign 4096\n"
	".globl swap_old\n"
	".type swap_old,@function\n"
	"swap_old:\n"
	"	mov $110,%eax\n"   /* +0: getppid */
	"	test %edi,%edi\n"  /* +5 */
	"	jz 1f\n"           /* +7: a branch, so nothing before the syscall is covered */
	"1:	syscall\n"         /* +9 */
	"	mov %eax,%edx\n"   /* +11 */
	"	mov %edx,%eax\n"   /* +13 */
	"	nop\n"             /* +15 */
	"	ret\n"
	".size swap_old,.-swap_old\n");
