#include "config.h"

#include "timeline_view.h"
#include "timeline_search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/search.h"
#include "trex/ui/nav.h"

#define SPAN_MAX_FACTOR 4 /* zoom out to at most 4 x the whole trace */

static const struct trex_view_ops timeline_ops;

static struct timeline_view *tl_of(struct trex_view *v)
{
	return (struct timeline_view *)v;
}

static const struct trex_index *idx_of(struct timeline_view *tv)
{
	return tv->base.ctx->idx;
}

static int64_t trace_start(struct timeline_view *tv)
{
	return trex_index_start(idx_of(tv));
}

static int64_t trace_len(struct timeline_view *tv)
{
	__int128 len = (__int128)trex_index_end(idx_of(tv)) - trace_start(tv);

	return len > INT64_MAX ? INT64_MAX : len > 0 ? (int64_t)len : 1;
}

static int64_t span_min(struct timeline_view *tv)
{
	return tv->cols > 0 ? tv->cols : 1;
}

static const struct trex_lane *cur_lane(struct timeline_view *tv)
{
	const struct tl_row *r;

	if (tv->cur_row >= tv->rows.n)
		return NULL;
	r = &tv->rows.v[tv->cur_row];
	return r->kind == TL_ROW_LANE ? trex_index_lane(idx_of(tv), r->id) : NULL;
}

static void msg(struct timeline_view *tv, const char *text)
{
	snprintf(tv->base.ctx->msg, sizeof(tv->base.ctx->msg), "%s", text);
}

/* ---- the time window -------------------------------------------------------------- */

/* a + b, saturated (traces with saturated timestamps span nearly all of int64) */
static int64_t sat_add(int64_t a, int64_t b)
{
	__int128 r = (__int128)a + b;

	return r > INT64_MAX ? INT64_MAX : r < INT64_MIN ? INT64_MIN : (int64_t)r;
}

static void window_set(struct timeline_view *tv, int64_t t0, int64_t span)
{
	int64_t len = trace_len(tv), lo, hi;
	int64_t max = len > INT64_MAX / SPAN_MAX_FACTOR ? INT64_MAX : len * SPAN_MAX_FACTOR;

	if (span < span_min(tv))
		span = span_min(tv);
	if (span > max && max >= span_min(tv))
		span = max;
	lo = sat_add(trace_start(tv), -(span / 2));
	hi = sat_add(sat_add(trace_start(tv), len), -(span / 2));
	if (t0 < lo)
		t0 = lo;
	if (t0 > hi)
		t0 = hi;
	tv->win = (struct tl_window){t0, span};
}

static void zoom_push(struct timeline_view *tv)
{
	if (tv->zoom_depth == TL_ZOOM_STACK) {
		memmove(tv->zoom_stack, tv->zoom_stack + 1,
		        sizeof(tv->zoom_stack[0]) * (TL_ZOOM_STACK - 1));
		tv->zoom_depth--;
	}
	tv->zoom_stack[tv->zoom_depth++] = tv->win;
}

static void cursor_clamp(struct timeline_view *tv)
{
	if (tv->cursor < tv->win.t0 || tv->cursor >= sat_add(tv->win.t0, tv->win.span))
		tv->cursor = tv->win.t0 + tv->win.span / 2;
}

/* Zooms by num/den keeping the cursor at the same column. */
static void zoom_by(struct timeline_view *tv, int64_t num, int64_t den)
{
	int64_t span = (int64_t)((__int128)tv->win.span * num / den);
	int64_t left = (int64_t)((__int128)(tv->cursor - tv->win.t0) * num / den);
	struct tl_window before = tv->win;

	zoom_push(tv);
	window_set(tv, tv->cursor - left, span);
	if (tv->win.span == before.span) {
		tv->zoom_depth--;
		msg(tv, num < den ? "zoomed in as far as it goes" : "zoomed out as far as it goes");
	}
	cursor_clamp(tv);
}

static void fit_all(struct timeline_view *tv)
{
	zoom_push(tv);
	window_set(tv, trace_start(tv), trace_len(tv));
	cursor_clamp(tv);
}

static void pan(struct timeline_view *tv, int64_t delta)
{
	int64_t before = tv->win.t0;

	window_set(tv, sat_add(tv->win.t0, delta), tv->win.span);
	tv->cursor += tv->win.t0 - before;
	if (tv->win.t0 == before)
		msg(tv, delta < 0 ? "at the start of the trace" : "at the end of the trace");
	cursor_clamp(tv);
}

static void zoom_back(struct timeline_view *tv)
{
	if (tv->zoom_depth == 0) {
		msg(tv, "no previous zoom");
		return;
	}
	tv->win = tv->zoom_stack[--tv->zoom_depth];
	cursor_clamp(tv);
	tl_details_zoom_back(tv);
}

