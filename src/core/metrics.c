#include "config.h"

#include "trex/core/metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/core/grow.h"
#include "trex/core/strtab.h"

/* Everything lives in growable arrays addressed by 32-bit ids (64-bit for
 * values: a 1 GB CSV holds ~100 M of them). A layout is a run of metric ids
 * in one pool; a report's column titles and cells are runs of cells in
 * another, row after row. */

struct layout {
	uint64_t first; /* in layout_ids */
	uint32_t n;
};

struct cell {
	uint32_t text;
	double number;
};

struct report_rec {
	struct trex_report pub;
	uint64_t first_cell; /* titles, then rows, ncols cells each */
};

struct trex_metrics {
	struct trex_strtab *strings;
	struct trex_metrics_source *sources;
	size_t nsources, sources_cap;
	struct trex_metric *metrics;
	size_t nmetrics, metrics_cap;
	struct layout *layouts;
	size_t nlayouts, layouts_cap;
	uint32_t *layout_ids;
	size_t nlayout_ids, layout_ids_cap;
	struct trex_metrics_instance *instances;
	size_t ninstances, instances_cap;
	double *values;
	size_t nvalues, values_cap;
	struct report_rec *reports;
	size_t nreports, reports_cap;
	struct cell *cells;
	size_t ncells, cells_cap;
};

static const char *const report_kind_names[] = {
#define TREX_REPORT_KIND_NAME(id, name) name,
    TREX_REPORT_KIND_INFO(TREX_REPORT_KIND_NAME)
#undef TREX_REPORT_KIND_NAME
};

const char *trex_report_kind_name(enum trex_report_kind kind)
{
	return (unsigned)kind < TREX_REPORT_KIND_COUNT ? report_kind_names[kind] : "";
}

/* ---- building ------------------------------------------------------------------------------ */

struct trex_metrics *trex_metrics_new(void)
{
	struct trex_metrics *m = calloc(1, sizeof(*m));

	if (m && !(m->strings = trex_strtab_new())) {
		free(m);
		return NULL;
	}
	return m;
}

void trex_metrics_free(struct trex_metrics *m)
{
	if (!m)
		return;
	trex_strtab_free(m->strings);
	free(m->sources);
	free(m->metrics);
	free(m->layouts);
	free(m->layout_ids);
	free(m->instances);
	free(m->values);
	free(m->reports);
	free(m->cells);
	free(m);
}

uint32_t trex_metrics_intern(struct trex_metrics *m, const char *s, size_t len)
{
	uint32_t id = trex_strtab_intern(m->strings, s ? s : "", s ? len : 0);

	return id == TREX_STR_ERROR ? TREX_METRICS_NONE : id;
}

/* Room for one more element of array *v (count n, capacity *cap). */
#define GROW_ONE(v, n, cap) grow_to((void **)&(v), &(cap), (n) + 1, sizeof(*(v)))

static bool grow_to(void **v, size_t *cap, size_t need, size_t elem)
{
	void *p = trex_grow(*v, cap, need, elem, 16);

	if (!p)
		return false;
	*v = p;
	return true;
}

uint32_t trex_metrics_add_source(struct trex_metrics *m, const char *path, const char *format)
{
	struct trex_metrics_source *s;
	uint32_t p = trex_metrics_intern(m, path, path ? strlen(path) : 0);
	uint32_t f = trex_metrics_intern(m, format, format ? strlen(format) : 0);

	if (p == TREX_METRICS_NONE || f == TREX_METRICS_NONE || m->nsources >= UINT32_MAX - 1 ||
	    !GROW_ONE(m->sources, m->nsources, m->sources_cap))
		return TREX_METRICS_NONE;
	s = &m->sources[m->nsources];
	memset(s, 0, sizeof(*s));
	s->path = p;
	s->format = f;
	return (uint32_t)m->nsources++;
}

void trex_metrics_source_bytes(struct trex_metrics *m, uint32_t source, uint64_t bytes)
{
	if (source < m->nsources)
		m->sources[source].bytes = bytes;
}

void trex_metrics_source_lines(struct trex_metrics *m, uint32_t source, uint64_t lines,
                               uint64_t unread)
{
	if (source < m->nsources) {
		m->sources[source].lines = lines;
		m->sources[source].unread = unread;
	}
}

void trex_metrics_problem(struct trex_metrics *m, uint32_t source, const struct trex_error *e)
{
	struct trex_metrics_source *s;

	if (source >= m->nsources)
		return;
	s = &m->sources[source];
	s->problems++;
	if (s->kept < TREX_METRICS_PROBLEMS)
		s->problem[s->kept++] = *e;
}

