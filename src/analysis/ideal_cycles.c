#include "config.h"

#include "trex/analysis/ideal_cycles.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/kernels.h"
#include "trex/analysis/work.h"
#include "trex/core/strtab.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define KERNEL_SUFFIX " Cmpt Exec"

static const struct trex_column cols[] = {
    {"rank", "Rank", TREX_COL_COUNT, false},
    {"device", "Device", TREX_COL_TEXT, false},
    {"phase", "Phase", TREX_COL_TEXT, false},
    {"kernel_ns", "Kernel time", TREX_COL_DURATION, true},
    {"time_pct", "Time %", TREX_COL_PERCENT, true},
    {"calls", "Calls", TREX_COL_COUNT, true},
    {"ideal_ns", "Ideal time", TREX_COL_DURATION, true},
    {"ideal_cycles", "Ideal cycles", TREX_COL_COUNT, true},
    {"ideal_pct", "Ideal %", TREX_COL_PERCENT, true},
    {"pt_util_pct", "PT util %", TREX_COL_PERCENT, true},
    {"category", "Category", TREX_COL_TEXT, false},
};
enum {
	I_RANK,
	I_DEVICE,
	I_PHASE,
	I_TIME,
	I_TIME_PCT,
	I_CALLS,
	I_IDEAL,
	I_CYCLES,
	I_IDEAL_PCT,
	I_UTIL,
	I_CATEGORY
};

/* acelyzer's rows before the log's categories, in its order. */
static const char *const fixed_cats[] = {"Total", "StcdpHbm", "other"};
enum { F_TOTAL, F_STCDP, F_OTHER, NFIXED };

/* A kernel name's entry in one table: its category row and cycles. */
struct entry {
	uint32_t cat; /* row index (NFIXED + the table's category index) */
	uint64_t cycles;
	bool listed;
};

struct row {
	__int128 time;
	unsigned __int128 cycles;
	int64_t calls;
};

struct ctx {
	const struct trex_index *idx;
	const struct trex_ideal_log *log;
	uint32_t core_mhz;
	struct trex_work work;
	struct entry **entry; /* per table, per name string (lazily) */
	uint8_t **known;      /* per table, per name string: entry decided */
	size_t nstr;
};

/* The entry of name id in table ti, decided once. */
static const struct entry *entry_of(struct ctx *c, size_t ti, uint32_t name)
{
	struct entry *e = &c->entry[ti][name];

	if (!c->known[ti][name]) {
		const struct trex_ideal_table *t = &c->log->tables[ti];
		const char *s = trex_index_str(c->idx, name);
		size_t n = strlen(s), m = strlen(KERNEL_SUFFIX);
		char *full = malloc(n + m + 1);
		const struct trex_ideal_kernel *k = NULL;

		if (full) {
			bool has = n >= m && memcmp(s + n - m, KERNEL_SUFFIX, m) == 0;

			snprintf(full, n + m + 1, "%s%s", s, has ? "" : KERNEL_SUFFIX);
			k = trex_ideal_table_find(t, full);
			free(full);
		}
		*e = (struct entry){F_OTHER, 0, false};
		for (size_t i = 0; k && i < t->ncategories; i++) {
			if (strcmp(t->categories[i], k->category) == 0)
				*e = (struct entry){(uint32_t)(NFIXED + i), k->cycles, true};
		}
		c->known[ti][name] = 1;
	}
	return e;
}

/* The table listing the most of the device's kernel instances. */
static size_t pick_table(struct ctx *c, const uint32_t *ids, size_t n)
{
	size_t best = 0, best_hits = 0;

	for (size_t ti = 0; ti < c->log->ntables; ti++) {
		size_t hits = 0;

		for (size_t i = 0; i < n; i++)
			hits += entry_of(c, ti, trex_index_slice(c->idx, ids[i])->name)->listed;
		if (hits > best_hits) {
			best = ti;
			best_hits = hits;
		}
	}
	return best;
}

/* ---- rows ----------------------------------------------------------------------------------- */

static const char *cat_name(const struct trex_ideal_table *t, size_t r)
{
	return r < NFIXED ? fixed_cats[r] : t->categories[r - NFIXED];
}