/* ---- selection -------------------------------------------------------------------- */

/* The slice under the cursor on the cursor's lane: the one containing the
 * cursor time, else the first touching the cursor's cell. */
static void select_at_cursor(struct timeline_view *tv)
{
	const struct trex_lane *lane = cur_lane(tv);
	struct trex_tmap m = {tv->win.t0, tv->win.span, tv->cols > 0 ? tv->cols : 1};
	struct trex_cell_info cell;
	int64_t lo, hi;
	uint32_t id;

	tv->selected = TREX_NONE;
	if (!lane)
		return;
	id = trex_lane_find_end_at_or_after(idx_of(tv), lane, tv->cursor);
	if (id < lane->first + lane->count) {
		const struct trex_slice *s = trex_index_slice(idx_of(tv), id);

		if (s->ts <= tv->cursor && (tv->cursor < s->ts + s->dur || s->ts == tv->cursor)) {
			tv->selected = id;
			return;
		}
	}
	trex_tmap_cell(&m, (int)trex_tmap_col(&m, tv->cursor), &lo, &hi);
	trex_lane_cell(idx_of(tv), lane, lo, hi, &cell);
	if (cell.count)
		tv->selected = cell.first;
}

static void show_time(struct timeline_view *tv, int64_t t)
{
	if (t < tv->win.t0 || t >= sat_add(tv->win.t0, tv->win.span))
		window_set(tv, t - tv->win.span / 2, tv->win.span);
}

static void select_slice(struct timeline_view *tv, uint32_t id)
{
	const struct trex_slice *s = trex_index_slice(idx_of(tv), id);

	tv->selected = id;
	tv->cursor = s->ts;
	show_time(tv, s->ts);
}

static bool in_lane(const struct trex_lane *lane, uint32_t id)
{
	return id != TREX_NONE && id >= lane->first && id < lane->first + lane->count;
}

static void select_step(struct timeline_view *tv, int dir)
{
	const struct trex_lane *lane = cur_lane(tv);
	uint32_t id, end;

	if (!lane || lane->count == 0) {
		msg(tv, "no slices on this row");
		return;
	}
	end = lane->first + lane->count;
	if (in_lane(lane, tv->selected))
		id = dir > 0 ? tv->selected + 1 : tv->selected - 1;
	else if (dir > 0)
		id = trex_lane_find_start_after(idx_of(tv), lane, tv->cursor);
	else
		id = trex_lane_find_start_after(idx_of(tv), lane, tv->cursor - 1) - 1;
	if (id < lane->first || id >= end) {
		msg(tv, dir > 0 ? "no next slice on this row" : "no previous slice on this row");
		return;
	}
	select_slice(tv, id);
}

static void fit_selection(struct timeline_view *tv)
{
	const struct trex_slice *s;
	int64_t mid, t0;

	if (tv->selected == TREX_NONE) {
		msg(tv, "no slice selected");
		return;
	}
	s = trex_index_slice(idx_of(tv), tv->selected);
	mid = s->ts + s->dur / 2;
	t0 = mid - tv->win.span / 2;
	zoom_push(tv);
	if (tv->win.t0 != t0) {
		window_set(tv, t0, tv->win.span);
	} else {
		int64_t span = s->dur + s->dur / 4;

		window_set(tv, mid - span / 2, span);
	}
	tv->cursor = s->ts >= tv->win.t0 ? s->ts : tv->win.t0;
}

/* ---- rows ------------------------------------------------------------------------- */

static void move_rows(struct timeline_view *tv, long delta)
{
	if (tv->rows.n == 0)
		return;
	tv->cur_row = (size_t)trex_nav_clamp((long)tv->cur_row + delta, (long)tv->rows.n - 1);
	select_at_cursor(tv);
}

static void toggle_group(struct timeline_view *tv)
{
	const struct tl_row *r;
	enum tl_row_kind kind;
	uint32_t id;

	if (tv->cur_row >= tv->rows.n)
		return;
	r = &tv->rows.v[tv->cur_row];
	kind = (enum tl_row_kind)r->kind;
	id = r->id;
	if (kind == TL_ROW_FILE) {
		tv->rows.file_collapsed[id] = !tv->rows.file_collapsed[id];
	} else {
		if (kind == TL_ROW_LANE)
			id = trex_index_track(idx_of(tv), trex_index_lane(idx_of(tv), id)->track)
			         ->process;
		else if (kind == TL_ROW_COUNTER || kind == TL_ROW_INSTANTS)
			id = trex_index_track(idx_of(tv), id)->process;
		kind = TL_ROW_PROCESS;
		tv->rows.process_collapsed[id] = !tv->rows.process_collapsed[id];
	}
	if (!tl_rows_build(&tv->rows, idx_of(tv))) {
		msg(tv, "out of memory");
		return;
	}
	tv->cur_row = tl_rows_find(&tv->rows, kind, id);
	select_at_cursor(tv);
}

