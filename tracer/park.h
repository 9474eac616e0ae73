/* Where an image waits while it is handed from one tracer thread to another
 * (tracer/handoff.c; docs/scaling.md, "The hand-off point"): untraced, so at a call
 * the filter lets through from anywhere (tracer/filter.c), made at a `syscall` of its
 * vDSO, the one instruction an image has at its exec event besides its loader's and
 * executable's. The call is ppoll(PARK_FDS, 0, NULL, NULL, PARK_SIGSETSIZE): with no
 * descriptors and no signal mask ppoll ignores its first and last arguments, so two
 * values no program passes mark systrace's own; it waits until a signal or a
 * PTRACE_INTERRUPT. The first must be a canonical user address: ppoll checks it (for
 * 0 bytes) after its wait, and the wake-up a PTRACE_DETACH itself causes would
 * otherwise end the call with EFAULT instead of making it again.
 *
 * The pure parts: finding the instruction and the image's vDSO. */
#ifndef SYSTRACE_PARK_H
#define SYSTRACE_PARK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PARK_FDS 0x5ee7c0ffee00ULL
#define PARK_SIGSETSIZE 0x6f5ee7d00dULL

/* The offset from its start of a `syscall` (0f 05) in the executable segment of the
 * vDSO image at vdso (an ELF image of size bytes); false if there is none. Every
 * process of one kernel maps the same image: systrace finds it in its own. */
bool park_vdso_syscall(const uint8_t *vdso, size_t size, uint64_t *offset);
/* The auxiliary vector's entry `type`, from the n words at an image's stack pointer
 * at its exec event (argc, argv, NULL, envp, NULL, then the pairs); false if it is
 * not within them. */
bool park_auxv_value(const uint64_t *words, size_t n, uint64_t type, uint64_t *value);

#endif
