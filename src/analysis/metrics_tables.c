/* The tables of `trex metrics` and the metrics view (analysis/metrics.h). */
#include "config.h"

#include "trex/analysis/metrics.h"

#include "metrics_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/table_order.h"
#include "trex/core/grow.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static enum trex_status nomem(struct trex_error *err)
{
	return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
}

/* ---- labels
 * ---------------------------------------------------------------------------------------- */

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

const char *trex_metrics_device_label(const struct trex_metrics *m, uint32_t instance, char *buf,
                                      size_t size)
{
	const struct trex_metrics_instance *in = trex_metrics_instance(m, instance);
	const char *dev = in ? trex_metrics_str(m, in->device) : "";

	if (!dev[0])
		dev = "-";
	if (in && trex_metrics_source_count(m) > 1)
		snprintf(buf, size, "%s %s",
		         base_name(trex_metrics_str(m, trex_metrics_source(m, in->source)->path)),
		         dev);
	else
		snprintf(buf, size, "%s", dev);
	return buf;
}

static const char *text(struct trex_table *t, const char *s)
{
	return trex_table_strdup(t, s, strlen(s));
}

/* ---- groups
 * ---------------------------------------------------------------------------------------- */

static bool selected(const struct trex_metrics *m, const struct trex_metrics_select *sel,
                     uint32_t i)
{
	const struct trex_metrics_instance *in = trex_metrics_instance(m, i);

	if ((in->flags & TREX_MINST_IDLE) && !sel->idle)
		return false;
	return !sel->kernel || trex_regex_match(sel->kernel, trex_metrics_str(m, in->kernel));
}

static bool same_group(const struct trex_metrics_instance *a, const struct trex_metrics_instance *b)
{
	return a->source == b->source && a->device == b->device && a->kernel == b->kernel;
}

/* Per instance, the group it opens or joins: a linear probe over a table
 * keyed by (source, device, kernel). */
struct group_map {
	uint32_t *slot; /* first instance of the group + 1, 0: empty */
	size_t *group;  /* per slot: the group's index */
	size_t mask;
};

static size_t group_hash(const struct trex_metrics_instance *in)
{
	uint64_t h = ((uint64_t)in->source * 0x9E3779B97F4A7C15ull) ^
	             ((uint64_t)in->device * 0xC2B2AE3D27D4EB4Full) ^
	             ((uint64_t)in->kernel * 0x165667B19E3779F9ull);

	return (size_t)(h ^ (h >> 29));
}

/* The group of instance i: an existing one, or *ngroups as a new one. */
static size_t group_of(const struct trex_metrics *m, struct group_map *gm, uint32_t i,
                       size_t *ngroups)
{
	const struct trex_metrics_instance *in = trex_metrics_instance(m, i);
	size_t s = group_hash(in) & gm->mask;

	while (gm->slot[s]) {
		if (same_group(trex_metrics_instance(m, gm->slot[s] - 1), in))
			return gm->group[s];
		s = (s + 1) & gm->mask;
	}
	gm->slot[s] = i + 1;
	gm->group[s] = (*ngroups)++;
	return gm->group[s];
}

/* Counting sort of the selected instances by group. */
static enum trex_status fill_groups(const struct trex_metrics *m,
                                    const struct trex_metrics_select *sel, struct group_map *gm,
                                    size_t *of, struct trex_metrics_groups *g)
{
	uint32_t n = trex_metrics_instance_count(m);
	size_t *pos;

	for (uint32_t i = 0; i < n; i++)
		of[i] = selected(m, sel, i) ? group_of(m, gm, i, &g->n) : SIZE_MAX;
	g->first = calloc(g->n + 2, sizeof(*g->first));
	g->ids = malloc((n ? n : 1) * sizeof(*g->ids));
	pos = calloc(g->n + 1, sizeof(*pos));
	if (!g->first || !g->ids || !pos) {
		free(pos);
		return TREX_NOMEM;
	}
	for (uint32_t i = 0; i < n; i++)
		g->first[of[i] == SIZE_MAX ? g->n + 1 : of[i] + 1] += of[i] != SIZE_MAX;
	for (size_t i = 0; i < g->n; i++)
		g->first[i + 1] += g->first[i];
	memcpy(pos, g->first, (g->n + 1) * sizeof(*pos));
	for (uint32_t i = 0; i < n; i++) {
		if (of[i] != SIZE_MAX)
			g->ids[pos[of[i]]++] = i;
	}
	free(pos);
	return TREX_OK;
}

