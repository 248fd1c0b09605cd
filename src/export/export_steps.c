/* ProfilerStep#N annotations as export scope (export_steps.h). */
#include "config.h"

#include "trex/export/export_steps.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/core/kind.h"

#define STEP_PREFIX "ProfilerStep#"

struct step_span {
	uint32_t file;
	bool gpu; /* a GPU-side copy of the annotation */
	int64_t num, ts, end;
};

struct trex_export_steps {
	struct step_span *v; /* the chosen steps' spans, by file, then CPU before GPU */
	size_t n;
	size_t *first; /* per file: its spans are v[first[f] .. first[f + 1]) */
	int64_t *all;  /* every step number of the trace, ascending, once each */
	size_t nall;
	int64_t lo, hi; /* the smallest and largest number chosen */
	bool any_cpu;   /* a chosen step has a CPU-side span */
};

static enum trex_status steps_nomem(struct trex_error *err)
{
	return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
}

/* N of "ProfilerStep#N" (digits only), -1 for any other name. */
static int64_t step_number(const char *name)
{
	const char *p = name + strlen(STEP_PREFIX);
	int64_t v = 0;

	if (strncmp(name, STEP_PREFIX, strlen(STEP_PREFIX)) != 0 || !*p)
		return -1;
	for (; *p; p++) {
		if (*p < '0' || *p > '9' || v > (INT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (*p - '0');
	}
	return v;
}

static bool chosen_has(const struct trex_rank_range *c, size_t n, int64_t v)
{
	for (size_t i = 0; i < n; i++)
		if (v >= c[i].lo && v <= c[i].hi)
			return true;
	return false;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_span(const void *a, const void *b)
{
	const struct step_span *x = a, *y = b;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->gpu != y->gpu)
		return x->gpu ? 1 : -1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static bool push(void **v, size_t *n, size_t *cap, size_t size, const void *x)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 64;
		void *p = realloc(*v, c * size);
		if (!p)
			return false;
		*v = p;
		*cap = c;
	}
	memcpy((char *)*v + *n * size, x, size);
	(*n)++;
	return true;
}

/* Every step of idx: the chosen ones' spans into s->v, every number into s->all. */
static bool steps_collect(struct trex_export_steps *s, const struct trex_index *idx,
                          const struct trex_rank_range *chosen, size_t nchosen)
{
	size_t cap = 0, cap_all = 0;

	for (uint32_t i = 0; i < trex_index_slice_count(idx); i++) {
		const struct trex_slice *sl = trex_index_slice(idx, i);
		bool gpu = sl->kind == TREX_KIND_GPU_ANNOTATION;
		if (sl->kind != TREX_KIND_CPU_OP && sl->kind != TREX_KIND_ANNOTATION && !gpu)
			continue;
		int64_t num = step_number(trex_index_str(idx, sl->name));
		if (num < 0)
			continue;
		struct step_span sp = {trex_index_track_file(idx, sl->track), gpu, num, sl->ts,
		                       sl->ts + sl->dur};
		if (!push((void **)&s->all, &s->nall, &cap_all, sizeof(num), &num))
			return false;
		if (chosen_has(chosen, nchosen, num) &&
		    !push((void **)&s->v, &s->n, &cap, sizeof(sp), &sp))
			return false;
		s->any_cpu |= !gpu && chosen_has(chosen, nchosen, num);
	}
	return true;
}

/* "10-12", "1, 3, 5-7": the numbers of a sorted list, at most size bytes. */
static void steps_format(const int64_t *v, size_t n, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used < size;) {
		size_t j = i;
		while (j + 1 < n && v[j + 1] == v[j] + 1)
			j++;
		int k = j > i
		            ? snprintf(buf + used, size - used, "%s%" PRId64 "-%" PRId64,
		                       i ? ", " : "", v[i], v[j])
		            : snprintf(buf + used, size - used, "%s%" PRId64, i ? ", " : "", v[i]);
		used += k > 0 ? (size_t)k : 0;
		i = j + 1;
	}
}

/* The first chosen number the trace lacks, -1 when it has them all. */
static int64_t steps_missing(const struct trex_export_steps *s, const struct trex_rank_range *c,
                             size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (int64_t v = c[i].lo; v <= c[i].hi; v++)
			if (!bsearch(&v, s->all, s->nall, sizeof(v), cmp_i64))
				return v;
	return -1;
}

