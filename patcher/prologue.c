#include "prologue.h"

/* The length of the instruction at b (len bytes left) if it is one of those, else 0. */
static size_t movable(const uint8_t *b, size_t len)
{
	if (len >= 4 && b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e && b[3] == 0xfa)
		return 4; /* endbr64 */
	if (len >= 1 && b[0] >= 0x50 && b[0] <= 0x57)
		return 1; /* push %rax..%rdi */
	if (len >= 2 && b[0] == 0x41 && b[1] >= 0x50 && b[1] <= 0x57)
		return 2; /* push %r8..%r15 */
	if (len >= 3 && b[0] == 0x48 && b[1] == 0x89 && b[2] == 0xe5)
		return 3; /* mov %rsp,%rbp */
	if (len >= 4 && b[0] == 0x48 && b[1] == 0x83 && b[2] == 0xec)
		return 4; /* sub $imm8,%rsp */
	if (len >= 7 && b[0] == 0x48 && b[1] == 0x81 && b[2] == 0xec)
		return 7; /* sub $imm32,%rsp */
	return 0;
}

size_t prologue_cover(const uint8_t *b, size_t len, size_t need)
{
	size_t n = 0, step;

	while (n < need && (step = movable(b + n, len - n)))
		n += step;
	return n >= need ? n : 0;
}