uint32_t trex_metrics_metric(struct trex_metrics *m, const char *name, size_t name_len,
                             const char *unit, size_t unit_len, enum trex_metric_agg agg)
{
	uint32_t n = trex_metrics_intern(m, name, name_len);
	uint32_t u = trex_metrics_intern(m, unit, unit_len);

	if (n == TREX_METRICS_NONE || u == TREX_METRICS_NONE)
		return TREX_METRICS_NONE;
	for (size_t i = 0; i < m->nmetrics; i++) {
		if (m->metrics[i].name == n && m->metrics[i].unit == u)
			return (uint32_t)i;
	}
	if (m->nmetrics >= UINT32_MAX - 1 || !GROW_ONE(m->metrics, m->nmetrics, m->metrics_cap))
		return TREX_METRICS_NONE;
	m->metrics[m->nmetrics] = (struct trex_metric){n, u, (uint8_t)agg};
	return (uint32_t)m->nmetrics++;
}

static bool layout_is(const struct trex_metrics *m, size_t l, const uint32_t *ids, uint32_t n)
{
	return m->layouts[l].n == n &&
	       memcmp(m->layout_ids + m->layouts[l].first, ids, n * sizeof(*ids)) == 0;
}

uint32_t trex_metrics_layout(struct trex_metrics *m, const uint32_t *metrics, uint32_t n)
{
	if (!n)
		return TREX_METRICS_NONE;
	/* newest first: a file repeats its last header */
	for (size_t l = m->nlayouts; l-- > 0;) {
		if (layout_is(m, l, metrics, n))
			return (uint32_t)l;
	}
	if (m->nlayouts >= UINT32_MAX - 1 || !GROW_ONE(m->layouts, m->nlayouts, m->layouts_cap) ||
	    !grow_to((void **)&m->layout_ids, &m->layout_ids_cap, m->nlayout_ids + n,
	             sizeof(*m->layout_ids)))
		return TREX_METRICS_NONE;
	memcpy(m->layout_ids + m->nlayout_ids, metrics, n * sizeof(*metrics));
	m->layouts[m->nlayouts] = (struct layout){m->nlayout_ids, n};
	m->nlayout_ids += n;
	return (uint32_t)m->nlayouts++;
}

uint32_t trex_metrics_instance_begin(struct trex_metrics *m,
                                     const struct trex_metrics_instance_spec *spec)
{
	uint32_t dev = trex_metrics_intern(m, spec->device, spec->device_len);
	uint32_t ker = trex_metrics_intern(m, spec->kernel, spec->kernel_len);

	if (spec->layout >= m->nlayouts || dev == TREX_METRICS_NONE || ker == TREX_METRICS_NONE ||
	    m->ninstances >= UINT32_MAX - 1 ||
	    !GROW_ONE(m->instances, m->ninstances, m->instances_cap))
		return TREX_METRICS_NONE;
	m->instances[m->ninstances] = (struct trex_metrics_instance){
	    .source = spec->source,
	    .device = dev,
	    .kernel = ker,
	    .layout = spec->layout,
	    .id = spec->id,
	    .first = m->nvalues,
	    .flags = spec->flags,
	    .slice = TREX_METRICS_NONE,
	    .link = TREX_MLINK_NONE,
	    .offset = spec->offset,
	    .line = spec->line,
	};
	return (uint32_t)m->ninstances++;
}

double *trex_metrics_sample(struct trex_metrics *m)
{
	struct trex_metrics_instance *in;
	uint32_t w;
	double *row;

	if (!m->ninstances)
		return NULL;
	in = &m->instances[m->ninstances - 1];
	w = m->layouts[in->layout].n;
	if (in->samples == UINT32_MAX ||
	    !grow_to((void **)&m->values, &m->values_cap, m->nvalues + w, sizeof(*m->values)))
		return NULL;
	row = m->values + m->nvalues;
	for (uint32_t i = 0; i < w; i++)
		row[i] = NAN;
	m->nvalues += w;
	in->samples++;
	return row;
}

void trex_metrics_sample_drop(struct trex_metrics *m)
{
	struct trex_metrics_instance *in;

	if (!m->ninstances)
		return;
	in = &m->instances[m->ninstances - 1];
	if (!in->samples)
		return;
	in->samples--;
	m->nvalues -= m->layouts[in->layout].n;
}

