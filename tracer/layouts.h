/* Where an executable's libraries lie relative to its loader, as seen in earlier
 * images of it, for lib_hook.h's prediction: kept per place of the loader within
 * its 2 MB page once one layout no longer serves every image. Plain code, no
 * ptrace.
 *
 * Why per place: the kernel puts a file mapping of 2 MB or more at a 2 MB boundary
 * (thp_get_unmapped_area pads the request and rounds up), so a library that large
 * (cc1's libisl: 2.1 MB) lies at a distance from the loader that depends on where
 * the loader lies within its 2 MB page, and so does every library mapped after it,
 * below it or into the hole the rounding leaves above it (as Linux 6.18 does here;
 * which side the hole is on varies between versions, not the dependence). Everything else the
 * loader maps goes top-down from the loader (ASLR moves them all together), so the
 * place of the loader (512 pages) decides the whole layout, and without a large
 * library one layout serves every image. Another set of mappings (a preloaded
 * library) starts again from one layout for all.
 *
 *   loader at ...147000:  [libc][libm][libzstd][libgmp][libisl|2M][libz][libmpfr][libmpc] vdso ld.so
 *   loader at ...0dc000:  [libc][libm][libzstd][libz][libmpfr][libisl|2M][libgmp][libmpc] vdso ld.so
 *
 * A wrong prediction costs what no prediction costs: the hook finds another
 * build-id where it expected the library, leaves it, and the library's first call
 * stops (lib_hook.h). */
#ifndef SYSTRACE_LAYOUTS_H
#define SYSTRACE_LAYOUTS_H

#include <stddef.h>
#include <stdint.h>

/* A mapping of o, [start, end) from file_offset, start and end relative to the
 * loader's code. */
#define LAYOUT_MAX 30
struct object;
struct layout_entry {
	struct object *o;
	int64_t start, end;
	uint64_t file_offset;
};

struct layouts;

/* Keeps the n entries seen in an image whose loader lay at loader_start (*l: NULL
 * until the first). */
void layouts_keep(struct layouts **l, uint64_t loader_start, const struct layout_entry *e, size_t n);
/* The layout to expect for a loader at loader_start: the one seen with the loader at
 * the same place in its 2 MB page (or the last seen, while one serves all); at a
 * place not seen yet, each mapping where the two nearest places seen put it (the
 * same distance from the loader, or the same address), else where the nearer did,
 * written into guess. NULL when none, or none with a library. */
const struct layout_entry *layouts_for(const struct layouts *l, uint64_t loader_start,
				       struct layout_entry guess[LAYOUT_MAX], size_t *n);
/* How many places have a layout of their own (0 while one serves all). */
size_t layouts_places(const struct layouts *l);
void layouts_free(struct layouts *l);

#endif
