/* Metric columns in the kernels table (analysis/metrics.h): the mean of a
 * metric over the instances linked to a row's kernels, and the columns of
 * unitrace's device timing and kernel properties reports for the row's
 * kernel. */
#include "config.h"

#include "trex/analysis/metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics_internal.h"
#include "trex/analysis/table_order.h"

static enum trex_status nomem(struct trex_error *err)
{
	return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
}

/* ---- choosing the columns
 * ------------------------------------------------------------------------ */

static bool same_column(const struct trex_metric_column *a, const struct trex_metric_column *b)
{
	if (a->is_report != b->is_report)
		return false;
	return a->is_report ? a->kind == b->kind && strcmp(a->title, b->title) == 0
	                    : a->metric == b->metric;
}

static bool add_column(struct trex_metric_column *cols, size_t *n,
                       const struct trex_metric_column *c)
{
	for (size_t i = 0; i < *n; i++) {
		if (same_column(&cols[i], c))
			return true;
	}
	cols[(*n)++] = *c;
	return true;
}

/* The report columns titled name (NULL: every one), added to cols. */
static bool report_columns(const struct trex_metrics *m, const char *name,
                           struct trex_metric_column *cols, size_t *n)
{
	bool found = false;

	for (uint32_t r = 0; r < trex_metrics_report_count(m); r++) {
		const struct trex_report *rep = trex_metrics_report(m, r);

		for (uint32_t c = 1; trex_report_joins(rep) && c < rep->ncols; c++) {
			const char *title = trex_metrics_report_cell(m, r, -1, c, NULL);
			struct trex_metric_column col = {true, 0, rep->kind, title};

			if (name && strcmp(name, title) != 0)
				continue;
			add_column(cols, n, &col);
			found = true;
		}
	}
	return found;
}

/* How many columns "all" can give at most. */
static size_t column_bound(const struct trex_metrics *m, size_t nnames)
{
	size_t n = trex_metrics_metric_count(m) * (nnames ? nnames : 1);

	for (uint32_t r = 0; r < trex_metrics_report_count(m); r++)
		n += trex_metrics_report(m, r)->ncols * (nnames ? nnames : 1);
	return n + 1;
}

/* "XVE_ACTIVE[%], GpuTime[ns], ... (N metrics); report columns Calls, SIMD, ..." */
static void what_there_is(const struct trex_metrics *m, char *buf, size_t size)
{
	size_t used = (size_t)snprintf(buf, size, "%u metrics", trex_metrics_metric_count(m));
	char label[128];

	for (uint32_t i = 0; i < trex_metrics_metric_count(m) && i < 4 && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : ": ",
		                         trex_metrics_metric_label(m, i, label, sizeof(label)));
	if (trex_metrics_metric_count(m) > 4 && used < size)
		used += (size_t)snprintf(buf + used, size - used, ", ...");
	if (used < size)
		snprintf(buf + used, size - used, " ('trex metrics FILE' lists them)");
}

enum trex_status trex_metrics_columns(const struct trex_metrics *m, const char *const *names,
                                      size_t nnames, struct trex_metric_column **cols, size_t *n,
                                      struct trex_error *err)
{
	char there[160];

	*n = 0;
	*cols = malloc(column_bound(m, nnames) * sizeof(**cols));
	if (!*cols)
		return nomem(err);
	for (size_t i = 0; i < nnames; i++) {
		uint32_t id = trex_metrics_metric_find(m, names[i]);
		struct trex_metric_column c = {false, id, 0, NULL};

		if (strcmp(names[i], "all") == 0) {
			for (uint32_t k = 0; k < trex_metrics_metric_count(m); k++)
				add_column(*cols, n,
				           &(struct trex_metric_column){false, k, 0, NULL});
			report_columns(m, NULL, *cols, n);
		} else if (id != TREX_METRICS_NONE) {
			add_column(*cols, n, &c);
		} else if (!report_columns(m, names[i], *cols, n)) {
			what_there_is(m, there, sizeof(there));
			free(*cols);
			*cols = NULL;
			*n = 0;
			return trex_error_set(err, TREX_USAGE, NULL, -1,
			                      "--metric: no metric or report column '%.60s' (%s)",
			                      names[i], there);
		}
	}
	return TREX_OK;
}

