#include "config.h"

#include "trex/analysis/table_order.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#define ELLIPSIS "\xe2\x80\xa6" /* U+2026 */
#define NEST_MAX 256            /* deeper brackets are left unfolded */

size_t trex_table_name_col(const struct trex_table *t)
{
	for (size_t c = t->ncols; c-- > 0;) {
		if (t->cols[c].type == TREX_COL_TEXT)
			return c;
	}
	return t->ncols;
}

/* ---- sorting -------------------------------------------------------------------------- */

struct sort_key {
	const struct trex_table *t;
	size_t col, name_col;
	bool desc;
};

static double cell_number(const struct trex_table *t, size_t r, size_t c)
{
	const union trex_cell *cell = trex_table_cell(t, r, c);
	double v = t->cols[c].type == TREX_COL_COUNT ? (double)cell->count : cell->number;

	return isnan(v) ? -INFINITY : v;
}

static const char *cell_text(const struct trex_table *t, size_t r, size_t c)
{
	const char *s = trex_table_cell(t, r, c)->text;

	return s ? s : "";
}

static int cmp_rows(const struct sort_key *k, size_t a, size_t b)
{
	const struct trex_table *t = k->t;
	int c;

	if (t->cols[k->col].type == TREX_COL_TEXT) {
		c = strcmp(cell_text(t, a, k->col), cell_text(t, b, k->col));
	} else {
		double x = cell_number(t, a, k->col), y = cell_number(t, b, k->col);

		c = (x > y) - (x < y);
	}
	if (k->desc)
		c = -c;
	if (!c && k->name_col < t->ncols && k->name_col != k->col)
		c = strcmp(cell_text(t, a, k->name_col), cell_text(t, b, k->name_col));
	return c ? c : (a > b) - (a < b);
}

/* Bottom-up merge sort: qsort has no context argument in C17. */
static void merge_sort(const struct sort_key *k, size_t *v, size_t *tmp, size_t n)
{
	size_t *src = v, *dst = tmp;

	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, o = lo;

			while (i < mid && j < hi)
				dst[o++] = cmp_rows(k, src[j], src[i]) < 0 ? src[j++] : src[i++];
			while (i < mid)
				dst[o++] = src[i++];
			while (j < hi)
				dst[o++] = src[j++];
		}
		size_t *swap = src;
		src = dst;
		dst = swap;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
}

enum trex_status trex_table_sort_rows(const struct trex_table *t, size_t col, bool desc,
                                      size_t name_col, size_t *rows, size_t n)
{
	struct sort_key k = {t, col, name_col, desc};
	size_t *tmp;

	if (col >= t->ncols || n < 2)
		return TREX_OK;
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return TREX_NOMEM;
	merge_sort(&k, rows, tmp, n);
	free(tmp);
	return TREX_OK;
}

/* ---- filtering ------------------------------------------------------------------------- */

struct trex_regex {
	pcre2_code *code;
	pcre2_match_data *md;
};

static bool has_upper(const char *s)
{
	for (; *s; s++) {
		if (*s >= 'A' && *s <= 'Z')
			return true;
	}
	return false;
}

enum trex_status trex_regex_compile(const char *pattern, struct trex_regex **out,
                                    struct trex_error *err)
{
	uint32_t flags =
	    PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | (has_upper(pattern) ? 0 : PCRE2_CASELESS);
	struct trex_regex *re = calloc(1, sizeof(*re));
	PCRE2_SIZE off;
	int code;

	*out = NULL;
	if (!re)
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	re->code =
	    pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, flags, &code, &off, NULL);
	if (!re->code) {
		PCRE2_UCHAR text[160];

		free(re);
		pcre2_get_error_message(code, text, sizeof(text));
		return trex_error_set(err, TREX_USAGE, NULL, -1, "%s at %zu", (const char *)text,
		                      (size_t)off);
	}
	re->md = pcre2_match_data_create_from_pattern(re->code, NULL);
	if (!re->md) {
		trex_regex_free(re);
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	*out = re;
	return TREX_OK;
}

bool trex_regex_match(const struct trex_regex *re, const char *s)
{
	return pcre2_match(re->code, (PCRE2_SPTR)s, PCRE2_ZERO_TERMINATED, 0, 0, re->md, NULL) >= 0;
}