static enum trex_status steps_check(struct trex_export_steps *s, const struct trex_rank_range *c,
                                    size_t n, struct trex_error *err)
{
	char have[160];
	size_t k = 0;

	if (s->nall) /* qsort wants a pointer even for nothing */
		qsort(s->all, s->nall, sizeof(*s->all), cmp_i64);
	for (size_t i = 0; i < s->nall; i++)
		if (k == 0 || s->all[i] != s->all[k - 1])
			s->all[k++] = s->all[i];
	s->nall = k;
	if (s->nall == 0)
		return trex_error_set(err, TREX_USAGE, NULL, -1,
		                      "--steps: the trace has no ProfilerStep#N annotations");
	int64_t miss = steps_missing(s, c, n);
	if (miss < 0)
		return TREX_OK;
	steps_format(s->all, s->nall, have, sizeof(have));
	return trex_error_set(err, TREX_USAGE, NULL, -1,
	                      "--steps: the trace has no step %" PRId64 "; its steps are %s", miss,
	                      have);
}

/* v sorted by file, and each file's first span. */
static bool steps_index(struct trex_export_steps *s, uint32_t files)
{
	s->first = calloc((size_t)files + 1, sizeof(*s->first));
	if (!s->first)
		return false;
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), cmp_span);
	for (size_t i = 0; i < s->n; i++)
		s->first[s->v[i].file + 1]++;
	for (uint32_t f = 0; f < files; f++)
		s->first[f + 1] += s->first[f];
	return true;
}

enum trex_status trex_export_steps_find(const struct trex_index *idx,
                                        const struct trex_rank_range *chosen, size_t n,
                                        struct trex_export_steps **out, struct trex_error *err)
{
	struct trex_export_steps *s = calloc(1, sizeof(*s));
	enum trex_status st = TREX_OK;

	*out = NULL;
	if (!s)
		return steps_nomem(err);
	s->lo = INT64_MAX;
	s->hi = INT64_MIN;
	for (size_t i = 0; i < n; i++) {
		s->lo = chosen[i].lo < s->lo ? chosen[i].lo : s->lo;
		s->hi = chosen[i].hi > s->hi ? chosen[i].hi : s->hi;
	}
	if (!steps_collect(s, idx, chosen, n))
		st = steps_nomem(err);
	if (st == TREX_OK)
		st = steps_check(s, chosen, n, err);
	if (st == TREX_OK && !steps_index(s, trex_index_file_count(idx)))
		st = steps_nomem(err);
	if (st != TREX_OK) {
		trex_export_steps_free(s);
		return st;
	}
	*out = s;
	return TREX_OK;
}

static bool in_span(const struct trex_export_steps *s, uint32_t file, bool gpu, int64_t t)
{
	for (size_t i = s->first[file]; i < s->first[file + 1]; i++)
		if (s->v[i].gpu == gpu && t >= s->v[i].ts && t <= s->v[i].end)
			return true;
	return false;
}

bool trex_export_steps_keep(const struct trex_export_steps *s, const struct trex_index *idx,
                            uint32_t slice)
{
	const struct trex_slice *sl = trex_index_slice(idx, slice);
	uint32_t file = trex_index_track_file(idx, sl->track);
	uint32_t launch = trex_index_launch_of(idx, slice);
	bool file_cpu = s->first[file] < s->first[file + 1] && !s->v[s->first[file]].gpu;

	if (launch != TREX_NONE && file_cpu)
		return in_span(s, file, false, trex_index_slice(idx, launch)->ts);
	return in_span(s, file, true, sl->ts);
}

enum trex_status trex_export_steps_range(const struct trex_export_steps *s, int64_t *start,
                                         int64_t *end, struct trex_error *err)
{
	int64_t a = INT64_MAX, b = INT64_MIN;

	for (size_t i = 0; i < s->nall; i++) {
		int64_t v = s->all[i];
		bool picked = false;
		for (size_t j = 0; j < s->n && !picked; j++)
			picked = s->v[j].num == v;
		if (v > s->lo && v < s->hi && !picked)
			return trex_error_set(
			    err, TREX_USAGE, NULL, -1,
			    "--steps: one time range cannot leave out step %" PRId64
			    " between the chosen ones (name a run like %" PRId64 "-%" PRId64
			    ", or export to chakra, which keeps steps "
			    "apart)",
			    v, s->lo, s->hi);
	}
	for (size_t i = 0; i < s->n; i++) {
		if (s->v[i].gpu == s->any_cpu)
			continue;
		a = s->v[i].ts < a ? s->v[i].ts : a;
		b = s->v[i].end > b ? s->v[i].end : b;
	}
	*start = a;
	*end = b;
	return TREX_OK;
}

void trex_export_steps_free(struct trex_export_steps *s)
{
	if (!s)
		return;
	free(s->v);
	free(s->first);
	free(s->all);
	free(s);
}
