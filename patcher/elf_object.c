#include "elf_object.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void read_segments(struct elf_object *o, Elf *elf)
{
	size_t n;

	if (elf_getphdrnum(elf, &n) != 0)
		return;
	o->segments = calloc(n ? n : 1, sizeof(*o->segments));
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			o->segments[o->nsegments++] = (struct elf_segment){ ph.p_offset, ph.p_vaddr, ph.p_filesz,
										    (ph.p_flags & PF_W) != 0 };
	}
}

static void read_build_id(struct elf_object *o, Elf *elf)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(data = elf_getdata(scn, NULL)))
			continue;
		while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4
			    || memcmp((char *)data->d_buf + name_off, "GNU", 4) != 0)
				continue;
			const unsigned char *id = (const unsigned char *)data->d_buf + desc_off;
			size_t len = nh.n_descsz < 20 ? nh.n_descsz : 20;

			for (size_t i = 0; i < len; i++)
				snprintf(o->build_id + 2 * i, 3, "%02x", id[i]);
			memcpy(o->build_id_bytes, id, len);
			o->build_id_len = len;
			if (sh.sh_flags & SHF_ALLOC)
				o->build_id_vaddr = sh.sh_addr + desc_off;
			return;
		}
	}
}

static Elf_Scn *find_section(Elf *elf, GElf_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type && sh.sh_size > 0)
			return scn;
	return NULL;
}

static int by_addr(const void *a, const void *b)
{
	const struct elf_symbol *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* A symbol other objects can bind to: global or weak, and visible. */
static bool is_exported(const GElf_Sym *sym)
{
	int bind = GELF_ST_BIND(sym->st_info), vis = GELF_ST_VISIBILITY(sym->st_other);

	return (bind == STB_GLOBAL || bind == STB_WEAK) && (vis == STV_DEFAULT || vis == STV_PROTECTED);
}

/* Copies the function symbols of a symbol table section into the object (with
 * exported_only, those is_exported says). */
static void read_symbols(struct elf_object *o, Elf *elf, Elf_Scn *scn, bool exported_only)
{
	GElf_Shdr sh;
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t count, pool = 0, used = 0;

	if (!data || !gelf_getshdr(scn, &sh) || sh.sh_entsize == 0)
		return;
	/* (a debug file's table without functions read before .dynsym's) */
	free(o->symbols);
	free(o->names);
	o->nsymbols = 0;
	count = sh.sh_size / sh.sh_entsize;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < count; i++) {
			GElf_Sym sym;
			const char *name;
			int type;

			if (!gelf_getsym(data, (int)i, &sym))
				continue;
			type = GELF_ST_TYPE(sym.st_info);
			if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF
			    || (exported_only && !is_exported(&sym))
			    || !(name = elf_strptr(elf, sh.sh_link, sym.st_name)) || !*name)
				continue;
			if (pass == 0) {
				pool += strlen(name) + 1;
				o->nsymbols++;
				continue;
			}
			size_t len = strlen(name) + 1;

			o->symbols[used++] = (struct elf_symbol){ sym.st_value, sym.st_size, o->names + pool };
			memcpy(o->names + pool, name, len);
			pool += len;
		}
		if (pass == 0) {
			o->symbols = calloc(o->nsymbols ? o->nsymbols : 1, sizeof(*o->symbols));
			o->names = malloc(pool ? pool : 1);
			pool = 0;
		}
	}
	qsort(o->symbols, o->nsymbols, sizeof(*o->symbols), by_addr);
}


static size_t table_bytes(Elf *elf, Elf_Scn *scn)
{
	GElf_Shdr sh, names;
	Elf_Scn *strings;

	if (!gelf_getshdr(scn, &sh))
		return 0;
	strings = elf_getscn(elf, sh.sh_link);
	return sh.sh_size + (strings && gelf_getshdr(strings, &names) ? names.sh_size : 0);
}

/* The function symbols of the object's table of the given type, in the ELF open on
 * fd: read now, or, a large table, left for later with a descriptor of the file.
 * False if it has no such table. */
