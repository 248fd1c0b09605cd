#include "config.h"

#include "trex/export/table_write.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "trex/core/display.h"
#include "trex/export/atomic_file.h"
#include "trex/export/json_write.h"

#define CELL_BUF 64  /* any non-text cell fits */
#define COL_GAP "  " /* between text columns */

bool trex_table_format_parse(const char *s, enum trex_table_format *out)
{
	static const struct {
		const char *name;
		enum trex_table_format fmt;
	} names[] = {{"text", TREX_FMT_TEXT}, {"csv", TREX_FMT_CSV}, {"json", TREX_FMT_JSON}};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(s, names[i].name) == 0) {
			*out = names[i].fmt;
			return true;
		}
	}
	return false;
}

/* ---- numbers ------------------------------------------------------------------ */

/* Durations for machines: ns as an exact integer when integral, else with
 * 3 decimals; never an exponent. */
static void format_ns(double ns, char *buf, size_t size)
{
	if (ns == floor(ns))
		snprintf(buf, size, "%.0f", ns);
	else
		snprintf(buf, size, "%.3f", ns);
	if (strcmp(buf, "-0") == 0)
		snprintf(buf, size, "0");
}

/* A REAL cell: integers whole; else 6 significant digits in text, and in
 * CSV/JSON the shortest form that reads back as the same double. */
static void format_real(double v, enum trex_table_format fmt, char *buf, size_t size)
{
	if (v == floor(v) && fabs(v) < 1e15) {
		snprintf(buf, size, "%.0f", v);
	} else if (fmt == TREX_FMT_TEXT) {
		snprintf(buf, size, "%.6g", v);
	} else {
		for (int digits = 15; digits <= 17; digits++) {
			snprintf(buf, size, "%.*g", digits, v);
			if (strtod(buf, NULL) == v)
				break;
		}
	}
	if (strcmp(buf, "-0") == 0)
		snprintf(buf, size, "0");
}

/* A non-text cell as text for the given format; false when the value is not
 * finite (the caller prints its "no value" form). */
static bool format_cell(const struct trex_column *col, const union trex_cell *c,
                        enum trex_table_format fmt, char *buf, size_t size)
{
	if (col->type == TREX_COL_COUNT) {
		snprintf(buf, size, "%" PRId64, c->count);
		return true;
	}
	if (!isfinite(c->number))
		return false;
	if (col->type == TREX_COL_DURATION) {
		if (fmt == TREX_FMT_TEXT)
			trex_format_duration(c->number, buf, size);
		else
			format_ns(c->number, buf, size);
	} else if (col->type == TREX_COL_PERCENT && fmt == TREX_FMT_TEXT) {
		snprintf(buf, size, "%.2f", c->number);
	} else if (col->type == TREX_COL_REAL) {
		format_real(c->number, fmt, buf, size);
	} else {
		trex_format_decimal(c->number, fmt == TREX_FMT_TEXT ? 3 : 6, buf, size);
	}
	return true;
}

/* ---- lining numbers up ----------------------------------------------------------- */

/* The fraction ('.' and digits, 0 when none) and unit of a shown number
 * such as "-12.345 ms". */
static void number_parts(const char *s, size_t *frac, size_t *unit)
{
	const char *sp = strchr(s, ' ');
	size_t num = sp ? (size_t)(sp - s) : strlen(s);
	const char *dot = memchr(s, '.', num);

	*frac = dot ? num - (size_t)(dot - s) : 0;
	*unit = sp ? strlen(sp + 1) : 0;
}

static bool lines_up(enum trex_col_type type)
{
	return type == TREX_COL_DURATION || type == TREX_COL_NUMBER;
}

static void align_add(struct trex_num_align *a, const char *shown)
{
	size_t frac, unit;

	number_parts(shown, &frac, &unit);
	if (frac > a->frac)
		a->frac = (unsigned)frac;
	if (unit > a->unit)
		a->unit = (unsigned)unit;
}

