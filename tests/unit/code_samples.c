#include "code_samples.h"

const uint8_t sample_before[14] = {
	0x48, 0x89, 0xfe,             /* 0 mov %rdi,%rsi */
	0xb9, 0x01, 0x00, 0x00, 0x00, /* 3 mov $1,%ecx */
	0x48, 0x31, 0xc0,             /* 8 xor %rax,%rax */
	0x0f, 0x05,                   /* b syscall */
	0xc3,                         /* d ret */
};

const uint8_t sample_read[18] = {
	0x85, 0xff,                         /* 0 test %edi,%edi */
	0x74, 0x00,                         /* 2 je 4 */
	0x31, 0xc0,                         /* 4 xor %eax,%eax */
	0x0f, 0x05,                         /* 6 syscall */
	0x48, 0x3d, 0x00, 0xf0, 0xff, 0xff, /* 8 cmp $-4096,%rax */
	0x77, 0x01,                         /* e ja 0x11 */
	0xc3,                               /* 10 ret */
	0xc3,                               /* 11 ret */
};
