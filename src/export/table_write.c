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

#include "trex/export/atomic_file.h"

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

/* Drops trailing fraction zeros (and a bare '.') of a %f rendering. */
static void trim_fraction(char *s)
{
	char *dot = strchr(s, '.');
	char *end;

	if (!dot)
		return;
	end = s + strlen(s);
	while (end > dot + 1 && end[-1] == '0')
		end--;
	if (end == dot + 1)
		end = dot;
	*end = '\0';
}

/* %.*f without a negative zero, trailing zeros trimmed. */
static void format_trimmed(double v, int decimals, char *buf, size_t size)
{
	snprintf(buf, size, "%.*f", decimals, v);
	trim_fraction(buf);
	if (strcmp(buf, "-0") == 0)
		snprintf(buf, size, "0");
}

const char *trex_format_duration(double ns, char *buf, size_t size)
{
	static const struct {
		const char *unit;
		double scale;
	} units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
	const size_t last = sizeof(units) / sizeof(units[0]) - 1;
	char num[CELL_BUF];
	size_t u = 0;

	if (!isfinite(ns)) {
		snprintf(buf, size, "-");
		return buf;
	}
	while (u < last && fabs(ns) >= units[u + 1].scale)
		u++;
	format_trimmed(ns / units[u].scale, 3, num, sizeof(num));
	/* 999.9996 us prints as "1000": say "1 ms" instead. */
	if (u < last && fabs(strtod(num, NULL)) >= 1000) {
		u++;
		format_trimmed(ns / units[u].scale, 3, num, sizeof(num));
	}
	snprintf(buf, size, "%s %s", num, units[u].unit);
	return buf;
}

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
	} else {
		format_trimmed(c->number, fmt == TREX_FMT_TEXT ? 3 : 6, buf, size);
	}
	return true;
}

/* ---- UTF-8 ---------------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid. */
static size_t utf8_valid_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

/* ---- text ------------------------------------------------------------------------- */

static bool is_ctrl(unsigned char ch)
{
	return ch < 0x20 || ch == 0x7f;
}

/* Writes s with control characters made visible (\n, \t, \xHH), so one row
 * stays one line; returns its width in characters (UTF-8 lead bytes).
 * out may be NULL to measure only. */
static size_t text_put(FILE *out, const char *s)
{
	size_t width = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		char esc[8];

		if (!is_ctrl(*p)) {
			if ((*p & 0xc0) != 0x80)
				width++;
			if (out)
				putc(*p, out);
			continue;
		}
		if (*p == '\n')
			snprintf(esc, sizeof(esc), "\\n");
		else if (*p == '\t')
			snprintf(esc, sizeof(esc), "\\t");
		else
			snprintf(esc, sizeof(esc), "\\x%02x", *p);
		width += strlen(esc);
		if (out)
			fputs(esc, out);
	}
	return width;
}

const char *trex_table_cell_text_as(const struct trex_column *col, const union trex_cell *cell,
                                    char *buf, size_t size)
{
	if (col->type == TREX_COL_TEXT)
		return cell->text ? cell->text : "";
	if (!format_cell(col, cell, TREX_FMT_TEXT, buf, size))
		snprintf(buf, size, "-");
	return buf;
}

static const char *text_cell(const struct trex_table *t, size_t r, size_t c, char *buf, size_t size)
{
	return trex_table_cell_text_as(&t->cols[c], trex_table_cell(t, r, c), buf, size);
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

static void text_widths(const struct trex_table *t, const struct row_sel *sel, size_t *width)
{
	char buf[CELL_BUF];

	for (size_t c = 0; c < t->ncols; c++)
		width[c] = text_put(NULL, t->cols[c].title);
	for (size_t i = 0; i < sel->n; i++) {
		size_t r = row_at(sel, i);

		for (size_t c = 0; c < t->ncols; c++) {
			size_t w = text_put(NULL, text_cell(t, r, c, buf, sizeof(buf)));

			if (w > width[c])
				width[c] = w;
		}
	}
}

/* Dashes under each title; under the unpadded last column only as wide as
 * its title, so one long name does not draw a rule across the screen. */
static void text_rule(FILE *out, const struct trex_table *t, const size_t *width)
{
	for (size_t c = 0; c < t->ncols; c++) {
		size_t n = width[c];

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
                       size_t *width)
{
	char buf[CELL_BUF];

	text_widths(t, sel, width);
	for (size_t c = 0; c < t->ncols; c++) {
		if (c)
			fputs(COL_GAP, out);
		text_put_cell(out, t->cols[c].title, t->cols[c].type == TREX_COL_TEXT, width[c],
		              c + 1 == t->ncols);
	}
	putc('\n', out);
	text_rule(out, t, width);
	for (size_t i = 0; i < sel->n; i++) {
		size_t r = row_at(sel, i);

		for (size_t c = 0; c < t->ncols; c++) {
			const char *s = text_cell(t, r, c, buf, sizeof(buf));
			bool last = c + 1 == t->ncols;

			if (last && !*s)
				break; /* no trailing blanks before an empty name */
			if (c)
				fputs(COL_GAP, out);
			text_put_cell(out, s, t->cols[c].type == TREX_COL_TEXT, width[c], last);
		}
		putc('\n', out);
	}
}

/* ---- CSV (RFC 4180, LF line ends) --------------------------------------------------- */

static void csv_put(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	putc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', out);
		putc(*s, out);
	}
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

/* A JSON string: quotes, backslashes and control characters escaped,
 * invalid UTF-8 replaced by U+FFFD so the document always parses. */
static void json_put_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);

	putc('"', out);
	while (n) {
		size_t len = utf8_valid_len(p, n);

		if (len == 0) {
			fputs("\\ufffd", out);
			len = 1;
		} else if (*p == '"' || *p == '\\') {
			fprintf(out, "\\%c", *p);
		} else if (*p == '\n') {
			fputs("\\n", out);
		} else if (*p == '\t') {
			fputs("\\t", out);
		} else if (*p == '\r') {
			fputs("\\r", out);
		} else if (is_ctrl(*p)) {
			fprintf(out, "\\u%04x", *p);
		} else {
			fwrite(p, 1, len, out);
		}
		p += len;
		n -= len;
	}
	putc('"', out);
}

static void json_put_value(FILE *out, const struct trex_column *col, const union trex_cell *c)
{
	char buf[CELL_BUF];

	if (col->type == TREX_COL_TEXT)
		json_put_string(out, c->text ? c->text : "");
	else if (format_cell(col, c, TREX_FMT_JSON, buf, sizeof(buf)))
		fputs(buf, out);
	else
		fputs("null", out);
}

static void json_write(FILE *out, const struct trex_table *t, const struct row_sel *sel)
{
	fputs("{\"table\": ", out);
	json_put_string(out, t->name ? t->name : "");
	fputs(", \"columns\": [", out);
	for (size_t c = 0; c < t->ncols; c++) {
		if (c)
			fputs(", ", out);
		json_put_string(out, t->cols[c].key);
	}
	fputs("], \"rows\": [", out);
	for (size_t i = 0; i < sel->n; i++) {
		fputs(i ? ",\n  {" : "\n  {", out);
		for (size_t c = 0; c < t->ncols; c++) {
			if (c)
				fputs(", ", out);
			json_put_string(out, t->cols[c].key);
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
		size_t *width = calloc(t->ncols ? t->ncols : 1, sizeof(*width));

		if (!width)
			return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
		text_write(out, t, &sel, width);
		free(width);
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