/* Pads the shown number in buf to a's fraction and unit. */
static void align_pad(char *buf, size_t size, enum trex_col_type type,
                      const struct trex_num_align *a)
{
	size_t frac, unit, len = strlen(buf), fill_frac, fill_unit;
	size_t unit_w = type == TREX_COL_DURATION ? a->unit : 0;
	char *sp = strchr(buf, ' ');

	number_parts(buf, &frac, &unit);
	fill_frac = a->frac > frac ? a->frac - frac : 0;
	/* no unit ("-"): blanks where the space and the unit go */
	fill_unit = unit_w > unit ? unit_w - unit + (sp ? 0 : 1) : 0;
	if (len + fill_frac + fill_unit >= size)
		return;
	if (sp) {
		memmove(sp + fill_frac, sp, strlen(sp) + 1);
		memset(sp, ' ', fill_frac);
	} else {
		memset(buf + len, ' ', fill_frac);
	}
	len += fill_frac;
	memset(buf + len, ' ', fill_unit);
	buf[len + fill_unit] = '\0';
}

const char *trex_table_cell_text_aligned(const struct trex_column *col, const union trex_cell *cell,
                                         const struct trex_num_align *align, char *buf, size_t size)
{
	const char *s = trex_table_cell_text_as(col, cell, buf, size);

	if (lines_up(col->type))
		align_pad(buf, size, col->type, align ? align : &TREX_NUM_ALIGN_ANY);
	return s;
}

/* ---- text ------------------------------------------------------------------------- */

const char *trex_table_cell_text_as(const struct trex_column *col, const union trex_cell *cell,
                                    char *buf, size_t size)
{
	if (col->type == TREX_COL_TEXT)
		return cell->text ? cell->text : "";
	if (!format_cell(col, cell, TREX_FMT_TEXT, buf, size))
		snprintf(buf, size, "-");
	return buf;
}

/* Writes s as the text table shows it (trace text escaped, so one row
 * stays one line and reads back); returns its width in characters. out
 * may be NULL to measure only. */
static size_t text_put(FILE *out, const char *s)
{
	return trex_escape_write(out, s, strlen(s), TREX_ESCAPE_TEXT);
}

static void pad(FILE *out, size_t n)
{
	while (n--)
		putc(' ', out);
}

/* One cell padded to width: text left-aligned, numbers right-aligned; the
 * last column gets no trailing blanks. */
static void text_put_cell(FILE *out, const char *s, bool left, size_t width, bool last)
{
	size_t w = text_put(NULL, s);
	size_t fill = width > w ? width - w : 0;

	if (!left)
		pad(out, fill);
	text_put(out, s);
	if (left && !last)
		pad(out, fill);
}

/* The rows written: all of them in order, or a selection (a view's sorted,
 * filtered permutation). */
struct row_sel {
	const size_t *rows; /* NULL: 0 .. n - 1 */
	size_t n;
};

static size_t row_at(const struct row_sel *sel, size_t i)
{
	return sel->rows ? sel->rows[i] : i;
}

/* Per column of the text table: its width and how its numbers line up. */
struct text_col {
	size_t width;
	struct trex_num_align align;
};

/* Cell (r, c) as its column shows it, numbers lined up (a last column of
 * numbers keeps the blanks that line its units up). */
static const char *text_cell(const struct trex_table *t, size_t r, size_t c,
                             const struct text_col *tc, char *buf, size_t size)
{
	return trex_table_cell_text_aligned(&t->cols[c], trex_table_cell(t, r, c), &tc[c].align,
	                                    buf, size);
}

