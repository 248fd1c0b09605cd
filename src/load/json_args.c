#include "config.h"

#include "trex/load/json_args.h"

#include <stdlib.h>
#include <string.h>

#include "trex/core/grow.h"
#include "trex/load/source.h"

/* ---- decoding one object ----------------------------------------------------------------- */

/* A cursor over the JSON text and the output buffer, which is big enough
 * for everything: unescaping and compacting never grow the text beyond
 * one NUL per key and value. */
struct scan {
	const char *p, *end;
	char *o;
};

static void skip_ws(struct scan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
		s->p++;
}

static int hex4(const char *p, const char *end)
{
	int v = 0;

	if (end - p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		int d = c >= '0' && c <= '9'   ? c - '0'
		        : c >= 'a' && c <= 'f' ? c - 'a' + 10
		        : c >= 'A' && c <= 'F' ? c - 'A' + 10
		                               : -1;

		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

static void put_utf8(struct scan *s, unsigned cp)
{
	if (cp < 0x80) {
		*s->o++ = (char)cp;
	} else if (cp < 0x800) {
		*s->o++ = (char)(0xc0 | cp >> 6);
		*s->o++ = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		*s->o++ = (char)(0xe0 | cp >> 12);
		*s->o++ = (char)(0x80 | (cp >> 6 & 0x3f));
		*s->o++ = (char)(0x80 | (cp & 0x3f));
	} else {
		*s->o++ = (char)(0xf0 | cp >> 18);
		*s->o++ = (char)(0x80 | (cp >> 12 & 0x3f));
		*s->o++ = (char)(0x80 | (cp >> 6 & 0x3f));
		*s->o++ = (char)(0x80 | (cp & 0x3f));
	}
}

/* \uXXXX (s->p after the 'u'), surrogate pairs joined; U+FFFD for a lone
 * surrogate; NUL as C0 80, as the string table keeps it (strtab.h), so the
 * value stays one C string that is shown with its \0. The output (<= 4
 * bytes) never outgrows the 6 or 12 input bytes. */
static bool unescape_u(struct scan *s)
{
	int hi = hex4(s->p, s->end), lo;

	if (hi < 0)
		return false;
	s->p += 4;
	if (hi >= 0xd800 && hi < 0xdc00 && s->end - s->p >= 6 && s->p[0] == '\\' &&
	    s->p[1] == 'u' && (lo = hex4(s->p + 2, s->end)) >= 0xdc00 && lo < 0xe000) {
		s->p += 6;
		put_utf8(s, 0x10000 + ((unsigned)(hi - 0xd800) << 10) + (unsigned)(lo - 0xdc00));
		return true;
	}
	if (hi == 0) {
		*s->o++ = (char)0xc0;
		*s->o++ = (char)0x80;
		return true;
	}
	put_utf8(s, hi >= 0xd800 && hi < 0xe000 ? 0xfffd : (unsigned)hi);
	return true;
}

static bool unescape(struct scan *s)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *k;

	if (s->p >= s->end)
		return false;
	if (*s->p == 'u') {
		s->p++;
		return unescape_u(s);
	}
	k = strchr(from, *s->p);
	if (!k || !*s->p)
		return false;
	*s->o++ = to[k - from];
	s->p++;
	return true;
}

/* A string (s->p on its opening quote), unescaped and NUL-terminated. */
static const char *scan_string(struct scan *s)
{
	char *start = s->o;

	s->p++;
	while (s->p < s->end && *s->p != '"') {
		if (*s->p == '\\') {
			s->p++;
			if (!unescape(s))
				return NULL;
		} else {
			*s->o++ = *s->p++;
		}
	}
	if (s->p >= s->end)
		return NULL;
	s->p++;
	*s->o++ = '\0';
	return start;
}

/* An object or array copied without the blanks between tokens. */
static const char *scan_compact(struct scan *s)
{
	char *start = s->o;
	int depth = 0;
	bool in_str = false;

	for (; s->p < s->end; s->p++) {
		char c = *s->p;

		if (in_str) {
			*s->o++ = c;
			if (c == '\\' && s->p + 1 < s->end)
				*s->o++ = *++s->p;
			else if (c == '"')
				in_str = false;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
			continue;
		*s->o++ = c;
		if (c == '"')
			in_str = true;
		else if (c == '{' || c == '[')
			depth++;
		else if ((c == '}' || c == ']') && --depth == 0) {
			s->p++;
			*s->o++ = '\0';
			return start;
		}
	}
	return NULL;
}

/* A number, true, false or null: the bytes up to the next delimiter. */
static const char *scan_scalar(struct scan *s)
{
	char *start = s->o;

	while (s->p < s->end && !strchr(",}] \t\r\n", *s->p))
		*s->o++ = *s->p++;
	if (s->o == start)
		return NULL;
	*s->o++ = '\0';
	return start;
}

static const char *scan_value(struct scan *s)
{
	skip_ws(s);
	if (s->p >= s->end)
		return NULL;
	if (*s->p == '"')
		return scan_string(s);
	if (*s->p == '{' || *s->p == '[')
		return scan_compact(s);
	return scan_scalar(s);
}

/* One "key": value member; false when it does not parse. */
static bool scan_member(struct scan *s, struct trex_arg *a)
{
	skip_ws(s);
	if (s->p >= s->end || *s->p != '"' || !(a->key = scan_string(s)))
		return false;
	skip_ws(s);
	if (s->p >= s->end || *s->p != ':')
		return false;
	s->p++;
	return (a->value = scan_value(s)) != NULL;
}

static enum trex_status push_arg(struct trex_args *out, size_t *cap, const struct trex_arg *a,
                                 struct trex_error *err)
{
	struct trex_arg *v = trex_grow(out->v, cap, out->n + 1, sizeof(*v), 8);

	if (!v)
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	out->v = v;
	out->v[out->n++] = *a;
	return TREX_OK;
}

/* After a member: true with s->p past a ',', false at the closing '}'
 * (*done) or at junk. */
static bool next_member(struct scan *s, bool *done)
{
	skip_ws(s);
	*done = s->p < s->end && *s->p == '}';
	if (s->p < s->end && *s->p == ',') {
		s->p++;
		return true;
	}
	return false;
}

static enum trex_status decode_members(struct scan *s, struct trex_args *out, bool *complete,
                                       struct trex_error *err)
{
	size_t cap = 0;
	struct trex_arg a;

	skip_ws(s);
	if (s->p < s->end && *s->p == '}') {
		*complete = true;
		return TREX_OK;
	}
	for (;;) {
		enum trex_status st;
		bool more;

		if (!scan_member(s, &a))
			return TREX_OK;
		if ((st = push_arg(out, &cap, &a, err)) != TREX_OK)
			return st;
		more = next_member(s, complete);
		if (!more)
			return TREX_OK;
	}
}

enum trex_status trex_json_args_decode(const char *json, size_t len, struct trex_args *out,
                                       bool *truncated, struct trex_error *err)
{
	struct scan s = {json, json + len, NULL};
	bool complete = false;
	enum trex_status st;

	memset(out, 0, sizeof(*out));
	if (truncated)
		*truncated = false;
	if (!(out->buf = malloc(len + len + 2)))
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	s.o = out->buf;
	skip_ws(&s);
	if (s.p < s.end && *s.p == '{') {
		s.p++;
		st = decode_members(&s, out, &complete, err);
		if (st != TREX_OK) {
			trex_args_free(out);
			return st;
		}
	}
	if (truncated)
		*truncated = !complete;
	return TREX_OK;
}

/* ---- reading objects back from the source -------------------------------------------------- */

struct text_buf {
	char *p;
	size_t len, cap;
};

static bool buf_reserve(struct text_buf *b, size_t more)
{
	size_t cap = b->cap ? b->cap : 256;
	char *p;

	if (b->len + more + 1 <= b->cap)
		return true;
	while (cap < b->len + more + 1)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p)
		return false;
	b->p = p;
	b->cap = cap;
	return true;
}

/* Brace matching that knows JSON strings: braces inside "..." (with
 * backslash escapes) do not count. */
struct brace_scan {
	int64_t depth;
	bool in_string, escaped;
};

/* Consumes n bytes; returns how many belong to the object when it closed
 * within them, else 0. */
static size_t brace_feed(struct brace_scan *sc, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = p[i];

		if (sc->in_string) {
			if (sc->escaped)
				sc->escaped = false;
			else if (c == '\\')
				sc->escaped = true;
			else if (c == '"')
				sc->in_string = false;
		} else if (c == '"') {
			sc->in_string = true;
		} else if (c == '{' || c == '[') {
			sc->depth++;
		} else if ((c == '}' || c == ']') && --sc->depth == 0) {
			return i + 1;
		}
	}
	return 0;
}

