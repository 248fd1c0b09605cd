#include "config.h"

#include "timeline_compare.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeline_compare_tracks.h"
#include "timeline_search.h"
#include "trex/analysis/integrity.h"
#include "trex/analysis/run_align.h"
#include "trex/ui/nav.h"

enum { SIDE_A, SIDE_B };

struct compare_view {
	struct trex_view base;
	struct timeline_view *side[2];
	int focus; /* the run the keys go to */
	struct trex_run_align align;
	char note[128];                /* the status line's word on the alignment */
	struct tl_compare_split split; /* at the last draw, for the mouse */
	struct tl_track_match match;   /* which track of one run is which of the other's */
	bool own_tracks;               /* follow-tracks turned following off */
};

static const struct trex_view_ops compare_ops;

static struct compare_view *cmp_of(struct trex_view *v)
{
	return (struct compare_view *)v;
}

static struct timeline_view *focused(struct compare_view *cv)
{
	return cv->side[cv->focus];
}

static struct timeline_view *unfocused(struct compare_view *cv)
{
	return cv->side[!cv->focus];
}

static int64_t moved(int64_t t, int64_t delta)
{
	__int128 r = (__int128)t + delta;

	return r > INT64_MAX ? INT64_MAX : r < INT64_MIN ? INT64_MIN : (int64_t)r;
}

/* "+1.5 ms", "-20 us", "+0 ns" */
static void signed_duration(int64_t ns, char *buf, size_t size)
{
	char d[32];

	trex_format_duration(ns < 0 ? -(double)ns : (double)ns, d, sizeof(d));
	snprintf(buf, size, "%s%s", ns < 0 ? "-" : "+", d);
}

/* ---- one axis ------------------------------------------------------------------------------ */

/* to shows what from shows: the same window and cursor on the shared
 * axis, the same zoom history, filter, search, marks, pane and critical
 * path highlight. Track choices (pins, folds, the track filter, hidden
 * tracks) follow on the matching tracks (follow_tracks). */
static void follow(struct timeline_view *to, const struct timeline_view *from)
{
	int64_t delta = (int64_t)((__int128)from->shift - to->shift);

	to->win.t0 = moved(from->win.t0, delta);
	to->win.span = from->win.span;
	to->cursor = moved(from->cursor, delta);
	to->zoom_depth = from->zoom_depth;
	for (int i = 0; i < from->zoom_depth; i++)
		to->zoom_stack[i] = (struct tl_window){moved(from->zoom_stack[i].t0, delta),
		                                       from->zoom_stack[i].span};
	to->details.shown = from->details.shown;
	to->critical_hidden = from->critical_hidden;
	tl_search_follow(to, from);
	tl_range_follow(to, from);
}

/* The other run takes the focused run's track choices on its matching
 * tracks (timeline_compare_tracks.h); true when anything changed there. */
static bool follow_tracks(struct compare_view *cv)
{
	return !cv->own_tracks &&
	       tl_compare_follow_tracks(unfocused(cv), focused(cv), &cv->match, !cv->focus);
}

/* follow-tracks: following off, or on again (the other run then takes
 * the choices of the run the cursor is on). */
static void toggle_follow_tracks(struct compare_view *cv)
{
	cv->own_tracks = !cv->own_tracks;
	if (cv->own_tracks) {
		trex_ui_message(cv->base.ctx, "track choices are each run's own now");
		return;
	}
	follow_tracks(cv);
	trex_ui_message(cv->base.ctx,
	                "track choices follow on the other run's matching tracks again: "
	                "run %s took run %s's",
	                cv->focus == SIDE_A ? "B" : "A", cv->focus == SIDE_A ? "A" : "B");
}

static void set_focus(struct compare_view *cv, int side)
{
	struct timeline_view *was = focused(cv);

	if (side == cv->focus)
		return;
	cv->focus = side;
	follow(focused(cv), was);
	was->selected = TREX_NONE; /* one selection: the status and the pane show it */
	was->details.focus = false;
}

/* "step 3", "aten::mm #2", "start" */
static void align_point(struct compare_view *cv, char *buf, size_t size)
{
	if (cv->align.kind == TREX_RUN_ALIGN_STEP)
		snprintf(buf, size, "step %" PRIu64, cv->align.step);
	else if (cv->align.kind == TREX_RUN_ALIGN_SLICE)
		trex_run_align_describe(cv->side[SIDE_A]->idx, &cv->align, buf, size);
	else
		snprintf(buf, size, "start");
}

