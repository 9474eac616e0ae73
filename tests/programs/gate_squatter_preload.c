/* A preloaded library whose constructor maps a page at systrace's gate address
 * before libsystrace.so's constructor runs (LD_PRELOAD=ours:this initialises this
 * one first): the image must stay on the slow path, exactly counted, with
 * library=gate-address-taken. Built as a shared object (name ends in _preload). */
#include <sys/mman.h>

#include "gate.h"

__attribute__((constructor)) static void squat(void)
{
	mmap((void *)SYSTRACE_GATE_ADDR, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
}
