/* unitrace's metric CSVs (unitrace.md §3), both header styles:
 *  - current: "Kernel,GlobalInstanceId,SubDeviceId,<metrics>" (-q, after
 *    "=== Device #N Metrics ===" in legacy mode), "Kernel, GlobalInstanceId,
 *    <metrics>" (-k, ", " between fields); rows of one instance, then a
 *    blank line;
 *  - older (roofline example): "== Kernel Metrics ==", then before every
 *    instance "Kernel,Device,SubDeviceId,<metrics>," (trailing commas on
 *    header and rows), floats as %g.
 * A metric column "NAME[UNIT]" is metric NAME with unit UNIT (none without
 * brackets). Rows are read with a fused split-and-parse loop: this is the
 * path a 1 GB file takes. */
#include "config.h"

#include "unitrace_parse.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/core/grow.h"

#define NOT_A_METRIC UINT32_MAX
#define NUMBER_MAX 64 /* longer numbers are not numbers */

/* ---- fields and numbers ------------------------------------------------------------------- */

bool ut_blank(const char *p, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r')
			return false;
	}
	return true;
}

static const char *skip_blanks(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

static const char *trim_end(const char *p, const char *end)
{
	while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	return end;
}

bool ut_grow_fields(struct ut_reader *r, size_t need)
{
	struct ut_field *f = trex_grow(r->fields, &r->fields_cap, need, sizeof(*f), 64);

	if (!f)
		return false;
	r->fields = f;
	return true;
}

/* The end of a quoted field starting at q (the quote): the first quote that
 * blanks and then a comma or the line's end follow; NULL when none. */
static const char *quote_end(const char *q, const char *end)
{
	for (const char *p = q + 1; (p = memchr(p, '"', (size_t)(end - p))) != NULL; p++) {
		const char *after = skip_blanks(p + 1, end);

		if (after == end || *after == ',')
			return p;
	}
	return NULL;
}

size_t ut_split(struct ut_reader *r, const struct text_line *line)
{
	const char *p = line->p, *end = line->p + line->len;
	size_t n = 0;

	for (;;) {
		const char *s = skip_blanks(p, end), *e, *next;
		const char *q = s < end && *s == '"' ? quote_end(s, end) : NULL;

		if (q) {
			e = q;
			next = memchr(q, ',', (size_t)(end - q));
			s++;
		} else {
			next = memchr(s, ',', (size_t)(end - s));
			e = trim_end(s, next ? next : end);
		}
		if (!ut_grow_fields(r, n + 1))
			return SIZE_MAX;
		r->fields[n++] = (struct ut_field){s, (size_t)(e - s), (size_t)(s - line->p) + 1};
		if (!next)
			return n;
		p = next + 1;
	}
}

static const double pow10_exact[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Digits, fraction and exponent as an exact double when the digits fit 53
 * bits and the power of ten is exact (then one multiply or divide rounds
 * correctly); false when strtod must decide. */
static bool fast_number(const char *p, const char *end, double *out)
{
	uint64_t mant = 0;
	int digits = 0, scale = 0, exp = 0, esign = 1;
	bool neg = p < end && *p == '-', any = false;

	p += neg || (p < end && *p == '+');
	for (; p < end && (unsigned)(*p - '0') < 10; p++, any = true) {
		if (digits < 19) {
			mant = mant * 10 + (uint64_t)(*p - '0');
			digits += mant != 0;
		} else {
			return false;
		}
	}
	if (p < end && *p == '.') {
		for (p++; p < end && (unsigned)(*p - '0') < 10; p++, any = true) {
			if (digits >= 19)
				return false;
			mant = mant * 10 + (uint64_t)(*p - '0');
			digits += mant != 0;
			scale--;
		}
	}
	if (!any)
		return false;
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '-' || *p == '+'))
			esign = *p++ == '-' ? -1 : 1;
		if (p == end)
			return false;
		for (; p < end && (unsigned)(*p - '0') < 10; p++) {
			if (exp > 1000)
				return false;
			exp = exp * 10 + (*p - '0');
		}
	}
	if (p != end)
		return false;
	exp = esign * exp + scale;
	if (exp == 0 && mant > (1ull << 53)) { /* an integer (a timestamp): one rounding */
		*out = neg ? -(double)mant : (double)mant;
		return true;
	}
	if (mant > (1ull << 53))
		return false;
	if (exp < -22 || exp > 22)
		return false;
	*out = exp < 0 ? (double)mant / pow10_exact[-exp] : (double)mant * pow10_exact[exp];
	*out = neg ? -*out : *out;
	return true;
}