enum trex_status trex_metrics_group(const struct trex_metrics *m,
                                    const struct trex_metrics_select *sel,
                                    struct trex_metrics_groups *out, struct trex_error *err)
{
	uint32_t n = trex_metrics_instance_count(m);
	size_t cap = 16;
	struct group_map gm = {0};
	size_t *of = malloc((n ? n : 1) * sizeof(*of));
	enum trex_status s;

	memset(out, 0, sizeof(*out));
	while (cap < 2 * (size_t)n)
		cap *= 2;
	gm.slot = calloc(cap, sizeof(*gm.slot));
	gm.group = calloc(cap, sizeof(*gm.group));
	gm.mask = cap - 1;
	s = of && gm.slot && gm.group ? fill_groups(m, sel, &gm, of, out) : TREX_NOMEM;
	free(of);
	free(gm.slot);
	free(gm.group);
	if (s != TREX_OK) {
		trex_metrics_groups_free(out);
		return nomem(err);
	}
	return TREX_OK;
}

void trex_metrics_groups_free(struct trex_metrics_groups *g)
{
	free(g->ids);
	free(g->first);
	memset(g, 0, sizeof(*g));
}

/* [lo, hi) of the groups a table covers. */
static void group_span(const struct trex_metrics_groups *g, size_t group, size_t *lo, size_t *hi)
{
	*lo = group == TREX_METRICS_ALL ? 0 : group;
	*hi = group == TREX_METRICS_ALL ? g->n : group < g->n ? group + 1 : group;
}

/* ---- the metrics a table shows
 * ---------------------------------------------------------------------- */

/* The chosen metrics, or every metric of the covered instances' layouts
 * (in the order they first come): *out malloc'd. */
static enum trex_status shown_metrics(const struct trex_metrics *m,
                                      const struct trex_metrics_select *sel,
                                      const struct trex_metrics_groups *g, size_t group,
                                      uint32_t **out, size_t *n)
{
	uint32_t nm = trex_metrics_metric_count(m);
	bool *seen;
	size_t lo, hi;

	*n = 0;
	*out = malloc((sel->nmetrics > nm ? sel->nmetrics : nm ? nm : 1) * sizeof(**out));
	if (!*out)
		return TREX_NOMEM;
	if (sel->metrics) {
		memcpy(*out, sel->metrics, sel->nmetrics * sizeof(**out));
		*n = sel->nmetrics;
		return TREX_OK;
	}
	if (!(seen = calloc(nm ? nm : 1, sizeof(*seen))))
		return TREX_NOMEM;
	group_span(g, group, &lo, &hi);
	for (size_t k = g->n ? g->first[lo] : 0; k < (g->n ? g->first[hi] : 0); k++) {
		uint32_t layout = trex_metrics_instance(m, g->ids[k])->layout;
		const uint32_t *ids = trex_metrics_layout_metrics(m, layout);

		for (uint32_t i = 0; i < trex_metrics_layout_width(m, layout); i++) {
			if (!seen[ids[i]]) {
				seen[ids[i]] = true;
				(*out)[(*n)++] = ids[i];
			}
		}
	}
	free(seen);
	return TREX_OK;
}

/* Owned columns: head[0..nh), one REAL column per metric (key and title its
 * label), tail[0..nt). */
static bool metric_columns(struct trex_table *t, const char *name, const struct trex_metrics *m,
                           const uint32_t *metrics, size_t nm, const struct trex_column *head,
                           size_t nh, const struct trex_column *tail, size_t nt)
{
	struct trex_column *cols = trex_table_init_owned(t, name, nh + nm + nt);
	char label[512];

	if (!cols)
		return false;
	memcpy(cols, head, nh * sizeof(*head));
	for (size_t i = 0; i < nm; i++) {
		const char *s =
		    text(t, trex_metrics_metric_label(m, metrics[i], label, sizeof(label)));

		if (!s)
			return false;
		cols[nh + i] = (struct trex_column){s, s, TREX_COL_REAL, true};
	}
	memcpy(cols + nh + nm, tail, nt * sizeof(*tail));
	return true;
}

/* ---- sources, devices, metrics
 * -------------------------------------------------------------------- */

