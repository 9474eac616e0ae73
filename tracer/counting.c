#include "counting.h"

struct site_record *image_site(struct image *img, uint64_t addr, bool add)
{
	const struct site_record *now = img->as ? site_table_find(&img->as->sites, addr) : NULL;
	uint32_t gen = now ? now->gen : 0;

	return add ? site_table_get_gen(&img->sites, addr, gen) : site_table_find_gen(&img->sites, addr, gen);
}

struct site_record *image_site_of(struct image *img, const struct site_record *from, bool add)
{
	return add ? site_table_get_gen(&img->sites, from->addr, from->gen)
		   : site_table_find_gen(&img->sites, from->addr, from->gen);
}

struct site_record *count_ptraced(struct image *img, int idx, uint64_t addr)
{
	struct site_record *s = image_site(img, addr, true);

	if (s->syscall == SITE_SYSCALL_UNSET && !s->named)
		img->unnamed_sites++;
	site_note_syscall(s, idx);
	s->ptraced++;
	image_record_counts(&img->rec, idx);
	img->rec.calls[idx]++;
	img->rec.ptraced_calls[idx]++;
	img->rec.ptraced++;
	img->rec.early += !img->late;
	return s;
}

void count_inprocess(struct image *img, const struct site_record *from, uint64_t calls, int idx)
{
	if (from) {
		struct site_record *s = image_site_of(img, from, true);

		if (!s->named) {
			if (s->syscall != SITE_SYSCALL_UNSET)
				img->unnamed_sites--;
			s->object = from->object;
			s->offset = from->offset;
			s->symbol = from->symbol;
			s->symbol_offset = from->symbol_offset;
			s->named = true;
		}
		/* a branch to a patched syscall can bring another number than the stub's */
		site_note_syscall(s, from->syscall);
		s->inprocess += calls;
	}
	img->rec.inprocess += calls;
	if (idx >= 0) {
		image_record_counts(&img->rec, idx);
		img->rec.calls[idx] += calls;
	}
	if (!img->late)
		img->rec.early += calls;
}

void count_errors(struct image *img, struct site_record *s, int idx, uint64_t n)
{
	if (s)
		s->errors += n;
	if (idx >= 0) {
		image_record_counts(&img->rec, idx);
		img->rec.errors[idx] += n;
	}
}

void count_result(struct image *img, struct site_record *s, int idx, int64_t ret)
{
	if (ret < 0 && ret >= -4095)
		count_errors(img, s, idx, 1);
}

/* One in-process call of index idx (at s; NULL: a site whose number varies) goes
 * from one image to another. */
static void move_inprocess(struct image *from, struct image *to, struct site_record *s, int idx)
{
	if (s)
		s->inprocess--;
	from->rec.inprocess--;
	from->rec.calls[idx]--;
	from->rec.early -= !from->late;
	count_inprocess(to, s, 1, idx);
}

uint64_t count_move_exec(struct image *from, struct image *to, const int *idx, size_t nidx)
{
	/* the call that did not fail: every other came back with an error */
	for (size_t i = 0; i < from->sites.n; i++) {
		struct site_record *s = &from->sites.sites[i];

		for (size_t k = 0; k < nidx; k++) {
			if (s->syscall == idx[k] && s->inprocess && s->ptraced + s->inprocess > s->errors) {
				move_inprocess(from, to, s, idx[k]);
				return s->addr;
			}
		}
	}
	for (size_t k = 0; k < nidx; k++) {
		if (image_record_counted(&from->rec, idx[k]) && from->rec.calls[idx[k]] > from->rec.errors[idx[k]]
		    && from->rec.inprocess) {
			move_inprocess(from, to, NULL, idx[k]);
			return 0;
		}
	}
	return 0;
}
