/* The integrity counters (trex_integrity_table) in a table view: every
 * counter of `trex info`'s integrity section per run, damage first, the
 * counters that are zero dimmed. Enter lists a counter's examples; Enter
 * on an example shows its slice, or its track at its time, in the
 * timeline, or says where in the file the damage is when no event is left
 * to show. */
#include "config.h"

#include "trex/ui/view.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "table_view.h"
#include "trex/analysis/integrity.h"
#include "trex/analysis/labels.h"

#define RUN_MAX 160

/* ---- the examples of one counter ----------------------------------------------------------- */

struct examples_view {
	struct table_view tv;
	uint32_t file;
	enum trex_integrity_counter counter;
};

/* The place of an example without an event, for the status line. */
static void say_no_event(struct trex_ui_ctx *ctx, const struct trex_problem *p)
{
	if (p->offset >= 0 && p->line > 0)
		trex_ui_message(ctx,
		                "no event to show: damage at byte %" PRId64 " (line %" PRId64
		                ":%" PRId64 "): %s",
		                p->offset, p->line, p->col, p->what);
	else if (p->offset >= 0)
		trex_ui_message(ctx, "no event to show: damage at byte %" PRId64 ": %s", p->offset,
		                p->what);
	else
		trex_ui_message(ctx, "no event to show: %s", p->what);
}

static enum trex_handled examples_action(struct table_view *tv, enum trex_action a)
{
	struct examples_view *ev = (struct examples_view *)tv;
	struct trex_ui_ctx *ctx = tv->base.ctx;
	size_t r = table_view_selected(tv);
	const struct trex_problem *p;

	if (a != TREX_ACTION_ENTER)
		return TREX_IGNORED;
	p = r == (size_t)-1 ? NULL
	                    : trex_index_problem(ctx->idx, ev->file, ev->counter, (uint32_t)r);
	if (!p)
		trex_ui_message(ctx, "no example selected");
	else if (p->slice != TREX_NONE)
		trex_ui_show_slice(ctx, p->slice);
	else if (p->track != TREX_NONE)
		trex_ui_show_track(ctx, p->track, p->ts, p->has_ts);
	else
		say_no_event(ctx, p);
	return TREX_HANDLED;
}

static const struct table_view_hooks examples_hooks = {.action = examples_action};
static const struct trex_view_ops examples_ops = TABLE_VIEW_OPS("integrity examples");

static struct trex_view *examples_view_new(struct trex_ui_ctx *ctx, uint32_t file,
                                           enum trex_integrity_counter c, uint64_t count)
{
	struct examples_view *ev = table_view_new(sizeof(*ev), ctx, &examples_ops, &examples_hooks);
	struct trex_table t;
	struct trex_error err;
	char title[256], run[RUN_MAX];

	if (!ev)
		return NULL;
	ev->file = file;
	ev->counter = c;
	if (trex_integrity_examples_table(ctx->idx, file, c, &t, &err) != TREX_OK) {
		trex_ui_message(ctx, "%s", err.message);
		table_view_free(&ev->tv.base);
		return NULL;
	}
	snprintf(title, sizeof(title), "%s in %s: %zu %s of %" PRIu64, trex_integrity_name(c),
	         trex_file_label(ctx->idx, file, run, sizeof(run)), t.nrows,
	         trex_plural(t.nrows, "example", "examples"), count);
	return table_view_show(&ev->tv, &t, title, NULL, false);
}

/* ---- the counters ------------------------------------------------------------------------- */

struct integrity_view {
	struct table_view tv;
	struct trex_integrity_rows rows; /* row r is rows.v[r] */
};

static enum trex_handled integrity_action(struct table_view *tv, enum trex_action a)
{
	struct integrity_view *iv = (struct integrity_view *)tv;
	struct trex_ui_ctx *ctx = tv->base.ctx;
	size_t r = table_view_selected(tv);
	struct trex_integrity_row row;
	int64_t count;
	struct trex_view *v;

	if (a != TREX_ACTION_ENTER)
		return TREX_IGNORED;
	if (r >= iv->rows.n) {
		trex_ui_message(ctx, "no counter selected");
		return TREX_HANDLED;
	}
	row = iv->rows.v[r];
	count = trex_table_cell(&tv->table, r, TREX_INTEG_COL_COUNT)->count;
	if (count == 0)
		trex_ui_message(ctx, "nothing counted: %s", trex_integrity_label(row.counter));
	else if (trex_index_problem_count(ctx->idx, row.file, row.counter) == 0)
		trex_ui_message(ctx, "%s: %" PRId64 " counted, no example kept",
		                trex_integrity_name(row.counter), count);
	else if ((v = examples_view_new(ctx, row.file, row.counter, (uint64_t)count)))
		trex_ui_push_view(ctx, v);
	return TREX_HANDLED;
}

/* Zero counters dimmed, damage in the warning colour, notes as they are. */
static enum trex_role integrity_row_role(const struct table_view *tv, size_t r)
{
	const struct integrity_view *iv = (const struct integrity_view *)tv;

	if (trex_table_cell(&tv->table, r, TREX_INTEG_COL_COUNT)->count == 0)
		return TREX_ROLE_DIM;
	return r < iv->rows.n && trex_integrity_is_damage(iv->rows.v[r].counter)
	           ? TREX_ROLE_WARNING
	           : TREX_ROLE_DEFAULT;
}

static void integrity_free(struct table_view *tv)
{
	trex_integrity_rows_free(&((struct integrity_view *)tv)->rows);
}

static const struct table_view_hooks integrity_hooks = {
    .action = integrity_action,
    .free = integrity_free,
    .row_role = integrity_row_role,
};
static const struct trex_view_ops integrity_ops = TABLE_VIEW_OPS("integrity");

/* "integrity: 2 damage checks and 1 note non-zero (zero ones dimmed)" */
static void integrity_title(const struct trex_index *idx, char *buf, size_t size)
{
	struct trex_integrity sum = trex_index_integrity(idx);
	unsigned damage = 0, notes = 0;

	for (int k = 0; k < TREX_INTEG_COUNT; k++) {
		enum trex_integrity_counter c = (enum trex_integrity_counter)k;

		if (trex_integrity_get(&sum, c))
			*(trex_integrity_is_damage(c) ? &damage : &notes) += 1;
	}
	snprintf(buf, size, "integrity: %u damage %s and %u %s non-zero (zero ones dimmed)", damage,
	         trex_plural(damage, "check", "checks"), notes,
	         trex_plural(notes, "note", "notes"));
}

struct trex_view *trex_integrity_view_new(struct trex_ui_ctx *ctx)
{
	struct integrity_view *iv =
	    table_view_new(sizeof(*iv), ctx, &integrity_ops, &integrity_hooks);
	struct trex_table t;
	struct trex_error err;
	char title[128];

	if (!iv)
		return NULL;
	if (trex_integrity_table(ctx->idx, &t, &iv->rows, &err) != TREX_OK) {
		trex_ui_message(ctx, "integrity: %s", err.message);
		table_view_free(&iv->tv.base);
		return NULL;
	}
	iv->tv.pinned_cols = 2; /* run, check */
	integrity_title(ctx->idx, title, sizeof(title));
	if (!table_view_show(&iv->tv, &t, title, NULL, false))
		return NULL;
	/* one run: its label on every row says nothing (F2 shows it) */
	if (trex_index_file_count(ctx->idx) == 1 &&
	    (iv->tv.col_off = calloc(iv->tv.table.ncols, sizeof(*iv->tv.col_off))))
		iv->tv.col_off[TREX_INTEG_COL_RUN] = true;
	return &iv->tv.base;
}
