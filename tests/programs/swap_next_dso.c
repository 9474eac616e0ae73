/* The object that same_address_counts.c loads where swap_old_dso.so was (built as
 * swap_next_dso.so): swap_old's code with another number, getpid, so that its
 * syscall lies at swap_old's site (+9) and its calls are told from swap_old's by
 * name as well as by object. */
__asm__(".text\n"
	".balign 4096\n"
	".globl swap_next\n"
	".type swap_next,@function\n"
	"swap_next:\n"
	"	mov $39,%eax\n"    /* +0: getpid */
	"	test %edi,%edi\n"  /* +5 */
	"	jz 1f\n"           /* +7 */
	"1:	syscall\n"         /* +9: where swap_old's syscall was */
	"	mov %eax,%edx\n"   /* +11 */
	"	mov %edx,%eax\n"   /* +13 */
	"	nop\n"             /* +15 */
	"	ret\n"
	".size swap_next,.-swap_next\n");