void trex_metrics_instance_end(struct trex_metrics *m)
{
	if (m->ninstances && !m->instances[m->ninstances - 1].samples)
		m->ninstances--;
}

/* Appends n cells; false when out of memory. */
static bool add_cells(struct trex_metrics *m, const struct trex_report_cell *c, uint32_t n)
{
	if (!grow_to((void **)&m->cells, &m->cells_cap, m->ncells + n, sizeof(*m->cells)))
		return false;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t id = trex_metrics_intern(m, c[i].text, c[i].len);

		if (id == TREX_METRICS_NONE)
			return false;
		m->cells[m->ncells + i] = (struct cell){id, c[i].number};
	}
	m->ncells += n;
	return true;
}

uint32_t trex_metrics_add_report(struct trex_metrics *m, uint32_t source,
                                 enum trex_report_kind kind, const char *section, const char *title,
                                 const struct trex_report_cell *cols, uint32_t ncols, int64_t line)
{
	uint32_t sec = trex_metrics_intern(m, section, section ? strlen(section) : 0);
	uint32_t tit = trex_metrics_intern(m, title, title ? strlen(title) : 0);
	size_t first = m->ncells;

	if (!ncols || sec == TREX_METRICS_NONE || tit == TREX_METRICS_NONE ||
	    m->nreports >= UINT32_MAX - 1 || !GROW_ONE(m->reports, m->nreports, m->reports_cap) ||
	    !add_cells(m, cols, ncols)) {
		m->ncells = first;
		return TREX_METRICS_NONE;
	}
	m->reports[m->nreports] = (struct report_rec){
	    {source, (uint8_t)kind, sec, tit, ncols, 0, line},
	    first,
	};
	return (uint32_t)m->nreports++;
}

bool trex_metrics_report_row(struct trex_metrics *m, const struct trex_report_cell *cells)
{
	struct report_rec *r;

	if (!m->nreports)
		return false;
	r = &m->reports[m->nreports - 1];
	if (r->pub.nrows == UINT32_MAX || !add_cells(m, cells, r->pub.ncols))
		return false;
	r->pub.nrows++;
	return true;
}

void trex_metrics_set_link(struct trex_metrics *m, uint32_t instance, uint32_t slice,
                           enum trex_metrics_link link)
{
	if (instance >= m->ninstances)
		return;
	m->instances[instance].slice = slice;
	m->instances[instance].link = (uint8_t)link;
}

/* ---- reading -------------------------------------------------------------------------------- */

const char *trex_metrics_str(const struct trex_metrics *m, uint32_t id)
{
	return id < trex_strtab_count(m->strings) ? trex_strtab_get(m->strings, id, NULL) : "";
}

uint32_t trex_metrics_source_count(const struct trex_metrics *m)
{
	return (uint32_t)m->nsources;
}

const struct trex_metrics_source *trex_metrics_source(const struct trex_metrics *m, uint32_t id)
{
	return id < m->nsources ? &m->sources[id] : NULL;
}

uint32_t trex_metrics_metric_count(const struct trex_metrics *m)
{
	return (uint32_t)m->nmetrics;
}

const struct trex_metric *trex_metrics_metric_get(const struct trex_metrics *m, uint32_t id)
{
	return id < m->nmetrics ? &m->metrics[id] : NULL;
}

/* "NAME[UNIT]" -> the name's length and the unit ([u, u + ulen)); else the
 * whole text is the name. */
static size_t split_unit(const char *s, const char **u, size_t *ulen)
{
	size_t len = strlen(s);
	const char *open = len ? memchr(s, '[', len) : NULL;

	*u = "";
	*ulen = 0;
	if (!open || s[len - 1] != ']')
		return len;
	*u = open + 1;
	*ulen = (size_t)(s + len - 1 - *u);
	return (size_t)(open - s);
}

uint32_t trex_metrics_metric_find(const struct trex_metrics *m, const char *name)
{
	const char *unit;
	size_t ulen, nlen = split_unit(name, &unit, &ulen);
	uint32_t whole = trex_strtab_find(m->strings, name, strlen(name));
	uint32_t n = trex_strtab_find(m->strings, name, nlen);
	uint32_t u = trex_strtab_find(m->strings, unit, ulen);

	for (size_t i = 0; whole != TREX_STR_ERROR && i < m->nmetrics; i++) {
		if (m->metrics[i].name == whole)
			return (uint32_t)i;
	}
	for (size_t i = 0; n != TREX_STR_ERROR && u != TREX_STR_ERROR && i < m->nmetrics; i++) {
		if (m->metrics[i].name == n && m->metrics[i].unit == u)
			return (uint32_t)i;
	}
	return TREX_METRICS_NONE;
}