/* "B +1.5 ms (step 3)", "B -20 us (aten::mm #2)", "B +0 ns (start)" */
static void say_alignment(struct compare_view *cv)
{
	char what[160], off[40];

	align_point(cv, what, sizeof(what));
	signed_duration(cv->align.offset, off, sizeof(off));
	snprintf(cv->note, sizeof(cv->note), "B %s (%.80s)", off, what);
}

/* B moved by al's offset onto A's axis; A's window stays. */
static void set_alignment(struct compare_view *cv, const struct trex_run_align *al)
{
	struct timeline_view *a = cv->side[SIDE_A], *b = cv->side[SIDE_B];
	int64_t off = al->offset;
	int64_t b_lo = moved(trex_index_start(b->idx), off),
	        b_hi = moved(trex_index_end(b->idx), off);
	int64_t lo = trex_index_start(a->idx), hi = trex_index_end(a->idx);

	cv->align = *al;
	b->shift = off;
	b->origin = moved(a->origin, -off);
	lo = b_lo < lo ? b_lo : lo;
	hi = b_hi > hi ? b_hi : hi;
	tl_set_span(a, lo, hi, false);
	tl_set_span(b, moved(lo, -off), moved(hi, -off), false);
	follow(b, a);
	if (cv->focus == SIDE_B)
		follow(a, b);
	say_alignment(cv);
}

/* ---- aligning ------------------------------------------------------------------------------ */

static void aligned(struct compare_view *cv, const struct trex_run_align *al)
{
	char what[160], off[40];

	set_alignment(cv, al);
	align_point(cv, what, sizeof(what));
	signed_duration(al->offset, off, sizeof(off));
	trex_ui_message(cv->base.ctx, "B aligned at %s: its times read %s on A's axis", what, off);
}

/* align-slice: the selected slice's name, at its occurrence in its run. */
static void align_at_selection(struct compare_view *cv)
{
	struct timeline_view *f = focused(cv);
	struct trex_run_align al;
	struct trex_error err;
	const char *name;
	uint32_t nth;

	if (f->selected == TREX_NONE) {
		trex_ui_message(cv->base.ctx,
		                "select a slice first: B's n-th of its name then starts with A's");
		return;
	}
	name = trex_index_str(f->idx, trex_index_slice(f->idx, f->selected)->name);
	nth = trex_run_align_nth(f->idx, f->selected);
	if (trex_run_align_name(cv->side[SIDE_A]->idx, cv->side[SIDE_B]->idx, name ? name : "", nth,
	                        &al, &err) != TREX_OK) {
		trex_ui_message(cv->base.ctx, "cannot align: %s", err.message);
		return;
	}
	aligned(cv, &al);
}

/* "1009", "step 1009", "ProfilerStep#1009"; -1 for "" and "first"; -2
 * for "start"; -3 for anything else. */
static int64_t parse_step(const char *text)
{
	char *end;
	long long v;

	while (isspace((unsigned char)*text))
		text++;
	if (!*text || strcmp(text, "first") == 0)
		return -1;
	if (strcmp(text, "start") == 0)
		return -2;
	if (strncmp(text, "step", 4) == 0)
		text += 4;
	else if (strncmp(text, "ProfilerStep#", 13) == 0)
		text += 13;
	while (isspace((unsigned char)*text))
		text++;
	if (!isdigit((unsigned char)*text))
		return -3;
	errno = 0;
	v = strtoll(text, &end, 10);
	while (isspace((unsigned char)*end))
		end++;
	return *end || errno || v < 0 ? -3 : (int64_t)v;
}

static void align_step_submit(struct trex_view *v, const char *text)
{
	struct compare_view *cv = cmp_of(v);
	int64_t step = parse_step(text);
	struct trex_run_align al;
	struct trex_error err;

	if (step == -3) {
		trex_ui_message(v->ctx, "align at: a step number, first (the first both runs have) "
		                        "or start");
		return;
	}
	if (step == -2)
		trex_run_align_start(cv->side[SIDE_A]->idx, cv->side[SIDE_B]->idx, &al);
	else if (trex_run_align_step(cv->side[SIDE_A]->idx, cv->side[SIDE_B]->idx, step, &al,
	                             &err) != TREX_OK) {
		trex_ui_message(v->ctx, "cannot align: %s", err.message);
		return;
	}
	aligned(cv, &al);
}

