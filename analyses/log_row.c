#include "log_row.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "syscall_names.h"

/* The longest decimal a field takes: a uint64_t, or an int64_t with its sign. */
#define DECIMAL_MAX 20
/* ",path,early," by the two low flag bits (LOG_INPROCESS, LOG_EARLY). */
static const struct {
	const char *text;
	size_t len;
} path_early[4] = {
	{ ",ptraced,0,", 11 },
	{ ",inprocess,0,", 13 },
	{ ",ptraced,1,", 11 },
	{ ",inprocess,1,", 13 },
};

static size_t syscall_names(struct log_row_parts *p, const struct log_sites *sites, FILE *f)
{
	size_t longest = 0;

	(void)sites; /* the shape build takes */
	for (int i = 0; i < SYSCALL_INDEX_COUNT; i++) {
		char buf[32];
		const char *name = syscall_index_name(i, buf, sizeof(buf));
		size_t len = strlen(name);

		p->name_start[i] = (uint32_t)ftell(f);
		fwrite(name, 1, len, f);
		if (len > longest)
			longest = len;
	}
	p->name_start[SYSCALL_INDEX_COUNT] = (uint32_t)ftell(f);
	return longest;
}

/* Each site as "object,offset" through the CSV writer, so quoting is csv.c's. */
static size_t site_fields(struct log_row_parts *p, const struct log_sites *sites, FILE *f)
{
	size_t longest = 0;

	for (uint32_t id = 0; id < p->nsites; id++) {
		const struct log_site *site = id < sites->count ? &sites->site[id] : NULL;
		struct csv_writer w = { f, 0 };
		size_t start = (size_t)ftell(f);

		p->site_start[id] = start;
		csv_str(&w, site ? site->object : "");
		if (site && site->has_offset)
			csv_hex(&w, site->offset);
		else
			csv_empty(&w);
		if ((size_t)ftell(f) - start > longest)
			longest = (size_t)ftell(f) - start;
	}
	p->site_start[p->nsites] = (size_t)ftell(f);
	return longest;
}

/* Runs fill into a memory stream whose text becomes *text; -1 without memory. */
static int build(char **text, size_t (*fill)(struct log_row_parts *, const struct log_sites *, FILE *),
		 struct log_row_parts *p, const struct log_sites *sites, size_t *longest)
{
	size_t len;
	FILE *f = open_memstream(text, &len);

	if (!f)
		return -1;
	*longest = fill(p, sites, f);
	return fclose(f) == 0 && *text ? 0 : -1;
}

int log_row_parts_init(struct log_row_parts *p, const struct log_sites *sites)
{
	size_t longest_name, longest_site;

	memset(p, 0, sizeof(*p));
	p->nsites = sites->count ? sites->count : 1; /* id 0, no site, is always there */
	p->name_start = malloc((SYSCALL_INDEX_COUNT + 1) * sizeof(*p->name_start));
	p->site_start = malloc(((size_t)p->nsites + 1) * sizeof(*p->site_start));
	if (!p->name_start || !p->site_start || build(&p->names, syscall_names, p, sites, &longest_name) < 0 ||
	    build(&p->sites, site_fields, p, sites, &longest_site) < 0) {
		log_row_parts_free(p);
		return -1;
	}
	/* t_ns,pid,tid, then the name, path and early, the site, ret and the newline */
	p->max_row = DECIMAL_MAX + 2 * (10 + 1) + 1 + longest_name + path_early[1].len + longest_site + 1 +
		     DECIMAL_MAX + 1;
	return 0;
}

void log_row_parts_free(struct log_row_parts *p)
{
	free(p->names);
	free(p->name_start);
	free(p->sites);
	free(p->site_start);
	memset(p, 0, sizeof(*p));
}

static const char digit_pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
				  "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
				  "8081828384858687888990919293949596979899";

/* v in decimal at out; returns the end. Two digits a division: this is most of a row. */
static char *put_decimal(char *out, uint64_t v)
{
	char tmp[DECIMAL_MAX];
	char *start = tmp + sizeof(tmp);
	size_t len;

	while (v >= 100) {
		start -= 2;
		memcpy(start, digit_pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		start -= 2;
		memcpy(start, digit_pairs + 2 * v, 2);
	} else {
		*--start = (char)('0' + v);
	}
	len = (size_t)(tmp + sizeof(tmp) - start);
	memcpy(out, start, len);
	return out + len;
}

static char *put_text(char *out, const char *text, size_t len)
{
	memcpy(out, text, len);
	return out + len;
}

char *log_row_put(const struct log_row_parts *p, char *out, const struct log_entry *e)
{
	uint32_t site;

	out = put_decimal(out, e->t_ns);
	*out++ = ',';
	out = put_decimal(out, (uint64_t)e->pid);
	*out++ = ',';
	out = put_decimal(out, (uint64_t)e->tid);
	*out++ = ',';
	out = put_text(out, p->names + p->name_start[e->syscall],
		       p->name_start[e->syscall + 1] - p->name_start[e->syscall]);
	out = put_text(out, path_early[e->flags & 3].text, path_early[e->flags & 3].len);
	site = e->site < p->nsites ? e->site : 0;
	out = put_text(out, p->sites + p->site_start[site], p->site_start[site + 1] - p->site_start[site]);
	*out++ = ',';
	if (e->flags & LOG_HAS_RET) {
		if (e->ret < 0)
			*out++ = '-';
		/* the magnitude as unsigned: -INT64_MIN does not fit an int64_t */
		out = put_decimal(out, e->ret < 0 ? -(uint64_t)e->ret : (uint64_t)e->ret);
	}
	*out++ = '\n';
	return out;
}
