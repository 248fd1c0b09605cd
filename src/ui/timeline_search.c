#include "config.h"

#include "timeline_search.h"
#include "timeline_tracks.h"

#include <stdlib.h>
#include <string.h>

#include "trex/analysis/search.h"

#define WHEEL_ROWS 3 /* tracks scrolled per wheel step (tig's mouse-scroll) */

static const struct trex_index *idx_of(struct timeline_view *tv)
{
	return tv->idx;
}

static void drop(struct trex_search **s, const struct trex_search *keep)
{
	if (*s != keep)
		trex_search_free(*s);
	*s = NULL;
}

/* pattern compiled under the current filter; NULL with the error shown. */
static struct trex_search *compile(struct timeline_view *tv, const char *pattern,
                                   const struct trex_search *within)
{
	struct trex_search *s = NULL;
	struct trex_error err;

	if (trex_search_new(idx_of(tv), pattern, within, &s, &err) != TREX_OK)
		trex_ui_message(tv->base.ctx, "%s", err.message);
	return s;
}

/* ---- n / N --------------------------------------------------------------------------- */

/* Where n/N start from: the selection, else just before/after the cursor. */
static struct trex_search_pos here(struct timeline_view *tv, int dir)
{
	if (tv->selected != TREX_NONE)
		return trex_search_pos_of(idx_of(tv), tv->selected);
	if (dir > 0)
		return (struct trex_search_pos){tv->cursor > INT64_MIN ? tv->cursor - 1 : INT64_MIN,
		                                UINT32_MAX, UINT32_MAX, UINT32_MAX};
	return (struct trex_search_pos){tv->cursor, 0, 0, 0};
}

uint32_t tl_search_find(struct timeline_view *tv, int dir, bool from_end)
{
	struct trex_search_pos pos = here(tv, dir);

	if (!tv->search)
		return TREX_NONE;
	if (from_end)
		pos = dir > 0
		          ? (struct trex_search_pos){INT64_MIN, 0, 0, 0}
		          : (struct trex_search_pos){INT64_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX};
	/* only matches on drawn lanes: never one the view would have to unfold */
	return dir > 0 ? trex_search_next_in(tv->search, &pos, tv->rows.lane_drawn)
	               : trex_search_prev_in(tv->search, &pos, tv->rows.lane_drawn);
}

static void go_match(struct timeline_view *tv, int dir)
{
	uint32_t id, all;

	if (!tv->search) {
		trex_ui_message(tv->base.ctx, "no search: press / first");
		return;
	}
	all = trex_search_count(tv->search);
	if (trex_search_count_in(tv->search, tv->rows.lane_drawn) == 0) {
		if (all == 0)
			trex_ui_message(tv->base.ctx, "no match for /%s",
			                trex_search_pattern(tv->search));
		else
			trex_ui_message(tv->base.ctx,
			                "no match for /%s on the rows shown (%u hidden)",
			                trex_search_pattern(tv->search), all);
		return;
	}
	id = tl_search_find(tv, dir, false);
	if (id == TREX_NONE) {
		id = tl_search_find(tv, dir, true);
		trex_ui_message(tv->base.ctx, "search wrapped");
	}
	if (id != TREX_NONE)
		tl_show_drawn_slice(tv, id);
}

/* ---- the search prompt ------------------------------------------------------------------ */

static void search_changed(struct trex_view *v, const char *text)
{
	struct timeline_view *tv = (struct timeline_view *)v;

	drop(&tv->search, tv->search_saved);
	tv->base.ctx->msg[0] = '\0';
	if (!*text)
		return;
	tv->search = compile(tv, text, tv->filter);
	if (tv->search)
		trex_ui_message(tv->base.ctx, "%u %s", trex_search_count(tv->search),
		                trex_plural(trex_search_count(tv->search), "match", "matches"));
}

/* The search from before the prompt opened comes back. */
static void restore_search(struct timeline_view *tv)
{
	drop(&tv->search, tv->search_saved);
	tv->search = tv->search_saved;
	tv->search_saved = NULL;
}

static void search_submit(struct trex_view *v, const char *text)
{
	struct timeline_view *tv = (struct timeline_view *)v;

	search_changed(v, text);
	if (*text && !tv->search) { /* a bad pattern: the error stays, the old search too */
		restore_search(tv);
		return;
	}
	drop(&tv->search_saved, tv->search);
	tv->search_saved = NULL;
	if (!tv->search)
		return;
	/* the status line shows the match (and "/pat i/n"), not the count */
	if (trex_search_count(tv->search) > 0)
		tv->base.ctx->msg[0] = '\0';
	tv->selected = TREX_NONE;
	go_match(tv, 1);
}

