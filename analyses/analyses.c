#include "analyses.h"

#include "command_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void amortization_init(struct amortization_analysis *a, const struct process_table *t, uint64_t short_ns)
{
	memset(a, 0, sizeof(*a));
	a->table = t;
	a->short_ns = short_ns;
	a->unpaid_rows = calloc(t->n + 1, sizeof(*a->unpaid_rows));
	if (!a->unpaid_rows)
		abort();
	for (size_t i = 0; i < t->n; i++)
		if (t->rows[i].end_ns - t->rows[i].start_ns < short_ns)
			a->short_processes++;
}

void symbol_function(const char *symbol, const char *object, char *buf, size_t len)
{
	/* the name ends at its offset (+0x..) or symbol version (@@GLIBC_..) */
	int name_len = (int)strcspn(symbol, "+@");

	if (name_len == 0)
		snprintf(buf, len, "(no symbol) (%s)", *object ? run_base_name(object) : "?");
	else
		snprintf(buf, len, "%.*s (%s)", name_len, symbol, *object ? run_base_name(object) : "?");
}

static void add_unpaid_site(struct amortization_analysis *a, const struct site_row *s)
{
	char key[4096];
	size_t i;
	struct unpaid_site *u;

	snprintf(key, sizeof(key), "%s\n%s", s->object, s->offset);
	i = string_map_find(&a->site_index, key);
	if (i == (size_t)-1) {
		a->sites = grow_array(a->sites, &a->sites_cap, a->nsites, sizeof(*a->sites));
		i = a->nsites++;
		a->sites[i] = (struct unpaid_site){ copy_string(s->object), copy_string(s->offset), copy_string(s->symbol), copy_string(s->syscall),
						    0, 0, 0, 0 };
		string_map_put(&a->site_index, key, i);
	}
	u = &a->sites[i];
	u->images++;
	u->inprocess += s->inprocess;
	u->break_even += s->break_even;
	u->patch_ns += s->patch_ns;
}

static void add_candidate(struct candidate_table *c, const char *function, const struct site_row *s)
{
	size_t i = string_map_find(&c->index, function);
	struct hook_candidate *h;

	if (i == (size_t)-1) {
		c->rows = grow_array(c->rows, &c->cap, c->n, sizeof(*c->rows));
		i = c->n++;
		c->rows[i] = (struct hook_candidate){ copy_string(function), 0, 0, 0, (size_t)-1 };
		string_map_put(&c->index, function, i);
	}
	h = &c->rows[i];
	h->sites++;
	h->patch_ns += s->patch_ns;
	if (h->last_process != s->process) {
		h->images++;
		h->last_process = s->process;
	}
}

void amortization_add_site(const struct site_row *s, void *ctx)
{
	struct amortization_analysis *a = ctx;
	const struct process_row *p = &a->table->rows[s->process];
	char function[1024];

	if (s->libc_function[0])
		a->libc_function_named = true;
	if (!s->not_amortized)
		return;
	a->unpaid_rows[s->process]++;
	a->unpaid_rows_total++;
	add_unpaid_site(a, s);
	if (p->end_ns - p->start_ns >= a->short_ns)
		return;
	a->short_unpaid_rows++;
	add_candidate(&a->by_libc_function, s->libc_function[0] ? s->libc_function : "(unknown)", s);
	symbol_function(s->symbol, s->object, function, sizeof(function));
	add_candidate(&a->by_symbol, function, s);
}

static int by_images(const void *pa, const void *pb)
{
	const struct unpaid_site *a = pa, *b = pb;
	int c;

	if (a->images != b->images)
		return a->images > b->images ? -1 : 1;
	if (a->patch_ns != b->patch_ns)
		return a->patch_ns > b->patch_ns ? -1 : 1;
	c = strcmp(a->object, b->object);
	return c ? c : strcmp(a->offset, b->offset);
}

static int by_sites_removed(const void *pa, const void *pb)
{
	const struct hook_candidate *a = pa, *b = pb;

	if (a->sites != b->sites)
		return a->sites > b->sites ? -1 : 1;
	if (a->patch_ns != b->patch_ns)
		return a->patch_ns > b->patch_ns ? -1 : 1;
	return strcmp(a->function, b->function);
}

void amortization_finish(struct amortization_analysis *a)
{
	/* the indexes are not needed once the rows are in their final order */
	string_map_free(&a->site_index);
	string_map_free(&a->by_libc_function.index);
	string_map_free(&a->by_symbol.index);
	if (a->nsites)
		qsort(a->sites, a->nsites, sizeof(*a->sites), by_images);
	if (a->by_libc_function.n)
		qsort(a->by_libc_function.rows, a->by_libc_function.n, sizeof(struct hook_candidate), by_sites_removed);
	if (a->by_symbol.n)
		qsort(a->by_symbol.rows, a->by_symbol.n, sizeof(struct hook_candidate), by_sites_removed);
}

const struct candidate_table *amortization_ranking(const struct amortization_analysis *a)
{
	return a->libc_function_named ? &a->by_libc_function : &a->by_symbol;
}

