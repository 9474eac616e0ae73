/* What systrace needs from an ELF object, read with libelf: its loadable segments
 * (to turn a file offset into the address addr2line takes) and its function symbols
 * (to name a site). Symbols come from .symtab, else from the separate debug file
 * found by build-id under /usr/lib/debug, else from .dynsym. A large table is read
 * at the object's first lookup, not at its load: most of the libraries a run maps
 * hold no syscall site to name (librustc_driver's table, 165,000 symbols and 20 MB
 * of names, took 80% of the tracer's time in a `cargo build`). */
#ifndef SYSTRACE_ELF_OBJECT_H
#define SYSTRACE_ELF_OBJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elf_segment {
	uint64_t file_offset, vaddr, filesz;
	bool writable;
};

struct elf_symbol {
	uint64_t addr, size;
	const char *name; /* in the object's string pool */
};

struct elf_object {
	struct elf_segment *segments;
	size_t nsegments;
	struct elf_symbol *symbols; /* sorted by addr: read them through */
	size_t nsymbols;            /* elf_object_symbols, which reads a table left */
	char *names;                /* for later (string pool) */
	bool later;                 /* a table left for later: its file (a descriptor */
	int later_fd;               /* kept open till it is read) and its section's */
	unsigned later_type;        /* type */
	char build_id[41];          /* hex, "" if none (first 20 bytes) */
	uint8_t build_id_bytes[20]; /* the same bytes, and where they lie when the object */
	uint64_t build_id_vaddr;    /* is mapped (ELF address; 0: not in a loaded section) */
	size_t build_id_len;
};

/* Reads the object open on fd; its symbol table too if the table (its symbols and
 * their names) is at most eager_max bytes, else at the first lookup, with a
 * descriptor of the file kept till then. False (and an empty object) when it is
 * not ELF. */
bool elf_object_load(struct elf_object *o, int fd, size_t eager_max);
/* What the tracer reads at once (SIZE_MAX: everything). */
#define ELF_OBJECT_EAGER_MAX (256 * 1024)
/* Reads only the functions the object exports (.dynsym, global or weak, visible):
 * the names other objects call it by. No segments, no build-id. */
bool elf_object_load_exported(struct elf_object *o, int fd);
void elf_object_free(struct elf_object *o);

/* The ELF virtual address of a file offset inside a loadable segment. */
bool elf_object_vaddr(const struct elf_object *o, uint64_t file_offset, uint64_t *vaddr);
/* The other way: the file offset of an ELF address inside a loadable segment. */
bool elf_object_file_offset(const struct elf_object *o, uint64_t vaddr, uint64_t *file_offset);

/* The file offset of len bytes at ELF address vaddr that lie in one loadable
 * segment the program cannot write (its memory holds the file's bytes there). */
bool elf_object_readonly_offset(const struct elf_object *o, uint64_t vaddr, uint64_t len, uint64_t *file_offset);

/* The ELF address and size of the dynamic symbol `name` (of any type) of the object
 * open on fd; false if it has none. */
bool elf_object_find_dynsym(int fd, const char *name, uint64_t *vaddr, uint64_t *size);

/* o's function symbols, sorted by address (*n of them). */
const struct elf_symbol *elf_object_symbols(struct elf_object *o, size_t *n);
/* The symbol containing vaddr, else the nearest one below it; NULL if none. */
const struct elf_symbol *elf_object_symbol(struct elf_object *o, uint64_t vaddr);

#endif
