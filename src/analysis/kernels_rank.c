/* The kernels table of a set, rank by rank (kernels_rank.h). */
#include "config.h"

#include "trex/analysis/kernels_rank.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/copy_bytes.h"
#include "trex/analysis/labels.h"
#include "trex/core/kind.h"

static enum trex_status nomem(struct trex_error *err)
{
	return trex_error_set(err, TREX_NOMEM, NULL, -1, "kernel summary: out of memory");
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* ---- one rank's part ------------------------------------------------------------------------ */

/* Row r of the part: its label, its durations (the slices of members row
 * r) sorted into durs, and their sums. */
static void part_row(const struct trex_index *idx, const struct trex_kernel_members *m, size_t r,
                     int64_t *durs, const char *name, struct trex_ksum_row *row)
{
	size_t n = m->first[r + 1] - m->first[r];

	*row = (struct trex_ksum_row){.name = name, .name_len = strlen(name), .n = n, .width = 8};
	for (size_t i = 0; i < n; i++)
		durs[i] = trex_index_slice(idx, m->ids[m->first[r] + i])->dur;
	qsort(durs, n, sizeof(*durs), cmp_i64);
	row->min = durs[0];
	row->max = durs[n - 1];
	for (size_t i = 0; i < n; i++) {
		row->sum += durs[i];
		row->sumsq_overflow =
		    row->sumsq_overflow ||
		    __builtin_add_overflow(row->sumsq, (__int128)durs[i] * durs[i], &row->sumsq);
	}
	row->durs = durs;
}

/* Durations 4 bytes each when every one fits (the summaries' width):
 * half the memory of a part. */
static void narrow_durations(struct trex_kernels_rank *r, size_t total)
{
	int64_t *wide = r->durs;
	uint32_t *narrow = r->durs;

	for (size_t i = 0; i < r->sum.nrows; i++)
		if (r->sum.rows[i].min < 0 || r->sum.rows[i].max > (int64_t)UINT32_MAX)
			return;
	for (size_t i = 0; i < total; i++) /* forward: a 4-byte write never passes its read */
		narrow[i] = (uint32_t)wide[i];
	for (size_t i = 0; i < r->sum.nrows; i++) {
		r->sum.rows[i].durs = narrow + ((const int64_t *)r->sum.rows[i].durs - wide);
		r->sum.rows[i].width = 4;
	}
}

/* The rows of the part from the rank's table t and its members. */
static bool part_rows(const struct trex_index *idx, const struct trex_table *t,
                      const struct trex_kernel_members *m, struct trex_kernels_rank *r)
{
	size_t text = 0, total = m->first[m->nrows], label = t->ncols - 1; /* name or op: last */
	char *name;

	for (size_t i = 0; i < t->nrows; i++)
		text += strlen(trex_table_cell(t, i, label)->text) + 1;
	r->names = malloc(text ? text : 1);
	r->durs = malloc((total ? total : 1) * sizeof(int64_t));
	r->sum.rows = calloc(t->nrows ? t->nrows : 1, sizeof(*r->sum.rows));
	r->sum.files = calloc(1, sizeof(*r->sum.files));
	if (!r->names || !r->durs || !r->sum.rows || !r->sum.files)
		return false;
	name = r->names;
	for (size_t i = 0; i < t->nrows; i++) {
		const char *s = trex_table_cell(t, i, label)->text;

		memcpy(name, s, strlen(s) + 1);
		part_row(idx, m, i, (int64_t *)r->durs + m->first[i], name, &r->sum.rows[i]);
		name += strlen(s) + 1;
	}
	r->sum.nrows = t->nrows;
	r->sum.nfiles = 1;
	r->sum.files[0] = (struct trex_ksum_file){.rank = trex_index_file(idx, 0)->rank,
	                                          .has_rank = trex_index_file(idx, 0)->has_rank,
	                                          .nrows = t->nrows};
	narrow_durations(r, total);
	return true;
}

/* The copies and sets among the members, ascending (as the merged table
 * finds their bytes), in *ids. */
static bool copy_ids(const struct trex_index *idx, const struct trex_kernel_members *m,
                     uint32_t **ids, size_t *n)
{
	size_t total = m->first[m->nrows];

	*n = 0;
	if (!(*ids = malloc((total ? total : 1) * sizeof(**ids))))
		return false;
	for (size_t i = 0; i < total; i++) {
		enum trex_kind k = (enum trex_kind)trex_index_slice(idx, m->ids[i])->kind;

		if (k == TREX_KIND_MEMCPY || k == TREX_KIND_MEMSET)
			(*ids)[(*n)++] = m->ids[i];
	}
	qsort(*ids, *n, sizeof(**ids), cmp_u32);
	return true;
}

/* Each row's sized copies and sets: their bytes and durations summed;
 * r->copies stays NULL when no size is known. */
static enum trex_status part_copies(const struct trex_index *idx,
                                    const struct trex_kernel_members *m,
                                    struct trex_kernels_rank *r, struct trex_error *err)
{
	uint32_t *ids;
	int64_t *bytes = NULL;
	size_t n;
	bool sized = false;
	enum trex_status st = copy_ids(idx, m, &ids, &n) ? TREX_OK : nomem(err);