struct order {
	const struct row *rows;
	size_t r;
};

static int cmp_order(const void *a, const void *b)
{
	const struct order *x = a, *y = b;

	if ((x->r == F_TOTAL) != (y->r == F_TOTAL))
		return x->r == F_TOTAL ? 1 : -1;
	if (x->rows[x->r].time != y->rows[y->r].time)
		return x->rows[x->r].time < y->rows[y->r].time ? -1 : 1;
	return (x->r > y->r) - (x->r < y->r);
}

static double pct(long double part, long double whole)
{
	return whole > 0 ? (double)(part * 100 / whole) : 0;
}

/* Duplicate category names of the log (a "Total" or "other" of its own)
 * fold into the first row of that name. */
static size_t fold_row(const struct trex_ideal_table *t, size_t r)
{
	for (size_t i = 0; i < r; i++) {
		if (strcmp(cat_name(t, i), cat_name(t, r)) == 0)
			return i;
	}
	return r;
}

static bool emit_rows(struct ctx *c, struct trex_table *t, uint32_t process,
                      const struct trex_ideal_table *tab, struct row *rows, size_t nrows)
{
	struct order *o = malloc(nrows * sizeof(*o));
	long double ideal_total = (long double)rows[F_TOTAL].cycles * 1000 / c->core_mhz;
	char dev[512];
	size_t n = 0;

	if (!o)
		return false;
	trex_process_label(c->idx, process, dev, sizeof(dev));
	for (size_t r = 0; r < nrows; r++) {
		if (fold_row(tab, r) == r)
			o[n++] = (struct order){rows, r};
	}
	qsort(o, n, sizeof(*o), cmp_order);
	for (size_t i = 0; i < n; i++) {
		const struct row *w = &rows[o[i].r];
		union trex_cell *cell = trex_table_add_row(t);
		long double ideal = (long double)w->cycles * 1000 / c->core_mhz;
		const char *cat = cat_name(tab, o[i].r);

		if (!cell || !(cell[I_DEVICE].text = trex_table_strdup(t, dev, strlen(dev))) ||
		    !(cell[I_PHASE].text = trex_table_strdup(t, tab->phase, strlen(tab->phase))) ||
		    !(cell[I_CATEGORY].text = trex_table_strdup(t, cat, strlen(cat)))) {
			free(o);
			return false;
		}
		cell[I_RANK].count =
		    trex_index_file(c->idx, trex_index_process(c->idx, process)->file)->rank;
		cell[I_TIME].number = (double)w->time;
		cell[I_TIME_PCT].number =
		    pct((long double)w->time, (long double)rows[F_TOTAL].time);
		cell[I_CALLS].count = w->calls;
		cell[I_IDEAL].number = (double)ideal;
		cell[I_CYCLES].count = (int64_t)w->cycles;
		cell[I_IDEAL_PCT].number = pct(ideal, ideal_total);
		cell[I_UTIL].number = pct(ideal, (long double)w->time);
	}
	free(o);
	return true;
}

/* Does the instance's ideal time fit its duration (cycles / MHz <= dur)? */
static bool fits(const struct ctx *c, uint64_t cycles, int64_t dur_ns)
{
	return (unsigned __int128)cycles * 1000 <= (unsigned __int128)dur_ns * c->core_mhz;
}

static bool device_rows(struct ctx *c, struct trex_table *t, uint32_t process, const uint32_t *ids,
                        size_t n)
{
	size_t ti = pick_table(c, ids, n);
	const struct trex_ideal_table *tab = &c->log->tables[ti];
	size_t nrows = NFIXED + tab->ncategories;
	struct row *rows = calloc(nrows, sizeof(*rows));
	bool ok;

	if (!rows)
		return false;
	for (size_t i = 0; i < n; i++) {
		const struct trex_slice *s = trex_index_slice(c->idx, ids[i]);
		const struct entry *e = entry_of(c, ti, s->name);
		uint64_t cycles = fits(c, e->cycles, s->dur) ? e->cycles : 0;
		struct row *rs[2] = {&rows[fold_row(tab, e->cat)], &rows[F_TOTAL]};

		for (size_t k = 0; k < 2; k++) {
			rs[k]->time += s->dur;
			rs[k]->cycles += cycles;
			rs[k]->calls++;
		}
	}
	ok = emit_rows(c, t, process, tab, rows, nrows);
	free(rows);
	return ok;
}