/* ---- slices to instances
 * ----------------------------------------------------------------------------- */

struct link_pair {
	uint32_t slice, instance;
};

static int by_slice(const void *a, const void *b)
{
	const struct link_pair *x = a, *y = b;

	if (x->slice != y->slice)
		return x->slice < y->slice ? -1 : 1;
	return (x->instance > y->instance) - (x->instance < y->instance);
}

struct links {
	struct link_pair *v;
	size_t n;
};

static bool links_build(const struct trex_metrics *m, struct links *l)
{
	uint32_t n = trex_metrics_instance_count(m);

	l->n = 0;
	if (!(l->v = malloc((n ? n : 1) * sizeof(*l->v))))
		return false;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = trex_metrics_instance(m, i)->slice;

		if (s != TREX_METRICS_NONE)
			l->v[l->n++] = (struct link_pair){s, i};
	}
	qsort(l->v, l->n, sizeof(*l->v), by_slice);
	return true;
}

/* The first pair of slice, or l->n. */
static size_t links_find(const struct links *l, uint32_t slice)
{
	size_t a = 0, b = l->n;

	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (l->v[mid].slice < slice)
			a = mid + 1;
		else
			b = mid;
	}
	return a;
}

/* The mean of metric over the instances linked to slices ids[0..n). */
static double linked_mean(const struct trex_metrics *m, const struct links *l, uint32_t metric,
                          const uint32_t *ids, size_t n)
{
	double sum = 0, v;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		for (size_t p = links_find(l, ids[i]); p < l->n && l->v[p].slice == ids[i]; p++) {
			if (trex_metrics_instance_value(m, l->v[p].instance, metric, &v)) {
				sum += v;
				k++;
			}
		}
	}
	return k ? sum / (double)k : NAN;
}

/* ---- report values
 * ------------------------------------------------------------------------------------ */

static uint32_t column_of(const struct trex_metrics *m, uint32_t report, const char *title)
{
	const struct trex_report *r = trex_metrics_report(m, report);

	for (uint32_t c = 1; c < r->ncols; c++) {
		if (strcmp(trex_metrics_report_cell(m, report, -1, c, NULL), title) == 0)
			return c;
	}
	return 0;
}

/* What the device timing rows of one kernel add up to. */
struct timing_sum {
	double calls, time, pct, min, max;
	size_t rows;
};

static void timing_add(const struct trex_metrics *m, uint32_t r, uint32_t row,
                       struct timing_sum *ts)
{
	static const char *const titles[] = {"Calls", "Time (ns)", "Time (%)", "Min (ns)",
	                                     "Max (ns)"};
	double v[5];

	for (size_t i = 0; i < 5; i++) {
		uint32_t c = column_of(m, r, titles[i]);

		v[i] = NAN;
		if (c)
			trex_metrics_report_cell(m, r, row, c, &v[i]);
	}
	ts->calls += v[0];
	ts->time += v[1];
	ts->pct += v[2];
	ts->min = ts->rows && !(v[3] < ts->min) ? ts->min : v[3];
	ts->max = ts->rows && !(v[4] > ts->max) ? ts->max : v[4];
	ts->rows++;
}

/* A device timing column of the rows that fit kernel, summed over rows of
 * one name (unitrace lists one kernel twice when it has two command ids). */
static double timing_value(const struct trex_metrics *m, const char *title, const char *kernel)
{
	struct timing_sum ts = {0, 0, 0, NAN, NAN, 0};

	for (uint32_t r = 0; r < trex_metrics_report_count(m); r++) {
		const struct trex_report *rep = trex_metrics_report(m, r);

		for (uint32_t row = 0; rep->kind == TREX_REPORT_DEVICE_TIMING && row < rep->nrows;
		     row++) {
			if (column_of(m, r, title) &&
			    mx_names_fit(trex_metrics_report_cell(m, r, row, 0, NULL), kernel))
				timing_add(m, r, row, &ts);
		}
	}
	if (!ts.rows)
		return NAN;
	if (strcmp(title, "Calls") == 0)
		return ts.calls;
	if (strcmp(title, "Time (ns)") == 0)
		return ts.time;
	if (strcmp(title, "Time (%)") == 0)
		return ts.pct;
	if (strcmp(title, "Min (ns)") == 0)
		return ts.min;
	if (strcmp(title, "Max (ns)") == 0)
		return ts.max;
	if (strcmp(title, "Average (ns)") == 0)
		return ts.calls > 0 ? ts.time / ts.calls : NAN;
	return NAN;
}

