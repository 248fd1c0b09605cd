/* The integrity report of a set, rank by rank (integrity_set.h). */
#include "config.h"

#include "trex/analysis/integrity_set.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/labels.h"

static enum trex_status nomem(struct trex_error *err)
{
	return trex_error_set(err, TREX_NOMEM, NULL, -1, "integrity: out of memory");
}

enum trex_status trex_integrity_part_new(const struct trex_index *idx,
                                         struct trex_integrity_part **out, struct trex_error *err)
{
	struct trex_integrity_part *p = calloc(1, sizeof(*p));
	const char *path = trex_index_str(idx, trex_index_file(idx, 0)->path);
	enum trex_status st;
	int len;

	*out = NULL;
	if (!p)
		return nomem(err);
	st = trex_integrity_table(idx, &p->table, &p->rows, err);
	if (st != TREX_OK) {
		free(p);
		return st;
	}
	p->start = trex_index_start(idx);
	p->ts = malloc((p->rows.n ? p->rows.n : 1) * sizeof(*p->ts));
	for (size_t r = 0; p->ts && r < p->rows.n; r++) {
		const struct trex_problem *first =
		    trex_index_problem(idx, p->rows.v[r].file, p->rows.v[r].counter, 0);

		p->ts[r] = first && first->has_ts ? first->ts : 0;
	}
	p->lost_data = trex_file_lost_data(trex_index_file(idx, 0));
	len = trex_loss_text(idx, 0, true, NULL, 0);
	p->lost = malloc((size_t)len + 1);
	p->path = strdup(path);
	if (!p->lost || !p->path || !p->ts) {
		trex_integrity_part_free(p);
		return nomem(err);
	}
	trex_loss_text(idx, 0, true, p->lost, (size_t)len + 1);
	*out = p;
	return TREX_OK;
}

void trex_integrity_part_free(struct trex_integrity_part *p)
{
	if (!p)
		return;
	trex_table_free(&p->table);
	trex_integrity_rows_free(&p->rows);
	free(p->lost);
	free(p->path);
	free(p->ts);
	free(p);
}

/* The row of counter c in a part's table (each counter has one: one file). */
static size_t row_of(const struct trex_integrity_part *p, enum trex_integrity_counter c)
{
	for (size_t r = 0; r < p->rows.n; r++)
		if (p->rows.v[r].counter == c)
			return r;
	return p->rows.n;
}

static int64_t count_of(const struct trex_integrity_part *p, enum trex_integrity_counter c)
{
	size_t r = row_of(p, c);

	return r < p->rows.n ? trex_table_cell(&p->table, r, TREX_INTEG_COL_COUNT)->count : 0;
}

/* Row r of part p appended to t, texts copied: the run the set's label
 * ("all runs" for a counter 0 everywhere, without its example), the time
 * from the set's start. */
static bool copy_row(struct trex_table *t, const struct trex_integrity_part *p, size_t r,
                     const char *run, int64_t set_start, bool zero)
{
	union trex_cell *cell = trex_table_add_row(t);

	if (!cell)
		return false;
	memcpy(cell, trex_table_cell(&p->table, r, 0), TREX_INTEG_NCOLS * sizeof(*cell));
	for (size_t c = 0; c < TREX_INTEG_NCOLS; c++) {
		const char *s = c == TREX_INTEG_COL_RUN ? run : cell[c].text;

		if (t->cols[c].type != TREX_COL_TEXT)
			continue;
		if (zero && (c == TREX_INTEG_COL_WHERE || c == TREX_INTEG_COL_WHAT ||
		             c == TREX_INTEG_COL_TRACK || c == TREX_INTEG_COL_NAME))
			s = "";
		if (!(cell[c].text = trex_table_strdup(t, s, strlen(s))))
			return false;
	}
	if (zero) {
		cell[TREX_INTEG_COL_EXAMPLES].count = 0;
		cell[TREX_INTEG_COL_TIME].number = NAN;
	} else if (!isnan(cell[TREX_INTEG_COL_TIME].number)) { /* as views_from_start */
		cell[TREX_INTEG_COL_TIME].number = (double)((__int128)p->ts[r] - set_start);
	}
	return true;
}

/* The rows of counter c (total over the set): one per part counting it,
 * or one "all runs" row. */
static bool counter_rows(struct trex_table *t, struct trex_integrity_part *const *parts,
                         const int64_t *ranks, size_t n, int64_t set_start,
                         enum trex_integrity_counter c, int64_t total)
{
	char run[64];

	if (total == 0)
		return copy_row(t, parts[0], row_of(parts[0], c), "all runs", 0, true);
	for (size_t i = 0; i < n; i++) {
		size_t r = row_of(parts[i], c);

		if (count_of(parts[i], c) > 0 &&
		    !copy_row(t, parts[i], r, trex_rank_label(ranks[i], run, sizeof(run)),
		              set_start, false))
			return false;
	}
	return true;
}

enum trex_status trex_integrity_join_table(struct trex_integrity_part *const *parts,
                                           const int64_t *ranks, size_t n, int64_t set_start,
                                           struct trex_table *t, struct trex_error *err)
{
	struct trex_column *cols = trex_table_init_owned(t, "integrity", TREX_INTEG_NCOLS);
	bool ok = cols != NULL && n > 0;

	for (size_t c = 0; ok && c < TREX_INTEG_NCOLS; c++)
		cols[c] = parts[0]->table.cols[c]; /* static descriptors */
	for (int g = 0; ok && g < 3; g++) /* damage, notes, zero: as trex_integrity_table */
		for (int k = 0; ok && k < TREX_INTEG_COUNT; k++) {
			enum trex_integrity_counter c = (enum trex_integrity_counter)k;
			int64_t total = 0;

			for (size_t i = 0; i < n; i++)
				total += count_of(parts[i], c);
			if ((total == 0 ? 2 : trex_integrity_is_damage(c) ? 0 : 1) == g)
				ok = counter_rows(t, parts, ranks, n, set_start, c, total);
		}
	if (!ok) {
		trex_table_free(t);
		return nomem(err);
	}
	return TREX_OK;
}