static const struct trex_column source_cols[] = {
    {"format", "Format", TREX_COL_TEXT, false},
    {"bytes", "Bytes", TREX_COL_COUNT, true},
    {"lines", "Lines", TREX_COL_COUNT, true},
    {"unread_lines", "Unread", TREX_COL_COUNT, true},
    {"instances", "Instances", TREX_COL_COUNT, true},
    {"reports", "Reports", TREX_COL_COUNT, true},
    {"problems", "Problems", TREX_COL_COUNT, true},
    {"path", "File", TREX_COL_TEXT, false},
};

enum trex_status trex_metrics_sources_table(const struct trex_metrics *m, struct trex_table *t,
                                            struct trex_error *err)
{
	uint32_t ns = trex_metrics_source_count(m);

	trex_table_init(t, "metrics_sources", source_cols, ARRAY_LEN(source_cols));
	for (uint32_t s = 0; s < ns; s++) {
		const struct trex_metrics_source *src = trex_metrics_source(m, s);
		union trex_cell *row = trex_table_add_row(t);
		int64_t inst = 0, reps = 0;

		if (!row)
			return trex_table_free(t), nomem(err);
		for (uint32_t i = 0; i < trex_metrics_instance_count(m); i++)
			inst += trex_metrics_instance(m, i)->source == s;
		for (uint32_t r = 0; r < trex_metrics_report_count(m); r++)
			reps += trex_metrics_report(m, r)->source == s;
		row[0].text = text(t, trex_metrics_str(m, src->format));
		row[1].count = (int64_t)src->bytes;
		row[2].count = (int64_t)src->lines;
		row[3].count = (int64_t)src->unread;
		row[4].count = inst;
		row[5].count = reps;
		row[6].count = (int64_t)src->problems;
		row[7].text = text(t, trex_metrics_str(m, src->path));
		if (!row[0].text || !row[7].text)
			return trex_table_free(t), nomem(err);
	}
	return TREX_OK;
}

static const struct trex_column device_cols[] = {
    {"kernels", "Kernels", TREX_COL_COUNT, true},
    {"instances", "Instances", TREX_COL_COUNT, true},
    {"samples", "Samples", TREX_COL_COUNT, true},
    {"device", "Device", TREX_COL_TEXT, false},
};

/* A device row: the first instance of each (source, device), counting its
 * instances, samples and kernels (groups). */
static enum trex_status device_row(const struct trex_metrics *m,
                                   const struct trex_metrics_groups *g, uint32_t first,
                                   struct trex_table *t)
{
	const struct trex_metrics_instance *f = trex_metrics_instance(m, first);
	union trex_cell *row = trex_table_add_row(t);
	char label[512];

	if (!row)
		return TREX_NOMEM;
	for (size_t k = 0; k < g->n; k++) {
		const struct trex_metrics_instance *in =
		    trex_metrics_instance(m, g->ids[g->first[k]]);

		if (in->source != f->source || in->device != f->device)
			continue;
		row[0].count++;
		for (size_t j = g->first[k]; j < g->first[k + 1]; j++) {
			row[1].count++;
			row[2].count += trex_metrics_instance(m, g->ids[j])->samples;
		}
	}
	row[3].text = text(t, trex_metrics_device_label(m, first, label, sizeof(label)));
	return row[3].text ? TREX_OK : TREX_NOMEM;
}

enum trex_status trex_metrics_devices_table(const struct trex_metrics *m, struct trex_table *t,
                                            struct trex_error *err)
{
	struct trex_metrics_select all = {.idle = true};
	struct trex_metrics_groups g;
	enum trex_status s = trex_metrics_group(m, &all, &g, err);

	trex_table_init(t, "metrics_devices", device_cols, ARRAY_LEN(device_cols));
	for (size_t k = 0; s == TREX_OK && k < g.n; k++) {
		const struct trex_metrics_instance *in =
		    trex_metrics_instance(m, g.ids[g.first[k]]);
		bool seen = false;

		for (size_t j = 0; j < k && !seen; j++) {
			const struct trex_metrics_instance *o =
			    trex_metrics_instance(m, g.ids[g.first[j]]);

			seen = o->source == in->source && o->device == in->device;
		}
		if (!seen && device_row(m, &g, g.ids[g.first[k]], t) != TREX_OK)
			s = nomem(err);
	}
	trex_metrics_groups_free(&g);
	if (s != TREX_OK)
		trex_table_free(t);
	return s;
}

