/* Another object mapped where a patched one was: a dlclose, then a dlopen that the
 * loader places at the same address. munmap runs in-process (its site is patched),
 * so the tracer does not see the old object go and its patches stay written on its
 * books: it must check that their jump is still in memory before acting on one.
 *
 *   same_address MODE OLD.so NEW.so
 *
 * OLD's swap_old() (swap_old_dso.c) is called 5 times: its getppid site is patched
 * at the first, over [+9, +15). OLD is closed and NEW opened; NEW's swap_new() must be
 * where swap_old was, else exit 2 (the construction does not hold). swap_new
 * (swap_new_dso.c) returns 1234 natively, whatever the mode:
 *   frame     swap_new(1, 99) spins at +11 until a SIGALRM handler (a 1 ms timer)
 *             moves its frame's rip to +13, inside the old patch's bytes: a frame sent
 *             into the old stub returns 99;
 *   withdraw  arch_prctl(ARCH_SET_GS) makes the tracer write the memory's patches'
 *             original bytes back before the call: over swap_new they make it
 *             return -ENOSYS.
 * Exit 0 when swap_new returned 1234, 1 otherwise. Calls: getppid 5, arch_prctl 1
 * (withdraw), the loader's and stdio's. */
#define _GNU_SOURCE
#include <asm/prctl.h>
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <ucontext.h>
#include <unistd.h>

static uintptr_t spin_at;
static volatile sig_atomic_t moved;
static unsigned long gs_block[512];

static void on_alarm(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	(void)sig;
	(void)si;
	/* past the spin: to +13 */
	if ((uintptr_t)uc->uc_mcontext.gregs[REG_RIP] == spin_at) {
		uc->uc_mcontext.gregs[REG_RIP] += 2;
		moved = 1;
	}
}

static long run_frame(long (*swap_new)(int, long))
{
	struct sigaction sa;
	struct itimerval every_ms = { { 0, 1000 }, { 0, 1000 } }, off = { { 0, 0 }, { 0, 0 } };
	long r;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_alarm;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &every_ms, NULL);
	r = swap_new(1, 99);
	setitimer(ITIMER_REAL, &off, NULL);
	return moved ? r : -1;
}

int main(int argc, char **argv)
{
	void *old, *new;
	long (*swap_old)(int), (*swap_new)(int, long), r;

	if (argc != 4 || (strcmp(argv[1], "frame") != 0 && strcmp(argv[1], "withdraw") != 0)) {
		fprintf(stderr, "usage: same_address frame|withdraw OLD.so NEW.so\n");
		return 2;
	}
	if (!(old = dlopen(argv[2], RTLD_NOW)) || !(swap_old = (long (*)(int))dlsym(old, "swap_old"))) {
		fprintf(stderr, "same_address: %s\n", dlerror());
		return 2;
	}
	for (int i = 0; i < 5; i++)
		swap_old(0);
	dlclose(old);
	if (!(new = dlopen(argv[3], RTLD_NOW)) || !(swap_new = (long (*)(int, long))dlsym(new, "swap_new"))) {
		fprintf(stderr, "same_address: %s\n", dlerror());
		return 2;
	}
	spin_at = (uintptr_t)dlsym(new, "swap_new_spin");
	if ((void *)swap_new != (void *)swap_old || spin_at != (uintptr_t)swap_new + 11) {
		fprintf(stderr, "same_address: swap_new at %p, not where swap_old was (%p)\n", (void *)swap_new,
			(void *)swap_old);
		return 2;
	}
	if (strcmp(argv[1], "frame") == 0) {
		r = run_frame(swap_new);
	} else {
		r = swap_new(0, 99);
		if (r == 1234 && syscall(SYS_arch_prctl, ARCH_SET_GS, (unsigned long)gs_block) == 0)
			r = swap_new(0, 99);
	}
	printf("swap_new at %p returned %ld (natively 1234)\n", (void *)swap_new, r);
	return r != 1234;
}
