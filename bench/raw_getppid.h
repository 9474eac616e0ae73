/* The benchmarks' one site: raw_getppid(), a getppid system call from a single
 * syscall instruction, never inlined (so that every call goes through that one
 * instruction, the one allow_filter_install aims at). */
#ifndef BENCH_RAW_GETPPID_H
#define BENCH_RAW_GETPPID_H

#include <sys/syscall.h>

static __attribute__((noinline)) long raw_getppid(void)
{
    long ret;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "0"((long)SYS_getppid)
                     : "rcx", "r11", "memory");
    return ret;
}

#endif