static const struct trex_column list_cols[] = {
    {"unit", "Unit", TREX_COL_TEXT, false},
    {"combine", "Samples make", TREX_COL_TEXT, false},
    {"instances", "Instances", TREX_COL_COUNT, true},
    {"samples", "Samples", TREX_COL_COUNT, true},
    {"metric", "Metric", TREX_COL_TEXT, false},
};

static const char *agg_name(enum trex_metric_agg agg)
{
	return agg == TREX_METRIC_SUM ? "sum" : agg == TREX_METRIC_MEAN ? "mean" : "first";
}

/* Instances with a value of metric, and samples with one. */
static void metric_counts(const struct trex_metrics *m, uint32_t metric, int64_t *inst,
                          int64_t *samples)
{
	const double *v = trex_metrics_values(m);

	*inst = *samples = 0;
	for (uint32_t i = 0; i < trex_metrics_instance_count(m); i++) {
		const struct trex_metrics_instance *in = trex_metrics_instance(m, i);
		int64_t pos = trex_metrics_layout_pos(m, in->layout, metric);
		uint32_t w = trex_metrics_layout_width(m, in->layout);
		int64_t before = *samples;

		for (uint32_t r = 0; pos >= 0 && r < in->samples; r++)
			*samples += !isnan(v[in->first + (uint64_t)r * w + (uint64_t)pos]);
		*inst += *samples > before;
	}
}

enum trex_status trex_metrics_list_table(const struct trex_metrics *m, struct trex_table *t,
                                         struct trex_error *err)
{
	char label[512];

	trex_table_init(t, "metrics", list_cols, ARRAY_LEN(list_cols));
	for (uint32_t i = 0; i < trex_metrics_metric_count(m); i++) {
		const struct trex_metric *mt = trex_metrics_metric_get(m, i);
		union trex_cell *row = trex_table_add_row(t);

		if (!row)
			return trex_table_free(t), nomem(err);
		row[0].text = text(t, trex_metrics_str(m, mt->unit));
		row[1].text = agg_name((enum trex_metric_agg)mt->agg);
		metric_counts(m, i, &row[2].count, &row[3].count);
		row[4].text = text(t, trex_metrics_metric_label(m, i, label, sizeof(label)));
		if (!row[0].text || !row[4].text)
			return trex_table_free(t), nomem(err);
	}
	return TREX_OK;
}

/* ---- kernels and instances
 * -------------------------------------------------------------------------- */

static bool linked(const struct trex_metrics_instance *in)
{
	return in->link == TREX_MLINK_ID || in->link == TREX_MLINK_ORDER ||
	       in->link == TREX_MLINK_IN_TRACE;
}

/* The mean of metric over instances ids[0..n) that have a value; NAN: none. */
static double mean_value(const struct trex_metrics *m, uint32_t metric, const uint32_t *ids,
                         size_t n)
{
	double sum = 0, v;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (trex_metrics_instance_value(m, ids[i], metric, &v)) {
			sum += v;
			k++;
		}
	}
	return k ? sum / (double)k : NAN;
}

static const struct trex_column kernel_head[] = {
    {"device", "Device", TREX_COL_TEXT, false},
    {"instances", "Instances", TREX_COL_COUNT, true},
    {"matched", "Matched", TREX_COL_COUNT, true},
    {"samples", "Samples", TREX_COL_COUNT, true},
    {"trace_total_ns", "Trace total", TREX_COL_DURATION, true},
};
static const struct trex_column kernel_tail[] = {{"kernel", "Kernel", TREX_COL_TEXT, false}};

static bool kernel_row(const struct trex_metrics *m, const struct trex_index *idx,
                       const struct trex_metrics_groups *g, size_t k, const uint32_t *metrics,
                       size_t nm, struct trex_table *t)
{
	union trex_cell *row = trex_table_add_row(t);
	const uint32_t *ids = g->ids + g->first[k];
	size_t n = g->first[k + 1] - g->first[k], nh = ARRAY_LEN(kernel_head);
	char label[512];
	double total = 0;
	bool any = false;

	if (!row)
		return false;
	row[0].text = text(t, trex_metrics_device_label(m, ids[0], label, sizeof(label)));
	row[1].count = (int64_t)n;
	for (size_t i = 0; i < n; i++) {
		const struct trex_metrics_instance *in = trex_metrics_instance(m, ids[i]);

		row[2].count += linked(in);
		row[3].count += in->samples;
		if (idx && in->slice < trex_index_slice_count(idx)) {
			total += (double)trex_index_slice(idx, in->slice)->dur;
			any = true;
		}
	}
	row[4].number = any ? total : NAN;
	for (size_t j = 0; j < nm; j++)
		row[nh + j].number = mean_value(m, metrics[j], ids, n);
	row[nh + nm].text = text(t, trex_metrics_str(m, trex_metrics_instance(m, ids[0])->kernel));
	return row[0].text && row[nh + nm].text;
}

