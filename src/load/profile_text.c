#include "config.h"

#include "profile_text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/core/grow.h"
#include "trex/load/source.h"

#define READ_CHUNK ((size_t)4 << 20)

/* ---- whole files ----------------------------------------------------------------------- */

static enum trex_status append(char **buf, size_t *len, size_t *cap, const char *data, size_t n,
                               size_t max, const char *path, struct trex_error *err)
{
	char *b;

	if (*len + n > max)
		return trex_error_set(err, TREX_IO, path, -1,
		                      "too large for a stall report (over %zu MiB)", max >> 20);
	if (!(b = trex_grow(*buf, cap, *len + n + 1, 1, 1 << 16)))
		return trex_error_set(err, TREX_NOMEM, path, -1, "out of memory");
	*buf = b;
	memcpy(b + *len, data, n);
	*len += n;
	b[*len] = '\0';
	return TREX_OK;
}

/* Every decoded byte of src through a stream (gzip, pipes). */
static enum trex_status read_stream(struct trex_source *src, size_t max, char **buf, size_t *len,
                                    struct trex_error *err)
{
	struct trex_stream *st;
	size_t cap = 0;
	enum trex_status s = trex_stream_open(src, READ_CHUNK, TREX_STREAM_INLINE, &st, err);

	while (s == TREX_OK) {
		const char *data;
		size_t n;
		uint64_t offset;
		bool truncated;

		s = trex_stream_next(st, 0, &data, &n, &offset, &truncated, err);
		if (s != TREX_OK || n == 0)
			break;
		s = append(buf, len, &cap, data, n, max, trex_source_path(src), err);
	}
	if (st)
		trex_stream_close(st);
	return s;
}

enum trex_status profile_text_read(const char *path, size_t max, char **text, size_t *len,
                                   struct trex_error *err)
{
	struct trex_source *src;
	enum trex_status s = trex_source_open(path, &src, err);
	const char *map;
	size_t n, cap = 0;

	*text = NULL;
	*len = 0;
	if (s != TREX_OK)
		return s;
	map = trex_source_map(src, &n);
	if (map)
		s = append(text, len, &cap, map, n, max, path, err);
	else
		s = read_stream(src, max, text, len, err);
	if (s == TREX_OK && !*text)
		s = append(text, len, &cap, "", 0, max, path, err);
	trex_source_close(src);
	if (s != TREX_OK) {
		free(*text);
		*text = NULL;
		*len = 0;
	}
	return s;
}

size_t profile_text_head(const char *path, char *buf, size_t max)
{
	struct trex_source *src;
	struct trex_stream *st = NULL;
	struct trex_error err;
	const char *data;
	size_t n = 0, got = 0;
	uint64_t offset;
	bool truncated;

	if (trex_source_open(path, &src, &err) != TREX_OK)
		return 0;
	if ((data = trex_source_map(src, &n)) != NULL) {
		got = n < max ? n : max;
		memcpy(buf, data, got);
	} else if (trex_stream_open(src, 1 << 16, TREX_STREAM_INLINE, &st, &err) == TREX_OK &&
	           trex_stream_next(st, 0, &data, &n, &offset, &truncated, &err) == TREX_OK) {
		got = n < max ? n : max;
		memcpy(buf, data, got);
	}
	if (st)
		trex_stream_close(st);
	trex_source_close(src);
	return got;
}

/* ---- lines and fields ---------------------------------------------------------------------- */

void pcsv_init(struct pcsv *c, const char *text, size_t len)
{
	memset(c, 0, sizeof(*c));
	c->text = text;
	c->len = len;
}

void pcsv_free(struct pcsv *c)
{
	free(c->f);
	free(c->scratch);
	c->f = NULL;
	c->scratch = NULL;
}

bool pcsv_next(struct pcsv *c)
{
	const char *start, *nl;
	size_t n;

	if (c->pos >= c->len)
		return false;
	start = c->text + c->pos;
	nl = memchr(start, '\n', c->len - c->pos);
	n = nl ? (size_t)(nl - start) : c->len - c->pos;
	c->line = start;
	c->line_offset = (int64_t)c->pos;
	c->line_cut = nl == NULL;
	c->pos += n + (nl != NULL);
	if (n > 0 && start[n - 1] == '\r')
		n--;
	c->line_len = n;
	c->lineno++;
	c->nf = 0;
	return true;
}

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

bool pcsv_blank(const struct pcsv *c)
{
	for (size_t i = 0; i < c->line_len; i++)
		if (!is_blank(c->line[i]))
			return false;
	return true;
}

static bool add_field(struct pcsv *c, const char *s, size_t len, size_t col, bool quoted)
{
	struct pcsv_field *f = trex_grow(c->f, &c->cap_f, c->nf + 1, sizeof(*f), 32);

	if (!f)
		return false;
	c->f = f;
	f[c->nf++] = (struct pcsv_field){s, len, (int64_t)col + 1, quoted};
	return true;
}

