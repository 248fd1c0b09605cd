/* Rank clocks fitted to matched collectives or steps (rank_align.h). */
#include "config.h"

#include "trex/analysis/rank_align.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rank_events.h"

#define FIT_ITER_MAX 2000
#define FIT_OFFSET_EPS 1e-3    /* ns: the joint fit has converged below this */
#define FIT_DRIFT_EPS 1e-13    /* and this */
#define DRIFT_MIN_ANCHORS 4    /* a slope needs anchors to stand on */
#define DRIFT_MIN_SPAN 1e6     /* ns: and time between them */
#define DRIFT_MIN 1e-8         /* 0.01 ppm: below any clock's drift */
#define DRIFT_SIGNIFICANCE 3.0 /* standard errors */

const char *trex_align_on_name(enum trex_align_on on)
{
	return on == TREX_ALIGN_COLLECTIVES ? "collectives"
	       : on == TREX_ALIGN_STEPS     ? "steps"
	                                    : "none";
}

bool trex_align_on_parse(const char *s, enum trex_align_on *out)
{
	static const enum trex_align_on all[] = {TREX_ALIGN_NONE, TREX_ALIGN_COLLECTIVES,
	                                         TREX_ALIGN_STEPS};

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		if (strcmp(s, trex_align_on_name(all[i])) == 0) {
			*out = all[i];
			return true;
		}
	}
	return false;
}

/* ---- anchors ------------------------------------------------------------------------------ */

struct obs {
	uint32_t unit;
	double x; /* the rank's time, from t0 */
};

/* Anchor a is obs[first[a] .. first[a + 1]). */
struct anchors {
	struct obs *obs;
	size_t nobs;
	size_t *first;
	size_t n;
	int64_t t0;
};

static size_t usable(const struct rank_events *ev, size_t i, size_t j)
{
	size_t n = 0;

	for (size_t k = i; k < j; k++)
		n += !ev->v[k].mismatched;
	return n;
}

static int64_t anchor_time(const struct rank_event *e, bool start)
{
	return start ? e->start : e->end;
}

/* Collectives: one anchor per matched event, at the ends; steps: two, at
 * the starts and at the ends. */
static void fill_anchors(const struct rank_events *ev, struct anchors *an, bool fill)
{
	an->n = an->nobs = 0;
	for (size_t i = 0, j; i < ev->n; i = j) {
		j = rank_events_run_end(ev, i);
		if (usable(ev, i, j) < 2)
			continue;
		for (int side = ev->v[i].step ? 0 : 1; side < 2; side++) {
			if (fill)
				an->first[an->n] = an->nobs;
			an->n++;
			for (size_t k = i; k < j; k++) {
				if (ev->v[k].mismatched)
					continue;
				if (fill)
					an->obs[an->nobs] = (struct obs){
					    ev->v[k].unit,
					    (double)(anchor_time(&ev->v[k], side == 0) - an->t0)};
				an->nobs++;
			}
		}
	}
	if (fill)
		an->first[an->n] = an->nobs;
}

static bool anchors_of(const struct rank_events *ev, struct anchors *an)
{
	memset(an, 0, sizeof(*an));
	an->t0 = INT64_MAX;
	for (size_t i = 0; i < ev->n; i++)
		if (ev->v[i].start < an->t0)
			an->t0 = ev->v[i].start;
	fill_anchors(ev, an, false);
	an->obs = malloc((an->nobs ? an->nobs : 1) * sizeof(*an->obs));
	an->first = malloc((an->n + 1) * sizeof(*an->first));
	if (!an->obs || !an->first)
		return false;
	fill_anchors(ev, an, true);
	return true;
}

static void anchors_free(struct anchors *an)
{
	free(an->obs);
	free(an->first);
}

/* ---- the joint fit ------------------------------------------------------------------------ */

/* Per unit: corrected x = x + a + b (x - r). */
struct unit_fit {
	double a, b, r;
	double pa, pb;           /* a and b before this round */
	double sx, sxx, sd, sxd; /* sums over its observations, per iteration */
	uint32_t n;
	bool linked, drift;
};

struct fit {
	struct unit_fit *u;
	uint32_t nunits, ref;
	double *mean; /* per anchor: the mean corrected time */
};

static double corrected(const struct unit_fit *f, double x)
{
	return x + f->a + f->b * (x - f->r);
}

static void anchor_means(struct fit *F, const struct anchors *an)
{
	for (size_t a = 0; a < an->n; a++) {
		double s = 0;
		size_t n = 0;

		for (size_t k = an->first[a]; k < an->first[a + 1]; k++) {
			const struct obs *o = &an->obs[k];

			if (F->u[o->unit].linked) {
				s += corrected(&F->u[o->unit], o->x);
				n++;
			}
		}
		F->mean[a] = n ? s / (double)n : 0;
	}
}