enum trex_status trex_metrics_kernels_table(const struct trex_metrics *m,
                                            const struct trex_index *idx,
                                            const struct trex_metrics_select *sel,
                                            const struct trex_metrics_groups *g,
                                            struct trex_table *t, struct trex_error *err)
{
	uint32_t *metrics;
	size_t nm;

	trex_table_init(t, "metrics_kernels", NULL, 0);
	if (shown_metrics(m, sel, g, TREX_METRICS_ALL, &metrics, &nm) != TREX_OK)
		return free(metrics), nomem(err);
	if (!metric_columns(t, "metrics_kernels", m, metrics, nm, kernel_head,
	                    ARRAY_LEN(kernel_head), kernel_tail, ARRAY_LEN(kernel_tail))) {
		free(metrics);
		trex_table_free(t);
		return nomem(err);
	}
	for (size_t k = 0; k < g->n; k++) {
		if (!kernel_row(m, idx, g, k, metrics, nm, t)) {
			free(metrics);
			trex_table_free(t);
			return nomem(err);
		}
	}
	if (!g->n)
		t->note = "no metric instances (of the kernels asked for)";
	free(metrics);
	return TREX_OK;
}

static const struct trex_column inst_head[] = {
    {"device", "Device", TREX_COL_TEXT, false},
    {"n", "#", TREX_COL_COUNT, false},
    {"id", "Id", TREX_COL_REAL, false},
    {"samples", "Samples", TREX_COL_COUNT, true},
    {"match", "Match", TREX_COL_TEXT, false},
    {"start_ns", "Start", TREX_COL_DURATION, false},
    {"dur_ns", "Duration", TREX_COL_DURATION, true},
};

static bool instance_row(const struct trex_metrics *m, const struct trex_index *idx, uint32_t id,
                         size_t ordinal, const uint32_t *metrics, size_t nm, struct trex_table *t)
{
	const struct trex_metrics_instance *in = trex_metrics_instance(m, id);
	union trex_cell *row = trex_table_add_row(t);
	size_t nh = ARRAY_LEN(inst_head);
	bool in_trace = idx && in->slice < trex_index_slice_count(idx);
	char label[512];

	if (!row)
		return false;
	row[0].text = text(t, trex_metrics_device_label(m, id, label, sizeof(label)));
	row[1].count = (int64_t)ordinal + 1;
	row[2].number = in->flags & TREX_MINST_HAS_ID ? (double)in->id : NAN;
	row[3].count = in->samples;
	row[4].text = trex_metrics_link_name((enum trex_metrics_link)in->link);
	row[5].number =
	    in_trace ? (double)(trex_index_slice(idx, in->slice)->ts - trex_index_start(idx)) : NAN;
	row[6].number = in_trace ? (double)trex_index_slice(idx, in->slice)->dur : NAN;
	for (size_t j = 0; j < nm; j++)
		trex_metrics_instance_value(m, id, metrics[j], &row[nh + j].number);
	if (t->ncols == nh + nm) /* without the kernel column */
		return row[0].text != NULL;
	row[nh + nm].text = text(t, trex_metrics_str(m, in->kernel));
	return row[0].text && row[nh + nm].text;
}

enum trex_status trex_metrics_instances_table(const struct trex_metrics *m,
                                              const struct trex_index *idx,
                                              const struct trex_metrics_select *sel,
                                              const struct trex_metrics_groups *g, size_t group,
                                              struct trex_table *t, struct trex_error *err)
{
	uint32_t *metrics;
	size_t nm, lo, hi;
	bool ok;

