/* Which rank arrived last at each collective and step, and how long the
 * others waited for it (rank_align.h, trex_stragglers_tables). */
#include "config.h"

#include "trex/analysis/rank_align.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rank_events.h"
#include "views_util.h"

static const struct trex_column event_cols[] = {
    {"last_rank", "Last rank", TREX_COL_COUNT, false},
    {"wait_sum_ns", "Wait (sum)", TREX_COL_DURATION, true},
    {"wait_max_ns", "Wait (max)", TREX_COL_DURATION, true},
    {"late_ns", "Late by", TREX_COL_DURATION, true},
    {"ranks", "Ranks", TREX_COL_COUNT, true},
    {"at_ns", "At", TREX_COL_DURATION, false},
    {"kind", "Kind", TREX_COL_TEXT, false},
    {"group", "Group", TREX_COL_TEXT, false},
    {"event", "Event", TREX_COL_TEXT, false},
};
enum { E_LAST, E_SUM, E_MAX, E_LATE, E_RANKS, E_AT, E_KIND, E_GROUP, E_EVENT };

static const struct trex_column rank_cols[] = {
    {"rank", "Rank", TREX_COL_COUNT, false},
    {"last", "Times last", TREX_COL_COUNT, true},
    {"collectives_last", "Collectives", TREX_COL_COUNT, true},
    {"steps_last", "Steps", TREX_COL_COUNT, true},
    {"wait_caused_ns", "Wait caused", TREX_COL_DURATION, true},
    {"late_max_ns", "Late max", TREX_COL_DURATION, true},
};
enum { R_RANK, R_LAST, R_COLL, R_STEPS, R_CAUSED, R_LATE_MAX };

/* One matched event's outcome. */
struct straggle {
	const struct rank_event *last; /* its last arrival */
	const char *group;
	int64_t late, wait_sum, wait_max, at;
	uint32_t ranks;
};

struct rank_sum {
	uint64_t last, collectives, steps;
	int64_t caused, late_max;
	bool took_part;
};

struct straggle_vec {
	struct straggle *v;
	size_t n;
};

static int64_t arrival(const struct rank_event *e)
{
	return e->step ? e->end : e->start;
}

/* ev->v[i..j): the last arrival (the lowest rank of a tie), the next
 * latest, and the waits. */
static bool judge(const struct rank_events *ev, size_t i, size_t j, struct straggle *s)
{
	const struct rank_event *last = NULL;
	int64_t second = INT64_MIN;

	memset(s, 0, sizeof(*s));
	for (size_t k = i; k < j; k++) {
		const struct rank_event *e = &ev->v[k];

		if (e->mismatched)
			continue;
		s->ranks++;
		if (!last || arrival(e) > arrival(last)) {
			if (last)
				second = arrival(last);
			last = e;
		} else if (arrival(e) > second) {
			second = arrival(e);
		}
	}
	if (s->ranks < 2)
		return false;
	s->last = last;
	s->late = arrival(last) - second;
	for (size_t k = i; k < j; k++) {
		int64_t w = arrival(last) - arrival(&ev->v[k]);

		if (ev->v[k].mismatched || &ev->v[k] == last)
			continue;
		s->wait_sum += w;
		s->wait_max = w > s->wait_max ? w : s->wait_max;
	}
	s->at = arrival(last);
	s->group = last->step ? "" : ev->groups[last->group];
	return true;
}

static bool judge_all(const struct rank_events *ev, struct straggle_vec *out)
{
	struct straggle *v = realloc(out->v, (out->n + ev->n + 1) * sizeof(*v));

	if (!v)
		return false;
	out->v = v;
	for (size_t i = 0, j; i < ev->n; i = j) {
		j = rank_events_run_end(ev, i);
		if (judge(ev, i, j, &out->v[out->n]))
			out->n++;
	}
	return true;
}

static int cmp_straggle(const void *a, const void *b)
{
	const struct straggle *x = a, *y = b;

	if (x->wait_sum != y->wait_sum)
		return x->wait_sum > y->wait_sum ? -1 : 1;
	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return (x->last->slice > y->last->slice) - (x->last->slice < y->last->slice);
}

static const char *event_text(const struct trex_index *idx, struct trex_table *t,
                              const struct rank_event *e)
{
	const char *name = trex_index_str(idx, e->name);
	size_t len = strlen(name) + 32;
	char *buf = malloc(len);
	const char *out;

	if (!buf)
		return NULL;
	if (!e->step)
		snprintf(buf, len, "#%d %s", e->seq + 1, name);
	else if (e->seq)
		snprintf(buf, len, "%s (#%d of that name)", name, e->seq + 1);
	else
		snprintf(buf, len, "%s", name);
	out = views_text(t, buf);
	free(buf);
	return out;
}

static bool event_row(const struct trex_index *idx, const struct rank_units *u,
                      const struct straggle *s, struct trex_table *t)
{
	union trex_cell *c = trex_table_add_row(t);

	if (!c)
		return false;
	c[E_KIND].text = s->last->step ? "step" : "collective";
	c[E_EVENT].text = event_text(idx, t, s->last);
	c[E_GROUP].text = views_text(t, s->group);
	c[E_LAST].count = u->rank[s->last->unit];
	c[E_LATE].number = (double)s->late;
	c[E_SUM].number = (double)s->wait_sum;
	c[E_MAX].number = (double)s->wait_max;
	c[E_RANKS].count = s->ranks;
	c[E_AT].number = views_from_start(idx, s->at);
	return c[E_EVENT].text && c[E_GROUP].text;
}

