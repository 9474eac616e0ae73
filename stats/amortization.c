#include "amortization.h"

uint64_t amortization_break_even(uint64_t patch_ns, uint64_t saving_ns)
{
	if (!saving_ns)
		saving_ns = 1;
	return patch_ns / saving_ns + (patch_ns % saving_ns != 0);
}

bool amortization_paid_off(uint64_t patch_ns, uint64_t saving_ns, uint64_t calls)
{
	return calls >= amortization_break_even(patch_ns, saving_ns);
}