	trex_table_init(t, "metrics_instances", NULL, 0);
	if (shown_metrics(m, sel, g, group, &metrics, &nm) != TREX_OK)
		return free(metrics), nomem(err);
	ok = metric_columns(t, "metrics_instances", m, metrics, nm, inst_head, ARRAY_LEN(inst_head),
	                    kernel_tail, sel->no_kernel ? 0 : ARRAY_LEN(kernel_tail));
	group_span(g, group, &lo, &hi);
	for (size_t k = lo; ok && k < hi; k++) {
		for (size_t j = g->first[k]; ok && j < g->first[k + 1]; j++)
			ok = instance_row(m, idx, g->ids[j], j - g->first[k], metrics, nm, t);
	}
	free(metrics);
	if (!ok) {
		trex_table_free(t);
		return nomem(err);
	}
	if (!t->nrows)
		t->note = "no metric instances (of the kernels asked for)";
	return TREX_OK;
}

/* ---- summaries and trends
 * ------------------------------------------------------------------------------ */

void trex_metrics_trend(const struct trex_metrics *m, uint32_t metric, const uint32_t *ids,
                        size_t n, double *points, size_t npoints)
{
	for (size_t p = 0; p < npoints; p++) {
		/* point p covers instances [p * n / npoints, (p + 1) * n / npoints), at least one
		 */
		size_t lo = p * n / npoints, hi = (p + 1) * n / npoints;

		if (hi == lo && lo < n)
			hi = lo + 1;
		points[p] = lo < n ? mean_value(m, metric, ids + lo, hi - lo) : NAN;
	}
}

/* The eighth block (1..8) of v between lo and hi: 4 when all are equal;
 * infinite values at the ends, never a conversion of NaN. */
static int trend_level(double v, double lo, double hi)
{
	double f;

	if (!(hi > lo))
		return 4;
	if (v >= hi)
		return 8;
	f = (v - lo) / (hi - lo);
	return 1 + (int)((f > 0 ? f : 0) * 7.999);
}

/* The trend as eighth blocks (U+2581..U+2588) between its min and max; a
 * blank where a point has no value. */
static void trend_text(const double *pts, size_t n, char *buf, size_t size)
{
	double lo = INFINITY, hi = -INFINITY;
	size_t used = 0;

	for (size_t i = 0; i < n; i++) {
		if (!isnan(pts[i])) {
			lo = pts[i] < lo ? pts[i] : lo;
			hi = pts[i] > hi ? pts[i] : hi;
		}
	}
	for (size_t i = 0; i < n && used + 4 < size; i++) {
		if (isnan(pts[i])) {
			buf[used++] = ' ';
			continue;
		}
		buf[used++] = '\xe2';
		buf[used++] = '\x96';
		buf[used++] = (char)(0x80 + trend_level(pts[i], lo, hi));
	}
	buf[used] = '\0';
}

static const struct trex_column summary_cols[] = {
    {"device", "Device", TREX_COL_TEXT, false},
    {"unit", "Unit", TREX_COL_TEXT, false},
    {"instances", "Instances", TREX_COL_COUNT, true},
    {"min", "Min", TREX_COL_REAL, true},
    {"avg", "Avg", TREX_COL_REAL, true},
    {"max", "Max", TREX_COL_REAL, true},
    {"trend", "Trend", TREX_COL_TEXT, false},
    {"metric", "Metric", TREX_COL_TEXT, false},
    {"kernel", "Kernel", TREX_COL_TEXT, false},
};

static bool summary_row(const struct trex_metrics *m, const uint32_t *ids, size_t n,
                        uint32_t metric, struct trex_table *t)
{
	union trex_cell *row = trex_table_add_row(t);
	double pts[TREX_METRICS_TREND], sum = 0, v;
	char label[512], trend[TREX_METRICS_TREND * 3 + 1];
	size_t npts =
	    n < TREX_METRICS_TREND ? n : TREX_METRICS_TREND; /* one per instance at most */

	if (!row)
		return false;
	row[3].number = INFINITY;
	row[5].number = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		if (!trex_metrics_instance_value(m, ids[i], metric, &v))
			continue;
		row[2].count++;
		sum += v;
		row[3].number = v < row[3].number ? v : row[3].number;
		row[5].number = v > row[5].number ? v : row[5].number;
	}
	row[4].number = row[2].count ? sum / (double)row[2].count : NAN;
	if (!row[2].count)
		row[3].number = row[5].number = NAN;
	trex_metrics_trend(m, metric, ids, n, pts, npts);
	trend_text(pts, npts, trend, sizeof(trend));
	row[0].text = text(t, trex_metrics_device_label(m, ids[0], label, sizeof(label)));
	row[1].text = text(t, trex_metrics_str(m, trex_metrics_metric_get(m, metric)->unit));
	row[6].text = text(t, trend);
	row[7].text = text(t, trex_metrics_metric_label(m, metric, label, sizeof(label)));
	row[8].text = text(t, trex_metrics_str(m, trex_metrics_instance(m, ids[0])->kernel));
	return row[0].text && row[1].text && row[6].text && row[7].text && row[8].text;
}

