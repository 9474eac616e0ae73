/* A preloaded library whose constructor, before main, takes %gs
 * for the program (arch_prctl ARCH_SET_GS), then loads a library (the loader's
 * patched sites, whose stubs count through gs) and checks that its block behind gs
 * stayed untouched: the tracer must withdraw the patches written at exec before the
 * call and leave the image on the ptrace path. Exits 4 from the constructor when
 * the block was written. Built as a shared object (name ends in _preload). */
#include <asm/prctl.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static unsigned long block[4096];

__attribute__((constructor)) static void take_gs(void)
{
	syscall(SYS_arch_prctl, ARCH_SET_GS, (unsigned long)block);
	if (!dlopen("libm.so.6", RTLD_NOW))
		exit(3);
	for (size_t i = 0; i < sizeof(block) / sizeof(block[0]); i++)
		if (block[i])
			exit(4);
}