const char *trex_metrics_metric_label(const struct trex_metrics *m, uint32_t metric, char *buf,
                                      size_t size)
{
	const struct trex_metric *mt = trex_metrics_metric_get(m, metric);

	if (!mt)
		snprintf(buf, size, "?");
	else if (mt->unit)
		snprintf(buf, size, "%s[%s]", trex_metrics_str(m, mt->name),
		         trex_metrics_str(m, mt->unit));
	else
		snprintf(buf, size, "%s", trex_metrics_str(m, mt->name));
	return buf;
}

uint32_t trex_metrics_layout_width(const struct trex_metrics *m, uint32_t layout)
{
	return layout < m->nlayouts ? m->layouts[layout].n : 0;
}

const uint32_t *trex_metrics_layout_metrics(const struct trex_metrics *m, uint32_t layout)
{
	return layout < m->nlayouts ? m->layout_ids + m->layouts[layout].first : NULL;
}

int64_t trex_metrics_layout_pos(const struct trex_metrics *m, uint32_t layout, uint32_t metric)
{
	const uint32_t *ids = trex_metrics_layout_metrics(m, layout);
	uint32_t n = trex_metrics_layout_width(m, layout);

	for (uint32_t i = 0; ids && i < n; i++) {
		if (ids[i] == metric)
			return i;
	}
	return -1;
}

uint32_t trex_metrics_instance_count(const struct trex_metrics *m)
{
	return (uint32_t)m->ninstances;
}

const struct trex_metrics_instance *trex_metrics_instance(const struct trex_metrics *m, uint32_t id)
{
	return id < m->ninstances ? &m->instances[id] : NULL;
}

const double *trex_metrics_values(const struct trex_metrics *m)
{
	return m->values;
}

bool trex_metrics_instance_value(const struct trex_metrics *m, uint32_t instance, uint32_t metric,
                                 double *out)
{
	const struct trex_metrics_instance *in = trex_metrics_instance(m, instance);
	int64_t pos = in ? trex_metrics_layout_pos(m, in->layout, metric) : -1;
	uint32_t w = in ? m->layouts[in->layout].n : 0;
	double sum = 0;
	uint32_t n = 0;

	*out = NAN;
	if (pos < 0 || metric >= m->nmetrics)
		return false;
	for (uint32_t r = 0; r < in->samples; r++) {
		double v = m->values[in->first + (uint64_t)r * w + (uint64_t)pos];

		if (isnan(v))
			continue;
		if (m->metrics[metric].agg == TREX_METRIC_FIRST) {
			*out = v;
			return true;
		}
		sum += v;
		n++;
	}
	if (!n)
		return false;
	*out = m->metrics[metric].agg == TREX_METRIC_MEAN ? sum / n : sum;
	return true;
}

uint32_t trex_metrics_report_count(const struct trex_metrics *m)
{
	return (uint32_t)m->nreports;
}

const struct trex_report *trex_metrics_report(const struct trex_metrics *m, uint32_t id)
{
	return id < m->nreports ? &m->reports[id].pub : NULL;
}

const char *trex_metrics_report_cell(const struct trex_metrics *m, uint32_t report, int64_t row,
                                     uint32_t col, double *number)
{
	const struct report_rec *r = report < m->nreports ? &m->reports[report] : NULL;
	const struct cell *c;

	if (number)
		*number = NAN;
	if (!r || col >= r->pub.ncols || row < -1 || row >= (int64_t)r->pub.nrows)
		return "";
	c = &m->cells[r->first_cell + (uint64_t)(row + 1) * r->pub.ncols + col];
	if (number)
		*number = c->number;
	return trex_metrics_str(m, c->text);
}

size_t trex_metrics_memory(const struct trex_metrics *m)
{
	return sizeof(*m) + trex_strtab_memory(m->strings) + m->sources_cap * sizeof(*m->sources) +
	       m->metrics_cap * sizeof(*m->metrics) + m->layouts_cap * sizeof(*m->layouts) +
	       m->layout_ids_cap * sizeof(*m->layout_ids) +
	       m->instances_cap * sizeof(*m->instances) + m->values_cap * sizeof(*m->values) +
	       m->reports_cap * sizeof(*m->reports) + m->cells_cap * sizeof(*m->cells);
}