enum { ARGS_SCAN_BLOCK = 1 << 16 };

/* Args too long for the reference's length field: read forward until the
 * object that starts at offset closes. */
static enum trex_status args_rescan(struct trex_source *src, uint64_t offset, struct text_buf *b,
                                    struct trex_error *err)
{
	struct brace_scan sc = {0, false, false};

	for (;;) {
		size_t got = 0, used;
		enum trex_status st;

		if (!buf_reserve(b, ARGS_SCAN_BLOCK))
			return trex_error_set(err, TREX_NOMEM, NULL, -1,
			                      "out of memory reading args");
		st = trex_source_read(src, offset + b->len, ARGS_SCAN_BLOCK, b->p + b->len, &got,
		                      err);
		if (st != TREX_OK)
			return st;
		if (got == 0)
			return trex_error_set(err, TREX_FORMAT, trex_source_path(src),
			                      (int64_t)offset,
			                      "args object does not close before the end of input");
		if (b->len == 0 && b->p[0] != '{')
			return trex_error_set(err, TREX_FORMAT, trex_source_path(src),
			                      (int64_t)offset, "expected '{' at the start of args");
		used = brace_feed(&sc, b->p + b->len, got);
		b->len += used ? used : got;
		if (used)
			return TREX_OK;
	}
}