void trex_regex_free(struct trex_regex *re)
{
	if (!re)
		return;
	pcre2_match_data_free(re->md);
	pcre2_code_free(re->code);
	free(re);
}

size_t trex_table_filter_rows(const struct trex_table *t, size_t col, const struct trex_regex *re,
                              const size_t *in, size_t n, size_t *out)
{
	size_t kept = 0;

	if (col >= t->ncols || t->cols[col].type != TREX_COL_TEXT)
		return 0;
	for (size_t i = 0; i < n; i++) {
		size_t r = in[i];

		if (trex_regex_match(re, cell_text(t, r, col)))
			out[kept++] = r;
	}
	return kept;
}

/* ---- transposing -------------------------------------------------------------------------- */

/* Does the text label cell after count cell c (row r) start with what the
 * count says, "rank 3 GPU 0" after rank 3? */
static bool said_next(const struct trex_table *t, size_t r, size_t c, size_t label_cols)
{
	const char *next;
	char said[96];
	size_t n;

	if (c + 1 >= label_cols || c + 1 >= t->ncols || t->cols[c + 1].type != TREX_COL_TEXT)
		return false;
	next = trex_table_cell(t, r, c + 1)->text;
	n = (size_t)snprintf(said, sizeof(said), "%s %lld", t->cols[c].key,
	                     (long long)trex_table_cell(t, r, c)->count);
	return next && n < sizeof(said) && strncmp(next, said, n) == 0 &&
	       (next[n] == ' ' || next[n] == '\0');
}

/* The title of row r's column: its label cells joined with blanks (a count
 * the next label already says left out). */
static const char *row_label(struct trex_table *out, const struct trex_table *t, size_t r,
                             size_t label_cols)
{
	char buf[512];
	size_t len = 0;

	buf[0] = '\0';
	for (size_t c = 0; c < label_cols && c < t->ncols && len < sizeof(buf); c++) {
		const union trex_cell *cell = trex_table_cell(t, r, c);
		int n;

		if (t->cols[c].type == TREX_COL_COUNT && said_next(t, r, c, label_cols))
			continue;
		if (t->cols[c].type == TREX_COL_TEXT)
			n = snprintf(buf + len, sizeof(buf) - len, "%s%s", len ? " " : "",
			             cell->text ? cell->text : "");
		else if (t->cols[c].type == TREX_COL_COUNT)
			n = snprintf(buf + len, sizeof(buf) - len, "%s%s %lld", len ? " " : "",
			             t->cols[c].key, (long long)cell->count);
		else
			n = snprintf(buf + len, sizeof(buf) - len, "%s%g", len ? " " : "",
			             cell->number);
		len += n > 0 ? (size_t)n : 0;
	}
	len = len < sizeof(buf) ? len : sizeof(buf) - 1;
	return trex_table_strdup(out, buf, len);
}

static enum trex_status transpose_cells(const struct trex_table *t, size_t label_cols,
                                        struct trex_table *out, enum trex_col_type *types)
{
	for (size_t c = label_cols; c < t->ncols; c++) {
		union trex_cell *cell = trex_table_add_row(out);

		if (!cell)
			return TREX_NOMEM;
		types[c - label_cols] = t->cols[c].type;
		cell[0].text = trex_table_strdup(out, t->cols[c].title, strlen(t->cols[c].title));
		if (!cell[0].text)
			return TREX_NOMEM;
		for (size_t r = 0; r < t->nrows; r++) {
			const union trex_cell *in = trex_table_cell(t, r, c);

			if (t->cols[c].type == TREX_COL_COUNT)
				cell[1 + r].number = (double)in->count;
			else if (t->cols[c].type == TREX_COL_TEXT)
				cell[1 + r].number = NAN;
			else
				cell[1 + r].number = in->number;
		}
	}
	return TREX_OK;
}

enum trex_status trex_table_transpose(const struct trex_table *t, size_t label_cols,
                                      struct trex_table *out, enum trex_col_type **types,
                                      struct trex_error *err)
{
	struct trex_column *cols = trex_table_init_owned(out, t->name, 1 + t->nrows);
	size_t nmetrics = t->ncols > label_cols ? t->ncols - label_cols : 0;
	enum trex_status st = TREX_NOMEM;

