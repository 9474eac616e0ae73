/* Waiting by spinning: the threaded hazard programs wait for each other this way
 * instead of with futex waits (pthread_join, condition variables, sleeps), so that
 * the only syscalls they make are the ones their header comments count, whatever
 * the timing. */
#ifndef SPIN_H
#define SPIN_H

#include <stdio.h>
#include <unistd.h>
#include <x86intrin.h>

/* Spins (no syscall) until cond holds; after about 2e12 TSC cycles (8 minutes or
 * more) gives up: says what it waited for and exits 3. That is past the harnesses'
 * own bounds (RUN_TIMEOUT 60 s, STRESS_TIMEOUT 300 s), which report a hang: a
 * loaded machine only makes the wait longer. */
#define SPIN_UNTIL(cond, ...)                                                      \
	do {                                                                       \
		unsigned long long spin_t0_ = __rdtsc();                           \
		while (!(cond)) {                                                  \
			__builtin_ia32_pause();                                    \
			if (__rdtsc() - spin_t0_ > 2000000000000ULL) {             \
				fprintf(stderr, __VA_ARGS__);                      \
				_exit(3);                                          \
			}                                                          \
		}                                                                  \
	} while (0)

#endif