static void open_align_step(struct compare_view *cv)
{
	static const struct trex_prompt_spec spec = {
	    .label = "align at step: ",
	    .history = TREX_PROMPT_HISTORY_OTHER,
	    .on_submit = align_step_submit,
	};

	trex_ui_prompt(cv->base.ctx, &cv->base, &spec);
	trex_ui_message(cv->base.ctx, "a step number, first (Enter) or start");
}

/* ---- keys ---------------------------------------------------------------------------------- */

static bool is_down(enum trex_action a)
{
	return a == TREX_ACTION_TRACK_DOWN || a == TREX_ACTION_MOVE_DOWN ||
	       a == TREX_ACTION_PAGE_DOWN || a == TREX_ACTION_HALF_PAGE_DOWN;
}

static bool is_up(enum trex_action a)
{
	return a == TREX_ACTION_TRACK_UP || a == TREX_ACTION_MOVE_UP || a == TREX_ACTION_PAGE_UP ||
	       a == TREX_ACTION_HALF_PAGE_UP;
}

/* Moving past A's last row goes on at B's first and back; first/last go
 * to A's first and B's last row. true when the move is done. */
static bool cross(struct compare_view *cv, enum trex_action a)
{
	struct timeline_view *f = focused(cv), *to;

	if (f->details.focus)
		return false; /* the pane takes the moving keys */
	if (a == TREX_ACTION_MOVE_FIRST || a == TREX_ACTION_MOVE_LAST) {
		set_focus(cv, a == TREX_ACTION_MOVE_FIRST ? SIDE_A : SIDE_B);
		return false; /* the run's own first/last row */
	}
	if (cv->focus == SIDE_A && is_down(a) && f->cur_row + 1 >= f->rows.n &&
	    cv->side[SIDE_B]->rows.n > 0) {
		set_focus(cv, SIDE_B);
		to = focused(cv);
		to->cur_row = 0;
	} else if (cv->focus == SIDE_B && is_up(a) && f->cur_row == 0 &&
	           cv->side[SIDE_A]->rows.n > 0) {
		set_focus(cv, SIDE_A);
		to = focused(cv);
		to->cur_row = to->rows.n - 1;
	} else {
		return false;
	}
	tl_select_at_cursor(to);
	return true;
}

/* n/N past the last match of one run go on in the other (A's matches
 * first, then B's, then A's again). true when they did. */
static bool search_across(struct compare_view *cv, int dir)
{
	struct timeline_view *f = focused(cv), *o = unfocused(cv);
	bool wrapped = (cv->focus == SIDE_A) != (dir > 0);
	uint32_t id;

	if (!f->search || tl_search_find(f, dir, false) != TREX_NONE)
		return false;
	id = tl_search_find(o, dir, true);
	if (id == TREX_NONE)
		return false;
	set_focus(cv, !cv->focus);
	if (!tl_show_drawn_slice(o, id))
		return true;
	follow(f, o);
	trex_ui_message(cv->base.ctx,
	                wrapped ? "search wrapped to run %s" : "search went on in run %s",
	                cv->focus == SIDE_A ? "A" : "B");
	return true;
}

static enum trex_handled cmp_dispatch(struct trex_view *v, enum trex_action a)
{
	struct compare_view *cv = cmp_of(v);
	enum trex_handled handled;

	if (a == TREX_ACTION_ALIGN_SLICE) {
		align_at_selection(cv);
		return TREX_HANDLED;
	}
	if (a == TREX_ACTION_ALIGN_STEP) {
		open_align_step(cv);
		return TREX_HANDLED;
	}
	if (a == TREX_ACTION_FOLLOW_TRACKS) {
		toggle_follow_tracks(cv);
		return TREX_HANDLED;
	}
	if (cross(cv, a))
		return TREX_HANDLED;
	if ((a == TREX_ACTION_NEXT_MATCH || a == TREX_ACTION_PREV_MATCH) &&
	    search_across(cv, a == TREX_ACTION_NEXT_MATCH ? 1 : -1))
		return TREX_HANDLED;
	handled = focused(cv)->base.ops->dispatch(&focused(cv)->base, a);
	follow(unfocused(cv), focused(cv));
	if (follow_tracks(cv) && v->ctx->msg[0]) {
		size_t len = strlen(v->ctx->msg);

		snprintf(v->ctx->msg + len, sizeof(v->ctx->msg) - len, "; run %s too",
		         cv->focus == SIDE_A ? "B" : "A");
	}
	return handled;
}

