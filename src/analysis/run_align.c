#include "config.h"

#include "trex/analysis/run_align.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/core/kind.h"
#include "trex/core/strtab.h"

#define STEP_PREFIX "ProfilerStep#"

/* One occurrence: a step's number (or 0 for a name), its start, its slice. */
struct occurrence {
	uint64_t n;
	int64_t ts;
	uint32_t id;
};

struct occurrences {
	struct occurrence *v;
	size_t n, cap;
};

/* Appends o; false when out of memory (the list is freed then). */
static bool occurrences_push(struct occurrences *l, struct occurrence o)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct occurrence *grown = realloc(l->v, cap * sizeof(*grown));

		if (!grown) {
			free(l->v);
			l->v = NULL;
			return false;
		}
		l->v = grown;
		l->cap = cap;
	}
	l->v[l->n++] = o;
	return true;
}

static int occurrence_cmp(const void *pa, const void *pb)
{
	const struct occurrence *a = pa, *b = pb;

	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

static int64_t offset_of(int64_t a_ts, int64_t b_ts)
{
	__int128 d = (__int128)a_ts - b_ts;

	return d > INT64_MAX ? INT64_MAX : d < INT64_MIN ? INT64_MIN : (int64_t)d;
}

void trex_run_align_start(const struct trex_index *a, const struct trex_index *b,
                          struct trex_run_align *out)
{
	memset(out, 0, sizeof(*out));
	out->kind = TREX_RUN_ALIGN_START;
	out->a_ts = trex_index_start(a);
	out->b_ts = trex_index_start(b);
	out->offset = offset_of(out->a_ts, out->b_ts);
	out->a_slice = out->b_slice = TREX_NONE;
}

/* ---- steps ------------------------------------------------------------------------------ */

/* N of a name "ProfilerStep#N" (decimal, nothing after it). */
static bool step_number(const char *name, uint64_t *n)
{
	const char *p;
	uint64_t v = 0;

	if (!name || strncmp(name, STEP_PREFIX, sizeof(STEP_PREFIX) - 1) != 0)
		return false;
	p = name + sizeof(STEP_PREFIX) - 1;
	if (!isdigit((unsigned char)*p))
		return false;
	for (; isdigit((unsigned char)*p); p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*n = v;
	return *p == '\0';
}

/* Every step of idx, one per number (its earliest start), by number.
 * false when out of memory. */
static bool list_steps(const struct trex_index *idx, struct occurrence **out, size_t *count)
{
	uint32_t n = trex_index_slice_count(idx);
	struct occurrences l = {NULL, 0, 0};
	size_t kept = 0;

	for (uint32_t id = 0; id < n; id++) {
		const struct trex_slice *s = trex_index_slice(idx, id);
		uint64_t step;

		if ((s->kind != TREX_KIND_CPU_OP && s->kind != TREX_KIND_ANNOTATION) ||
		    !step_number(trex_index_str(idx, s->name), &step))
			continue;
		if (!occurrences_push(&l, (struct occurrence){step, s->ts, id}))
			return false;
	}
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), occurrence_cmp);
	for (size_t i = 0; i < l.n; i++)
		if (kept == 0 || l.v[kept - 1].n != l.v[i].n)
			l.v[kept++] = l.v[i];
	*out = l.v;
	*count = kept;
	return true;
}

static const struct occurrence *find_step(const struct occurrence *v, size_t n, uint64_t step)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].n < step)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].n == step ? &v[lo] : NULL;
}

/* The lowest step number in both lists, or NULL (*b_at its B side). */
static const struct occurrence *first_common(const struct occurrence *a, size_t na,
                                             const struct occurrence *b, size_t nb,
                                             const struct occurrence **b_at)
{
	size_t i = 0, j = 0;

	while (i < na && j < nb) {
		if (a[i].n == b[j].n) {
			*b_at = &b[j];
			return &a[i];
		}
		if (a[i].n < b[j].n)
			i++;
		else
			j++;
	}
	return NULL;
}

/* "steps 1009..1010" or "no ProfilerStep" for the messages. */
static void steps_range(const struct occurrence *v, size_t n, char *buf, size_t size)
{
	if (n == 0)
		snprintf(buf, size, "no ProfilerStep");
	else if (n == 1)
		snprintf(buf, size, "only step %" PRIu64, v[0].n);
	else
		snprintf(buf, size, "steps %" PRIu64 "..%" PRIu64, v[0].n, v[n - 1].n);
}

static enum trex_status step_missing(const struct occurrence *a, size_t na,
                                     const struct occurrence *b, size_t nb, int64_t step,
                                     struct trex_error *err)
{
	char ra[64], rb[64];
	bool in_a = step >= 0 && find_step(a, na, (uint64_t)step);

	steps_range(a, na, ra, sizeof(ra));
	steps_range(b, nb, rb, sizeof(rb));
	if (step < 0)
		return trex_error_set(err, TREX_USAGE, NULL, -1,
		                      "the runs share no ProfilerStep (A: %s; B: %s)", ra, rb);
	return trex_error_set(err, TREX_USAGE, NULL, -1, "no ProfilerStep#%" PRId64 " in %s (%s)",
	                      step, in_a ? "B" : "A", in_a ? rb : ra);
}