static enum trex_status args_read(struct trex_source *src, uint64_t offset, uint32_t len,
                                  struct text_buf *b, struct trex_error *err)
{
	size_t got = 0;
	enum trex_status st;

	if (!buf_reserve(b, len))
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory reading args");
	st = trex_source_read(src, offset, len, b->p, &got, err);
	if (st != TREX_OK)
		return st;
	if (got != len)
		return trex_error_set(err, TREX_FORMAT, trex_source_path(src), (int64_t)offset,
		                      "args run past the end of input");
	b->len = len;
	return TREX_OK;
}

/* The object's text, malloc'd and NUL-terminated; none for a length 0. */
static enum trex_status json_text(void *ctx, trex_args_ref ref, char **out, size_t *len,
                                  struct trex_error *err)
{
	struct text_buf b = {NULL, 0, 0};
	uint32_t n = trex_json_args_len(ref);
	struct trex_source *src = ctx;
	enum trex_status st;

	*out = NULL;
	*len = 0;
	if (n == 0)
		return TREX_OK;
	if (n == TREX_JSON_ARGS_LEN_MAX)
		st = args_rescan(src, trex_json_args_offset(ref), &b, err);
	else
		st = args_read(src, trex_json_args_offset(ref), n, &b, err);
	if (st != TREX_OK) {
		free(b.p);
		return st;
	}
	b.p[b.len] = '\0';
	*out = b.p;
	*len = b.len;
	return TREX_OK;
}

static enum trex_status json_decode_one(void *ctx, trex_args_ref ref, struct trex_args *out,
                                        bool *truncated, struct trex_error *err)
{
	char *text = NULL;
	size_t len = 0;
	enum trex_status st = json_text(ctx, ref, &text, &len, err);

	memset(out, 0, sizeof(*out));
	if (truncated)
		*truncated = false;
	if (st == TREX_OK && text)
		st = trex_json_args_decode(text, len, out, truncated, err);
	free(text);
	return st;
}

/* ---- many objects: read in windows, in file order ------------------------------------------- */

/* Decoded bytes read at once: objects close together share one read (a
 * gzip read costs up to one access-point span of inflate however short it
 * is), so a gzip source is inflated about once however many are read. */
#define WINDOW ((size_t)4 << 20)

struct at_ref {
	uint64_t off;
	uint32_t len;
	size_t i; /* index into the batch */
};

