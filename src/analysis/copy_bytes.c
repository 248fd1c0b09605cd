#include "config.h"

#include "trex/analysis/copy_bytes.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/slice_info.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* An args object to read: its file, its reference and whose it is. */
struct ref {
	uint32_t file;
	trex_args_ref args;
	size_t i; /* index into ids / out */
};

static int cmp_ref(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;

	return (x->file > y->file) - (x->file < y->file);
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

/* One file's batch: the refs read and where their counts go. */
struct batch {
	const struct ref *v;
	const char *const *keys;
	size_t nkeys;
	int64_t *out;
};

/* The first of the batch's keys that args holds as a count. */
static enum trex_status count_arg(void *user, size_t i, const struct trex_args *args,
                                  struct trex_error *err)
{
	const struct batch *b = user;

	(void)err;
	for (size_t k = 0; k < b->nkeys; k++)
		for (size_t j = 0; j < args->n; j++)
			if (strcmp(args->v[j].key, b->keys[k]) == 0 &&
			    parse_count(args->v[j].value, &b->out[b->v[i].i]))
				return TREX_OK;
	return TREX_OK;
}

/* Reads refs v[0..n) (sorted by file) file by file through its codec. */
static enum trex_status read_refs(const struct trex_index *idx, const struct ref *v, size_t n,
                                  struct batch *b, trex_args_ref *refs, struct trex_error *err)
{
	enum trex_status st = TREX_OK;

	for (size_t a = 0, e; st == TREX_OK && a < n; a = e) {
		for (e = a; e < n && v[e].file == v[a].file; e++)
			refs[e - a] = v[e].args;
		b->v = v + a;
		st = trex_index_args_each(idx, v[a].file, refs, e - a, count_arg, b, err);
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
	trex_args_ref *refs = malloc((n ? n : 1) * sizeof(*refs));
	struct batch b = {NULL, keys, nkeys, out};
	size_t m = 0;
	enum trex_status st = TREX_OK;

	if (!v || !refs)
		st = trex_error_set(err, TREX_NOMEM, NULL, -1, "copy bytes: out of memory");
	for (size_t i = 0; st == TREX_OK && i < n; i++) {
		const struct trex_slice *s;

		if (at[i] == TREX_NONE || out[i] >= 0)
			continue;
		s = trex_index_slice(idx, at[i]);
		if (s->args != TREX_ARGS_NONE)
			v[m++] = (struct ref){trex_index_track_file(idx, s->track), s->args, i};
	}
	if (st == TREX_OK && m > 1)
		qsort(v, m, sizeof(*v), cmp_ref);
	if (st == TREX_OK)
		st = read_refs(idx, v, m, &b, refs, err);
	free(v);
	free(refs);
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
