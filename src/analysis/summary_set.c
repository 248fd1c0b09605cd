/* The info report of a set from its ranks' summaries (summary_set.h). */
#include "config.h"

#include "trex/analysis/summary_set.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/labels.h"

/* Row r of in appended to out with its texts copied; NULL when out of
 * memory. */
static union trex_cell *copy_row(struct trex_table *out, const struct trex_table *in, size_t r)
{
	union trex_cell *c = trex_table_add_row(out);

	if (!c)
		return NULL;
	memcpy(c, trex_table_cell(in, r, 0), in->ncols * sizeof(*c));
	for (size_t k = 0; k < in->ncols; k++)
		if (in->cols[k].type == TREX_COL_TEXT &&
		    !(c[k].text = trex_table_strdup(out, c[k].text, strlen(c[k].text))))
			return NULL;
	return c;
}

static size_t col_of(const struct trex_table *t, const char *key)
{
	for (size_t c = 0; c < t->ncols; c++)
		if (strcmp(t->cols[c].key, key) == 0)
			return c;
	return t->ncols;
}

/* Every row of every part's table (the one at offset in a summary), in
 * order: its "rank" column the set's, its "slice" column (not -1) moved
 * by shifts[i] when shifts is given. */
static bool concat(struct trex_table *out, const struct trex_summary *const *parts,
                   const int64_t *ranks, size_t n, size_t offset, const int64_t *shifts)
{
	for (size_t i = 0; i < n; i++) {
		const struct trex_table *in =
		    (const struct trex_table *)((const char *)parts[i] + offset);
		size_t rank = col_of(in, "rank"), slice = col_of(in, "slice");

		for (size_t r = 0; r < in->nrows; r++) {
			union trex_cell *c = copy_row(out, in, r);

			if (!c)
				return false;
			if (rank < in->ncols)
				c[rank].count = ranks[i];
			if (shifts && slice < in->ncols && c[slice].count != -1)
				c[slice].count += shifts[i];
		}
	}
	return true;
}

/* tracks_text: the run "rank R". */
static bool concat_tracks_text(struct trex_table *out, const struct trex_summary *const *parts,
                               const int64_t *ranks, size_t n)
{
	char run[64];

	for (size_t i = 0; i < n; i++)
		for (size_t r = 0; r < parts[i]->tracks_text.nrows; r++) {
			union trex_cell *c = copy_row(out, &parts[i]->tracks_text, r);

			trex_rank_label(ranks[i], run, sizeof(run));
			if (!c || !(c[0].text = trex_table_strdup(out, run, strlen(run))))
				return false;
		}
	return true;
}

/* The row of out whose text column 0 (phases) or 4 (categories) is key. */
static union trex_cell *row_keyed(struct trex_table *out, size_t col, const char *key)
{
	for (size_t r = 0; r < out->nrows; r++)
		if (strcmp(trex_table_cell(out, r, col)->text, key) == 0)
			return trex_table_cell(out, r, 0);
	return NULL;
}

/* phases (label, events, name): summed by label, in first-seen order. */
static bool join_phases(struct trex_table *out, const struct trex_summary *const *parts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t r = 0; r < parts[i]->phases.nrows; r++) {
			const union trex_cell *in = trex_table_cell(&parts[i]->phases, r, 0);
			union trex_cell *c = row_keyed(out, 0, in[0].text);

			if (c)
				c[1].count += in[1].count;
			else if (!copy_row(out, &parts[i]->phases, r))
				return false;
		}
	return true;
}

/* categories (kind, slices, instants, total, category): summed by
 * category; a kind that differs between ranks is "mixed". */
static bool sum_categories(struct trex_table *out, const struct trex_summary *const *parts,
                           size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t r = 0; r < parts[i]->categories.nrows; r++) {
			const union trex_cell *in = trex_table_cell(&parts[i]->categories, r, 0);
			union trex_cell *c = row_keyed(out, 4, in[4].text);

			if (!c) {
				if (!copy_row(out, &parts[i]->categories, r))
					return false;
				continue;
			}
			c[1].count += in[1].count;
			c[2].count += in[2].count;
			c[3].number += in[3].number; /* whole ns: exact below 2^53 */
			if (strcmp(c[0].text, in[0].text) != 0)
				c[0].text = "mixed";
		}
	return true;
}

/* As trex_summary_compute orders categories: total, slices, instants
 * descending, then by name. */