static void search_cancel(struct trex_view *v)
{
	restore_search((struct timeline_view *)v);
	v->ctx->msg[0] = '\0';
}

static void open_search(struct timeline_view *tv)
{
	static const struct trex_prompt_spec spec = {
	    .label = "/",
	    .history = TREX_PROMPT_HISTORY_SEARCH,
	    .on_change = search_changed,
	    .on_submit = search_submit,
	    .on_cancel = search_cancel,
	};

	tv->search_saved = tv->search;
	trex_ui_prompt(tv->base.ctx, &tv->base, &spec);
}

/* ---- the filter prompt ------------------------------------------------------------------ */

/* The search again inside the new filter. */
static void research(struct timeline_view *tv)
{
	struct trex_search *s;

	if (!tv->search)
		return;
	s = compile(tv, trex_search_pattern(tv->search), tv->filter);
	if (s) {
		trex_search_free(tv->search);
		tv->search = s;
	}
}

static void set_filter(struct timeline_view *tv, struct trex_search *f)
{
	drop(&tv->filter, tv->filter_saved);
	tv->filter = f;
	tl_rebuild(tv);
}

/* The filter from before the prompt opened comes back (rows rebuilt). */
static void restore_filter(struct timeline_view *tv)
{
	if (tv->filter != tv->filter_saved)
		set_filter(tv, tv->filter_saved);
	tv->filter_saved = NULL;
}

static void filter_changed(struct trex_view *v, const char *text)
{
	struct timeline_view *tv = (struct timeline_view *)v;
	struct trex_search *f = NULL;

	tv->base.ctx->msg[0] = '\0';
	if (*text && !(f = compile(tv, text, NULL)))
		return; /* keep the last good filter on screen while the pattern is bad */
	set_filter(tv, f);
	if (f)
		trex_ui_message(tv->base.ctx, "%u %s", trex_search_count(f),
		                trex_plural(trex_search_count(f), "slice matches", "slices match"));
}

static void filter_submit(struct trex_view *v, const char *text)
{
	struct timeline_view *tv = (struct timeline_view *)v;
	struct trex_search *f = NULL;

	if (*text && !(f = compile(tv, text, NULL))) {
		restore_filter(tv); /* a bad pattern: its error shows */
		return;
	}
	set_filter(tv, f);
	drop(&tv->filter_saved, tv->filter);
	research(tv);
	if (f)
		trex_ui_message(tv->base.ctx, "filter: %u %s", trex_search_count(f),
		                trex_plural(trex_search_count(f), "slice matches", "slices match"));
	else
		trex_ui_message(tv->base.ctx, "filter cleared");
}

static void filter_cancel(struct trex_view *v)
{
	restore_filter((struct timeline_view *)v);
	v->ctx->msg[0] = '\0';
}

static void open_filter(struct timeline_view *tv)
{
	static const struct trex_prompt_spec spec = {
	    .label = "filter: ",
	    .history = TREX_PROMPT_HISTORY_FILTER,
	    .on_change = filter_changed,
	    .on_submit = filter_submit,
	    .on_cancel = filter_cancel,
	};

	tv->filter_saved = tv->filter;
	trex_ui_prompt(tv->base.ctx, &tv->base, &spec);
}

/* ---- actions ------------------------------------------------------------------------------ */

void tl_search_action(struct timeline_view *tv, enum trex_action a)
{
	switch (a) {
	case TREX_ACTION_SEARCH:
		open_search(tv);
		break;
	case TREX_ACTION_NEXT_MATCH:
		go_match(tv, 1);
		break;
	case TREX_ACTION_PREV_MATCH:
		go_match(tv, -1);
		break;
	case TREX_ACTION_FILTER:
		open_filter(tv);
		break;
	default:
		break;
	}
}

void tl_search_clear(struct timeline_view *tv)
{
	if (tv->selected != TREX_NONE) {
		tv->selected = TREX_NONE;
		trex_ui_message(tv->base.ctx, "selection cleared");
	} else if (tv->search) {
		trex_search_free(tv->search);
		tv->search = NULL;
		trex_ui_message(tv->base.ctx, "search cleared");
	} else if (tv->filter) {
		set_filter(tv, NULL);
		research(tv);
		trex_ui_message(tv->base.ctx, "filter cleared");
	} else if (tl_tracks_drop_filter(tv)) {
		trex_ui_message(tv->base.ctx, "track filter cleared");
	} else {
		trex_ui_message(tv->base.ctx, "nothing to clear");
	}
}

void tl_search_drop_filter(struct timeline_view *tv)
{
	set_filter(tv, NULL);
	research(tv);
}