enum trex_status trex_metrics_summary_table(const struct trex_metrics *m,
                                            const struct trex_metrics_select *sel,
                                            const struct trex_metrics_groups *g, size_t group,
                                            struct trex_table *t, struct trex_error *err)
{
	size_t lo, hi;
	bool ok = true;

	trex_table_init(t, "metrics_summary", summary_cols, ARRAY_LEN(summary_cols));
	group_span(g, group, &lo, &hi);
	for (size_t k = lo; ok && k < hi; k++) {
		const struct trex_metrics_groups one = {g->ids, g->first, g->n};
		uint32_t *metrics;
		size_t nm;

		if (shown_metrics(m, sel, &one, k, &metrics, &nm) != TREX_OK) {
			free(metrics);
			ok = false;
			break;
		}
		for (size_t j = 0; ok && j < nm; j++)
			ok = summary_row(m, g->ids + g->first[k], g->first[k + 1] - g->first[k],
			                 metrics[j], t);
		free(metrics);
	}
	if (!ok) {
		trex_table_free(t);
		return nomem(err);
	}
	if (!t->nrows)
		t->note = "no metric instances (of the kernels asked for)";
	return TREX_OK;
}

/* ---- what did not match
 * -------------------------------------------------------------------------------- */

static const struct trex_column unmatched_cols[] = {
    {"line", "Line", TREX_COL_COUNT, false},    {"device", "Device", TREX_COL_TEXT, false},
    {"id", "Id", TREX_COL_REAL, false},         {"why", "Why", TREX_COL_TEXT, false},
    {"kernel", "Kernel", TREX_COL_TEXT, false},
};

static bool unmatched_instance(const struct trex_metrics_instance *in)
{
	return !linked(in) && in->link != TREX_MLINK_IDLE && in->link != TREX_MLINK_NONE;
}

static bool unmatched_row(struct trex_table *t, int64_t line, const char *device, double id,
                          const char *why, const char *kernel)
{
	union trex_cell *row = trex_table_add_row(t);

	if (!row)
		return false;
	row[0].count = line;
	row[1].text = text(t, device);
	row[2].number = id;
	row[3].text = why;
	row[4].text = text(t, kernel);
	return row[1].text && row[4].text;
}

/* Device timing and kernel properties rows whose kernel the trace lacks
 * (their report's first line, no device, no id). */
static bool unmatched_reports(const struct trex_metrics *m, const struct trex_index *idx,
                              struct trex_table *t, struct trex_error *err)
{
	uint32_t *names;
	size_t n;
	enum trex_status s = mx_trace_names(idx, &names, &n, err);

	for (uint32_t r = 0; s == TREX_OK && r < trex_metrics_report_count(m); r++) {
		const struct trex_report *rep = trex_metrics_report(m, r);

		for (uint32_t row = 0; s == TREX_OK && trex_report_joins(rep) && row < rep->nrows;
		     row++) {
			const char *kernel = trex_metrics_report_cell(m, r, row, 0, NULL);

			if (!mx_fits_any(idx, names, n, kernel) &&
			    !unmatched_row(t, rep->line, "-", NAN, "report row: no such kernel",
			                   kernel))
				s = nomem(err);
		}
	}
	free(names);
	return s == TREX_OK;
}

enum trex_status trex_metrics_unmatched_table(const struct trex_metrics *m,
                                              const struct trex_index *idx, struct trex_table *t,
                                              struct trex_error *err)
{
	char label[512];
	bool ok = true;