	*types = NULL;
	if (cols && (*types = malloc((nmetrics ? nmetrics : 1) * sizeof(**types)))) {
		st = TREX_OK;
		cols[0] = (struct trex_column){"metric", "Metric", TREX_COL_TEXT, false};
		for (size_t r = 0; r < t->nrows && st == TREX_OK; r++) {
			const char *label = row_label(out, t, r, label_cols);

			cols[1 + r] = (struct trex_column){label, label, TREX_COL_NUMBER, true};
			st = label ? TREX_OK : TREX_NOMEM;
		}
		/* nothing to show per metric without a row: empty too, same note */
		if (st == TREX_OK && t->nrows)
			st = transpose_cells(t, label_cols, out, *types);
		if (st == TREX_OK && t->note &&
		    !(out->note = trex_table_strdup(out, t->note, strlen(t->note))))
			st = TREX_NOMEM;
	}
	if (st != TREX_OK) {
		free(*types);
		*types = NULL;
		trex_table_free(out);
		return trex_error_set(err, st, NULL, -1, "out of memory");
	}
	return TREX_OK;
}

/* ---- name shortening -------------------------------------------------------------------- */

struct sink {
	char *buf;
	size_t size, len;
};

static void put(struct sink *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++, o->len++) {
		if (o->len + 1 < o->size)
			o->buf[o->len] = s[i];
	}
}

static bool is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* Operator symbols, longest first so that "operator<<<int>" is operator<<
 * followed by a template argument list. */
static const char *const op_tokens[] = {
    "<<=", ">>=", "<=>", "->*", "()", "[]", "<<", ">>", "<=", ">=", "==", "!=", "&&",
    "||",  "++",  "--",  "->",  "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<",
    ">",   "=",   "!",   "+",   "-",  "*",  "/",  "%",  "&",  "|",  "^",  "~",  ","};

/* Length of "operator" + its symbol at s (spaces between allowed), 0 when s
 * does not start the keyword. */
static size_t operator_len(const char *name, const char *s)
{
	size_t n = 8;

	if (strncmp(s, "operator", 8) != 0 || (s > name && is_ident(s[-1])) || is_ident(s[8]))
		return 0;
	while (s[n] == ' ')
		n++;
	for (size_t i = 0; i < sizeof(op_tokens) / sizeof(op_tokens[0]); i++) {
		size_t len = strlen(op_tokens[i]);

		if (strncmp(s + n, op_tokens[i], len) == 0)
			return n + len;
	}
	return n;
}

/* Index of the bracket closing the one at s[0], or 0 when unbalanced. */
static size_t closing(const char *s)
{
	char stack[NEST_MAX];
	size_t depth = 0;

	for (size_t i = 0; s[i]; i++) {
		char c = s[i];

		if (c == '<' || c == '(') {
			if (depth == NEST_MAX)
				return 0;
			stack[depth++] = c == '<' ? '>' : ')';
		} else if ((c == '>' && !(i > 0 && s[i - 1] == '-')) || c == ')') {
			if (depth == 0 || stack[depth - 1] != c)
				return 0;
			if (--depth == 0)
				return i;
		} else if (strncmp(s + i, "operator", 8) == 0 && !is_ident(s[i + 8]) &&
		           (i == 0 || !is_ident(s[i - 1]))) {
			i += operator_len(s, s + i) - 1;
		}
	}
	return 0;
}

size_t trex_name_shorten(const char *name, char *buf, size_t size)
{
	struct sink o = {buf, size, 0};

	for (const char *s = name; *s;) {
		size_t op = operator_len(name, s), end;

		if (op) {
			put(&o, s, op);
			s += op;
		} else if ((*s == '<' || *s == '(') && (end = closing(s)) > 1) {
			put(&o, s, 1);
			put(&o, ELLIPSIS, strlen(ELLIPSIS));
			put(&o, s + end, 1);
			s += end + 1;
		} else {
			put(&o, s++, 1);
		}
	}
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return o.len;
}