/* A quoted field from i (at its opening quote): its text undoubled into
 * the scratch buffer at *used; returns the index after the closing quote,
 * or 0 when the line ends first. */
static size_t quoted_field(struct pcsv *c, size_t i, size_t *used, size_t *start)
{
	*start = *used;
	for (i++; i < c->line_len; i++) {
		if (c->line[i] == '"') {
			if (i + 1 < c->line_len && c->line[i + 1] == '"')
				i++;
			else
				return i + 1;
		}
		c->scratch[(*used)++] = c->line[i];
	}
	return 0;
}

int64_t pcsv_split(struct pcsv *c, const char **why)
{
	size_t i = 0, used = 0;
	char *scratch = trex_grow(c->scratch, &c->cap_scratch, c->line_len + 1, 1, 256);

	c->nf = 0;
	if (!scratch)
		return -1;
	c->scratch = scratch; /* big enough for the whole line: fields never move */
	for (;;) {
		size_t col, end, start;

		while (i < c->line_len && is_blank(c->line[i]))
			i++;
		col = i;
		if (i < c->line_len && c->line[i] == '"') {
			if (!(end = quoted_field(c, i, &used, &start))) {
				*why = "a quoted field that does not end on its line";
				return (int64_t)col + 1;
			}
			if (!add_field(c, c->scratch + start, used - start, col, true))
				return -1;
			for (i = end; i < c->line_len && is_blank(c->line[i]); i++)
				;
			if (i < c->line_len && c->line[i] != ',') {
				*why = "text after a closing quote (expected ',')";
				return (int64_t)i + 1;
			}
		} else {
			for (end = i; end < c->line_len && c->line[end] != ','; end++)
				;
			i = end;
			while (end > col && is_blank(c->line[end - 1]))
				end--;
			if (!add_field(c, c->line + col, end - col, col, false))
				return -1;
		}
		if (i >= c->line_len)
			return 0;
		i++; /* the comma */
	}
}

bool pcsv_is(const struct pcsv_field *f, const char *s)
{
	return f->len == strlen(s) && memcmp(f->s, s, f->len) == 0;
}

bool pcsv_u64(const struct pcsv_field *f, uint64_t *out)
{
	uint64_t v = 0;
	size_t digits = 0, group = 0;
	bool grouped = false;

	if (f->len == 0)
		return false;
	for (size_t i = 0; i < f->len; i++) {
		char ch = f->s[i];

		if (ch == ',') { /* 1,234: a group separator needs 1-3 digits before, 3 after */
			if (!digits || (grouped ? group != 3 : group > 3))
				return false;
			grouped = true;
			group = 0;
			continue;
		}
		if (ch < '0' || ch > '9' || v > (UINT64_MAX - (uint64_t)(ch - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(ch - '0');
		digits++;
		group++;
	}
	if (grouped && group != 3)
		return false;
	*out = v;
	return true;
}

int pcsv_hex_digit(char ch)
{
	return ch >= '0' && ch <= '9'   ? ch - '0'
	       : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
	       : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
	                                : -1;
}

bool pcsv_hex(const struct pcsv_field *f, uint64_t *out)
{
	size_t i = 0;
	uint64_t v = 0;

	if (f->len > 2 && f->s[0] == '0' && (f->s[1] == 'x' || f->s[1] == 'X'))
		i = 2;
	if (i == f->len || f->len - i > 16)
		return false;
	for (; i < f->len; i++) {
		int d = pcsv_hex_digit(f->s[i]);

		if (d < 0)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	*out = v;
	return true;
}

void pcsv_problem(const struct pcsv *c, const char *path, int64_t col, struct trex_error *e,
                  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	trex_error_setv(e, TREX_FORMAT, path, c->line_offset + (col > 0 ? col - 1 : 0), fmt, ap);
	va_end(ap);
	trex_error_set_line_col(e, c->lineno, col > 0 ? col : 1);
}

void profile_row_problem(struct profile_ctx *ctx, uint32_t report, const struct pcsv *c,
                         const char *path, int64_t col, const char *fmt, ...)
{
	struct trex_error e;
	char msg[TREX_ERROR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pcsv_problem(c, path, col, &e, "%s", msg);
	profile_problem(ctx, report, &e);
}

bool profile_row_shape(struct profile_ctx *ctx, uint32_t report, const struct pcsv *c,
                       const char *path, size_t want, int64_t header_line)
{
	if (c->nf == want)
		return true;
	if (c->nf > want)
		profile_row_problem(ctx, report, c, path, c->f[want].col,
		                    "expected %zu fields as in the header at line %lld, found %zu",
		                    want, (long long)header_line, c->nf);
	else if (c->line_cut)
		profile_row_problem(ctx, report, c, path, (int64_t)c->line_len + 1,
		                    "the file ends inside this row: %zu of %zu fields", c->nf,
		                    want);
	else
		profile_row_problem(ctx, report, c, path, (int64_t)c->line_len + 1,
		                    "expected %zu fields as in the header at line %lld, found %zu",
		                    want, (long long)header_line, c->nf);
	return false;
}
