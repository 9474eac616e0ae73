/* Syscall numbers and names per ABI; the name tables are generated from the kernel
 * headers at build time (common/gen-syscall-names.sh). */
#ifndef SYSTRACE_SYSCALL_NAMES_H
#define SYSTRACE_SYSCALL_NAMES_H

#include <stddef.h>

enum syscall_abi { ABI_X86_64, ABI_I386, ABI_X32, ABI_COUNT };

/* Every ABI's numbers fit below this (x32's own calls reach 547). */
#define SYSCALL_NR_SPAN 1024
/* Numbers at or past this one (no kernel has them) are counted together. */
#define SYSCALL_NR_OUT_OF_RANGE (SYSCALL_NR_SPAN - 1)
/* Counter arrays are indexed by abi * SYSCALL_NR_SPAN + nr. */
#define SYSCALL_INDEX_COUNT (ABI_COUNT * SYSCALL_NR_SPAN)

extern const char *const syscall_names_x86_64[SYSCALL_NR_SPAN];
extern const char *const syscall_names_i386[SYSCALL_NR_SPAN];
extern const char *const syscall_names_x32[SYSCALL_NR_SPAN];

/* The counter index of a call, or -1 when the number is out of every table's range. */
int syscall_index(enum syscall_abi abi, long nr);

/* The name strace prints for a counter index: the kernel's name, or "syscall_0xN"
 * (formatted into buf, in hex as strace prints it) for a number the headers do not know. */
const char *syscall_index_name(int index, char *buf, size_t len);

/* The counter index of a name in an ABI, or -1. */
int syscall_index_of(enum syscall_abi abi, const char *name);
/* The counter index of a name as syscall_index_name writes it (a kernel name,
 * "syscall_0xN" or "syscall_out_of_range"), or -1. */
int syscall_index_parse(enum syscall_abi abi, const char *name);

/* The ABIs as syscalls.csv names them: "x86_64", "i386", "x32". */
extern const char *const syscall_abi_names[ABI_COUNT];
/* The ABI of a name, or -1. */
int syscall_abi_parse(const char *name);

#endif
