#include "park.h"

#include <elf.h>
#include <string.h>

bool park_vdso_syscall(const uint8_t *vdso, size_t size, uint64_t *offset)
{
	Elf64_Ehdr eh;

	if (size < sizeof(eh))
		return false;
	memcpy(&eh, vdso, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr)
	    || eh.e_phoff > size || eh.e_phnum > (size - eh.e_phoff) / sizeof(Elf64_Phdr))
		return false;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, vdso + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) || ph.p_offset > size || ph.p_filesz > size - ph.p_offset)
			continue;
		for (uint64_t at = ph.p_offset; at + 1 < ph.p_offset + ph.p_filesz; at++) {
			if (vdso[at] == 0x0f && vdso[at + 1] == 0x05) {
				*offset = at;
				return true;
			}
		}
	}
	return false;
}

bool park_auxv_value(const uint64_t *words, size_t n, uint64_t type, uint64_t *value)
{
	size_t i;

	if (!n || words[0] >= n)
		return false;
	i = 1 + words[0] + 1; /* argc, argv, its NULL */
	while (i < n && words[i])
		i++;
	for (i++; i + 1 < n && words[i] != AT_NULL; i += 2) {
		if (words[i] == type) {
			*value = words[i + 1];
			return true;
		}
	}
	return false;
}