static void text_measure(const struct trex_table *t, const struct row_sel *sel, struct text_col *tc)
{
	char buf[CELL_BUF];

	for (size_t c = 0; c < t->ncols; c++) {
		tc[c].width = text_put(NULL, t->cols[c].title);
		tc[c].align = (struct trex_num_align){0, 0};
		for (size_t i = 0; lines_up(t->cols[c].type) && i < sel->n; i++)
			align_add(&tc[c].align,
			          trex_table_cell_text_as(&t->cols[c],
			                                  trex_table_cell(t, row_at(sel, i), c),
			                                  buf, sizeof(buf)));
	}
	for (size_t i = 0; i < sel->n; i++) {
		for (size_t c = 0; c < t->ncols; c++) {
			size_t w =
			    text_put(NULL, text_cell(t, row_at(sel, i), c, tc, buf, sizeof(buf)));

			if (w > tc[c].width)
				tc[c].width = w;
		}
	}
}

/* Dashes under each title; under the unpadded last column only as wide as
 * its title, so one long name does not draw a rule across the screen. */
static void text_rule(FILE *out, const struct trex_table *t, const struct text_col *tc)
{
	for (size_t c = 0; c < t->ncols; c++) {
		size_t n = tc[c].width;

		if (c + 1 == t->ncols && t->cols[c].type == TREX_COL_TEXT)
			n = text_put(NULL, t->cols[c].title);
		if (c)
			fputs(COL_GAP, out);
		for (size_t i = 0; i < n; i++)
			putc('-', out);
	}
	putc('\n', out);
}

static void text_write(FILE *out, const struct trex_table *t, const struct row_sel *sel,
                       struct text_col *tc)
{
	char buf[CELL_BUF];

	text_measure(t, sel, tc);
	for (size_t c = 0; c < t->ncols; c++) {
		if (c)
			fputs(COL_GAP, out);
		text_put_cell(out, t->cols[c].title, t->cols[c].type == TREX_COL_TEXT, tc[c].width,
		              c + 1 == t->ncols);
	}
	putc('\n', out);
	text_rule(out, t, tc);
	for (size_t i = 0; i < sel->n; i++) {
		size_t r = row_at(sel, i);

		for (size_t c = 0; c < t->ncols; c++) {
			const char *s = text_cell(t, r, c, tc, buf, sizeof(buf));
			bool last = c + 1 == t->ncols;

			if (last && !*s)
				break; /* no trailing blanks before an empty name */
			if (c)
				fputs(COL_GAP, out);
			text_put_cell(out, s, t->cols[c].type == TREX_COL_TEXT, tc[c].width, last);
		}
		putc('\n', out);
	}
}

/* ---- CSV (RFC 4180, LF line ends) --------------------------------------------------- */

/* A field: trace text in the text table's escaped form (CSV has no escape
 * for NUL, and a raw control character would reach whatever shows the
 * file), quoted when it holds a comma or a quote. */
static void csv_put(FILE *out, const char *s)
{
	bool quote = strpbrk(s, ",\"") != NULL;
	size_t len = strlen(s);

	if (quote)
		putc('"', out);
	for (size_t i = 0; i < len;) {
		char esc[TREX_ESCAPE_MAX + 1];
		size_t n = trex_escape_char(s + i, len - i, TREX_ESCAPE_TEXT, esc);

		if (esc[0])
			fputs(esc, out);
		else if (s[i] == '"')
			fputs("\"\"", out);
		else
			fwrite(s + i, 1, n, out);
		i += n;
	}
	if (quote)
		putc('"', out);
}

static void csv_write(FILE *out, const struct trex_table *t, const struct row_sel *sel)
{
	char buf[CELL_BUF];

	for (size_t c = 0; c < t->ncols; c++) {
		if (c)
			putc(',', out);
		csv_put(out, t->cols[c].key);
	}
	putc('\n', out);
	for (size_t i = 0; i < sel->n; i++) {
		for (size_t c = 0; c < t->ncols; c++) {
			const union trex_cell *cell = trex_table_cell(t, row_at(sel, i), c);

			if (c)
				putc(',', out);
			if (t->cols[c].type == TREX_COL_TEXT)
				csv_put(out, cell->text ? cell->text : "");
			else if (format_cell(&t->cols[c], cell, TREX_FMT_CSV, buf, sizeof(buf)))
				fputs(buf, out);
		}
		putc('\n', out);
	}
}