bool ut_number(const char *p, const char *end, double *out)
{
	char buf[NUMBER_MAX + 1], *stop;
	size_t len = (size_t)(end - p);

	if (fast_number(p, end, out))
		return true;
	if (!len || len > NUMBER_MAX)
		return false;
	memcpy(buf, p, len);
	buf[len] = '\0';
	if (strcmp(buf, "nan") == 0 || strcmp(buf, "-nan") == 0) {
		*out = NAN;
		return true;
	}
	/* strtod also takes hex floats and "infinity"; unitrace writes neither but
	 * inf, which it may (std::to_string of an infinite float) */
	if (strpbrk(buf, "xXpP") || !(*buf == '-' || *buf == '+' || *buf == '.' || *buf == 'i' ||
	                              (unsigned)(*buf - '0') < 10))
		return false;
	*out = strtod(buf, &stop);
	return *stop == '\0';
}

/* ---- the header --------------------------------------------------------------------------- */

bool ut_metrics_header(const char *p, size_t len)
{
	static const char *const heads[] = {"Kernel,GlobalInstanceId", "Kernel, GlobalInstanceId",
	                                    "Kernel,Device,SubDeviceId"};

	for (size_t i = 0; i < sizeof(heads) / sizeof(heads[0]); i++) {
		size_t n = strlen(heads[i]);

		if (len >= n && memcmp(p, heads[i], n) == 0)
			return true;
	}
	return false;
}

static bool unit_is(const char *u, size_t ulen, const char *what)
{
	return ulen == strlen(what) && memcmp(u, what, ulen) == 0;
}

static bool contains(const char *s, size_t len, const char *what)
{
	size_t n = strlen(what);

	for (size_t i = 0; i + n <= len; i++) {
		if (memcmp(s + i, what, n) == 0)
			return true;
	}
	return false;
}

/* How unitrace's metrics combine over the samples of an instance: rates
 * (%, MHz, bandwidth) average; timestamps, ids and flags (no unit, or a
 * *Time[ns] that is a point in time) keep the first; the rest (events,
 * bytes, cycles, messages, threads, GpuTime[ns]) add up. */
static enum trex_metric_agg metric_agg(const char *name, size_t nlen, const char *u, size_t ulen)
{
	if (!ulen)
		return TREX_METRIC_FIRST;
	if (unit_is(u, ulen, "%") || contains(u, ulen, "Hz") || contains(u, ulen, "pS") ||
	    contains(u, ulen, "/s") || contains(name, nlen, "Frequency"))
		return TREX_METRIC_MEAN;
	if (unit_is(u, ulen, "ns") &&
	    (contains(name, nlen, "Begin") || contains(name, nlen, "Timestamp") ||
	     contains(name, nlen, "Start")))
		return TREX_METRIC_FIRST;
	return TREX_METRIC_SUM;
}

/* The metric of a header field "NAME[UNIT]" (or "NAME"). */
static uint32_t field_metric(struct ut_reader *r, const struct ut_field *f)
{
	const char *open = f->len ? memchr(f->p, '[', f->len) : NULL;
	size_t nlen = f->len, ulen = 0;
	const char *u = "";

	if (open && f->p[f->len - 1] == ']') {
		nlen = (size_t)(open - f->p);
		u = open + 1;
		ulen = f->len - nlen - 2;
	}
	return trex_metrics_metric(r->m, f->p, nlen, u, ulen, metric_agg(f->p, nlen, u, ulen));
}