/* ---- the table ------------------------------------------------------------------------------- */

struct kernel_at {
	uint32_t process;
	uint32_t slice;
};

static int cmp_kernel_at(const void *a, const void *b)
{
	const struct kernel_at *x = a, *y = b;

	if (x->process != y->process)
		return x->process < y->process ? -1 : 1;
	return (x->slice > y->slice) - (x->slice < y->slice);
}

static enum trex_status all_rows(struct ctx *c, struct trex_table *t)
{
	struct kernel_at *v = malloc((c->work.kernels ? c->work.kernels : 1) * sizeof(*v));
	uint32_t *ids = malloc((c->work.kernels ? c->work.kernels : 1) * sizeof(*ids));
	size_t n = 0;
	bool ok = v && ids;

	for (uint32_t i = 0; ok && i < c->work.nslices; i++) {
		if (trex_work_kind(&c->work, i) == TREX_KIND_KERNEL)
			v[n++] = (struct kernel_at){
			    trex_index_track(c->idx, trex_index_slice(c->idx, i)->track)->process,
			    i};
	}
	if (ok)
		qsort(v, n, sizeof(*v), cmp_kernel_at);
	for (size_t i = 0, j; ok && i < n; i = j) {
		for (j = i; j < n && v[j].process == v[i].process; j++)
			ids[j - i] = v[j].slice;
		ok = device_rows(c, t, v[i].process, ids, j - i);
	}
	free(v);
	free(ids);
	return ok ? TREX_OK : TREX_NOMEM;
}

static enum trex_status compute(struct ctx *c, struct trex_table *t)
{
	enum trex_status st = TREX_OK;
	char why[512];
	const char *note;

	trex_work_count(c->idx, &c->work);
	c->entry = calloc(c->log->ntables ? c->log->ntables : 1, sizeof(*c->entry));
	c->known = calloc(c->log->ntables ? c->log->ntables : 1, sizeof(*c->known));
	for (size_t i = 0; c->entry && c->known && i < c->log->ntables; i++) {
		if (!(c->entry[i] = malloc(c->nstr * sizeof(**c->entry))) ||
		    !(c->known[i] = calloc(c->nstr, 1)))
			return TREX_NOMEM;
	}
	if (!c->entry || !c->known || (st = all_rows(c, t)) != TREX_OK || t->nrows)
		return c->entry && c->known ? st : TREX_NOMEM;
	note = trex_work_empty_reason(c->idx, &c->work, TREX_WORK_WANT_KERNELS, why, sizeof(why));
	if (note && !(t->note = trex_table_strdup(t, note, strlen(note))))
		return TREX_NOMEM;
	return TREX_OK;
}

enum trex_status trex_ideal_categories_table(const struct trex_index *idx,
                                             const struct trex_ideal_log *log, uint32_t core_mhz,
                                             struct trex_table *t, struct trex_error *err)
{
	struct ctx c = {.idx = idx,
	                .log = log,
	                .core_mhz = core_mhz ? core_mhz : TREX_IDEAL_CORE_MHZ,
	                .nstr = trex_strtab_count(trex_index_strings(idx)) + 1};
	enum trex_status st;

	trex_table_init(t, "ideal_categories", cols, ARRAY_LEN(cols));
	if (!log || !log->ntables)
		return trex_error_set(err, TREX_USAGE, NULL, -1,
		                      "ideal cycles: no compiler log table");
	st = compute(&c, t);
	for (size_t i = 0; i < log->ntables; i++) {
		free(c.entry ? c.entry[i] : NULL);
		free(c.known ? c.known[i] : NULL);
	}
	free(c.entry);
	free(c.known);
	if (st != TREX_OK) {
		trex_table_free(t);
		if (st == TREX_NOMEM)
			return trex_error_set(err, st, NULL, -1, "ideal cycles: out of memory");
	}
	return st;
}
