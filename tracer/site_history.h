/* Which known sites to write into a new image at its start: a rent-or-buy decision
 * made for every site an earlier process patched (docs/patching.md, "Which known
 * sites are written"). Writing a site at the start costs little (a batch write, P);
 * leaving it costs nothing if it does not run, and a trap and a patch there if it
 * does (M, much more than P). With q the chance that the site runs in this image,
 * writing it costs P and leaving it q M: the site is written when q >= P / M.
 *
 * q is estimated from what the images of the same executable ran (a build runs the
 * same programs over and over, and each runs the same code), else, for an
 * executable not seen yet (configure's conftests), from all images that mapped the
 * object. P and M are measured as the run goes: the batch cost per patch, and the
 * calibrated cost of a stop plus the cost of a patch written at a trap.
 *
 * Pure bookkeeping, keyed by opaque object pointers (tracer/objects.c's) and the
 * index of a site among its object's known sites. */
#ifndef SYSTRACE_SITE_HISTORY_H
#define SYSTRACE_SITE_HISTORY_H

#include <stdbool.h>
#include <stdint.h>

struct object;

/* The image numbered serial, started by an exec of exe (NULL: unknown), had site
 * `known` of object o planned or trapped at, and it ran there (ran) or not. Each
 * (image, object) counts once as an image that could have run o's sites. */
void history_note(uint64_t serial, const struct object *exe, const struct object *o, uint32_t known, bool ran);
/* Whether to write site `known` of o at the start of an image of exe. */
bool history_wants(const struct object *exe, const struct object *o, uint32_t known);
/* The costs, as measured: P from batches (ns for that many patches), M from the
 * calibrated stop (the run's, set at start-up) and the patches written at traps
 * (the calling thread's). */
void history_note_batch(uint64_t ns, uint64_t patches);
void history_note_trap_patch(uint64_t ns);
void history_set_stop_cost(uint64_t ns);

/* What P and M are measured from: one serving thread's, or several added (main, at
 * the end of the run). */
struct history_sums {
	uint64_t batch_ns, batch_patches, trap_ns, traps;
};
void history_sums_get(struct history_sums *s);
void history_sums_add(struct history_sums *sum, const struct history_sums *s);
/* P and M in ns from s (defaults for what was never measured), and P / M in
 * thousandths. */
void history_costs(const struct history_sums *s, uint64_t *p_ns, uint64_t *m_ns);
unsigned history_threshold_permille(const struct history_sums *s);
/* Forgets the calling thread's history and sums (its end; the unit tests); the stop
 * cost stays the run's. */
void history_free(void);

#endif