/* The kernel properties rows with a column titled title, one after the
 * other: start with *r = *row = 0; false at the end. */
struct property_at {
	uint32_t r, row, col;
};

static bool next_property(const struct trex_metrics *m, const char *title, struct property_at *at)
{
	for (; at->r < trex_metrics_report_count(m); at->r++, at->row = 0) {
		const struct trex_report *rep = trex_metrics_report(m, at->r);

		at->col =
		    rep->kind == TREX_REPORT_KERNEL_PROPERTIES ? column_of(m, at->r, title) : 0;
		if (at->col && at->row < rep->nrows) {
			at->row++;
			return true;
		}
	}
	return false;
}

/* A kernel properties cell of the first row that fits kernel: its text
 * ("" when none) and number. */
static const char *property_value(const struct trex_metrics *m, const char *title,
                                  const char *kernel, double *number)
{
	struct property_at at = {0, 0, 0};

	*number = NAN;
	while (next_property(m, title, &at)) {
		if (mx_names_fit(trex_metrics_report_cell(m, at.r, at.row - 1, 0, NULL), kernel))
			return trex_metrics_report_cell(m, at.r, at.row - 1, at.col, number);
	}
	return "";
}

/* Is every cell of a properties column a number (else it is text)? */
static bool property_numeric(const struct trex_metrics *m, const char *title)
{
	struct property_at at = {0, 0, 0};
	double v;

	while (next_property(m, title, &at)) {
		trex_metrics_report_cell(m, at.r, at.row - 1, at.col, &v);
		if (isnan(v))
			return false;
	}
	return true;
}

/* ---- the columns
 * ---------------------------------------------------------------------------------------- */

static bool title_ends(const char *title, const char *tail)
{
	size_t n = strlen(title), k = strlen(tail);

	return n >= k && strcmp(title + n - k, tail) == 0;
}

/* "Time (ns)" -> "time_ns" after prefix. */
static void column_key(const char *prefix, const char *title, char *buf, size_t size)
{
	size_t n = (size_t)snprintf(buf, size, "%s", prefix);
	bool gap = false;

	for (const char *p = title; *p && n + 2 < size; p++) {
		char c = *p >= 'A' && *p <= 'Z' ? (char)(*p - 'A' + 'a') : *p;

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
			gap = true;
			continue;
		}
		if (gap && n > strlen(prefix))
			buf[n++] = '_';
		gap = false;
		buf[n++] = c;
	}
	buf[n] = '\0';
}

static struct trex_column column_for(const struct trex_metrics *m,
                                     const struct trex_metric_column *c, struct trex_table *t)
{
	char key[256], title[256];
	enum trex_col_type type = TREX_COL_REAL;

	if (!c->is_report) {
		trex_metrics_metric_label(m, c->metric, key, sizeof(key));
		snprintf(title, sizeof(title), "%s", key);
	} else if (c->kind == TREX_REPORT_DEVICE_TIMING) {
		column_key("timing_", c->title, key, sizeof(key));
		snprintf(title, sizeof(title), "-d %s", c->title);
		type = title_ends(c->title, "(ns)")  ? TREX_COL_DURATION
		       : title_ends(c->title, "(%)") ? TREX_COL_PERCENT
		                                     : TREX_COL_REAL;
	} else {
		column_key("", c->title, key, sizeof(key));
		snprintf(title, sizeof(title), "%s", c->title);
		type = property_numeric(m, c->title) ? TREX_COL_REAL : TREX_COL_TEXT;
	}
	return (struct trex_column){trex_table_strdup(t, key, strlen(key)),
	                            trex_table_strdup(t, title, strlen(title)), type, true};
}

/* The name every slice of ids[0..n) has, or NULL when they differ. */
static const char *one_name(const struct trex_index *idx, const uint32_t *ids, size_t n)
{
	uint32_t name = n ? trex_index_slice(idx, ids[0])->name : 0;

	for (size_t i = 1; i < n; i++) {
		if (trex_index_slice(idx, ids[i])->name != name)
			return NULL;
	}
	return n ? trex_index_str(idx, name) : NULL;
}