static bool take_symbols(struct elf_object *o, Elf *elf, int fd, GElf_Word type, size_t eager_max)
{
	Elf_Scn *scn = find_section(elf, type);

	if (!scn)
		return false;
	if (table_bytes(elf, scn) <= eager_max || (o->later_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0) {
		read_symbols(o, elf, scn, false);
	} else {
		o->later = true;
		o->later_type = type;
	}
	return true;
}

/* The separate debug file of a stripped object, by build-id, if it is installed. */
static bool read_debug_symbols(struct elf_object *o, size_t eager_max)
{
	char path[128];
	int fd;
	Elf *elf;

	if (!o->build_id[0])
		return false;
	snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%.2s/%s.debug", o->build_id, o->build_id + 2);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	if ((elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)))
		take_symbols(o, elf, fd, SHT_SYMTAB, eager_max);
	elf_end(elf);
	close(fd);
	return o->nsymbols > 0 || o->later;
}

static Elf *begin_elf(struct elf_object *o, int fd)
{
	Elf *elf;

	memset(o, 0, sizeof(*o));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		return elf;
	elf_end(elf);
	return NULL;
}

bool elf_object_load(struct elf_object *o, int fd, size_t eager_max)
{
	Elf *elf = begin_elf(o, fd);

	if (!elf)
		return false;
	read_segments(o, elf);
	read_build_id(o, elf);
	if (!take_symbols(o, elf, fd, SHT_SYMTAB, eager_max) && !read_debug_symbols(o, eager_max))
		take_symbols(o, elf, fd, SHT_DYNSYM, eager_max);
	elf_end(elf);
	return true;
}

const struct elf_symbol *elf_object_symbols(struct elf_object *o, size_t *n)
{
	Elf *elf;
	Elf_Scn *scn;

	if (o->later) {
		if ((elf = elf_begin(o->later_fd, ELF_C_READ_MMAP, NULL)) && (scn = find_section(elf, o->later_type)))
			read_symbols(o, elf, scn, false);
		elf_end(elf);
		close(o->later_fd);
		o->later = false;
	}
	*n = o->nsymbols;
	return o->symbols;
}

bool elf_object_find_dynsym(int fd, const char *name, uint64_t *vaddr, uint64_t *size)
{
	struct elf_object none;
	Elf *elf = begin_elf(&none, fd);
	Elf_Scn *scn = elf ? find_section(elf, SHT_DYNSYM) : NULL;
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	GElf_Shdr sh;
	bool found = false;

	if (data && gelf_getshdr(scn, &sh) && sh.sh_entsize) {
		for (size_t i = 0; !found && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *at;

			if (gelf_getsym(data, (int)i, &sym) && sym.st_shndx != SHN_UNDEF
			    && (at = elf_strptr(elf, sh.sh_link, sym.st_name)) && strcmp(at, name) == 0) {
				*vaddr = sym.st_value;
				*size = sym.st_size;
				found = true;
			}
		}
	}
	elf_end(elf);
	return found;
}

bool elf_object_load_exported(struct elf_object *o, int fd)
{
	Elf *elf = begin_elf(o, fd);
	Elf_Scn *scn;

	if (!elf)
		return false;
	if ((scn = find_section(elf, SHT_DYNSYM)))
		read_symbols(o, elf, scn, true);
	elf_end(elf);
	return true;
}

void elf_object_free(struct elf_object *o)
{
	if (o->later)
		close(o->later_fd);
	free(o->segments);
	free(o->symbols);
	free(o->names);
	memset(o, 0, sizeof(*o));
}

/* The segment holding at (a file offset, or with in_memory an ELF address). */
static const struct elf_segment *segment_at(const struct elf_object *o, uint64_t at, bool in_memory)
{
	for (size_t i = 0; i < o->nsegments; i++) {
		const struct elf_segment *s = &o->segments[i];
		uint64_t start = in_memory ? s->vaddr : s->file_offset;

		if (at >= start && at < start + s->filesz)
			return s;
	}
	return NULL;
}

bool elf_object_vaddr(const struct elf_object *o, uint64_t file_offset, uint64_t *vaddr)
{
	const struct elf_segment *s = segment_at(o, file_offset, false);

	if (s)
		*vaddr = file_offset - s->file_offset + s->vaddr;
	return s != NULL;
}

bool elf_object_file_offset(const struct elf_object *o, uint64_t vaddr, uint64_t *file_offset)
{
	const struct elf_segment *s = segment_at(o, vaddr, true);

	if (s)
		*file_offset = vaddr - s->vaddr + s->file_offset;
	return s != NULL;
}

bool elf_object_readonly_offset(const struct elf_object *o, uint64_t vaddr, uint64_t len, uint64_t *file_offset)
{
	const struct elf_segment *s = segment_at(o, vaddr, true);

	if (!s || s->writable || len > s->vaddr + s->filesz - vaddr)
		return false;
	*file_offset = vaddr - s->vaddr + s->file_offset;
	return true;
}

const struct elf_symbol *elf_object_symbol(struct elf_object *o, uint64_t vaddr)
{
	size_t lo = 0, hi;
	const struct elf_symbol *symbols = elf_object_symbols(o, &hi);

	/* the last symbol at or below vaddr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (symbols[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	/* among symbols below, prefer one whose extent contains vaddr (aliases, nested) */
	for (size_t i = lo; i-- > 0 && symbols[i].addr + 4096 > vaddr;)
		if (vaddr < symbols[i].addr + symbols[i].size)
			return &symbols[i];
	return &symbols[lo - 1];
}