static int cmp_category(const void *pa, const void *pb)
{
	const union trex_cell *a = pa, *b = pb;

	if (a[3].number != b[3].number)
		return a[3].number > b[3].number ? -1 : 1;
	if (a[1].count != b[1].count)
		return a[1].count > b[1].count ? -1 : 1;
	if (a[2].count != b[2].count)
		return a[2].count > b[2].count ? -1 : 1;
	return strcmp(a[4].text, b[4].text);
}

static bool join_categories(struct trex_table *out, const struct trex_summary *const *parts,
                            size_t n)
{
	if (!sum_categories(out, parts, n))
		return false;
	if (out->nrows) /* rows are ncols cells in a row: sort them as elements */
		qsort(out->cells, out->nrows, out->ncols * sizeof(*out->cells), cmp_category);
	return true;
}

/* integrity (check, count, meaning): every counter, summed. */
static bool join_integrity(struct trex_table *out, const struct trex_summary *const *parts,
                           size_t n)
{
	for (size_t r = 0; r < parts[0]->integrity.nrows; r++) {
		union trex_cell *c = copy_row(out, &parts[0]->integrity, r);

		for (size_t i = 1; c && i < n; i++)
			c[1].count += trex_table_cell(&parts[i]->integrity, r, 1)->count;
		if (!c)
			return false;
	}
	return true;
}

static void init_like(struct trex_summary *out, const struct trex_summary *p)
{
	memset(out, 0, sizeof(*out));
	trex_table_init(&out->files, p->files.name, p->files.cols, p->files.ncols);
	trex_table_init(&out->phases, p->phases.name, p->phases.cols, p->phases.ncols);
	trex_table_init(&out->categories, p->categories.name, p->categories.cols,
	                p->categories.ncols);
	trex_table_init(&out->tracks, p->tracks.name, p->tracks.cols, p->tracks.ncols);
	trex_table_init(&out->tracks_text, p->tracks_text.name, p->tracks_text.cols,
	                p->tracks_text.ncols);
	trex_table_init(&out->integrity, p->integrity.name, p->integrity.cols, p->integrity.ncols);
	trex_table_init(&out->problems, p->problems.name, p->problems.cols, p->problems.ncols);
	trex_table_init(&out->examples, p->examples.name, p->examples.cols, p->examples.ncols);
}

/* The totals; in shifts[i] the slices of the parts before part i. */
static void totals(struct trex_summary *out, const struct trex_summary *const *parts, size_t n,
                   int64_t *shifts)
{
	out->start_ns = parts[0]->start_ns;
	out->end_ns = parts[0]->end_ns;
	for (size_t i = 0; i < n; i++) {
		const struct trex_summary *p = parts[i];

		shifts[i] = (int64_t)out->slices;
		out->start_ns = p->start_ns < out->start_ns ? p->start_ns : out->start_ns;
		out->end_ns = p->end_ns > out->end_ns ? p->end_ns : out->end_ns;
		out->slices += p->slices;
		out->instants += p->instants;
		out->samples += p->samples;
		out->flows += p->flows;
	}
}

enum trex_status trex_summary_join(const struct trex_summary *const *parts, const int64_t *ranks,
                                   size_t n, struct trex_summary *out, struct trex_error *err)
{
	int64_t *shifts = malloc((n ? n : 1) * sizeof(*shifts));
	bool ok = shifts && n > 0;

	if (n == 0) {
		free(shifts);
		return trex_error_set(err, TREX_USAGE, NULL, -1, "trace summary: no rank");
	}
	init_like(out, parts[0]);
	if (ok)
		totals(out, parts, n, shifts);
	ok = ok &&
	     concat(&out->files, parts, ranks, n, offsetof(struct trex_summary, files), NULL) &&
	     join_phases(&out->phases, parts, n) && join_categories(&out->categories, parts, n) &&
	     concat(&out->tracks, parts, ranks, n, offsetof(struct trex_summary, tracks), NULL) &&
	     concat_tracks_text(&out->tracks_text, parts, ranks, n) &&
	     join_integrity(&out->integrity, parts, n) &&
	     concat(&out->problems, parts, ranks, n, offsetof(struct trex_summary, problems),
	            NULL) &&
	     concat(&out->examples, parts, ranks, n, offsetof(struct trex_summary, examples),
	            shifts);
	free(shifts);
	if (ok)
		return TREX_OK;
	trex_summary_free(out);
	init_like(out, parts[0]);
	return trex_error_set(err, TREX_NOMEM, NULL, -1, "trace summary: out of memory");
}