	if (st == TREX_OK && !(bytes = malloc((n ? n : 1) * sizeof(*bytes))))
		st = nomem(err);
	if (st == TREX_OK)
		st = trex_copy_bytes(idx, ids, n, bytes, err);
	for (size_t i = 0; st == TREX_OK && i < n; i++)
		sized = sized || bytes[i] >= 0;
	if (st == TREX_OK && sized && !(r->copies = calloc(m->nrows, sizeof(*r->copies))))
		st = nomem(err);
	for (size_t row = 0; st == TREX_OK && sized && row < m->nrows; row++)
		for (size_t i = m->first[row]; i < m->first[row + 1]; i++) {
			const uint32_t *at = bsearch(&m->ids[i], ids, n, sizeof(*ids), cmp_u32);

			if (!at || bytes[at - ids] < 0)
				continue;
			r->copies[row].sized = true;
			r->copies[row].bytes += bytes[at - ids];
			r->copies[row].ns += trex_index_slice(idx, m->ids[i])->dur;
		}
	free(ids);
	free(bytes);
	return st;
}

enum trex_status trex_kernels_rank_new(const struct trex_index *idx,
                                       const struct trex_kernel_opts *opts,
                                       struct trex_kernels_rank **out, struct trex_error *err)
{
	struct trex_kernel_opts ko = *opts;
	struct trex_kernel_members m;
	struct trex_table t;
	struct trex_kernels_rank *r;
	enum trex_status st;

	*out = NULL;
	if (opts->group != TREX_KERNELS_BY_NAME && opts->group != TREX_KERNELS_BY_OP)
		return trex_error_set(err, TREX_USAGE, NULL, -1,
		                      "kernel parts: by name or op only");
	ko.per_rank = ko.args = false;
	if (!(r = calloc(1, sizeof(*r))))
		return nomem(err);
	st = trex_kernels_table_members(idx, &ko, &t, &m, err);
	if (st != TREX_OK) {
		free(r);
		return st;
	}
	if (!part_rows(idx, &t, &m, r))
		st = nomem(err);
	if (st == TREX_OK && opts->memory)
		st = part_copies(idx, &m, r, err);
	trex_kernel_members_free(&m);
	trex_table_free(&t);
	if (st != TREX_OK)
		trex_kernels_rank_free(r);
	else
		*out = r;
	return st;
}

void trex_kernels_rank_free(struct trex_kernels_rank *r)
{
	if (!r)
		return;
	free(r->sum.rows);
	free(r->sum.files);
	free(r->copies);
	free(r->names);
	free(r->durs);
	free(r);
}

/* ---- rows that belong to one rank ------------------------------------------------------------ */

static size_t col_of(const struct trex_table *t, const char *key)
{
	for (size_t c = 0; c < t->ncols; c++)
		if (strcmp(t->cols[c].key, key) == 0)
			return c;
	return t->ncols;
}

/* A row of a rank's table and what orders it in the set's. */
struct jrow {
	size_t table, row;
	int64_t total;
	const char *name, *shape; /* "" when the grouping has none */
};

static int cmp_jrow(const void *a, const void *b)
{
	const struct jrow *x = a, *y = b;
	int c;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	if ((c = strcmp(x->name, y->name)) || (c = strcmp(x->shape, y->shape)))
		return c;
	if (x->table != y->table)
		return x->table < y->table ? -1 : 1;
	return (x->row > y->row) - (x->row < y->row);
}

static const char *text_or_empty(const struct trex_table *t, size_t row, size_t col)
{
	return col < t->ncols ? trex_table_cell(t, row, col)->text : "";
}

/* Every row of every table, ordered; the set's total in *grand. */
static struct jrow *ordered_rows(const struct trex_table *const *tables, size_t n, size_t *count,
                                 __int128 *grand)
{
	size_t total = 0, k = 0;
	struct jrow *v;

	for (size_t i = 0; i < n; i++)
		total += tables[i]->nrows;
	if (!(v = malloc((total ? total : 1) * sizeof(*v))))
		return NULL;
	*grand = 0;
	for (size_t i = 0; i < n; i++) {
		const struct trex_table *t = tables[i];
		size_t name = col_of(t, "name"), shape = col_of(t, "shape");
		size_t tot = col_of(t, "total_ns");

		for (size_t r = 0; r < t->nrows; r++, k++) {
			v[k] = (struct jrow){i, r, (int64_t)trex_table_cell(t, r, tot)->number,
			                     text_or_empty(t, r, name), text_or_empty(t, r, shape)};
			*grand += v[k].total;
		}
	}
	if (total)
		qsort(v, total, sizeof(*v), cmp_jrow);
	*count = total;
	return v;
}

/* The set's columns: the statistics, Bytes and GB/s when any table has
 * them, then the labels of the first table. */
static bool join_columns(const struct trex_table *const *tables, size_t n, bool bytes,
                         struct trex_table *t)
{
	size_t nstat, nbytes, first = n ? col_of(tables[0], "bytes") : 0;
	const struct trex_column *stat = trex_kernels_stat_columns(&nstat);
	const struct trex_column *bcols = trex_kernels_bytes_columns(&nbytes);
	size_t from = nstat + (n && first < tables[0]->ncols ? nbytes : 0);
	size_t nlabel = n ? tables[0]->ncols - from : 0;
	struct trex_column *cols =
	    trex_table_init_owned(t, "kernels", nstat + (bytes ? nbytes : 0) + nlabel);