static void candidates_free(struct candidate_table *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->rows[i].function);
	free(c->rows);
	string_map_free(&c->index);
}

void amortization_free(struct amortization_analysis *a)
{
	for (size_t i = 0; i < a->nsites; i++) {
		free(a->sites[i].object);
		free(a->sites[i].offset);
		free(a->sites[i].symbol);
		free(a->sites[i].syscall);
	}
	free(a->sites);
	free(a->unpaid_rows);
	string_map_free(&a->site_index);
	candidates_free(&a->by_libc_function);
	candidates_free(&a->by_symbol);
	memset(a, 0, sizeof(*a));
}

const char *const process_column_names[COL_COUNT + 1] = {
	[COL_PID] = "pid",
	[COL_IMAGE] = "image",
	[COL_PPID] = "ppid",
	[COL_WALL_MS] = "wall_ms",
	[COL_COUNT_FIRST + PC_SYSCALLS] = "syscalls",
	[COL_COUNT_FIRST + PC_EARLY] = "early",
	[COL_COUNT_FIRST + PC_PTRACED] = "ptraced",
	[COL_COUNT_FIRST + PC_INPROCESS] = "inprocess",
	[COL_COUNT_FIRST + PC_STOPS] = "ptrace_stops",
	[COL_COUNT_FIRST + PC_STOPS_LIFECYCLE] = "stops_lifecycle",
	[COL_COUNT_FIRST + PC_STOPS_EARLY] = "stops_early",
	[COL_COUNT_FIRST + PC_STOPS_LATE] = "stops_late",
	[COL_COUNT_FIRST + PC_PATCHES_WRITTEN] = "patches_written",
	[COL_COUNT_FIRST + PC_PATCHES_NOT_AMORTIZED] = "patches_not_amortized",
	[COL_COUNT_FIRST + PC_PATCH_NS] = "patch_ns",
	[COL_UNPAID_SITES] = "sites_not_amortized",
	[COL_EXIT] = "exit",
	[COL_EXE] = "exe",
};

int process_column_find(const char *name)
{
	for (int c = 0; c < COL_COUNT; c++)
		if (!strcmp(process_column_names[c], name))
			return c;
	return -1;
}

bool process_column_is_text(int col)
{
	return col == COL_EXIT || col == COL_EXE;
}

uint64_t process_number(const struct process_table *t, const uint64_t *unpaid_rows, size_t row, int col)
{
	const struct process_row *p = &t->rows[row];

	switch (col) {
	case COL_PID:
		return (uint64_t)p->pid;
	case COL_IMAGE:
		return p->image;
	case COL_PPID:
		return (uint64_t)p->ppid;
	case COL_WALL_MS:
		return p->end_ns - p->start_ns;
	case COL_UNPAID_SITES:
		return unpaid_rows[row];
	default:
		return p->count[col - COL_COUNT_FIRST];
	}
}

const char *process_text(const struct process_table *t, size_t row, int col)
{
	return col == COL_EXIT ? t->rows[row].exit : t->rows[row].exe;
}

struct sort_key {
	const struct process_table *table;
	const uint64_t *unpaid_rows;
	int col;
	bool descending;
};

static int compare_rows(const void *pa, const void *pb, void *ctx)
{
	const struct sort_key *k = ctx;
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	int c;

	if (process_column_is_text(k->col)) {
		c = strcmp(process_text(k->table, a, k->col), process_text(k->table, b, k->col));
	} else {
		uint64_t va = process_number(k->table, k->unpaid_rows, a, k->col);
		uint64_t vb = process_number(k->table, k->unpaid_rows, b, k->col);

		c = va < vb ? -1 : va > vb;
	}
	if (k->descending)
		c = -c;
	/* ties keep the order of the file */
	return c ? c : (a < b ? -1 : a > b);
}

void sort_processes(size_t *order, const struct process_table *t, const uint64_t *unpaid_rows, int col,
		    bool descending)
{
	struct sort_key key = { t, unpaid_rows, col, descending };

	for (size_t i = 0; i < t->n; i++)
		order[i] = i;
	if (t->n)
		qsort_r(order, t->n, sizeof(*order), compare_rows, &key);
}

static void check_one(struct total_check *out, const char *key, uint64_t rows_sum, const struct summary_table *s)
{
	const char *v = summary_value(s, key);

	out->key = key;
	out->rows_sum = rows_sum;
	out->summary = 0;
	if (!v)
		out->verdict = TOTAL_MISSING;
	else if (!*v)
		out->verdict = TOTAL_EMPTY;
	else if (parse_count(v, &out->summary) < 0)
		out->verdict = TOTAL_NOT_A_COUNT;
	else
		out->verdict = out->summary == rows_sum ? TOTAL_EQUAL : TOTAL_DIFFERS;
}

size_t check_totals(const struct process_table *t, const struct summary_table *s,
		    struct total_check out[TOTAL_CHECKS])
{
	size_t bad = 0;

