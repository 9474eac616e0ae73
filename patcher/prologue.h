/* A function's first instructions, copied to run elsewhere (the libraries' hook's
 * trampoline, tracer/lib_hook.h): only those that mean the same wherever they run
 * and that nothing branches into but the function's callers, at its entry. Pure. */
#ifndef SYSTRACE_PROLOGUE_H
#define SYSTRACE_PROLOGUE_H

#include <stddef.h>
#include <stdint.h>

/* How many of the len bytes at b, whole instructions of a function's prologue
 * (endbr64, push, mov %rsp,%rbp, sub $imm,%rsp), cover at least `need` bytes;
 * 0 if they do not (another instruction comes first). */
size_t prologue_cover(const uint8_t *b, size_t len, size_t need);

#endif