static bool field_is(const struct ut_field *f, const char *s)
{
	return f->len == strlen(s) && memcmp(f->p, s, f->len) == 0;
}

static bool csv_room(struct ut_csv *c, size_t n)
{
	uint32_t *pos;
	double *row;

	if (n <= c->cap)
		return true;
	pos = realloc(c->col_pos, n * sizeof(*pos));
	if (pos)
		c->col_pos = pos;
	row = pos ? realloc(c->row, n * sizeof(*row)) : NULL;
	if (!row)
		return false;
	c->row = row;
	c->cap = n;
	return true;
}

static bool keep_text(char **buf, size_t *len, size_t *cap, const char *p, size_t n)
{
	char *b = trex_grow(*buf, cap, n + 1, 1, 256);

	if (!b)
		return false;
	memcpy(b, p, n);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return true;
}

/* The layout of the metric fields of the header just split. */
static bool header_layout(struct ut_reader *r, size_t n)
{
	struct ut_csv *c = &r->csv;
	uint32_t *ids = malloc(n * sizeof(*ids)), k = 0;

	if (!ids || !csv_room(c, n)) {
		free(ids);
		return false;
	}
	c->id_col = c->device_col = -1;
	for (size_t i = 0; i < n; i++) {
		const struct ut_field *f = &r->fields[i];

		c->col_pos[i] = NOT_A_METRIC;
		if (i == 0 || f->len == 0) /* the kernel; the older style's trailing comma */
			continue;
		if (field_is(f, "GlobalInstanceId") && c->id_col < 0) {
			c->id_col = (int)i;
		} else if (field_is(f, "Device") && c->device_col < 0) {
			c->device_col = (int)i;
		} else {
			ids[k] = field_metric(r, f);
			if (ids[k] == TREX_METRICS_NONE)
				break;
			c->col_pos[i] = k++;
		}
	}
	c->layout = k ? trex_metrics_layout(r->m, ids, k) : TREX_METRICS_NONE;
	free(ids);
	return !k || c->layout != TREX_METRICS_NONE;
}

void ut_csv_header(struct ut_reader *r, const struct text_line *line)
{
	struct ut_csv *c = &r->csv;
	size_t n;

	ut_csv_break(r);
	c->active = true;
	if (c->header && c->header_len == line->len && memcmp(c->header, line->p, line->len) == 0) {
		/* the older style repeats its header before every instance */
		c->active = c->layout != TREX_METRICS_NONE;
		return;
	}
	n = ut_split(r, line);
	if (n == SIZE_MAX ||
	    !keep_text(&c->header, &c->header_len, &c->header_cap, line->p, line->len) ||
	    !header_layout(r, n)) {
		r->nomem = true;
		c->active = false;
		return;
	}
	c->ncols = (uint32_t)n;
	if (c->layout == TREX_METRICS_NONE) {
		ut_problem(r, line, 0,
		           "metric header without metric columns: its rows are not read");
		c->active = false;
	}
}

/* ---- rows ----------------------------------------------------------------------------------- */

/* The kernel field at the row's start: [*name, *name + *len), and where the
 * first value field starts (after the comma); NULL when no comma follows. */