/* Sums of x - r and of the correction each observation needs (d). */
static void gather(struct fit *F, const struct anchors *an)
{
	for (uint32_t u = 0; u < F->nunits; u++)
		F->u[u].sx = F->u[u].sxx = F->u[u].sd = F->u[u].sxd = 0;
	for (size_t a = 0; a < an->n; a++) {
		for (size_t k = an->first[a]; k < an->first[a + 1]; k++) {
			struct unit_fit *f = &F->u[an->obs[k].unit];
			double x = an->obs[k].x - f->r, d = F->mean[a] - an->obs[k].x;

			f->sx += x;
			f->sxx += x * x;
			f->sd += d;
			f->sxd += x * d;
		}
	}
}

/* Least squares of d = a + b x (x centred on r, the mean: sx is 0). */
static void refit(struct unit_fit *f)
{
	double n = f->n;

	f->b = f->drift && f->sxx > 0 ? (f->sxd - f->sx * f->sd / n) / f->sxx : 0;
	f->a = f->sd / n - f->b * (f->sx / n);
}

/* The reference's clock is the one all are put on: its correction stays
 * the identity. Refitted against means that moved with every rank, each
 * correction f is composed with the inverse of the reference's own refit
 * g (an affine map after an affine map), so the fit cannot drift as a
 * whole. */
static void regauge(struct fit *F)
{
	struct unit_fit g = F->u[F->ref];

	for (uint32_t u = 0; u < F->nunits; u++) {
		struct unit_fit *f = &F->u[u];

		if (!f->linked || u == F->ref)
			continue;
		f->b = (1 + f->b) / (1 + g.b) - 1;
		f->a = g.r - f->r + (f->r + f->a - g.a - g.r) / (1 + g.b);
	}
	F->u[F->ref].a = F->u[F->ref].b = 0;
}

/* Alternates the anchors' means and each rank's least-squares correction
 * until neither moves: the joint least squares, each round lowering the
 * sum of squared residuals. */
static void solve(struct fit *F, const struct anchors *an)
{
	for (int it = 0; it < FIT_ITER_MAX; it++) {
		double da = 0, db = 0;

		anchor_means(F, an);
		gather(F, an);
		for (uint32_t u = 0; u < F->nunits; u++) {
			F->u[u].pa = F->u[u].a;
			F->u[u].pb = F->u[u].b;
			if (F->u[u].linked)
				refit(&F->u[u]);
		}
		regauge(F);
		for (uint32_t u = 0; u < F->nunits; u++) {
			da = fmax(da, fabs(F->u[u].a - F->u[u].pa));
			db = fmax(db, fabs(F->u[u].b - F->u[u].pb));
		}
		if (da < FIT_OFFSET_EPS && db < FIT_DRIFT_EPS)
			break;
	}
	anchor_means(F, an);
}

/* ---- offsets alone: conjugate gradients ----------------------------------------------------
 * With offsets only, eliminating the anchors' means leaves L o = b: L the
 * Laplacian of the anchors ((L v)_u sums v_u - mean(v) over u's anchors),
 * b_u the sum of mean(x) - x_u over them, o_ref = 0. L is symmetric and
 * positive definite on the other linked ranks, so conjugate gradients
 * solve it in at most as many steps as ranks, whatever the anchors'
 * topology (a chain of pairs converges as fast as one communicator). */

static bool anchor_linked(const struct fit *F, const struct anchors *an, size_t a)
{
	return an->first[a] < an->first[a + 1] && F->u[an->obs[an->first[a]].unit].linked;
}

/* Over every linked anchor, out[u] += sign (value_u - the anchor's mean
 * value): value v[unit], or the observation's time when v is NULL. */
static void centred_sums(const struct fit *F, const struct anchors *an, const double *v,
                         double sign, double *out)
{
	for (size_t a = 0; a < an->n; a++) {
		size_t lo = an->first[a], hi = an->first[a + 1];
		double mean = 0;

		if (!anchor_linked(F, an, a))
			continue;
		for (size_t k = lo; k < hi; k++)
			mean += v ? v[an->obs[k].unit] : an->obs[k].x;
		mean /= (double)(hi - lo);
		for (size_t k = lo; k < hi; k++)
			out[an->obs[k].unit] +=
			    sign * ((v ? v[an->obs[k].unit] : an->obs[k].x) - mean);
	}
	out[F->ref] = 0; /* the reference's row and column are left out */
}