/* ---- the vtable ------------------------------------------------------------------- */

static bool timeline_supports(enum trex_action a)
{
	if (trex_nav_is_move(a))
		return true;
	switch (a) {
	case TREX_ACTION_ZOOM_IN:
	case TREX_ACTION_ZOOM_OUT:
	case TREX_ACTION_PAN_LEFT:
	case TREX_ACTION_PAN_RIGHT:
	case TREX_ACTION_PAN_LEFT_PAGE:
	case TREX_ACTION_PAN_RIGHT_PAGE:
	case TREX_ACTION_FIT_ALL:
	case TREX_ACTION_FIT_SELECTION:
	case TREX_ACTION_ZOOM_BACK:
	case TREX_ACTION_SELECT_NEXT_SLICE:
	case TREX_ACTION_SELECT_PREV_SLICE:
	case TREX_ACTION_TRACK_DOWN:
	case TREX_ACTION_TRACK_UP:
	case TREX_ACTION_TOGGLE_GROUP:
	case TREX_ACTION_CLEAR:
	case TREX_ACTION_SEARCH:
	case TREX_ACTION_NEXT_MATCH:
	case TREX_ACTION_PREV_MATCH:
	case TREX_ACTION_FILTER:
		return true;
	default:
		return tl_details_supports(a);
	}
}

bool trex_timeline_supports(enum trex_action a)
{
	return timeline_supports(a);
}

static long page(struct timeline_view *tv)
{
	return tv->body_h > 1 ? tv->body_h : 1;
}

static bool dispatch_rows(struct timeline_view *tv, enum trex_action a)
{
	long delta;

	if (a == TREX_ACTION_TRACK_DOWN || a == TREX_ACTION_TRACK_UP)
		move_rows(tv, a == TREX_ACTION_TRACK_DOWN ? 1 : -1);
	else if (trex_nav_delta(a, page(tv), (long)tv->rows.n, &delta))
		move_rows(tv, delta);
	else if (a == TREX_ACTION_TOGGLE_GROUP)
		toggle_group(tv);
	else
		return false;
	return true;
}

static void dispatch_time(struct timeline_view *tv, enum trex_action a)
{
	int64_t step = tv->win.span / 8 > 0 ? tv->win.span / 8 : 1;

	switch (a) {
	case TREX_ACTION_ZOOM_IN:
		zoom_by(tv, 1, 2);
		break;
	case TREX_ACTION_ZOOM_OUT:
		zoom_by(tv, 2, 1);
		break;
	case TREX_ACTION_PAN_LEFT:
		pan(tv, -step);
		break;
	case TREX_ACTION_PAN_RIGHT:
		pan(tv, step);
		break;
	case TREX_ACTION_PAN_LEFT_PAGE:
		pan(tv, -tv->win.span);
		break;
	case TREX_ACTION_PAN_RIGHT_PAGE:
		pan(tv, tv->win.span);
		break;
	case TREX_ACTION_FIT_ALL:
		fit_all(tv);
		break;
	case TREX_ACTION_ZOOM_BACK:
		zoom_back(tv);
		break;
	default:
		break;
	}
}

static enum trex_handled timeline_dispatch(struct trex_view *v, enum trex_action a)
{
	struct timeline_view *tv = tl_of(v);

	if (!timeline_supports(a))
		return TREX_IGNORED;
	if (tl_details_dispatch(tv, a))
		return TREX_HANDLED;
	if (dispatch_rows(tv, a))
		return TREX_HANDLED;
	switch (a) {
	case TREX_ACTION_SELECT_NEXT_SLICE:
		select_step(tv, 1);
		break;
	case TREX_ACTION_SELECT_PREV_SLICE:
		select_step(tv, -1);
		break;
	case TREX_ACTION_FIT_SELECTION:
		fit_selection(tv);
		break;
	case TREX_ACTION_CLEAR:
		tl_search_clear(tv);
		break;
	case TREX_ACTION_SEARCH:
	case TREX_ACTION_NEXT_MATCH:
	case TREX_ACTION_PREV_MATCH:
	case TREX_ACTION_FILTER:
		tl_search_action(tv, a);
		break;
	default:
		dispatch_time(tv, a);
		break;
	}
	return TREX_HANDLED;
}

static void timeline_free(struct trex_view *v)
{
	struct timeline_view *tv = tl_of(v);

	tl_search_free(tv);
	tl_details_free(&tv->details);
	tl_rows_free(&tv->rows);
	if (tv->peaks)
		for (uint32_t t = 0; t < trex_index_track_count(idx_of(tv)); t++)
			trex_counter_peaks_free(&tv->peaks[t]);
	free(tv->peaks);
	free(tv->cell_slice);
	free(tv);
}