enum trex_status trex_run_align_step(const struct trex_index *a, const struct trex_index *b,
                                     int64_t step, struct trex_run_align *out,
                                     struct trex_error *err)
{
	struct occurrence *sa = NULL, *sb = NULL;
	const struct occurrence *at_a = NULL, *at_b = NULL;
	size_t na = 0, nb = 0;
	enum trex_status st = TREX_OK;

	if (!list_steps(a, &sa, &na) || !list_steps(b, &sb, &nb)) {
		free(sa);
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	if (step < 0) {
		at_a = first_common(sa, na, sb, nb, &at_b);
	} else {
		at_a = find_step(sa, na, (uint64_t)step);
		at_b = find_step(sb, nb, (uint64_t)step);
	}
	if (!at_a || !at_b) {
		st = step_missing(sa, na, sb, nb, step, err);
	} else {
		memset(out, 0, sizeof(*out));
		out->kind = TREX_RUN_ALIGN_STEP;
		out->step = at_a->n;
		out->a_ts = at_a->ts;
		out->b_ts = at_b->ts;
		out->a_slice = at_a->id;
		out->b_slice = at_b->id;
		out->offset = offset_of(out->a_ts, out->b_ts);
	}
	free(sa);
	free(sb);
	return st;
}

void trex_run_align_default(const struct trex_index *a, const struct trex_index *b,
                            struct trex_run_align *out)
{
	if (trex_run_align_step(a, b, -1, out, NULL) != TREX_OK)
		trex_run_align_start(a, b, out);
}

/* ---- slices by name ----------------------------------------------------------------------- */

uint32_t trex_run_align_nth(const struct trex_index *idx, uint32_t slice)
{
	uint32_t n = trex_index_slice_count(idx), before = 0;
	const struct trex_slice *s;

	if (slice >= n)
		return 0;
	s = trex_index_slice(idx, slice);
	for (uint32_t id = 0; id < n; id++) {
		const struct trex_slice *o = trex_index_slice(idx, id);

		if (o->name == s->name && (o->ts < s->ts || (o->ts == s->ts && id < slice)))
			before++;
	}
	return before + 1;
}

/* The nth (1-based) slice named name in idx, in start order; *count how
 * many there are. false when out of memory. */
static bool nth_named(const struct trex_index *idx, const char *name, uint32_t nth,
                      struct occurrence *found, uint32_t *count)
{
	uint32_t str = trex_strtab_find(trex_index_strings(idx), name, strlen(name));
	uint32_t n = trex_index_slice_count(idx);
	struct occurrences l = {NULL, 0, 0};

	*count = 0;
	if (str == TREX_STR_ERROR)
		return true;
	for (uint32_t id = 0; id < n; id++) {
		const struct trex_slice *s = trex_index_slice(idx, id);

		if (s->name == str && !occurrences_push(&l, (struct occurrence){0, s->ts, id}))
			return false;
	}
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), occurrence_cmp);
	*count = (uint32_t)l.n;
	if (nth >= 1 && nth <= l.n)
		*found = l.v[nth - 1];
	free(l.v);
	return true;
}

enum trex_status trex_run_align_name(const struct trex_index *a, const struct trex_index *b,
                                     const char *name, uint32_t nth, struct trex_run_align *out,
                                     struct trex_error *err)
{
	struct occurrence in_a = {0, 0, TREX_NONE}, in_b = {0, 0, TREX_NONE};
	uint32_t ca, cb;

	if (nth == 0)
		return trex_error_set(err, TREX_USAGE, NULL, -1, "occurrences count from 1");
	if (!nth_named(a, name, nth, &in_a, &ca) || !nth_named(b, name, nth, &in_b, &cb))
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	if (ca < nth || cb < nth)
		return trex_error_set(err, TREX_USAGE, NULL, -1,
		                      "%s has %" PRIu32 " %s named %.120s (needs %" PRIu32 ")",
		                      ca < nth ? "A" : "B", ca < nth ? ca : cb,
		                      (ca < nth ? ca : cb) == 1 ? "slice" : "slices", name, nth);
	memset(out, 0, sizeof(*out));
	out->kind = TREX_RUN_ALIGN_SLICE;
	out->nth = nth;
	out->a_ts = in_a.ts;
	out->b_ts = in_b.ts;
	out->a_slice = in_a.id;
	out->b_slice = in_b.id;
	out->offset = offset_of(out->a_ts, out->b_ts);
	return TREX_OK;
}

void trex_run_align_describe(const struct trex_index *a, const struct trex_run_align *al, char *buf,
                             size_t size)
{
	if (al->kind == TREX_RUN_ALIGN_STEP)
		snprintf(buf, size, STEP_PREFIX "%" PRIu64, al->step);
	else if (al->kind == TREX_RUN_ALIGN_SLICE)
		snprintf(buf, size, "%.120s #%" PRIu32,
		         trex_index_str(a, trex_index_slice(a, al->a_slice)->name), al->nth);
	else
		snprintf(buf, size, "trace start");
}