	if (!cols)
		return false;
	memcpy(cols, stat, nstat * sizeof(*cols));
	if (bytes)
		memcpy(cols + nstat, bcols, nbytes * sizeof(*cols));
	for (size_t c = 0; c < nlabel; c++) {
		const struct trex_column *in = &tables[0]->cols[from + c];
		struct trex_column *o = &cols[nstat + (bytes ? nbytes : 0) + c];

		*o = *in;
		o->key = trex_table_strdup(t, in->key, strlen(in->key));
		o->title = trex_table_strdup(t, in->title, strlen(in->title));
		if (!o->key || !o->title)
			return false;
	}
	return true;
}

/* A label cell of the set: the rank the set's, the device "rank R DEV". */
static bool join_label(struct trex_table *t, const struct trex_column *col,
                       const union trex_cell *from, int64_t rank, union trex_cell *cell)
{
	char run[64];
	const char *text;
	char *label;
	size_t len;
	FILE *mem;

	if (strcmp(col->key, "rank") == 0) {
		cell->count = rank;
		return true;
	}
	if (col->type != TREX_COL_TEXT || strcmp(col->key, "device") != 0) {
		*cell = *from; /* a text copied: the rank's table goes before the set's */
		text = col->type == TREX_COL_TEXT ? from->text : NULL;
		return !text || (cell->text = trex_table_strdup(t, text, strlen(text))) != NULL;
	}
	if (!(mem = open_memstream(&label, &len)))
		return false;
	fprintf(mem, "%s %s", trex_rank_label(rank, run, sizeof(run)), from->text);
	if (fclose(mem) != 0)
		return false;
	cell->text = trex_table_strdup(t, label, len);
	free(label);
	return cell->text != NULL;
}

static bool join_row(struct trex_table *t, const struct trex_table *in, size_t row, int64_t rank,
                     __int128 grand, bool bytes)
{
	size_t nstat, nbytes, k, b = col_of(in, "bytes");
	union trex_cell *cell = trex_table_add_row(t);
	int64_t total = (int64_t)trex_table_cell(in, row, 1)->number;

	trex_kernels_stat_columns(&nstat);
	trex_kernels_bytes_columns(&nbytes);
	if (!cell)
		return false;
	memcpy(cell, trex_table_cell(in, row, 0), nstat * sizeof(*cell));
	cell[0].number = grand ? (double)((long double)total * 100 / (long double)grand) : 0;
	k = nstat;
	for (size_t i = 0; bytes && i < nbytes; i++, k++)
		cell[k].number = b < in->ncols ? trex_table_cell(in, row, b + i)->number : NAN;
	for (size_t c = nstat + (b < in->ncols ? nbytes : 0); c < in->ncols; c++, k++)
		if (!join_label(t, &t->cols[k], trex_table_cell(in, row, c), rank, &cell[k]))
			return false;
	return true;
}

enum trex_status trex_kernels_join_table(const struct trex_table *const *tables,
                                         const int64_t *ranks, size_t n, struct trex_table *t,
                                         struct trex_error *err)
{
	struct jrow *rows;
	size_t count = 0;
	__int128 grand;
	bool bytes = false, ok;

	trex_table_init(t, "kernels", NULL, 0);
	for (size_t i = 0; i < n; i++)
		bytes = bytes || col_of(tables[i], "bytes") < tables[i]->ncols;
	rows = ordered_rows(tables, n, &count, &grand);
	ok = rows && join_columns(tables, n, bytes, t);
	for (size_t i = 0; ok && i < count; i++)
		ok = join_row(t, tables[rows[i].table], rows[i].row, ranks[rows[i].table], grand,
		              bytes);
	free(rows);
	if (!ok) {
		trex_table_free(t);
		return nomem(err);
	}
	return TREX_OK;
}
