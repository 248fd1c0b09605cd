/* The ranks of an index and their matched collectives and steps
 * (rank_events.h). */
#include "config.h"

#include "rank_events.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/steps.h"
#include "trex/core/args.h"
#include "trex/core/grow.h"
#include "trex/core/kind.h"

#define PG_NAME_ARG "Process Group Name"

/* ---- units -------------------------------------------------------------------------------- */

struct unit_key {
	uint32_t file;
	int64_t rank;
};

static int cmp_unit_key(const void *a, const void *b)
{
	const struct unit_key *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

static uint32_t unit_find(const struct rank_units *u, uint32_t file, int64_t rank)
{
	size_t lo = 0, hi = u->n;

	while (lo < hi) { /* units are sorted by (file, rank) */
		size_t mid = lo + (hi - lo) / 2;

		if (u->file[mid] < file || (u->file[mid] == file && u->rank[mid] < rank))
			lo = mid + 1;
		else
			hi = mid;
	}
	return (uint32_t)lo;
}

enum trex_status rank_units_of(const struct trex_index *idx, struct rank_units *u,
                               struct trex_error *err)
{
	uint32_t np = trex_index_process_count(idx);
	struct unit_key *keys = malloc((np ? np : 1) * sizeof(*keys));
	size_t n = 0;

	memset(u, 0, sizeof(*u));
	u->of_process = malloc((np ? np : 1) * sizeof(*u->of_process));
	u->file = malloc((np ? np : 1) * sizeof(*u->file));
	u->rank = malloc((np ? np : 1) * sizeof(*u->rank));
	if (!keys || !u->of_process || !u->file || !u->rank) {
		free(keys);
		rank_units_free(u);
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	for (uint32_t p = 0; p < np; p++) {
		const struct trex_process *pr = trex_index_process(idx, p);

		keys[p] = (struct unit_key){pr->file, pr->rank};
	}
	qsort(keys, np, sizeof(*keys), cmp_unit_key);
	for (uint32_t p = 0; p < np; p++) {
		if (n && cmp_unit_key(&keys[n - 1], &keys[p]) == 0)
			continue;
		keys[n] = keys[p];
		u->file[n] = keys[p].file;
		u->rank[n] = keys[p].rank;
		n++;
	}
	u->n = (uint32_t)n;
	for (uint32_t p = 0; p < np; p++) {
		const struct trex_process *pr = trex_index_process(idx, p);

		u->of_process[p] = unit_find(u, pr->file, pr->rank);
	}
	free(keys);
	return TREX_OK;
}

void rank_units_free(struct rank_units *u)
{
	free(u->of_process);
	free(u->file);
	free(u->rank);
	memset(u, 0, sizeof(*u));
}

/* ---- events ------------------------------------------------------------------------------- */

static bool group_id(struct rank_events *ev, const char *name, uint32_t *out)
{
	char **v;

	for (uint32_t i = 0; i < ev->ngroups; i++) {
		if (strcmp(ev->groups[i], name) == 0) {
			*out = i;
			return true;
		}
	}
	v = trex_grow(ev->groups, &ev->groups_cap, ev->ngroups + 1, sizeof(*v), 8);
	if (!v)
		return false;
	ev->groups = v;
	if (!(v[ev->ngroups] = strdup(name)))
		return false;
	*out = ev->ngroups++;
	return true;
}

static bool push(struct rank_events *ev, const struct rank_event *e)
{
	struct rank_event *v = trex_grow(ev->v, &ev->cap, ev->n + 1, sizeof(*v), 256);

	if (!v)
		return false;
	ev->v = v;
	ev->v[ev->n++] = *e;
	return true;
}

static uint32_t unit_of_slice(const struct trex_index *idx, const struct rank_units *u,
                              uint32_t slice)
{
	return u->of_process[trex_index_track(idx, trex_index_slice(idx, slice)->track)->process];
}

static bool is_collective(const struct trex_index *idx, uint32_t slice)
{
	return trex_index_slice(idx, slice)->kind == TREX_KIND_KERNEL &&
	       trex_slice_comm(idx, slice) != TREX_COMM_NONE;
}

/* The communicator of each collective with args, file by file. */
struct pg_batch {
	struct rank_events *ev;
	const size_t *which; /* batch entry -> event */
	bool oom;
};

static enum trex_status pg_found(void *user, size_t i, const struct trex_args *args,
                                 struct trex_error *err)
{
	struct pg_batch *b = user;

	for (size_t k = 0; k < args->n; k++) {
		if (strcmp(args->v[k].key, PG_NAME_ARG) != 0)
			continue;
		if (!group_id(b->ev, args->v[k].value, &b->ev->v[b->which[i]].group))
			return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
		break;
	}
	return TREX_OK;
}

static enum trex_status pg_of_file(const struct trex_index *idx, struct rank_events *ev,
                                   uint32_t file, size_t lo, size_t hi, struct trex_error *err)
{
	trex_args_ref *refs = malloc((hi - lo + 1) * sizeof(*refs));
	size_t *which = malloc((hi - lo + 1) * sizeof(*which));
	struct pg_batch b = {ev, which, false};
	size_t k = 0;
	enum trex_status st = TREX_OK;

	if (!refs || !which)
		st = trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	for (size_t i = lo; st == TREX_OK && i < hi; i++) {
		trex_args_ref r = trex_index_slice(idx, ev->v[i].slice)->args;

		if (r != TREX_ARGS_NONE) {
			refs[k] = r;
			which[k++] = i;
		}
	}
	if (st == TREX_OK && k)
		st = trex_index_args_each(idx, file, refs, k, pg_found, &b, err);
	free(refs);
	free(which);
	return st;
}

static enum trex_status collect_collectives(const struct trex_index *idx,
                                            const struct rank_units *u, struct rank_events *ev,
                                            struct trex_error *err)
{
	uint32_t n = trex_index_slice_count(idx), none;
	enum trex_status st = TREX_OK;
	size_t lo = 0;

	if (!group_id(ev, "", &none))
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	for (uint32_t i = 0; i < n; i++) {
		const struct trex_slice *s = trex_index_slice(idx, i);
		struct rank_event e = {unit_of_slice(idx, u, i), none,  0,    s->name, i, s->ts,
		                       s->ts + s->dur,           false, false};

		if (is_collective(idx, i) && !push(ev, &e))
			return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	/* slices are ordered by track, tracks by file: each file's events are one run */
	while (st == TREX_OK && lo < ev->n) {
		uint32_t file = u->file[ev->v[lo].unit];
		size_t hi = lo;

		while (hi < ev->n && u->file[ev->v[hi].unit] == file)
			hi++;
		st = pg_of_file(idx, ev, file, lo, hi, err);
		lo = hi;
	}
	return st;
}

static enum trex_status collect_steps(const struct trex_index *idx, const struct rank_units *u,
                                      const char *pattern, struct rank_events *ev,
                                      struct trex_error *err)
{
	struct trex_step_opts so = {pattern};
	struct trex_table t;
	uint32_t *ids = NULL;
	enum trex_status st = trex_steps_table(idx, &so, &t, &ids, err);

	if (st != TREX_OK)
		return st;
	for (size_t r = 0; st == TREX_OK && r < t.nrows; r++) {
		const struct trex_slice *s = trex_index_slice(idx, ids[r]);
		struct rank_event e = {unit_of_slice(idx, u, ids[r]),
		                       0,
		                       0,
		                       s->name,
		                       ids[r],
		                       s->ts,
		                       s->ts + s->dur,
		                       true,
		                       false};

		if (!group_id(ev, trex_index_str(idx, s->name), &e.group) || !push(ev, &e))
			st = trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	trex_table_free(&t);
	free(ids);
	return st;
}

static int cmp_on_unit(const void *a, const void *b)
{
	const struct rank_event *x = a, *y = b;

	if (x->unit != y->unit)
		return x->unit < y->unit ? -1 : 1;
	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->slice > y->slice) - (x->slice < y->slice);
}

static int cmp_matched(const void *a, const void *b)
{
	const struct rank_event *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return (x->unit > y->unit) - (x->unit < y->unit);
}

size_t rank_events_run_end(const struct rank_events *ev, size_t i)
{
	size_t j = i + 1;

	while (j < ev->n && ev->v[j].group == ev->v[i].group && ev->v[j].seq == ev->v[i].seq)
		j++;
	return j;
}

/* In each matched event, the name most of its ranks show (the first
 * rank's on a tie) is the event's; the others are flagged. */
static void flag_mismatches(struct rank_events *ev)
{
	for (size_t i = 0, j; i < ev->n; i = j) {
		uint32_t best = ev->v[i].name;
		size_t best_n = 0;

		j = rank_events_run_end(ev, i);
		for (size_t a = i; a < j; a++) {
			size_t n = 0;

			for (size_t b = i; b < j; b++)
				n += ev->v[b].name == ev->v[a].name;
			if (n > best_n) {
				best_n = n;
				best = ev->v[a].name;
			}
		}
		for (size_t a = i; a < j; a++) {
			ev->v[a].mismatched = ev->v[a].name != best;
			ev->mismatched += ev->v[a].mismatched;
		}
	}
}

/* ---- lags: ranks whose traces begin at different collectives --------------------------------
 * A rank's trace may begin (or end) some collectives before another's.
 * Pairing rank u's i-th collective of a group with the i+k-th of the
 * group's longest rank, the right lag k is the one under which the
 * differences of their ends are most nearly constant (the clock offset,
 * see lag_spread); the smaller |k| on a tie, 0 for evenly spaced lists. */
#define LAG_MAX 64

struct run {
	size_t lo, hi; /* ev->v[lo..hi): one unit's events of one group, by start */
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* How far ref[i + k].end - u[i].end, over pairs of equal names, changes
 * from one pair to the next: the median of those changes' sizes. Changes,
 * not values, so that a clock's drift (a steady change) costs nothing;
 * false when fewer than three quarters of the shorter list pair. */
static bool lag_spread(const struct rank_event *ref, size_t nref, const struct rank_event *u,
                       size_t nu, long k, double *d, double *spread)
{
	size_t m = 0, need = (nref < nu ? nref : nu) * 3 / 4;

	for (size_t i = 0; i < nu; i++) {
		long j = (long)i + k;

		if (j >= 0 && (size_t)j < nref && ref[j].name == u[i].name)
			d[m++] = (double)(ref[j].end - u[i].end);
	}
	if (m < 3 || m < need)
		return false;
	for (size_t i = 0; i + 1 < m; i++)
		d[i] = fabs(d[i + 1] - d[i]);
	*spread = median(d, m - 1);
	return true;
}

static long best_lag(const struct rank_event *ref, size_t nref, const struct rank_event *u,
                     size_t nu, double *d)
{
	long best = 0, lo = -(long)(nu < LAG_MAX ? nu : LAG_MAX),
	     hi = (long)(nref < LAG_MAX ? nref : LAG_MAX);
	double best_spread = 0, spread;
	bool found = false;

	for (long k = lo; k <= hi; k++) {
		if (!lag_spread(ref, nref, u, nu, k, d, &spread))
			continue;
		/* a nanosecond is rounding: within it, the smaller lag */
		if (!found || spread < best_spread - 1 ||
		    (spread <= best_spread + 1 && labs(k) < labs(best))) {
			best = k;
			best_spread = spread;
			found = true;
		}
	}
	return best;
}

/* Runs of one group are consecutive in runs[] (sorted by unit, then group:
 * not consecutive); lag every run against the group's longest. */
static void lag_group(struct rank_events *ev, const struct run *runs, size_t nruns, uint32_t group,
                      double *d)
{
	const struct run *ref = NULL;

	for (size_t r = 0; r < nruns; r++)
		if (ev->v[runs[r].lo].group == group &&
		    (!ref || runs[r].hi - runs[r].lo > ref->hi - ref->lo))
			ref = &runs[r];
	for (size_t r = 0; ref && r < nruns; r++) {
		const struct run *u = &runs[r];
		long k = 0;

		if (ev->v[u->lo].group != group)
			continue;
		if (u != ref)
			k = best_lag(&ev->v[ref->lo], ref->hi - ref->lo, &ev->v[u->lo],
			             u->hi - u->lo, d);
		for (size_t i = u->lo; i < u->hi; i++)
			ev->v[i].seq = (int32_t)((long)(i - u->lo) + k);
	}
}

static bool lag_collectives(struct rank_events *ev)
{
	struct run *runs = malloc((ev->n ? ev->n : 1) * sizeof(*runs));
	double *d = malloc((ev->n ? ev->n : 1) * sizeof(*d));
	size_t nruns = 0;

	if (!runs || !d) {
		free(runs);
		free(d);
		return false;
	}
	for (size_t i = 0; i < ev->n; i++) {
		if (i && ev->v[i - 1].unit == ev->v[i].unit && ev->v[i - 1].group == ev->v[i].group)
			runs[nruns - 1].hi = i + 1;
		else
			runs[nruns++] = (struct run){i, i + 1};
	}
	for (uint32_t g = 0; g < ev->ngroups; g++)
		lag_group(ev, runs, nruns, g, d);
	free(runs);
	free(d);
	return true;
}

static bool number_and_match(struct rank_events *ev, bool collectives)
{
	if (ev->n > 1)
		qsort(ev->v, ev->n, sizeof(*ev->v), cmp_on_unit);
	for (size_t i = 0; i < ev->n; i++) {
		bool same =
		    i && ev->v[i - 1].unit == ev->v[i].unit && ev->v[i - 1].group == ev->v[i].group;

		ev->v[i].seq = same ? ev->v[i - 1].seq + 1 : 0;
	}
	if (collectives && !lag_collectives(ev))
		return false;
	if (ev->n > 1)
		qsort(ev->v, ev->n, sizeof(*ev->v), cmp_matched);
	flag_mismatches(ev);
	return true;
}

enum trex_status rank_events_collect(const struct trex_index *idx, const struct rank_units *u,
                                     bool collectives, const char *step_pattern,
                                     struct rank_events *ev, struct trex_error *err)
{
	enum trex_status st;

	memset(ev, 0, sizeof(*ev));
	st = collectives ? collect_collectives(idx, u, ev, err)
	                 : collect_steps(idx, u, step_pattern, ev, err);
	if (st != TREX_OK) {
		rank_events_free(ev);
		return st;
	}
	if (!number_and_match(ev, collectives)) {
		rank_events_free(ev);
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	return TREX_OK;
}

void rank_events_free(struct rank_events *ev)
{
	for (uint32_t i = 0; i < ev->ngroups; i++)
		free(ev->groups[i]);
	free(ev->groups);
	free(ev->v);
	memset(ev, 0, sizeof(*ev));
}

enum trex_status rank_events_missing(const struct trex_index *idx, const struct rank_units *u,
                                     const char *what, const char *hint, struct trex_error *err)
{
	if (u->n < 2)
		return trex_error_set(err, TREX_FORMAT, NULL, -1,
		                      "%s: nothing to align: give the traces of several ranks "
		                      "(one file per rank)",
		                      u->n ? "one rank" : "no ranks");
	(void)idx;
	return trex_error_set(err, TREX_FORMAT, NULL, -1,
	                      "no two ranks share %s: nothing to match across ranks (%s)", what,
	                      hint);
}