static bool cmp_supports(enum trex_action a)
{
	return trex_timeline_supports(a);
}

/* ---- drawing ------------------------------------------------------------------------------- */

struct tl_compare_split tl_compare_split(int body_y, int body_h, size_t a_rows, size_t b_rows)
{
	struct tl_compare_split s;
	int avail = body_h > 2 ? body_h - 2 : 0, half_b = avail / 2, half_a = avail - half_b;
	size_t a_need = a_rows ? a_rows : 1, b_need = b_rows ? b_rows : 1;
	int a_h;

	if (a_need <= (size_t)half_a)
		a_h = (int)a_need;
	else if (b_need <= (size_t)half_b)
		a_h = avail - (int)b_need;
	else
		a_h = half_a;
	s.a_y = body_y + 1;
	s.a_h = a_h;
	s.b_y = s.a_y + a_h + 1;
	s.b_h = avail - a_h;
	return s;
}

/* A run's files as the header row names them: one file by its base
 * name, several as the title lists them ("2 files: a.json, b.json"). */
static const char *base_name(const char *label)
{
	const char *slash = strrchr(label, '/');

	return strchr(label, ':') || !slash || !slash[1] ? label : slash + 1;
}

/* " A: base.json" / " B: test.json  at ProfilerStep#3 +1.5 ms" over the
 * names and time columns. */
static void draw_run_header(struct compare_view *cv, WINDOW *win, const struct trex_layout *lay,
                            int y, int side)
{
	struct trex_ui_ctx *ctx = cv->base.ctx;
	int x = lay->names.x, w = lay->timeline.x + lay->timeline.w - x;
	char text[640];

	if (y < lay->names.y || y >= lay->names.y + lay->names.h)
		return;
	if (side == SIDE_A)
		snprintf(text, sizeof(text), " A: %s", base_name(ctx->title ? ctx->title : ""));
	else
		snprintf(text, sizeof(text), " B: %s  aligned %s", base_name(ctx->compare_label),
		         cv->note + 2);
	trex_draw_fill(win, y, x, w, trex_term_attr(ctx->term, TREX_ROLE_TRACK_GROUP));
	wattrset(win, (int)trex_term_attr(ctx->term, TREX_ROLE_TRACK_GROUP));
	trex_draw_text_cut(win, ctx->term, y, x, text, w);
}

static struct trex_layout side_layout(const struct trex_layout *lay, int y, int h, bool pane)
{
	struct trex_layout l = *lay;

	l.names.y = l.timeline.y = y;
	l.names.h = l.timeline.h = h;
	if (!pane)
		l.details = (struct trex_rect){0, 0, 0, 0};
	return l;
}

/* The lines a run's rows take: the line under its pinned rows too. */
static size_t body_lines(const struct timeline_view *tv)
{
	return tv->rows.n + (tv->rows.n_pinned > 0);
}

static void cmp_draw(struct trex_view *v, WINDOW *win, const struct trex_layout *full)
{
	struct compare_view *cv = cmp_of(v);
	struct timeline_view *a = cv->side[SIDE_A], *b = cv->side[SIDE_B];
	struct trex_layout lay = *full, la, lb;

	follow_tracks(cv); /* what a prompt (the track filter) changed */
	follow(unfocused(cv), focused(cv));
	tl_details_layout(focused(cv), &lay);
	cv->split = tl_compare_split(lay.names.y, lay.names.h, body_lines(a), body_lines(b));
	la = side_layout(&lay, cv->split.a_y, cv->split.a_h, cv->focus == SIDE_A);
	lb = side_layout(&lay, cv->split.b_y, cv->split.b_h, cv->focus == SIDE_B);
	draw_run_header(cv, win, &lay, cv->split.a_y - 1, SIDE_A);
	draw_run_header(cv, win, &lay, cv->split.b_y - 1, SIDE_B);
	a->status_note = b->status_note = cv->note;
	if (cv->focus == SIDE_A) {
		tl_draw_parts(b, win, &lb, 0);
		tl_draw_parts(a, win, &la, TL_DRAW_FRAME);
	} else {
		tl_draw_parts(a, win, &la, 0);
		tl_draw_parts(b, win, &lb, TL_DRAW_FRAME);
	}
	a->screen_lay = b->screen_lay = lay;
}