static bool fill_cell(const struct trex_metrics *m, const struct links *l,
                      const struct trex_metric_column *c, const struct trex_column *col,
                      const uint32_t *ids, size_t n, const char *name, union trex_cell *cell,
                      struct trex_table *t)
{
	double v = NAN;
	const char *s = "";

	if (!c->is_report)
		v = linked_mean(m, l, c->metric, ids, n);
	else if (name && c->kind == TREX_REPORT_DEVICE_TIMING)
		v = timing_value(m, c->title, name);
	else if (name)
		s = property_value(m, c->title, name, &v);
	if (col->type == TREX_COL_TEXT)
		return (cell->text = trex_table_strdup(t, s, strlen(s))) != NULL;
	cell->number = v;
	return true;
}

/* ---- the table
 * ------------------------------------------------------------------------------------------ */

/* A copy of t's columns with cols inserted at position at, in out. */
static bool joined_columns(const struct trex_metrics *m, const struct trex_table *t, size_t at,
                           const struct trex_metric_column *cols, size_t ncols,
                           struct trex_table *out)
{
	struct trex_column *oc = trex_table_init_owned(out, t->name, t->ncols + ncols);

	if (!oc)
		return false;
	for (size_t c = 0, k = 0; c < t->ncols + ncols; c++) {
		const struct trex_column *src = c >= at && c < at + ncols ? NULL : &t->cols[k++];

		oc[c] = src ? *src : column_for(m, &cols[c - at], out);
		if (src) {
			oc[c].key = trex_table_strdup(out, src->key, strlen(src->key));
			oc[c].title = trex_table_strdup(out, src->title, strlen(src->title));
		}
		if (!oc[c].key || !oc[c].title)
			return false;
	}
	if (t->note && !(out->note = trex_table_strdup(out, t->note, strlen(t->note))))
		return false;
	return true;
}

static bool joined_row(const struct trex_index *idx, const struct trex_metrics *m,
                       const struct links *l, const struct trex_table *t, size_t r,
                       const struct trex_kernel_members *mem, size_t at,
                       const struct trex_metric_column *cols, size_t ncols, struct trex_table *out)
{
	union trex_cell *row = trex_table_add_row(out);
	const uint32_t *ids = mem->ids + mem->first[r];
	size_t n = mem->first[r + 1] - mem->first[r];
	const char *name = one_name(idx, ids, n);

	if (!row)
		return false;
	for (size_t c = 0, k = 0; c < out->ncols; c++) {
		const union trex_cell *src =
		    c >= at && c < at + ncols ? NULL : trex_table_cell(t, r, k++);

		if (!src) {
			if (!fill_cell(m, l, &cols[c - at], &out->cols[c], ids, n, name, &row[c],
			               out))
				return false;
		} else if (out->cols[c].type == TREX_COL_TEXT) {
			const char *s = src->text ? src->text : "";

			if (!(row[c].text = trex_table_strdup(out, s, strlen(s))))
				return false;
		} else {
			row[c] = *src;
		}
	}
	return true;
}

enum trex_status trex_kernels_add_metrics(const struct trex_index *idx,
                                          const struct trex_metrics *m,
                                          const struct trex_kernel_members *members,
                                          const struct trex_metric_column *cols, size_t ncols,
                                          struct trex_table *t, struct trex_error *err)
{
	size_t at = trex_table_name_col(t);
	struct trex_table out;
	struct links l;
	bool ok;

	if (!ncols)
		return TREX_OK;
	if (members->nrows != t->nrows)
		return trex_error_set(err, TREX_USAGE, NULL, -1,
		                      "kernel members do not belong to the table");
	if (!links_build(m, &l))
		return nomem(err);
	ok = joined_columns(m, t, at, cols, ncols, &out);
	for (size_t r = 0; ok && r < t->nrows; r++)
		ok = joined_row(idx, m, &l, t, r, members, at, cols, ncols, &out);
	free(l.v);
	if (!ok) {
		trex_table_free(&out);
		return nomem(err);
	}
	trex_table_free(t);
	*t = out;
	return TREX_OK;
}
