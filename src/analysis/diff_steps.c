/* Two runs compared step by step: the n-th step of each rank of A against
 * the n-th of the same rank of B. */
#include "config.h"

#include "trex/analysis/diff.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diff_internal.h"
#include "trex/analysis/steps.h"
#include "trex/core/task.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* The step table's columns compared, by key. */
static const char *const measures[] = {"dur_ns", "busy_ns", "compute_ns", "comm_ns", "idle_ns"};
#define NMEASURES ARRAY_LEN(measures)

static const struct trex_column step_cols[] = {
    {"status", "Status", TREX_COL_TEXT, false},
    {"rank", "Rank", TREX_COL_COUNT, false},
    {"step", "Step", TREX_COL_COUNT, false},
    {"a_dur_ns", "A time", TREX_COL_DURATION, true},
    {"b_dur_ns", "B time", TREX_COL_DURATION, true},
    {"dur_delta_ns", "Time change", TREX_COL_DURATION, true},
    {"dur_delta_pct", "Change %", TREX_COL_PERCENT, true},
    {"a_busy_ns", "A busy", TREX_COL_DURATION, true},
    {"b_busy_ns", "B busy", TREX_COL_DURATION, true},
    {"busy_delta_ns", "Busy change", TREX_COL_DURATION, true},
    {"a_compute_ns", "A compute", TREX_COL_DURATION, true},
    {"b_compute_ns", "B compute", TREX_COL_DURATION, true},
    {"compute_delta_ns", "Compute change", TREX_COL_DURATION, true},
    {"a_comm_ns", "A comm", TREX_COL_DURATION, true},
    {"b_comm_ns", "B comm", TREX_COL_DURATION, true},
    {"comm_delta_ns", "Comm change", TREX_COL_DURATION, true},
    {"a_idle_ns", "A idle", TREX_COL_DURATION, true},
    {"b_idle_ns", "B idle", TREX_COL_DURATION, true},
    {"idle_delta_ns", "Idle change", TREX_COL_DURATION, true},
    {"a_step", "A step", TREX_COL_TEXT, false},
    {"b_step", "B step", TREX_COL_TEXT, false},
};
/* Each measure m has three columns from measure_col(m): A, B, change; the
 * time's change % follows its three. */
enum { T_STATUS, T_RANK, T_STEP, T_DUR, T_DUR_PCT = 6, T_A_NAME = 19, T_COUNT = 21 };
_Static_assert(ARRAY_LEN(step_cols) == T_COUNT, "step diff columns");

static size_t measure_col(size_t m)
{
	return m ? T_DUR_PCT + 1 + 3 * (m - 1) : T_DUR;
}

/* One side's steps and where its columns are. */
struct step_side {
	struct trex_table t;
	size_t rank_col, name_col, col[NMEASURES];
	size_t row; /* the next row to pair */
};

static size_t col_of(const struct trex_table *t, const char *key)
{
	size_t c = 0;

	while (c < t->ncols && strcmp(t->cols[c].key, key) != 0)
		c++;
	return c;
}

static enum trex_status side_steps(const struct trex_index *idx, const struct trex_diff_opts *o,
                                   struct step_side *s, struct trex_error *err)
{
	struct trex_step_opts so = {o->step_pattern};
	enum trex_status st = trex_steps_table(idx, &so, &s->t, NULL, err);

	if (st != TREX_OK)
		return st;
	s->rank_col = col_of(&s->t, "rank");
	s->name_col = col_of(&s->t, "step");
	for (size_t m = 0; m < NMEASURES; m++)
		s->col[m] = col_of(&s->t, measures[m]);
	s->row = 0;
	return TREX_OK;
}

/* side_steps of one side, as a task (core/task.h): the sides at once. */
struct steps_work {
	const struct trex_index *idx;
	const struct trex_diff_opts *o;
	struct step_side *s;
	struct trex_error err;
	enum trex_status st;
};

static void side_steps_task(void *arg, size_t side, unsigned worker)
{
	struct steps_work *w = (struct steps_work *)arg + side;

	(void)worker;
	w->st = side_steps(w->idx, w->o, w->s, &w->err);
}

/* Both sides' steps; on failure the first failing side's error, and
 * neither side's table kept. */
static enum trex_status both_sides(const struct trex_index *a, const struct trex_index *b,
                                   const struct trex_diff_opts *o, struct step_side s[2],
                                   struct trex_error *err)
{
	struct steps_work w[2] = {{a, o, &s[0], {0}, TREX_OK}, {b, o, &s[1], {0}, TREX_OK}};

	trex_task_run(o->threads, 2, side_steps_task, w);
	for (int i = 0; i < 2; i++) {
		if (w[i].st == TREX_OK)
			continue;
		*err = w[i].err;
		trex_table_free(&s[1 - i].t); /* a failed side's table is freed already */
		return w[i].st;
	}
	return TREX_OK;
}

static int64_t rank_at(const struct step_side *s)
{
	return trex_table_cell(&s->t, s->row, s->rank_col)->count;
}

/* Side i's measures and name in the row c, or NaN and "" when it has no
 * step there (s NULL). */