static const char *row_kernel(const char *p, const char *end, uint32_t ncols, const char **name,
                              size_t *len)
{
	const char *s = skip_blanks(p, end), *comma;

	if (s < end && *s == '"') {
		const char *q = quote_end(s, end);

		if (q) {
			*name = s + 1;
			*len = (size_t)(q - s - 1);
			comma = memchr(q, ',', (size_t)(end - q));
			return comma ? comma + 1 : NULL;
		}
	}
	/* unquoted: a name with commas takes the fields beyond the header's */
	{
		size_t commas = 0, extra;
		const char *c = s;

		while ((c = memchr(c, ',', (size_t)(end - c))) != NULL && ++commas)
			c++;
		extra = commas + 1 > ncols ? commas + 1 - ncols : 0;
		comma = s;
		for (size_t i = 0; i <= extra; i++) {
			comma = memchr(comma, ',', (size_t)(end - comma));
			if (!comma)
				return NULL;
			if (i < extra)
				comma++;
		}
		*name = s;
		*len = (size_t)(trim_end(s, comma) - s);
		return comma + 1;
	}
}

struct row_read {
	size_t fields;   /* fields found, the kernel's included */
	size_t bad_col;  /* first value that is not a number (its column), 0: none */
	const char *bad; /* ... and its text */
	size_t bad_len;
	const char *id, *device; /* the texts of the id and device fields */
	size_t id_len, device_len;
};

/* The value fields from p into c->row; counts fields up to the line's end. */
static void row_values(struct ut_csv *c, const char *line, const char *p, const char *end,
                       struct row_read *rr)
{
	size_t i = 1;

	rr->fields = 1;
	for (;; i++) {
		const char *s = skip_blanks(p, end);
		const char *comma = s < end ? memchr(s, ',', (size_t)(end - s)) : NULL;
		const char *e = trim_end(s, comma ? comma : end);
		double v = NAN;

		if (i < c->ncols) {
			if (e > s && !ut_number(s, e, &v) && !rr->bad_col) {
				rr->bad_col = (size_t)(s - line) + 1;
				rr->bad = s;
				rr->bad_len = (size_t)(e - s);
			} else if (e == s && c->col_pos[i] != NOT_A_METRIC && !rr->bad_col) {
				rr->bad_col = (size_t)(s - line) + 1;
				rr->bad = s;
				rr->bad_len = 0;
			}
			c->row[i] = v;
			if ((int)i == c->id_col) {
				rr->id = s;
				rr->id_len = (size_t)(e - s);
			} else if ((int)i == c->device_col) {
				rr->device = s;
				rr->device_len = (size_t)(e - s);
			}
		}
		rr->fields++;
		if (!comma)
			return;
		p = comma + 1;
	}
}

/* Is this row another instance than the open one? */
static bool new_instance(const struct ut_csv *c, const char *name, size_t len, bool has_id,
                         int64_t id, const char *device)
{
	return !c->in_instance || c->kernel_len != len || memcmp(c->kernel, name, len) != 0 ||
	       c->has_id != has_id || (has_id && c->id != id) || strcmp(c->device, device) != 0;
}

/* s into buf[size], cut to fit. */
static void copy_text(char *buf, size_t size, const char *s)
{
	size_t n = strnlen(s, size - 1);

	memcpy(buf, s, n);
	buf[n] = '\0';
}

static bool open_instance(struct ut_reader *r, const struct text_line *line, const char *name,
                          size_t len, bool has_id, int64_t id, const char *device)
{
	struct ut_csv *c = &r->csv;
	struct trex_metrics_instance_spec spec = {
	    .source = r->source,
	    .device = device,
	    .device_len = strlen(device),
	    .kernel = name,
	    .kernel_len = len,
	    .layout = c->layout,
	    .id = id,
	    .flags = (has_id ? TREX_MINST_HAS_ID : 0) |
	             (len >= 8 && memcmp(name, "NoKernel", 8) == 0 ? TREX_MINST_IDLE : 0),
	    .offset = (int64_t)line->offset,
	    .line = line->number,
	};

	ut_csv_break(r);
	if (!keep_text(&c->kernel, &c->kernel_len, &c->kernel_cap, name, len) ||
	    trex_metrics_instance_begin(r->m, &spec) == TREX_METRICS_NONE)
		return false;
	c->has_id = has_id;
	c->id = id;
	copy_text(c->device, sizeof(c->device), device);
	c->in_instance = true;
	return true;
}