static int cmp_at_ref(const void *a, const void *b)
{
	const struct at_ref *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* Where read_windows sends each object: decoded (decode_each) or as its
 * text (json_each). */
struct args_sink {
	trex_args_each_fn *decoded;
	trex_args_json_fn *text;
	void *user;
};

static enum trex_status report(const char *text, size_t len, size_t i, const struct args_sink *to,
                               struct trex_error *err)
{
	struct trex_args a;
	enum trex_status st;

	if (to->text)
		return to->text(to->user, i, text, len, err);
	st = trex_json_args_decode(text, len, &a, NULL, err);
	if (st == TREX_OK)
		st = to->decoded(to->user, i, &a, err);
	trex_args_free(&a);
	return st;
}

/* Objects longer than a window (or than a reference can say) on their own. */
static enum trex_status report_alone(void *ctx, const struct at_ref *r, trex_args_ref ref,
                                     const struct args_sink *to, struct trex_error *err)
{
	char *text = NULL;
	size_t len = 0;
	enum trex_status st = json_text(ctx, ref, &text, &len, err);

	if (st == TREX_OK)
		st = report(text ? text : "", len, r->i, to, err);
	free(text);
	return st;
}

static enum trex_status read_windows(void *ctx, const trex_args_ref *refs, const struct at_ref *v,
                                     size_t n, char *buf, const struct args_sink *to,
                                     struct trex_error *err)
{
	struct trex_source *src = ctx;
	enum trex_status st = TREX_OK;

	for (size_t a = 0, b; st == TREX_OK && a < n; a = b) {
		size_t got = 0;

		for (b = a + 1; b < n && v[b].off + v[b].len - v[a].off <= WINDOW; b++)
			;
		if (v[a].len > WINDOW || v[a].len >= TREX_JSON_ARGS_LEN_MAX) {
			st = report_alone(ctx, &v[a], refs[v[a].i], to, err);
			b = a + 1;
			continue;
		}
		st = trex_source_read(src, v[a].off,
		                      (size_t)(v[b - 1].off + v[b - 1].len - v[a].off), buf, &got,
		                      err);
		for (size_t k = a; st == TREX_OK && k < b; k++) {
			if (v[k].off + v[k].len - v[a].off > got)
				return trex_error_set(err, TREX_FORMAT, trex_source_path(src),
				                      (int64_t)v[k].off,
				                      "args run past the end of input");
			st = report(buf + (v[k].off - v[a].off), v[k].len, v[k].i, to, err);
		}
	}
	return st;
}

/* The objects of refs in file order, windows at a time, to the sink. */
static enum trex_status json_each_to(void *ctx, const trex_args_ref *refs, size_t n,
                                     const struct args_sink *to, struct trex_error *err)
{
	struct at_ref *v = malloc((n ? n : 1) * sizeof(*v));
	char *buf = malloc(WINDOW);
	enum trex_status st = TREX_OK;

	if (!v || !buf)
		st = trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory reading args");
	for (size_t i = 0; st == TREX_OK && i < n; i++)
		v[i] =
		    (struct at_ref){trex_json_args_offset(refs[i]), trex_json_args_len(refs[i]), i};
	if (st == TREX_OK && n > 1)
		qsort(v, n, sizeof(*v), cmp_at_ref);
	if (st == TREX_OK)
		st = read_windows(ctx, refs, v, n, buf, to, err);
	free(v);
	free(buf);
	return st;
}

static enum trex_status json_decode_each(void *ctx, const trex_args_ref *refs, size_t n,
                                         trex_args_each_fn *fn, void *user, struct trex_error *err)
{
	const struct args_sink to = {fn, NULL, user};

	return json_each_to(ctx, refs, n, &to, err);
}

/* A plain source is mapped: each object straight from the mapping, in
 * the caller's order (objects whose length the reference lacks are found
 * by json_text). */
static enum trex_status json_text_mapped(void *ctx, const char *map, size_t size,
                                         const trex_args_ref *refs, size_t n, trex_args_json_fn *fn,
                                         void *user, struct trex_error *err)
{
	enum trex_status st = TREX_OK;

	for (size_t i = 0; st == TREX_OK && i < n; i++) {
		uint64_t off = trex_json_args_offset(refs[i]);
		uint32_t len = trex_json_args_len(refs[i]);

		if (len < TREX_JSON_ARGS_LEN_MAX && off + len <= size) {
			st = fn(user, i, map + off, len, err);
			continue;
		}
		char *text = NULL;
		size_t tlen = 0;

		st = json_text(ctx, refs[i], &text, &tlen, err);
		if (st == TREX_OK)
			st = fn(user, i, text ? text : "", tlen, err);
		free(text);
	}
	return st;
}

static enum trex_status json_text_each(void *ctx, const trex_args_ref *refs, size_t n,
                                       trex_args_json_fn *fn, void *user, struct trex_error *err)
{
	const struct args_sink to = {NULL, fn, user};
	size_t size = 0;
	const char *map = trex_source_map(ctx, &size);

	if (map)
		return json_text_mapped(ctx, map, size, refs, n, fn, user, err);
	return json_each_to(ctx, refs, n, &to, err);
}

/* ---- the codec ------------------------------------------------------------------------------- */

static enum trex_status json_positions(void *ctx, const uint64_t *offsets, size_t n, int64_t *line,
                                       int64_t *col, int64_t *disk, struct trex_error *err)
{
	return trex_source_positions(ctx, offsets, n, line, col, disk, err);
}

static size_t json_memory(const void *ctx)
{
	return trex_source_memory(ctx);
}

static void json_close(void *ctx)
{
	trex_source_close(ctx);
}

const struct trex_args_codec trex_json_args_codec = {
    .name = "json",
    .decode = json_decode_one,
    .json = json_text,
    .decode_each = json_decode_each,
    .positions = json_positions,
    .memory = json_memory,
    .close = json_close,
    .json_each = json_text_each,
    .save = trex_source_codec_save,
    .reopen = trex_source_codec_reopen,
};