static enum trex_status put_side(struct trex_table *t, union trex_cell *c, int i,
                                 const struct step_side *s)
{
	const char *name = s ? trex_table_cell(&s->t, s->row, s->name_col)->text : "";

	for (size_t m = 0; m < NMEASURES; m++)
		c[measure_col(m) + (size_t)i].number =
		    s ? trex_table_cell(&s->t, s->row, s->col[m])->number : NAN;
	c[T_A_NAME + i].text = trex_table_strdup(t, name, strlen(name));
	return c[T_A_NAME + i].text ? TREX_OK : TREX_NOMEM;
}

/* The row of step n of rank: A's step a against B's b (either NULL). */
static enum trex_status pair_row(struct trex_table *t, int64_t rank, int64_t n,
                                 const struct step_side *a, const struct step_side *b)
{
	union trex_cell *c = trex_table_add_row(t);
	bool same = true;
	enum trex_status st;

	if (!c)
		return TREX_NOMEM;
	c[T_RANK].count = rank;
	c[T_STEP].count = n;
	if ((st = put_side(t, c, 0, a)) != TREX_OK || (st = put_side(t, c, 1, b)) != TREX_OK)
		return st;
	for (size_t m = 0; m < NMEASURES; m++) {
		size_t at = measure_col(m);

		c[at + 2].number = c[at + 1].number - c[at].number;
		same = same && c[at + 2].number == 0;
	}
	c[T_DUR_PCT].number = diff_change_pct(c[T_DUR].number, c[T_DUR + 1].number);
	c[T_STATUS].text = !a ? "new" : !b ? "gone" : same ? "same" : "changed";
	return TREX_OK;
}

/* Takes back the last row when both sides have the step and its time
 * changed less than the thresholds. */
static void drop_small(struct trex_table *t, const struct trex_diff_opts *o, size_t *hidden)
{
	const union trex_cell *c = trex_table_cell(t, t->nrows - 1, 0);

	if (strcmp(c[T_STATUS].text, "new") == 0 || strcmp(c[T_STATUS].text, "gone") == 0 ||
	    !diff_below_threshold(o, c[T_DUR].number, c[T_DUR + 2].number))
		return;
	t->nrows--;
	(*hidden)++;
}

/* Pairs the steps of both sides, rank by rank, position by position. */
static enum trex_status pair_steps(struct trex_table *t, struct step_side *s,
                                   const struct trex_diff_opts *o, size_t *hidden)
{
	enum trex_status st = TREX_OK;

	while (st == TREX_OK && (s[0].row < s[0].t.nrows || s[1].row < s[1].t.nrows)) {
		bool ha = s[0].row < s[0].t.nrows, hb = s[1].row < s[1].t.nrows;
		int64_t rank =
		    ha && hb ? (rank_at(&s[0]) < rank_at(&s[1]) ? rank_at(&s[0]) : rank_at(&s[1]))
		    : ha     ? rank_at(&s[0])
		             : rank_at(&s[1]);
		int64_t n = 0;

		ha = ha && rank_at(&s[0]) == rank;
		hb = hb && rank_at(&s[1]) == rank;
		while (st == TREX_OK && (ha || hb)) {
			st = pair_row(t, rank, n++, ha ? &s[0] : NULL, hb ? &s[1] : NULL);
			if (st == TREX_OK)
				drop_small(t, o, hidden);
			s[0].row += ha;
			s[1].row += hb;
			ha = s[0].row < s[0].t.nrows && rank_at(&s[0]) == rank;
			hb = s[1].row < s[1].t.nrows && rank_at(&s[1]) == rank;
		}
	}
	return st;
}

/* What the steps were: a note when the counts differ or a side has none. */
static enum trex_status steps_note(struct trex_table *t, const struct step_side *s,
                                   const char *pattern)
{
	char note[512];
	size_t na = s[0].t.nrows, nb = s[1].t.nrows;

	if (na == nb && na)
		return TREX_OK;
	if (!na || !nb)
		snprintf(note, sizeof(note), "%s %s no steps (no CPU op or annotation matches %s)",
		         !na && !nb ? "A and B"
		         : !na      ? "A"
		                    : "B",
		         !na && !nb ? "have" : "has", pattern ? pattern : TREX_STEP_PATTERN);
	else
		snprintf(note, sizeof(note),
		         "A has %zu steps, B %zu: steps are paired by position within each rank; "
		         "the extra ones are rows of their own (new, gone)",
		         na, nb);
	t->note = trex_table_strdup(t, note, strlen(note));
	return t->note ? TREX_OK : TREX_NOMEM;
}

enum trex_status trex_diff_steps_table(const struct trex_index *a, const struct trex_index *b,
                                       const struct trex_diff_opts *opts, struct trex_table *t,
                                       size_t *hidden, struct trex_error *err)
{
	size_t hidden_rows = 0;
	static const struct trex_diff_opts defaults = {0};
	const struct trex_diff_opts *o = opts ? opts : &defaults;
	struct step_side s[2];
	enum trex_status st;

	trex_table_init(t, "steps", step_cols, T_COUNT);
	memset(s, 0, sizeof(s));
	if ((st = both_sides(a, b, o, s, err)) != TREX_OK)
		return st;
	st = pair_steps(t, s, o, &hidden_rows);
	if (hidden)
		*hidden = hidden_rows;
	if (st == TREX_OK)
		st = steps_note(t, s, o->step_pattern);
	trex_table_free(&s[0].t);
	trex_table_free(&s[1].t);
	if (st != TREX_OK) {
		trex_table_free(t);
		return trex_error_set(err, st, NULL, -1, "diff steps: out of memory");
	}
	return TREX_OK;
}
