/* Rank clock corrections applied to a loaded index (core/clock.h). */
#include "config.h"

#include "trex/core/clock.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "index_file_internal.h"
#include "index_internal.h"

#define DRIFT_MAX 0.01

bool trex_clock_fix_is_identity(const struct trex_clock_fix *f)
{
	return f->offset_ns == 0 && f->drift == 0.0;
}

static int64_t add_sat(int64_t a, int64_t b)
{
	int64_t r;

	if (!__builtin_add_overflow(a, b, &r))
		return r;
	return b > 0 ? INT64_MAX : INT64_MIN;
}

/* drift * (t - ref), rounded; the distance is taken through __int128 so
 * that far-apart times cannot overflow before the product shrinks it. */
static int64_t drift_term(const struct trex_clock_fix *f, int64_t t)
{
	double d;

	if (f->drift == 0.0)
		return 0;
	d = f->drift * (double)((__int128)t - f->ref_ns);
	if (d >= 9.2e18 || d <= -9.2e18)
		return d > 0 ? INT64_MAX : INT64_MIN;
	return (int64_t)llround(d);
}

int64_t trex_clock_fix_apply(const struct trex_clock_fix *f, int64_t t)
{
	return add_sat(add_sat(t, f->offset_ns), drift_term(f, t));
}

int64_t trex_clock_fix_undo(const struct trex_clock_fix *f, int64_t aligned)
{
	int64_t t = add_sat(aligned, f->offset_ns == INT64_MIN ? INT64_MAX : -f->offset_ns);

	if (f->drift != 0.0) {
		double away = (double)((__int128)t - f->ref_ns) / (1.0 + f->drift);

		t = add_sat(f->ref_ns, (int64_t)llround(away));
		/* one Newton step absorbs the rounding of the division */
		t = add_sat(t, (int64_t)((__int128)aligned - trex_clock_fix_apply(f, t)));
	}
	return t;
}

/* The pages of a mapped index become private copies when written. */
static enum trex_status make_writable(struct trex_index *idx, struct trex_error *err)
{
	struct trex_index_file *m = idx->mapped;

	if (!m)
		return TREX_OK;
	if (!m->map)
		return trex_error_set(err, TREX_USAGE, m->name, -1,
		                      "cannot correct clocks of an index file in borrowed memory");
	if (mprotect(m->map, m->map_len, PROT_READ | PROT_WRITE) != 0)
		return trex_error_set(err, TREX_NOMEM, m->name, -1,
		                      "cannot make the index file's pages writable");
	m->written = true; /* trex_index_hand_back must not drop the copies */
	return TREX_OK;
}

struct span {
	int64_t start, end;
	bool any;
};

static void span_note(struct span *s, int64_t start, int64_t end)
{
	if (!s->any || start < s->start)
		s->start = start;
	if (!s->any || end > s->end)
		s->end = end;
	s->any = true;
}

static void fix_track(struct trex_index *idx, uint32_t track, const struct trex_clock_fix *f,
                      struct span *sp)
{
	const struct trex_track *t = &idx->tracks[track];

	for (uint32_t i = 0; i < t->slice_count; i++) {
		struct trex_slice *s =
		    TREX_VEC_AT(&idx->slices, struct trex_slice, t->first_slice + i);
		int64_t end = trex_clock_fix_apply(f, trex_slice_end(s));

		s->ts = trex_clock_fix_apply(f, s->ts);
		s->dur = end > s->ts ? end - s->ts : 0;
		span_note(sp, s->ts, s->ts + s->dur);
	}
	for (uint32_t i = 0; i < t->instant_count; i++) {
		struct trex_instant *in =
		    TREX_VEC_AT(&idx->instants, struct trex_instant, t->first_instant + i);

		in->ts = trex_clock_fix_apply(f, in->ts);
		span_note(sp, in->ts, in->ts);
	}
	for (uint32_t i = 0; i < t->sample_count; i++) {
		struct trex_counter_sample *cs = &idx->samples[t->first_sample + i];

		cs->ts = trex_clock_fix_apply(f, cs->ts);
		span_note(sp, cs->ts, cs->ts);
	}
}