/* The instance id of a row, when its header has the column. */
static bool row_id(const struct ut_csv *c, const struct row_read *rr, int64_t *id)
{
	double v = c->id_col >= 0 ? c->row[c->id_col] : NAN;

	if (c->id_col < 0 || isnan(v) || v != floor(v) || fabs(v) > 9.0e18)
		return false;
	*id = (int64_t)v;
	return rr->id_len > 0;
}

static void row_device(const struct ut_csv *c, const struct row_read *rr, char *buf, size_t size)
{
	if (c->device_col >= 0 && rr->device_len)
		snprintf(buf, size, "Device #%.*s", (int)rr->device_len, rr->device);
	else
		copy_text(buf, size, c->banner_device); /* every row: no printf */
}

/* Checks a row read; false (problem counted) when it is skipped. */
static bool row_ok(struct ut_reader *r, const struct text_line *line, const struct row_read *rr,
                   const char *values)
{
	const struct ut_csv *c = &r->csv;

	if (!values) {
		ut_problem(r, line, 0,
		           "metric row without a comma after the kernel name (skipped)");
		return false;
	}
	if (rr->fields != c->ncols) {
		ut_problem(r, line, 0,
		           "metric row has %zu fields where its header has %" PRIu32
		           " (row skipped)%s",
		           rr->fields, c->ncols, line->newline ? "" : "; the input ends inside it");
		return false;
	}
	if (!line->newline) {
		ut_problem(r, line, 0,
		           "the input ends inside this metric row (skipped: its last "
		           "value may be cut)");
		return false;
	}
	if (c->id_col >= 0 && (!rr->id_len || isnan(c->row[c->id_col]))) {
		ut_problem(r, line, rr->id ? (size_t)(rr->id - line->p) + 1 : 0,
		           "metric row without an instance id (skipped)");
		return false;
	}
	return true;
}

void ut_csv_row(struct ut_reader *r, const struct text_line *line)
{
	struct ut_csv *c = &r->csv;
	const char *end = line->p + line->len, *name, *values;
	size_t name_len = 0;
	struct row_read rr = {0};
	char device[sizeof(c->device)];
	int64_t id = 0;
	bool has_id;
	double *sample;

	values = row_kernel(line->p, end, c->ncols, &name, &name_len);
	if (values)
		row_values(c, line->p, values, end, &rr);
	if (!row_ok(r, line, &rr, values))
		return;
	has_id = row_id(c, &rr, &id);
	row_device(c, &rr, device, sizeof(device));
	if (new_instance(c, name, name_len, has_id, id, device) &&
	    !open_instance(r, line, name, name_len, has_id, id, device)) {
		r->nomem = true;
		return;
	}
	if (!(sample = trex_metrics_sample(r->m))) {
		r->nomem = true;
		return;
	}
	for (uint32_t i = 1; i < c->ncols; i++) {
		if (c->col_pos[i] != NOT_A_METRIC)
			sample[c->col_pos[i]] = c->row[i];
	}
	r->read++;
	if (rr.bad_col)
		ut_problem(r, line, rr.bad_col,
		           "metric value '%.*s' is not a number (row kept "
		           "without it)",
		           (int)(rr.bad_len > 40 ? 40 : rr.bad_len), rr.bad);
}

void ut_csv_break(struct ut_reader *r)
{
	if (r->csv.in_instance)
		trex_metrics_instance_end(r->m); /* drops it only when it has no row */
	r->csv.in_instance = false;
}

void ut_csv_end(struct ut_reader *r)
{
	ut_csv_break(r);
	r->csv.active = false;
}

void ut_csv_free(struct ut_csv *c)
{
	free(c->col_pos);
	free(c->row);
	free(c->kernel);
	free(c->header);
}
