#include "function_names.h"

#include <string.h>

static size_t leading_underscores(const char *s)
{
	return strspn(s, "_");
}

bool function_name_preferred(const char *a, const char *b)
{
	size_t ua = leading_underscores(a), ub = leading_underscores(b), la, lb;

	if (ua != ub)
		return ua < ub;
	la = strlen(a);
	lb = strlen(b);
	if (la != lb)
		return la < lb;
	return strcmp(a, b) < 0;
}

const char *function_name_at(struct elf_object *o, uint64_t vaddr, bool exact)
{
	size_t n;
	const struct elf_symbol *symbols = elf_object_symbols(o, &n), *end = symbols + n;
	const struct elf_symbol *sym = elf_object_symbol(o, vaddr);
	const char *best = NULL;

	if (!sym || (exact ? sym->addr != vaddr : vaddr >= sym->addr + sym->size))
		return NULL;
	/* the aliases are its neighbours at the same address (sorted by address) */
	while (sym > symbols && sym[-1].addr == sym->addr)
		sym--;
	for (uint64_t at = sym->addr; sym < end && sym->addr == at; sym++)
		if ((exact || vaddr < sym->addr + sym->size) && (!best || function_name_preferred(sym->name, best)))
			best = sym->name;
	return best;
}