static void sum_ranks(const struct straggle_vec *sv, struct rank_sum *rs)
{
	for (size_t i = 0; i < sv->n; i++) {
		struct rank_sum *r = &rs[sv->v[i].last->unit];

		r->last++;
		r->collectives += !sv->v[i].last->step;
		r->steps += sv->v[i].last->step;
		r->caused += sv->v[i].wait_sum;
		r->late_max = sv->v[i].late > r->late_max ? sv->v[i].late : r->late_max;
	}
}

static void mark_taking_part(const struct rank_events *ev, struct rank_sum *rs)
{
	for (size_t i = 0; i < ev->n; i++)
		rs[ev->v[i].unit].took_part = true;
}

static bool rank_rows(const struct rank_units *u, const struct rank_sum *rs, struct trex_table *t)
{
	uint32_t *order = malloc((u->n ? u->n : 1) * sizeof(*order));
	uint32_t n = 0;

	if (!order)
		return false;
	for (uint32_t k = 0; k < u->n; k++)
		if (rs[k].took_part)
			order[n++] = k;
	/* largest wait caused first, then rank order: an insertion sort of a few ranks */
	for (uint32_t a = 1; a < n; a++) {
		uint32_t k = order[a], b = a;

		for (; b > 0 && rs[order[b - 1]].caused < rs[k].caused; b--)
			order[b] = order[b - 1];
		order[b] = k;
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct rank_sum *r = &rs[order[i]];
		union trex_cell *c = trex_table_add_row(t);

		if (!c) {
			free(order);
			return false;
		}
		c[R_RANK].count = u->rank[order[i]];
		c[R_LAST].count = (int64_t)r->last;
		c[R_COLL].count = (int64_t)r->collectives;
		c[R_STEPS].count = (int64_t)r->steps;
		c[R_CAUSED].number = (double)r->caused;
		c[R_LATE_MAX].number = (double)r->late_max;
	}
	free(order);
	return true;
}

struct straggle_ctx {
	struct rank_units units;
	struct rank_events coll, steps;
	struct straggle_vec sv;
	struct rank_sum *rs;
};

static enum trex_status fill(const struct trex_index *idx, struct straggle_ctx *c,
                             struct trex_table *events, struct trex_table *ranks, uint32_t **slices,
                             struct trex_error *err)
{
	bool ok = judge_all(&c->coll, &c->sv) && judge_all(&c->steps, &c->sv);

	if (ok && c->sv.n == 0)
		return rank_events_missing(idx, &c->units, "a collective or a step",
		                           "no communication kernels and no steps (--step REGEX) "
		                           "on two ranks",
		                           err);
	if (ok && c->sv.n > 1)
		qsort(c->sv.v, c->sv.n, sizeof(*c->sv.v), cmp_straggle);
	for (size_t i = 0; ok && i < c->sv.n; i++)
		ok = event_row(idx, &c->units, &c->sv.v[i], events);
	c->rs = calloc(c->units.n ? c->units.n : 1, sizeof(*c->rs));
	ok = ok && c->rs;
	if (ok) {
		sum_ranks(&c->sv, c->rs);
		mark_taking_part(&c->coll, c->rs);
		mark_taking_part(&c->steps, c->rs);
		ok = rank_rows(&c->units, c->rs, ranks);
	}
	if (ok && slices && (*slices = malloc((c->sv.n ? c->sv.n : 1) * sizeof(**slices))))
		for (size_t i = 0; i < c->sv.n; i++)
			(*slices)[i] = c->sv.v[i].last->slice;
	ok = ok && (!slices || *slices);
	return ok ? TREX_OK
	          : trex_error_set(err, TREX_NOMEM, NULL, -1, "stragglers: out of memory");
}

enum trex_status trex_stragglers_tables(const struct trex_index *idx, const char *step_pattern,
                                        struct trex_table *events, struct trex_table *ranks,
                                        uint32_t **slices, struct trex_error *err)
{
	struct straggle_ctx c = {.sv = {NULL, 0}};
	enum trex_status st;

	trex_table_init(events, "stragglers", event_cols,
	                sizeof(event_cols) / sizeof(event_cols[0]));
	trex_table_init(ranks, "straggler_ranks", rank_cols,
	                sizeof(rank_cols) / sizeof(rank_cols[0]));
	if (slices)
		*slices = NULL;
	st = rank_units_of(idx, &c.units, err);
	if (st == TREX_OK)
		st = rank_events_collect(idx, &c.units, true, NULL, &c.coll, err);
	if (st == TREX_OK)
		st = rank_events_collect(idx, &c.units, false, step_pattern, &c.steps, err);
	if (st == TREX_OK)
		st = fill(idx, &c, events, ranks, slices, err);
	if (st != TREX_OK) {
		trex_table_free(events);
		trex_table_free(ranks);
		if (slices) {
			free(*slices);
			*slices = NULL;
		}
	}
	free(c.sv.v);
	free(c.rs);
	rank_events_free(&c.coll);
	rank_events_free(&c.steps);
	rank_units_free(&c.units);
	return st;
}
