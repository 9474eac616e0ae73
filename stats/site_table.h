/* The syscall sites of one image: an array of records in first-seen order with an
 * open-addressing index by address. */
#ifndef SYSTRACE_SITE_TABLE_H
#define SYSTRACE_SITE_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "image_record.h"

/* The syscall index of a site that has not been counted yet. */
#define SITE_SYSCALL_UNSET (-2)

struct site_table {
	struct site_record *sites;
	size_t n, cap;
	uint32_t *slots;  /* 1 + index into sites; 0 = empty */
	size_t nslots;    /* a power of two */
};

/* The record of addr (not a retired one), added (zeroed, syscall SITE_SYSCALL_UNSET,
 * the generation after those retired) if new. The pointer is valid until the next
 * call. */
struct site_record *site_table_get(struct site_table *t, uint64_t addr);
/* The record of addr (not a retired one), or NULL if the table has none. */
struct site_record *site_table_find(const struct site_table *t, uint64_t addr);
/* The same for the record of addr in generation gen, retired or not. */
struct site_record *site_table_get_gen(struct site_table *t, uint64_t addr, uint32_t gen);
struct site_record *site_table_find_gen(const struct site_table *t, uint64_t addr, uint32_t gen);
/* Retires s (its code is gone): the next get of its address adds the record of the
 * next generation. */
void site_table_retire(struct site_record *s);
/* Notes one call of syscall index idx at a site: a site that sees two numbers varies. */
void site_note_syscall(struct site_record *s, int idx);
/* A copy of from in to (empty before): records and index, in one copy each; for a
 * table whose records hold no libc entries (an address space's). */
void site_table_copy(struct site_table *to, const struct site_table *from);
void site_table_free(struct site_table *t);

#endif