/* out = L v. */
static void laplacian(const struct fit *F, const struct anchors *an, const double *v, double *out)
{
	for (uint32_t u = 0; u < F->nunits; u++)
		out[u] = 0;
	centred_sums(F, an, v, 1, out);
}

static double dot(const double *x, const double *y, uint32_t n)
{
	double s = 0;

	for (uint32_t i = 0; i < n; i++)
		s += x[i] * y[i];
	return s;
}

static bool solve_offsets(struct fit *F, const struct anchors *an)
{
	uint32_t n = F->nunits;
	double *o = calloc(4 * (size_t)n, sizeof(*o)), *r = o + n, *p = r + n, *lp = p + n;
	double rs;

	if (!o)
		return false;
	centred_sums(F, an, NULL, -1, r); /* b */
	memcpy(p, r, n * sizeof(*p));
	rs = dot(r, r, n);
	for (uint32_t it = 0; it < 4 * n + 8 && rs > 1e-18; it++) {
		double alpha, rs_next;

		laplacian(F, an, p, lp);
		alpha = rs / dot(p, lp, n);
		for (uint32_t u = 0; u < n; u++) {
			o[u] += alpha * p[u];
			r[u] -= alpha * lp[u];
		}
		rs_next = dot(r, r, n);
		for (uint32_t u = 0; u < n; u++)
			p[u] = r[u] + rs_next / rs * p[u];
		rs = rs_next;
	}
	for (uint32_t u = 0; u < n; u++)
		F->u[u].a = F->u[u].linked ? o[u] : 0;
	free(o);
	anchor_means(F, an);
	return true;
}

/* Each rank's count and mean time of observations, and which ranks the
 * anchors tie to the reference (the lowest rank with any). */
static void link_units(struct fit *F, const struct anchors *an)
{
	bool grew = true;

	for (size_t k = 0; k < an->nobs; k++) {
		F->u[an->obs[k].unit].n++;
		F->u[an->obs[k].unit].r += an->obs[k].x;
	}
	F->ref = UINT32_MAX;
	for (uint32_t u = 0; u < F->nunits; u++) {
		if (F->u[u].n)
			F->u[u].r /= F->u[u].n;
		if (F->u[u].n && F->ref == UINT32_MAX)
			F->ref = u;
	}
	if (F->ref == UINT32_MAX)
		return;
	F->u[F->ref].linked = true;
	while (grew) { /* until no anchor links a new rank */
		grew = false;
		for (size_t a = 0; a < an->n; a++) {
			bool any = false;

			for (size_t k = an->first[a]; k < an->first[a + 1]; k++)
				any |= F->u[an->obs[k].unit].linked;
			for (size_t k = an->first[a]; any && k < an->first[a + 1]; k++) {
				grew |= !F->u[an->obs[k].unit].linked;
				F->u[an->obs[k].unit].linked = true;
			}
		}
	}
}

/* Per rank: the slope of the corrections its anchors still need, its
 * standard error and the anchors' time span. */
struct slope {
	double sxx, sxd, sd, sdd, lo, hi;
	uint32_t n;
};

static void slopes(const struct fit *F, const struct anchors *an, struct slope *sl)
{
	for (size_t a = 0; a < an->n; a++) {
		for (size_t k = an->first[a]; k < an->first[a + 1]; k++) {
			const struct unit_fit *f = &F->u[an->obs[k].unit];
			struct slope *s = &sl[an->obs[k].unit];
			double x = an->obs[k].x - f->r, d = F->mean[a] - corrected(f, an->obs[k].x);

			s->lo = s->n ? fmin(s->lo, x) : x;
			s->hi = s->n ? fmax(s->hi, x) : x;
			s->n++;
			s->sxx += x * x;
			s->sxd += x * d;
			s->sd += d;
			s->sdd += d * d;
		}
	}
}

static bool drift_measurable(const struct slope *s)
{
	double b, ssr, se;

	if (s->n < DRIFT_MIN_ANCHORS || s->hi - s->lo < DRIFT_MIN_SPAN || s->sxx <= 0)
		return false;
	b = s->sxd / s->sxx;
	/* x is centred (sum 0): SSR = Sdd - Sd^2/n - b Sxd */
	ssr = fmax(0, s->sdd - s->sd * s->sd / s->n - b * s->sxd);
	se = sqrt(ssr / (s->n - 2) / s->sxx);
	return fabs(b) >= DRIFT_MIN && fabs(b) > DRIFT_SIGNIFICANCE * se;
}