	for (int c = 0; c < PC_COUNTS; c++) {
		uint64_t sum = 0;

		for (size_t i = 0; i < t->n; i++)
			sum += t->rows[i].count[c];
		check_one(&out[c], process_count_columns[c].summary_key, sum, s);
	}
	check_one(&out[PC_COUNTS], "processes", t->n, s);
	for (int c = 0; c < PO_COUNTS; c++) {
		struct total_check *k = &out[TOTAL_CHECK_OPTIONAL(c)];
		uint64_t sum = 0;

		for (size_t i = 0; i < t->n; i++)
			sum += t->rows[i].optional[c];
		check_one(k, process_optional_columns[c].summary_key, sum, s);
		if (!t->has_optional[c])
			k->verdict = TOTAL_NO_COLUMN;
	}
	for (int c = 0; c < TOTAL_CHECKS; c++)
		if (out[c].verdict != TOTAL_EQUAL && out[c].verdict != TOTAL_EMPTY && out[c].verdict != TOTAL_NO_COLUMN)
			bad++;
	return bad;
}

void known_choice_cost(struct known_choice *c, uint64_t p_ns, uint64_t m_ns)
{
	uint64_t unused = c->unused < c->written ? c->unused : c->written;
	uint64_t best = p_ns < m_ns ? p_ns : m_ns;

	c->rule_ns = p_ns * c->written + m_ns * c->missed;
	c->optimum_ns = best * (c->written - unused + c->missed);
}

uint64_t known_choice_excess(const struct known_choice *c)
{
	return c->rule_ns > c->optimum_ns ? c->rule_ns - c->optimum_ns : 0;
}

uint64_t known_choice_ratio_permille(const struct known_choice *c)
{
	return c->optimum_ns ? (1000 * c->rule_ns + c->optimum_ns / 2) / c->optimum_ns : 0;
}

static int by_excess(const void *pa, const void *pb)
{
	const struct known_choice_exe *a = pa, *b = pb;
	uint64_t ea = known_choice_excess(&a->c), eb = known_choice_excess(&b->c);

	if (ea != eb)
		return ea > eb ? -1 : 1;
	return strcmp(a->exe, b->exe);
}

/* A summary figure the analysis needs: false, saying so in why_not, when it is not a count. */
static bool summary_count(struct known_choice_analysis *k, const struct summary_table *s, const char *key,
			  uint64_t *v)
{
	const char *value = summary_value(s, key);

	if (value && *value && parse_count(value, v) == 0)
		return true;
	snprintf(k->why_not, sizeof(k->why_not), "summary.csv %s %s", value ? "has no count for" : "has no", key);
	return false;
}

static void add_choice(struct known_choice *c, const struct process_row *p)
{
	c->images++;
	c->written += p->optional[PO_PATCHES_KNOWN];
	c->unused += p->optional[PO_KNOWN_UNUSED];
	c->missed += p->optional[PO_KNOWN_MISSED];
}

void known_choice_analyse(struct known_choice_analysis *k, const struct process_table *t,
			  const struct summary_table *s)
{
	struct string_map index = { 0 };
	size_t cap = 0;

	memset(k, 0, sizeof(*k));
	for (int c = 0; c < PO_COUNTS; c++)
		if (!t->has_optional[c]) {
			snprintf(k->why_not, sizeof(k->why_not), "processes.csv has no column '%s'",
				 process_optional_columns[c].csv_name);
			return;
		}
	if (!summary_count(k, s, "batch_patch_ns", &k->p_ns) || !summary_count(k, s, "miss_ns", &k->m_ns) ||
	    !summary_count(k, s, "known_threshold_permille", &k->threshold_permille))
		return;
	k->available = true;
	for (size_t i = 0; i < t->n; i++) {
		const struct process_row *p = &t->rows[i];
		size_t e;

		/* a fork child starts with its parent's patches: no choice is made at its start */
		if (p->image == 0) {
			k->other_images++;
			k->other_written += p->optional[PO_PATCHES_KNOWN];
			continue;
		}
		add_choice(&k->total, p);
		e = string_map_find(&index, p->exe);
		if (e == (size_t)-1) {
			k->exes = grow_array(k->exes, &cap, k->nexes, sizeof(*k->exes));
			e = k->nexes++;
			k->exes[e] = (struct known_choice_exe){ copy_string(p->exe), { 0 } };
			string_map_put(&index, p->exe, e);
		}
		add_choice(&k->exes[e].c, p);
	}
	string_map_free(&index);
	known_choice_cost(&k->total, k->p_ns, k->m_ns);
	for (size_t e = 0; e < k->nexes; e++)
		known_choice_cost(&k->exes[e].c, k->p_ns, k->m_ns);
	if (k->nexes)
		qsort(k->exes, k->nexes, sizeof(*k->exes), by_excess);
}

void known_choice_free(struct known_choice_analysis *k)
{
	for (size_t e = 0; e < k->nexes; e++)
		free(k->exes[e].exe);
	free(k->exes);
	memset(k, 0, sizeof(*k));
}