static bool same_pattern(const struct trex_search *a, const struct trex_search *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(trex_search_pattern(a), trex_search_pattern(b)) == 0;
}

/* pattern over tv's run, quietly (it compiled over the other run already) */
static struct trex_search *compile_quiet(struct timeline_view *tv, const struct trex_search *like,
                                         const struct trex_search *within)
{
	struct trex_search *s = NULL;
	struct trex_error err;

	if (like &&
	    trex_search_new(idx_of(tv), trex_search_pattern(like), within, &s, &err) != TREX_OK)
		s = NULL;
	return s;
}

void tl_search_follow(struct timeline_view *tv, const struct timeline_view *from)
{
	bool refilter = !same_pattern(tv->filter, from->filter);

	if (refilter)
		set_filter(tv, compile_quiet(tv, from->filter, NULL));
	if (refilter || !same_pattern(tv->search, from->search)) {
		trex_search_free(tv->search);
		tv->search = compile_quiet(tv, from->search, tv->filter);
	}
}

void tl_search_free(struct timeline_view *tv)
{
	drop(&tv->search_saved, tv->search);
	drop(&tv->search, NULL);
	drop(&tv->filter_saved, tv->filter);
	drop(&tv->filter, NULL);
}

/* ---- mouse ---------------------------------------------------------------------------------- */

static void click(struct timeline_view *tv, struct trex_hit h)
{
	struct trex_tmap m = {tv->win.t0, tv->win.span, tv->cols > 0 ? tv->cols : 1};
	struct tl_body b = tl_rows_body(&tv->rows, tv->body_h);
	size_t r = tl_rows_at_line(&tv->rows, &b, tv->pin_top, tv->top_row, h.row);
	int64_t hi;

	if (r >= tv->rows.n)
		return; /* past the last row, or the line under the pinned rows */
	tv->cur_row = r;
	if (h.col < 0)
		return;
	trex_tmap_cell(&m, h.col, &tv->cursor, &hi);
	tv->selected = TREX_NONE;
	if (tv->rows.v[r].kind == TL_ROW_LANE)
		tv->selected = tl_slice_at(tv, tv->rows.v[r].id, h.col, tv->cursor);
}

/* Over the time area the wheel zooms around the pointer (Ctrl: scrolls
 * the tracks instead); over the track names it scrolls the tracks; with
 * Shift it pans. Terminals often swallow the modifiers, so the plain wheel
 * does what users reach for first in a timeline, and every one has a key. */
static void wheel(struct timeline_view *tv, struct trex_hit h, int dir, unsigned long bstate)
{
	struct trex_view *v = &tv->base;

	if (h.col >= 0 && !(bstate & (BUTTON_CTRL | BUTTON_SHIFT))) {
		struct trex_tmap m = {tv->win.t0, tv->win.span, tv->cols > 0 ? tv->cols : 1};
		int64_t hi;

		trex_tmap_cell(&m, h.col, &tv->cursor, &hi); /* the pointer's time stays put */
		v->ops->dispatch(v, dir < 0 ? TREX_ACTION_ZOOM_IN : TREX_ACTION_ZOOM_OUT);
	} else if (bstate & BUTTON_SHIFT) {
		v->ops->dispatch(v, dir < 0 ? TREX_ACTION_PAN_LEFT : TREX_ACTION_PAN_RIGHT);
	} else {
		/* the view and the cursor move together, like C-e/C-y in less */
		size_t before = tv->cur_row;

		for (int i = 0; i < WHEEL_ROWS; i++)
			v->ops->dispatch(v, dir < 0 ? TREX_ACTION_MOVE_UP : TREX_ACTION_MOVE_DOWN);
		if (dir < 0)
			tv->top_row -=
			    tv->top_row < before - tv->cur_row ? tv->top_row : before - tv->cur_row;
		else
			tv->top_row += tv->cur_row - before;
	}
}

enum trex_handled tl_mouse(struct trex_view *v, int y, int x, unsigned long bstate)
{
	struct timeline_view *tv = (struct timeline_view *)v;
	struct trex_hit h = trex_layout_hit(&tv->lay, y, x);

	if (tl_details_mouse(tv, y, x, bstate))
		return TREX_HANDLED;
	if (!h.body)
		return TREX_IGNORED;
	if (bstate & BUTTON4_PRESSED)
		wheel(tv, h, -1, bstate);
#ifdef BUTTON5_PRESSED
	else if (bstate & BUTTON5_PRESSED)
		wheel(tv, h, 1, bstate);
#endif
	else if (bstate & (BUTTON1_PRESSED | BUTTON1_RELEASED | BUTTON1_CLICKED))
		click(tv, h);
	else
		return TREX_IGNORED;
	return TREX_HANDLED;
}
