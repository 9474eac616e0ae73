/* Waiting by spinning: the threaded hazard programs wait for each other this way
 * instead of with futex waits (pthread_join, condition variables, sleeps), so that
 * the only syscalls they make are the ones their header comments count, whatever
 * the timing. */
#ifndef SPIN_H
#define SPIN_H

#include <stdio.h>
#include <unistd.h>
#include <x86intrin.h>

/* Spins (no syscall) until cond holds; after about 6e10 TSC cycles (some 20 s)
 * gives up: says what it waited for and exits 3. */
#define SPIN_UNTIL(cond, ...)                                                      \
	do {                                                                       \
		unsigned long long spin_t0_ = __rdtsc();                           \
		while (!(cond)) {                                                  \
			__builtin_ia32_pause();                                    \
			if (__rdtsc() - spin_t0_ > 60000000000ULL) {               \
				fprintf(stderr, __VA_ARGS__);                      \
				_exit(3);                                          \
			}                                                          \
		}                                                                  \
	} while (0)

#endif