static const struct trex_clock_fix *fix_of_track(const struct trex_index *idx, uint32_t track)
{
	if (track >= idx->ntracks)
		return NULL;
	return &idx->clock_fix[idx->tracks[track].process];
}

static void fix_flows(struct trex_index *idx, struct span *sp)
{
	for (size_t i = 0; i < idx->flows.count; i++) {
		struct trex_flow *fl = TREX_VEC_AT(&idx->flows, struct trex_flow, i);
		const struct trex_clock_fix *from = fix_of_track(idx, fl->from_track);
		const struct trex_clock_fix *to = fix_of_track(idx, fl->to_track);

		if (from)
			fl->from_ts = trex_clock_fix_apply(from, fl->from_ts);
		if (to)
			fl->to_ts = trex_clock_fix_apply(to, fl->to_ts);
		span_note(sp, fl->from_ts, fl->from_ts);
		span_note(sp, fl->to_ts, fl->to_ts);
	}
}

/* An example on no track takes the correction of its file's first process. */
static const struct trex_clock_fix *fix_of_file(const struct trex_index *idx, uint32_t file)
{
	for (uint32_t p = 0; p < idx->nprocs; p++)
		if (idx->procs[p].file == file)
			return &idx->clock_fix[p];
	return NULL;
}

static void fix_problem(const struct trex_index *idx, uint32_t file, struct trex_problem *p)
{
	const struct trex_clock_fix *f =
	    p->track != TREX_NONE ? fix_of_track(idx, p->track) : fix_of_file(idx, file);

	if (p->has_ts && f)
		p->ts = trex_clock_fix_apply(f, p->ts);
}

static void fix_problems(struct trex_index *idx)
{
	for (uint32_t file = 0; idx->problems && file < idx->nfiles; file++) {
		struct trex_problem_list *l = &idx->problems[file];

		for (uint32_t i = 0; i < l->n; i++)
			fix_problem(idx, file, &l->v[i]);
		if (l->has_largest)
			fix_problem(idx, file, &l->largest);
	}
}

static enum trex_status check_fixes(const struct trex_index *idx, const struct trex_clock_fix *fix,
                                    struct trex_error *err)
{
	if (idx->clock_fix)
		return trex_error_set(err, TREX_USAGE, NULL, -1,
		                      "the index's clocks are corrected already");
	for (uint32_t p = 0; p < idx->nprocs; p++)
		if (!(fabs(fix[p].drift) < DRIFT_MAX))
			return trex_error_set(err, TREX_USAGE, NULL, -1,
			                      "clock drift %g of process %" PRIu32
			                      " is beyond %g: not a clock's drift",
			                      fix[p].drift, p, DRIFT_MAX);
	return TREX_OK;
}

enum trex_status trex_index_fix_clocks(struct trex_index *idx, const struct trex_clock_fix *fix,
                                       struct trex_error *err)
{
	struct span sp = {0, 0, false};

	if (check_fixes(idx, fix, err) != TREX_OK || make_writable(idx, err) != TREX_OK)
		return err->status;
	idx->clock_fix = malloc((idx->nprocs ? idx->nprocs : 1) * sizeof(*idx->clock_fix));
	if (!idx->clock_fix)
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	for (uint32_t p = 0; p < idx->nprocs; p++)
		idx->clock_fix[p] = fix[p];
	for (uint32_t t = 0; t < idx->ntracks; t++)
		fix_track(idx, t, &idx->clock_fix[idx->tracks[t].process], &sp);
	fix_flows(idx, &sp);
	fix_problems(idx);
	idx->start = sp.any ? sp.start : 0;
	idx->end = sp.any ? sp.end : 0;
	return TREX_OK;
}

const struct trex_clock_fix *trex_index_clock_fix(const struct trex_index *idx, uint32_t process)
{
	if (!idx->clock_fix || process >= idx->nprocs)
		return NULL;
	return &idx->clock_fix[process];
}
