#include "config.h"

#include "trex/analysis/copy_bytes.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/slice_info.h"
#include "trex/load/source.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
/* Decoded bytes read at once: args close together share one read (a gzip
 * read costs up to one access-point span of inflate however short it is). */
#define WINDOW ((size_t)4 << 20)

/* An args object to read: where it is and whose it is. */
struct ref {
	uint32_t file;
	uint64_t off;
	uint32_t len;
	size_t i; /* index into ids / out */
};

static int cmp_ref(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return (x->off > y->off) - (x->off < y->off);
}

/* A non-negative decimal integer, all of text; false otherwise. */
static bool parse_count(const char *text, int64_t *out)
{
	int64_t v = 0;

	if (!*text)
		return false;
	for (const char *p = text; *p; p++) {
		if (*p < '0' || *p > '9' || v > (INT64_MAX - (*p - '0')) / 10)
			return false;
		v = v * 10 + (*p - '0');
	}
	*out = v;
	return true;
}

/* The first of keys that args json[0..len) holds as a count, into *out. */
static enum trex_status count_arg(const char *json, size_t len, const char *const *keys,
                                  size_t nkeys, int64_t *out, struct trex_error *err)
{
	struct trex_args a;
	enum trex_status st = trex_args_decode(json, len, &a, NULL, err);

	for (size_t k = 0; st == TREX_OK && k < nkeys; k++) {
		for (size_t i = 0; i < a.n; i++) {
			if (strcmp(a.v[i].key, keys[k]) == 0 && parse_count(a.v[i].value, out)) {
				trex_args_free(&a);
				return TREX_OK;
			}
		}
	}
	if (st == TREX_OK)
		trex_args_free(&a);
	return st;
}

/* Reads refs v[0..n) (sorted) window by window; args longer than a window
 * (or than a reference can say) are read on their own. */
static enum trex_status read_refs(const struct trex_index *idx, const struct ref *v, size_t n,
                                  const char *const *keys, size_t nkeys, int64_t *out,
                                  char *buf, struct trex_error *err)
{
	enum trex_status st = TREX_OK;

	for (size_t a = 0, b; st == TREX_OK && a < n; a = b) {
		struct trex_source *src = trex_index_file(idx, v[a].file)->source;
		size_t got = 0;

		for (b = a + 1;
		     b < n && v[b].file == v[a].file && v[b].off + v[b].len - v[a].off <= WINDOW; b++)
			;
		if (v[a].len > WINDOW || !src) {
			char *text = NULL;
			size_t len = 0;

			st = trex_index_args_text(idx, v[a].file,
			                          trex_args_ref_make(v[a].off, v[a].len), &text, &len,
			                          err);
			if (st == TREX_OK)
				st = count_arg(text, len, keys, nkeys, &out[v[a].i], err);
			free(text);
			b = a + 1;
			continue;
		}
		st = trex_source_read(src, v[a].off, (size_t)(v[b - 1].off + v[b - 1].len - v[a].off),
		                      buf, &got, err);
		for (size_t k = a; st == TREX_OK && k < b; k++) {
			if (v[k].off + v[k].len - v[a].off > got)
				return trex_error_set(err, TREX_FORMAT, trex_source_path(src),
				                      (int64_t)v[k].off, "args run past the end of input");
			st = count_arg(buf + (v[k].off - v[a].off), v[k].len, keys, nkeys,
			               &out[v[k].i], err);
		}
	}
	return st;
}

/* Reads the counts of the slices at[i] (TREX_NONE: skipped) whose out[i]
 * is still unknown. */
static enum trex_status read_counts(const struct trex_index *idx, const uint32_t *at, size_t n,
                                    const char *const *keys, size_t nkeys, int64_t *out,
                                    struct trex_error *err)
{
	struct ref *v = malloc((n ? n : 1) * sizeof(*v));
	char *buf = malloc(WINDOW);
	size_t m = 0;
	enum trex_status st = TREX_OK;

	if (!v || !buf)
		st = trex_error_set(err, TREX_NOMEM, NULL, -1, "copy bytes: out of memory");
	for (size_t i = 0; st == TREX_OK && i < n; i++) {
		const struct trex_slice *s;

		if (at[i] == TREX_NONE || out[i] >= 0)
			continue;
		s = trex_index_slice(idx, at[i]);
		if (trex_args_ref_len(s->args))
			v[m++] = (struct ref){trex_index_track_file(idx, s->track),
			                      trex_args_ref_offset(s->args), trex_args_ref_len(s->args), i};
	}
	if (st == TREX_OK && m > 1)
		qsort(v, m, sizeof(*v), cmp_ref);
	if (st == TREX_OK)
		st = read_refs(idx, v, m, keys, nkeys, out, buf, err);
	free(v);
	free(buf);
	return st;
}

enum trex_status trex_copy_bytes(const struct trex_index *idx, const uint32_t *ids, size_t n,
                                 int64_t *out, struct trex_error *err)
{
	static const char *const own[] = {"bytes"};
	static const char *const launch[] = {"bytes", "size"};
	uint32_t *rt;
	enum trex_status st;

	for (size_t i = 0; i < n; i++)
		out[i] = -1;
	st = read_counts(idx, ids, n, own, ARRAY_LEN(own), out, err);
	if (st != TREX_OK)
		return st;
	if (!(rt = malloc((n ? n : 1) * sizeof(*rt))))
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "copy bytes: out of memory");
	for (size_t i = 0; i < n; i++)
		rt[i] = out[i] < 0 ? trex_index_launch_of(idx, ids[i]) : TREX_NONE;
	st = read_counts(idx, rt, n, launch, ARRAY_LEN(launch), out, err);
	free(rt);
	return st;
}