/* ---- JSON ------------------------------------------------------------------------ */

static void json_put_value(FILE *out, const struct trex_column *col, const union trex_cell *c)
{
	char buf[CELL_BUF];

	if (col->type == TREX_COL_TEXT)
		trex_json_write_string(out, c->text ? c->text : "");
	else if (format_cell(col, c, TREX_FMT_JSON, buf, sizeof(buf)))
		fputs(buf, out);
	else
		fputs("null", out);
}

static void json_write(FILE *out, const struct trex_table *t, const struct row_sel *sel)
{
	fputs("{\"table\": ", out);
	trex_json_write_string(out, t->name ? t->name : "");
	fputs(", \"columns\": [", out);
	for (size_t c = 0; c < t->ncols; c++) {
		if (c)
			fputs(", ", out);
		trex_json_write_string(out, t->cols[c].key);
	}
	fputs("], \"rows\": [", out);
	for (size_t i = 0; i < sel->n; i++) {
		fputs(i ? ",\n  {" : "\n  {", out);
		for (size_t c = 0; c < t->ncols; c++) {
			if (c)
				fputs(", ", out);
			trex_json_write_string(out, t->cols[c].key);
			fputs(": ", out);
			json_put_value(out, &t->cols[c], trex_table_cell(t, row_at(sel, i), c));
		}
		putc('}', out);
	}
	fputs(sel->n ? "\n]}\n" : "]}\n", out);
}

/* ---- entry point ------------------------------------------------------------------- */

enum trex_status trex_table_write(FILE *out, const struct trex_table *t, enum trex_table_format fmt,
                                  struct trex_error *err)
{
	return trex_table_write_rows(out, t, NULL, t->nrows, fmt, err);
}

enum trex_status trex_table_write_rows(FILE *out, const struct trex_table *t, const size_t *rows,
                                       size_t nrows, enum trex_table_format fmt,
                                       struct trex_error *err)
{
	struct row_sel sel = {rows, nrows};

	if (fmt == TREX_FMT_TEXT) {
		struct text_col *tc = calloc(t->ncols ? t->ncols : 1, sizeof(*tc));

		if (!tc)
			return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
		text_write(out, t, &sel, tc);
		free(tc);
	} else if (fmt == TREX_FMT_CSV) {
		csv_write(out, t, &sel);
	} else {
		json_write(out, t, &sel);
	}
	if (fflush(out) != 0 || ferror(out))
		return trex_error_set(err, TREX_IO, NULL, -1, "write error: %s", strerror(errno));
	return TREX_OK;
}

enum trex_table_format trex_table_format_for_path(const char *path)
{
	const char *dot = strrchr(path, '.');
	const char *slash = strrchr(path, '/');

	if (!dot || (slash && dot < slash))
		return TREX_FMT_TEXT;
	if (strcasecmp(dot, ".csv") == 0)
		return TREX_FMT_CSV;
	if (strcasecmp(dot, ".json") == 0)
		return TREX_FMT_JSON;
	return TREX_FMT_TEXT;
}

enum trex_status trex_table_export(const char *path, bool force, const struct trex_table *t,
                                   const size_t *rows, size_t nrows, enum trex_table_format fmt,
                                   struct trex_error *err)
{
	struct trex_atomic_file *af;
	FILE *f;
	enum trex_status st = trex_atomic_open(path, force, &af, &f, err);

	if (st != TREX_OK)
		return st;
	st = trex_table_write_rows(f, t, rows, nrows, fmt, err);
	if (st != TREX_OK) {
		trex_atomic_abort(af);
		return st;
	}
	return trex_atomic_commit(af, err);
}
