/* swap_old_dso.c's swap_old() with its site refused (built as swap_refused_dso.so):
 * the jnz lands at +11, strictly inside the bytes a patch after the syscall would
 * cover, and is itself the branch a patch before it would have to cover. Every call
 * stops in the tracer, which does not look at the mappings for each. Same length
 * and alignment as swap_next_dso.c, so that same_address_counts.c finds swap_next
 * where this swap_old was (its syscall at +9 over this one). Called with 0 only. */
__asm__(".text\n"
	".balign 4096\n"
	".globl swap_old\n"
	".type swap_old,@function\n"
	"swap_old:\n"
	"	mov $110,%eax\n"   /* +0: getppid */
	"	test %edi,%edi\n"  /* +5 */
	"	jnz 1f\n"          /* +7: a branch into the bytes after the syscall */
	"	syscall\n"         /* +9 */
	"1:	mov %eax,%edx\n"   /* +11 */
	"	mov %edx,%eax\n"   /* +13 */
	"	nop\n"             /* +15 */
	"	ret\n"
	".size swap_old,.-swap_old\n");
