/* Small functions in machine code, planned and patched by several suites. */
#ifndef SYSTRACE_TEST_CODE_SAMPLES_H
#define SYSTRACE_TEST_CODE_SAMPLES_H

#include <stdint.h>

/* mov %rdi,%rsi; mov $1,%ecx; xor %rax,%rax; syscall (at 0xb); ret: PATCH_BEFORE
 * takes [3, 0xb), two instructions (at 3 and 8), read's number. */
extern const uint8_t sample_before[14];
/* glibc's read() in small: a branch just before (the je lands on the xor), so the
 * syscall (at 6) and the compare after it: PATCH_AFTER takes [6, 0xe). */
extern const uint8_t sample_read[18];

#endif