/* Offsets first (exactly); then, from them, drift for the ranks whose
 * residuals show one. */
static bool fit_all(struct fit *F, const struct anchors *an)
{
	struct slope *sl = calloc(F->nunits ? F->nunits : 1, sizeof(*sl));
	bool again = false;

	if (!sl)
		return false;
	if (F->ref == UINT32_MAX) { /* no anchors: nothing to fit */
		free(sl);
		return true;
	}
	if (!solve_offsets(F, an)) {
		free(sl);
		return false;
	}
	slopes(F, an, sl);
	for (uint32_t u = 0; u < F->nunits; u++) {
		F->u[u].drift = u != F->ref && F->u[u].linked && drift_measurable(&sl[u]);
		again |= F->u[u].drift;
	}
	if (again) /* from the offsets found: the alternation has only drift left to find */
		solve(F, an);
	free(sl);
	return true;
}

/* ---- results ------------------------------------------------------------------------------ */

static void residuals(const struct fit *F, const struct anchors *an, struct trex_rank_clock *rc)
{
	double *ss = calloc(F->nunits ? F->nunits : 1, sizeof(*ss));

	for (size_t a = 0; a < an->n; a++) {
		for (size_t k = an->first[a]; k < an->first[a + 1]; k++) {
			uint32_t u = an->obs[k].unit;
			double r = fabs(corrected(&F->u[u], an->obs[k].x) - F->mean[a]);

			if (!F->u[u].linked)
				continue;
			if (ss)
				ss[u] += r * r;
			rc[u].max_ns = fmax(rc[u].max_ns, r);
		}
	}
	for (uint32_t u = 0; ss && u < F->nunits; u++)
		rc[u].rms_ns = F->u[u].n && F->u[u].linked ? sqrt(ss[u] / F->u[u].n) : 0;
	free(ss);
}

static void results(const struct fit *F, const struct anchors *an, const struct rank_units *units,
                    struct trex_rank_clock *rc)
{
	for (uint32_t u = 0; u < F->nunits; u++) {
		const struct unit_fit *f = &F->u[u];
		int64_t r = an->t0 + llround(f->r);

		rc[u] = (struct trex_rank_clock){.file = units->file[u], .rank = units->rank[u]};
		rc[u].anchors = f->n;
		rc[u].reference = u == F->ref;
		rc[u].aligned = f->linked;
		rc[u].has_drift = f->drift;
		if (!f->linked || u == F->ref)
			continue;
		/* the offset at the rounded reference time */
		rc[u].fix.offset_ns = llround(f->a + f->b * ((double)(r - an->t0) - f->r));
		rc[u].fix.drift = f->b;
		rc[u].fix.ref_ns = r;
	}
	residuals(F, an, rc);
}

static enum trex_status fit_events(const struct rank_units *units, const struct rank_events *ev,
                                   struct trex_rank_align *out, struct trex_error *err)
{
	struct anchors an;
	struct fit F = {.nunits = units->n};
	bool ok = anchors_of(ev, &an);

	F.u = calloc(units->n ? units->n : 1, sizeof(*F.u));
	F.mean = malloc((an.n ? an.n : 1) * sizeof(*F.mean));
	out->ranks = calloc(units->n ? units->n : 1, sizeof(*out->ranks));
	ok = ok && F.u && F.mean && out->ranks;
	if (ok) {
		link_units(&F, &an);
		ok = fit_all(&F, &an);
	}
	if (ok) {
		results(&F, &an, units, out->ranks);
		out->nranks = units->n;
		out->anchors = an.n;
	}
	anchors_free(&an);
	free(F.u);
	free(F.mean);
	return ok ? TREX_OK : trex_error_set(err, TREX_NOMEM, NULL, -1, "align: out of memory");
}

static enum trex_status missing(const struct trex_index *idx, const struct rank_units *u,
                                const struct trex_align_opts *opts, struct trex_error *err)
{
	if (opts->on == TREX_ALIGN_STEPS)
		return rank_events_missing(
		    idx, u, "a step",
		    "no two ranks have a step of the same name; "
		    "--step REGEX names other steps, or align on collectives",
		    err);
	return rank_events_missing(idx, u, "a collective",
	                           "no NCCL, RCCL, oneCCL or other communication kernels on two "
	                           "ranks; align on steps instead",
	                           err);
}

enum trex_status trex_rank_align(const struct trex_index *idx, const struct trex_align_opts *opts,
                                 struct trex_rank_align *out, struct trex_error *err)
{
	struct rank_units units;
	struct rank_events ev;
	enum trex_status st;