/* The lane row of slice id, its groups expanded first; a filter that
 * hides the slice is dropped (and the user told so). */
static bool reveal_lane(struct timeline_view *tv, uint32_t id, const struct trex_slice *s)
{
	const struct trex_track *t = trex_index_track(idx_of(tv), s->track);
	uint32_t lane = t->first_lane + s->depth;
	uint32_t process = t->process;
	uint32_t file = trex_index_process(idx_of(tv), process)->file;
	size_t row;

	if (s->depth >= t->lane_count)
		return false;
	if (tv->filter && !trex_search_slice_matches(tv->filter, id)) {
		tl_search_drop_filter(tv);
		trex_ui_message(tv->base.ctx, "filter cleared to show %s",
		                trex_index_str(idx_of(tv), s->name));
	}
	if (tv->rows.file_collapsed[file] || tv->rows.process_collapsed[process]) {
		tv->rows.file_collapsed[file] = false;
		tv->rows.process_collapsed[process] = false;
		if (!tl_rows_build(&tv->rows, idx_of(tv)))
			return false;
	}
	row = tl_rows_lookup(&tv->rows, TL_ROW_LANE, lane);
	if (row == tv->rows.n)
		return false;
	tv->cur_row = row;
	return true;
}

bool trex_timeline_show_slice(struct trex_view *v, uint32_t id)
{
	struct timeline_view *tv = tl_of(v);
	const struct trex_slice *s;
	int64_t span;

	if (v->ops != &timeline_ops || id >= trex_index_slice_count(idx_of(tv)))
		return false;
	s = trex_index_slice(idx_of(tv), id);
	if (!reveal_lane(tv, id, s))
		return false;
	span = tv->win.span;
	/* wider than the window: fit it; under two columns: zoom until it
	 * takes about a quarter of the width, so it can be seen and read */
	if (s->dur > span - span / 4)
		span = s->dur + s->dur / 2;
	else if (s->dur > 0 && (__int128)s->dur * tv->cols < (__int128)span * 2)
		span = s->dur * 4;
	zoom_push(tv);
	window_set(tv, s->ts + s->dur / 2 - span / 2, span);
	tv->selected = id;
	tv->cursor = s->ts >= tv->win.t0 ? s->ts : tv->win.t0;
	return true;
}

bool trex_timeline_show_range(struct trex_view *v, int64_t t0, int64_t t1, uint32_t id)
{
	struct timeline_view *tv = tl_of(v);
	int64_t len = t1 - t0, margin = len / 4;

	if (v->ops != &timeline_ops || id >= trex_index_slice_count(idx_of(tv)) || t1 < t0 ||
	    !reveal_lane(tv, id, trex_index_slice(idx_of(tv), id)))
		return false;
	zoom_push(tv);
	window_set(tv, sat_add(t0, -margin), sat_add(len, 2 * margin));
	tv->selected = id;
	tv->cursor = t0;
	cursor_clamp(tv);
	return true;
}

void tl_goto_time(struct timeline_view *tv, int64_t t)
{
	int64_t end = sat_add(trace_start(tv), trace_len(tv) - 1);

	t = t < trace_start(tv) ? trace_start(tv) : t > end ? end : t;
	zoom_push(tv);
	window_set(tv, sat_add(t, -(tv->win.span / 2)), tv->win.span);
	tv->cursor = t;
	cursor_clamp(tv);
	select_at_cursor(tv);
}

static const struct trex_view_ops timeline_ops = {
    .name = "timeline",
    .keymap = TREX_KEYMAP_TIMELINE,
    .supports = timeline_supports,
    .dispatch = timeline_dispatch,
    .draw = timeline_draw,
    .free = timeline_free,
    .mouse = tl_mouse,
};

struct trex_view *trex_timeline_view_new(struct trex_ui_ctx *ctx)
{
	struct timeline_view *tv = calloc(1, sizeof(*tv));

	if (!tv)
		return NULL;
	tv->base.ops = &timeline_ops;
	tv->base.ctx = ctx;
	tl_details_init(&tv->details);
	tv->peaks = calloc(trex_index_track_count(ctx->idx) + 1, sizeof(*tv->peaks));
	if (!tv->peaks || !tl_rows_init(&tv->rows, ctx->idx)) {
		timeline_free(&tv->base);
		return NULL;
	}
	tv->cols = 1;
	tv->selected = TREX_NONE;
	while (tv->cur_row + 1 < tv->rows.n && tv->rows.v[tv->cur_row].kind != TL_ROW_LANE)
		tv->cur_row++;
	window_set(tv, trace_start(tv), trace_len(tv));
	tv->cursor = tv->win.t0 + tv->win.span / 2;
	return &tv->base;
}