	trex_table_init(t, "metrics_unmatched", unmatched_cols, ARRAY_LEN(unmatched_cols));
	for (uint32_t i = 0; ok && i < trex_metrics_instance_count(m); i++) {
		const struct trex_metrics_instance *in = trex_metrics_instance(m, i);

		if (unmatched_instance(in))
			ok = unmatched_row(t, in->line,
			                   trex_metrics_device_label(m, i, label, sizeof(label)),
			                   in->flags & TREX_MINST_HAS_ID ? (double)in->id : NAN,
			                   trex_metrics_link_name((enum trex_metrics_link)in->link),
			                   trex_metrics_str(m, in->kernel));
	}
	if (!ok) {
		trex_table_free(t);
		return nomem(err);
	}
	if (idx && !unmatched_reports(m, idx, t, err)) {
		trex_table_free(t);
		return err->status;
	}
	if (!t->nrows)
		t->note = idx ? "every metric instance and report row matched the trace"
		              : "no trace to match against";
	return TREX_OK;
}

/* ---- reports
 * -------------------------------------------------------------------------------------------- */

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);

	return n >= k && strcmp(s + n - k, tail) == 0;
}

/* A report column's type: text unless every cell is a number; then "(ns)"
 * durations, "(%)" percents, whole numbers counts, else reals. */
static enum trex_col_type report_col_type(const struct trex_metrics *m, uint32_t report,
                                          uint32_t col)
{
	const struct trex_report *r = trex_metrics_report(m, report);
	const char *title = trex_metrics_report_cell(m, report, -1, col, NULL);
	bool whole = true;

	for (uint32_t row = 0; row < r->nrows; row++) {
		double v;

		trex_metrics_report_cell(m, report, row, col, &v);
		if (isnan(v))
			return TREX_COL_TEXT;
		whole &= v == floor(v) && fabs(v) < 9e15;
	}
	if (ends_with(title, "(ns)"))
		return TREX_COL_DURATION;
	if (ends_with(title, "(%)"))
		return TREX_COL_PERCENT;
	return whole ? TREX_COL_COUNT : TREX_COL_REAL;
}

/* "Time (ns)" -> "time_ns": lower case, other characters than letters and
 * digits one '_'. */
static void report_key(const char *title, char *buf, size_t size)
{
	size_t n = 0;
	bool gap = false;

	for (const char *p = title; *p && n + 2 < size; p++) {
		bool word = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		            (*p >= '0' && *p <= '9');

		if (!word) {
			gap = n > 0;
			continue;
		}
		if (gap)
			buf[n++] = '_';
		gap = false;
		buf[n++] = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
	}
	buf[n] = '\0';
}

static bool report_cols(const struct trex_metrics *m, uint32_t report, struct trex_table *t)
{
	const struct trex_report *r = trex_metrics_report(m, report);
	struct trex_column *cols = trex_table_init_owned(t, "report", r->ncols);
	char key[256];

	if (!cols)
		return false;
	for (uint32_t c = 0; c < r->ncols; c++) {
		uint32_t src = (c + 1) % r->ncols; /* the name column goes last */
		const char *title = trex_metrics_report_cell(m, report, -1, src, NULL);

		report_key(title, key, sizeof(key));
		cols[c] = (struct trex_column){
		    text(t, key[0] ? key : "name"), text(t, title),
		    src ? report_col_type(m, report, src) : TREX_COL_TEXT, src != 0};
		if (!cols[c].key || !cols[c].title)
			return false;
	}
	return true;
}

enum trex_status trex_metrics_report_table(const struct trex_metrics *m, uint32_t report,
                                           struct trex_table *t, struct trex_error *err)
{
	const struct trex_report *r = trex_metrics_report(m, report);

	trex_table_init(t, "report", NULL, 0);
	if (!r || !report_cols(m, report, t))
		return trex_table_free(t), nomem(err);
	for (uint32_t row = 0; row < r->nrows; row++) {
		union trex_cell *cells = trex_table_add_row(t);

		for (uint32_t c = 0; cells && c < r->ncols; c++) {
			uint32_t src = (c + 1) % r->ncols;
			double v;
			const char *s = trex_metrics_report_cell(m, report, row, src, &v);

			if (t->cols[c].type == TREX_COL_TEXT)
				cells[c].text = text(t, s);
			else if (t->cols[c].type == TREX_COL_COUNT)
				cells[c].count = (int64_t)v;
			else
				cells[c].number = v;
			if (t->cols[c].type == TREX_COL_TEXT && !cells[c].text)
				cells = NULL;
		}
		if (!cells)
			return trex_table_free(t), nomem(err);
	}
	return TREX_OK;
}