/* The run whose rows hold screen line y, else the focused one. */
static int side_at(struct compare_view *cv, int y)
{
	if (y >= cv->split.a_y && y < cv->split.a_y + cv->split.a_h)
		return SIDE_A;
	if (y >= cv->split.b_y && y < cv->split.b_y + cv->split.b_h)
		return SIDE_B;
	return cv->focus;
}

static enum trex_handled cmp_mouse(struct trex_view *v, int y, int x, unsigned long bstate)
{
	struct compare_view *cv = cmp_of(v);
	enum trex_handled handled;

	set_focus(cv, side_at(cv, y));
	handled = focused(cv)->base.ops->mouse(&focused(cv)->base, y, x, bstate);
	follow(unfocused(cv), focused(cv));
	follow_tracks(cv);
	return handled;
}

static void cmp_free(struct trex_view *v)
{
	struct compare_view *cv = cmp_of(v);

	for (int i = 0; i < 2; i++)
		if (cv->side[i])
			cv->side[i]->base.ops->free(&cv->side[i]->base);
	tl_track_match_free(&cv->match);
	free(cv);
}

static const struct trex_view_ops compare_ops = {
    .name = "compare",
    .keymap = TREX_KEYMAP_TIMELINE,
    .supports = cmp_supports,
    .dispatch = cmp_dispatch,
    .draw = cmp_draw,
    .free = cmp_free,
    .mouse = cmp_mouse,
};

struct trex_view *tl_compare_new(struct trex_ui_ctx *ctx)
{
	struct compare_view *cv = calloc(1, sizeof(*cv));
	struct trex_view *a, *b;
	struct trex_run_align al;

	if (!cv)
		return NULL;
	cv->base.ops = &compare_ops;
	cv->base.ctx = ctx;
	a = tl_view_new(ctx, ctx->idx);
	b = a ? tl_view_new(ctx, ctx->compare) : NULL;
	cv->side[SIDE_A] = (struct timeline_view *)a;
	cv->side[SIDE_B] = (struct timeline_view *)b;
	if (!b || !tl_track_match_init(&cv->match, ctx->idx, ctx->compare)) {
		cmp_free(&cv->base);
		return NULL;
	}
	cv->side[SIDE_B]->side = "B";
	trex_run_align_default(ctx->idx, ctx->compare, &al);
	set_alignment(cv, &al);
	/* both runs whole on the screen */
	tl_set_span(cv->side[SIDE_A], cv->side[SIDE_A]->span_lo, cv->side[SIDE_A]->span_hi, true);
	follow(cv->side[SIDE_B], cv->side[SIDE_A]);
	return &cv->base;
}

struct trex_view *tl_compare_a(struct trex_view *v)
{
	return v->ops == &compare_ops ? &cmp_of(v)->side[SIDE_A]->base : v;
}

struct trex_view *tl_compare_focus_a(struct trex_view *v)
{
	if (v->ops != &compare_ops)
		return v;
	set_focus(cmp_of(v), SIDE_A);
	return &cmp_of(v)->side[SIDE_A]->base;
}

void tl_compare_original_time(const struct timeline_view *tv, int64_t ts, char *buf, size_t size)
{
	int64_t rel = moved(ts, -trex_index_start(tv->idx));
	char h[32], off[40];

	trex_format_duration((double)rel, h, sizeof(h));
	signed_duration(tv->shift, off, sizeof(off));
	snprintf(buf, size,
	         "%s (%" PRId64 " ns from B's start; absolute %" PRId64 " ns), offset %s", h, rel,
	         ts, off);
}

void tl_compare_notice(const struct trex_ui_ctx *ctx, char *buf, size_t size)
{
	uint32_t n = ctx->compare ? trex_index_file_count(ctx->compare) : 0, damaged = 0, which = 0;
	char lost[TREX_UI_MSG_MAX];

	buf[0] = '\0';
	for (uint32_t i = 0; i < n; i++)
		if (trex_file_lost_data(trex_index_file(ctx->compare, i))) {
			damaged++;
			which = i;
		}
	if (damaged == 0)
		return;
	trex_loss_text(ctx->compare, damaged == 1 ? which : TREX_NONE, false, lost, sizeof(lost));
	snprintf(buf, size, "run B: %s", lost);
}