	memset(out, 0, sizeof(*out));
	if (opts->on != TREX_ALIGN_COLLECTIVES && opts->on != TREX_ALIGN_STEPS)
		return trex_error_set(err, TREX_USAGE, NULL, -1,
		                      "align: on collectives or steps, not '%s'",
		                      trex_align_on_name(opts->on));
	st = rank_units_of(idx, &units, err);
	if (st != TREX_OK)
		return st;
	if (units.n < 2) {
		st = missing(idx, &units, opts, err);
		rank_units_free(&units);
		return st;
	}
	st = rank_events_collect(idx, &units, opts->on == TREX_ALIGN_COLLECTIVES,
	                         opts->step_pattern, &ev, err);
	if (st == TREX_OK)
		st = fit_events(&units, &ev, out, err);
	if (st == TREX_OK && out->anchors == 0)
		st = missing(idx, &units, opts, err);
	if (st == TREX_OK) {
		out->mismatched = ev.mismatched;
		out->groups = ev.ngroups;
	}
	if (st != TREX_OK)
		trex_rank_align_free(out);
	rank_events_free(&ev);
	rank_units_free(&units);
	return st;
}

void trex_rank_align_free(struct trex_rank_align *a)
{
	free(a->ranks);
	memset(a, 0, sizeof(*a));
}

enum trex_status trex_rank_align_fixes(const struct trex_index *idx,
                                       const struct trex_rank_align *a, struct trex_clock_fix **out,
                                       struct trex_error *err)
{
	uint32_t np = trex_index_process_count(idx);

	*out = calloc(np ? np : 1, sizeof(**out));
	if (!*out)
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	for (uint32_t p = 0; p < np; p++) {
		const struct trex_process *pr = trex_index_process(idx, p);

		for (uint32_t u = 0; u < a->nranks; u++)
			if (a->ranks[u].file == pr->file && a->ranks[u].rank == pr->rank)
				(*out)[p] = a->ranks[u].fix;
	}
	return TREX_OK;
}

/* ---- the table ---------------------------------------------------------------------------- */

static const struct trex_column cols[] = {
    {"rank", "Rank", TREX_COL_COUNT, false},
    {"offset_ns", "Offset", TREX_COL_DURATION, true},
    {"drift_ppm", "Drift ppm", TREX_COL_NUMBER, true},
    {"anchors", "Anchors", TREX_COL_COUNT, true},
    {"rms_ns", "Residual RMS", TREX_COL_DURATION, true},
    {"max_ns", "Residual max", TREX_COL_DURATION, true},
    {"note", "Note", TREX_COL_TEXT, false},
};
enum { C_RANK, C_OFFSET, C_DRIFT, C_ANCHORS, C_RMS, C_MAX, C_NOTE };

/* Collective ends agree to within microseconds; a rank whose anchors
 * miss by more was likely matched to other events (point-to-point
 * transfers, collectives of groups the trace does not name). */
#define RESIDUAL_SUSPECT_NS 100e3

static const char *rank_note(const struct trex_rank_clock *r)
{
	if (r->aligned && r->max_ns > RESIDUAL_SUSPECT_NS)
		return r->reference ? "reference clock; residuals over 100 us: anchors may be "
		                      "mismatched (point-to-point, unnamed groups)"
		                    : "residuals over 100 us: anchors may be mismatched "
		                      "(point-to-point, unnamed groups)";
	if (r->reference)
		return "reference clock";
	if (!r->aligned)
		return "no anchors shared with the reference: not aligned";
	if (!r->has_drift)
		return "no drift measurable";
	return "";
}

enum trex_status trex_rank_align_table(const struct trex_index *idx,
                                       const struct trex_rank_align *a, struct trex_table *t,
                                       struct trex_error *err)
{
	(void)idx;
	trex_table_init(t, "align", cols, sizeof(cols) / sizeof(cols[0]));
	for (uint32_t u = 0; u < a->nranks; u++) {
		const struct trex_rank_clock *r = &a->ranks[u];
		union trex_cell *c = trex_table_add_row(t);

		if (!c) {
			trex_table_free(t);
			return trex_error_set(err, TREX_NOMEM, NULL, -1, "align: out of memory");
		}
		c[C_RANK].count = r->rank;
		c[C_OFFSET].number = (double)r->fix.offset_ns;
		c[C_DRIFT].number = r->fix.drift * 1e6;
		c[C_ANCHORS].count = r->anchors;
		c[C_RMS].number = r->rms_ns;
		c[C_MAX].number = r->max_ns;
		c[C_NOTE].text = rank_note(r);
	}
	return TREX_OK;
}
