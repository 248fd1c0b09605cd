#include "config.h"

#include "timeline_view.h"
#include "timeline_compare.h"
#include "timeline_search.h"
#include "timeline_tracks.h"
#include "stalls_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/search.h"
#include "trex/ui/nav.h"

static const struct trex_view_ops timeline_ops;

static struct timeline_view *tl_of(struct trex_view *v)
{
	return (struct timeline_view *)v;
}

static const struct trex_index *idx_of(struct timeline_view *tv)
{
	return tv->idx;
}

/* What the window may cover: the trace, or with --compare both runs. */
static int64_t trace_start(struct timeline_view *tv)
{
	return tv->span_lo;
}

static int64_t trace_len(struct timeline_view *tv)
{
	__int128 len = (__int128)tv->span_hi - trace_start(tv);

	return len > INT64_MAX ? INT64_MAX : len > 0 ? (int64_t)len : 1;
}

static int64_t span_min(struct timeline_view *tv)
{
	return tv->cols > 0 ? tv->cols : 1;
}

/* The lane of the cursor's row, or TREX_NONE. */
static uint32_t cur_lane(struct timeline_view *tv)
{
	const struct tl_row *r;

	if (tv->cur_row >= tv->rows.n)
		return TREX_NONE;
	r = &tv->rows.v[tv->cur_row];
	return r->kind == TL_ROW_LANE ? r->id : TREX_NONE;
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

/* span kept between one ns per column and the whole trace */
static int64_t span_clamp(struct timeline_view *tv, int64_t span)
{
	int64_t len = trace_len(tv);

	if (span > len)
		span = len;
	return span < span_min(tv) ? span_min(tv) : span;
}

/* The window [t0, t0 + span) kept on the trace: the whole trace when the
 * span covers it, else up to half a window beyond either end (so that
 * either end can be centred). */
static void window_set(struct timeline_view *tv, int64_t t0, int64_t span)
{
	int64_t lo, hi;

	span = span_clamp(tv, span);
	lo = sat_add(trace_start(tv), -(span / 2));
	hi = sat_add(sat_add(trace_start(tv), trace_len(tv)), -(span / 2));
	if (span >= trace_len(tv))
		lo = hi = trace_start(tv);
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

/* Zooms by num/den keeping the cursor at the same column; at either limit
 * nothing moves (a zoom that cannot zoom must not pan). */
static void zoom_by(struct timeline_view *tv, int64_t num, int64_t den)
{
	int64_t span = span_clamp(tv, (int64_t)((__int128)tv->win.span * num / den));
	int64_t left;

	if (span == tv->win.span) {
		msg(tv, num < den ? "zoomed in as far as it goes (1 ns per column)"
		                  : "zoomed out as far as it goes: the whole trace");
		return;
	}
	left = (int64_t)(((__int128)tv->cursor - tv->win.t0) * span / tv->win.span);
	zoom_push(tv);
	window_set(tv, sat_add(tv->cursor, -left), span);
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
	/* a selection restored from before a filter or a fold may be hidden now */
	if (tv->selected != TREX_NONE &&
	    tl_rows_slice_hidden(&tv->rows, idx_of(tv), tv->selected) != TL_SHOWN)
		tv->selected = TREX_NONE;
}

/* ---- selection: only among the slices drawn ------------------------------------------ */

/* The slices drawn on a lane: all of them, or the filter's matches. Both
 * are in the lane's time order. */
struct drawn {
	const uint32_t *ids; /* NULL: the lane's contiguous ids from first */
	uint32_t first, n;
};

static struct drawn drawn_of(struct timeline_view *tv, uint32_t lane_id)
{
	const struct trex_lane *lane = trex_index_lane(idx_of(tv), lane_id);
	struct drawn d = {NULL, lane->first, lane->count};

	if (tv->filter)
		d.ids = trex_search_lane(tv->filter, lane_id, &d.n);
	return d;
}

static uint32_t drawn_id(const struct drawn *d, uint32_t k)
{
	return d->ids ? d->ids[k] : d->first + k;
}

/* The first position whose slice starts after t. */
static uint32_t drawn_start_after(struct timeline_view *tv, const struct drawn *d, int64_t t)
{
	uint32_t a = 0, b = d->n;

	while (a < b) {
		uint32_t mid = a + (b - a) / 2;

		if (trex_index_slice(idx_of(tv), drawn_id(d, mid))->ts <= t)
			a = mid + 1;
		else
			b = mid;
	}
	return a;
}

/* The position of slice id among d, or d->n. */
static uint32_t drawn_pos(const struct drawn *d, uint32_t id)
{
	uint32_t a = 0, b = d->n;

	if (id == TREX_NONE)
		return d->n;
	if (!d->ids)
		return id >= d->first && id - d->first < d->n ? id - d->first : d->n;
	while (a < b) {
		uint32_t mid = a + (b - a) / 2;

		if (d->ids[mid] < id)
			a = mid + 1;
		else
			b = mid;
	}
	return a < d->n && d->ids[a] == id ? a : d->n;
}

uint32_t tl_slice_at(struct timeline_view *tv, uint32_t lane_id, int col, int64_t t)
{
	const struct trex_lane *lane = trex_index_lane(idx_of(tv), lane_id);
	struct trex_tmap m = {tv->win.t0, tv->win.span, tv->cols > 0 ? tv->cols : 1};
	struct trex_cell_info cell;
	int64_t lo, hi;
	uint32_t id, b, e;

	if (tv->filter) {
		trex_search_lane_range(tv->filter, lane_id, t, sat_add(t, 1), &b, &e);
		if (e > b)
			return trex_search_lane(tv->filter, lane_id, &e)[b];
	} else {
		id = trex_lane_find_end_at_or_after(idx_of(tv), lane, t);
		if (id < lane->first + lane->count) {
			const struct trex_slice *s = trex_index_slice(idx_of(tv), id);

			if (s->ts <= t && (t < s->ts + s->dur || s->ts == t))
				return id;
		}
	}
	trex_tmap_cell(&m, col, &lo, &hi);
	if (tv->filter) {
		const uint32_t *ids = trex_search_lane(tv->filter, lane_id, &e);

		trex_search_lane_range(tv->filter, lane_id, lo, hi, &b, &e);
		trex_ids_cell(idx_of(tv), ids, b, e, lo, hi, &cell);
	} else {
		trex_lane_cell(idx_of(tv), lane, lo, hi, &cell);
	}
	return cell.count ? cell.first : TREX_NONE;
}

void tl_select_at_cursor(struct timeline_view *tv)
{
	struct trex_tmap m = {tv->win.t0, tv->win.span, tv->cols > 0 ? tv->cols : 1};
	uint32_t lane = cur_lane(tv);
	int64_t col = trex_tmap_col(&m, tv->cursor);

	if (col < 0)
		col = 0;
	if (col >= m.cols)
		col = m.cols - 1;
	tv->selected = lane != TREX_NONE ? tl_slice_at(tv, lane, (int)col, tv->cursor) : TREX_NONE;
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

static void select_step(struct timeline_view *tv, int dir)
{
	uint32_t lane = cur_lane(tv), k;
	struct drawn d;

	if (lane == TREX_NONE || (d = drawn_of(tv, lane)).n == 0) {
		msg(tv, "no slices on this row");
		return;
	}
	k = drawn_pos(&d, tv->selected);
	if (k < d.n)
		k = dir > 0 ? k + 1 : k - 1; /* from 0, -1 wraps past n: none */
	else if (dir > 0)
		k = drawn_start_after(tv, &d, tv->cursor);
	else
		k = drawn_start_after(tv, &d, sat_add(tv->cursor, -1)) - 1;
	if (k >= d.n) {
		msg(tv, dir > 0 ? "no next slice on this row" : "no previous slice on this row");
		return;
	}
	select_slice(tv, drawn_id(&d, k));
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
	tl_select_at_cursor(tv);
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
	tl_select_at_cursor(tv);
}

/* open-stalls on the selected slice: its kernel's stall report (on a GPU
 * track without one, the status line says so); IGNORED: the app opens
 * the stalls table. */
static enum trex_handled open_stalls(struct timeline_view *tv)
{
	const struct trex_index *idx = idx_of(tv);
	const struct trex_slice *s;
	bool gpu;

	if (tv->selected == TREX_NONE)
		return TREX_IGNORED;
	s = trex_index_slice(idx, tv->selected);
	gpu = trex_index_track(idx, s->track)->kind == TREX_TRACK_GPU;
	return stall_open_kernel(tv->base.ctx, trex_index_str(idx, s->name), gpu) ? TREX_HANDLED
	                                                                          : TREX_IGNORED;
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
	case TREX_ACTION_OPEN_STALLS:
	case TREX_ACTION_ALIGN_SLICE:
	case TREX_ACTION_ALIGN_STEP:
	case TREX_ACTION_FOLLOW_TRACKS:
		return true;
	default:
		return tl_tracks_supports(a) || tl_details_supports(a);
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
	if (tl_tracks_supports(a)) {
		tl_tracks_action(tv, a);
		return TREX_HANDLED;
	}
	if (a == TREX_ACTION_OPEN_STALLS)
		return open_stalls(tv);
	if (a == TREX_ACTION_ALIGN_SLICE || a == TREX_ACTION_ALIGN_STEP) {
		/* timeline_compare.c aligns; one run alone has nothing to align */
		msg(tv, "aligning needs a second run: trex A --compare B");
		return TREX_HANDLED;
	}
	if (a == TREX_ACTION_FOLLOW_TRACKS) { /* timeline_compare.c */
		msg(tv, "track choices follow between two runs: trex A --compare B");
		return TREX_HANDLED;
	}
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
	tl_tracks_free(tv);
	tl_details_free(&tv->details);
	tl_rows_free(&tv->rows);
	if (tv->peaks)
		for (uint32_t t = 0; t < trex_index_track_count(idx_of(tv)); t++)
			trex_counter_peaks_free(&tv->peaks[t]);
	free(tv->peaks);
	free(tv->cell_slice);
	free(tv->tpath_marks);
	free(tv);
}

/* ---- rows rebuilt, slices shown ------------------------------------------------------ */

/* Where the cursor goes when its row went: the deepest remaining row of
 * its track at or above its depth, else the nearest lane row from where
 * it was (so that . and , still have slices), else any row. */
static size_t nearest_row(struct timeline_view *tv, struct tl_row was, size_t old)
{
	const struct tl_rows *r = &tv->rows;
	uint32_t track = tl_row_track(idx_of(tv), &was), depth = UINT32_MAX, best = TREX_NONE;

	if (was.kind == TL_ROW_LANE)
		depth = trex_index_lane(idx_of(tv), was.id)->depth;
	for (size_t i = 0; track != TREX_NONE && i < r->n; i++)
		if (tl_row_track(idx_of(tv), &r->v[i]) == track &&
		    (best == TREX_NONE ||
		     (r->v[i].kind == TL_ROW_LANE &&
		      trex_index_lane(idx_of(tv), r->v[i].id)->depth <= depth)))
			best = (uint32_t)i;
	if (best != TREX_NONE)
		return best;
	if (r->n == 0)
		return 0;
	old = old < r->n ? old : r->n - 1;
	for (size_t i = old; i < r->n; i++)
		if (r->v[i].kind == TL_ROW_LANE)
			return i;
	for (size_t i = old; i-- > 0;)
		if (r->v[i].kind == TL_ROW_LANE)
			return i;
	return old;
}

void tl_rebuild(struct timeline_view *tv)
{
	struct tl_row was = {TL_ROW_FILE, 0};
	bool had = tv->cur_row < tv->rows.n;
	size_t r;

	if (had)
		was = tv->rows.v[tv->cur_row];
	tv->rows.filter = tv->filter;
	if (!tl_rows_build(&tv->rows, idx_of(tv))) {
		msg(tv, "out of memory");
		tv->rows.n = 0;
		tv->cur_row = 0;
		tv->selected = TREX_NONE;
		return;
	}
	r = tl_rows_lookup(&tv->rows, (enum tl_row_kind)was.kind, was.id);
	tv->cur_row = r < tv->rows.n ? r : nearest_row(tv, was, tv->cur_row);
	if (tv->selected != TREX_NONE &&
	    tl_rows_slice_hidden(&tv->rows, idx_of(tv), tv->selected) != TL_SHOWN)
		tv->selected = TREX_NONE;
}

const char *tl_key_of(struct timeline_view *tv, enum trex_action a, char *buf, size_t size)
{
	trex_key key = 0;

	/* a printable key as itself ("<", not the help screen's "LessThan") */
	if (trex_keymap_keys(tv->base.ctx->km, TREX_KEYMAP_TIMELINE, a, &key, 1) > 0 && key > ' ' &&
	    key < 0x7f) {
		snprintf(buf, size, "%c", (char)key);
		return buf;
	}
	trex_keymap_describe(tv->base.ctx->km, TREX_KEYMAP_TIMELINE, a, buf, size);
	*strchrnul(buf, ',') = '\0';
	if (!buf[0])
		snprintf(buf, size, "%s", trex_action_name(a));
	return buf;
}

static const char *slice_name(struct timeline_view *tv, uint32_t id)
{
	return trex_index_str(idx_of(tv), trex_index_slice(idx_of(tv), id)->name);
}

/* What hides slice id, and the key that shows it. */
static void say_hidden(struct timeline_view *tv, uint32_t id, enum tl_hidden why)
{
	const struct trex_slice *s = trex_index_slice(idx_of(tv), id);
	char key[32];

	if (why == TL_HIDDEN_FILTER)
		trex_ui_message(tv->base.ctx, "%.100s is filtered out (%s clears the filter)",
		                slice_name(tv, id),
		                tl_key_of(tv, TREX_ACTION_CLEAR, key, sizeof(key)));
	else if (why == TL_HIDDEN_NOISE)
		trex_ui_message(tv->base.ctx, "%.100s is on a hidden track (%s shows them)",
		                slice_name(tv, id),
		                tl_key_of(tv, TREX_ACTION_TOGGLE_HIDDEN, key, sizeof(key)));
	else if (why == TL_HIDDEN_TRACK_FILTER)
		trex_ui_message(
		    tv->base.ctx, "%.100s is on a track the track filter hides (%s clears it)",
		    slice_name(tv, id), tl_key_of(tv, TREX_ACTION_CLEAR, key, sizeof(key)));
	else if (tv->rows.track_flags[s->track] & TL_TRACK_COLLAPSED)
		trex_ui_message(tv->base.ctx, "%.100s is in a folded track (%s unfolds it)",
		                slice_name(tv, id),
		                tl_key_of(tv, TREX_ACTION_COLLAPSE_TRACK, key, sizeof(key)));
	else
		trex_ui_message(
		    tv->base.ctx, "%.100s is deeper than the levels shown (%s shows more)",
		    slice_name(tv, id), tl_key_of(tv, TREX_ACTION_DEPTH_MORE, key, sizeof(key)));
}

/* Lifts, one at a time, whatever hides slice id (saying so): the slice
 * filter, hidden tracks, the track filter, a fold or depth limit. */
static void unhide(struct timeline_view *tv, uint32_t id)
{
	uint32_t track = trex_index_slice(idx_of(tv), id)->track;
	char name[128];

	for (int tries = 0; tries < 4; tries++) {
		enum tl_hidden why = tl_rows_slice_hidden(&tv->rows, idx_of(tv), id);

		if (why == TL_SHOWN)
			return;
		if (why == TL_HIDDEN_FILTER) {
			tl_search_drop_filter(tv);
			trex_ui_message(tv->base.ctx, "filter cleared to show %s",
			                slice_name(tv, id));
			continue;
		}
		if (why == TL_HIDDEN_NOISE) {
			tv->rows.show_hidden = true;
			trex_ui_message(tv->base.ctx, "hidden tracks shown to show %s",
			                slice_name(tv, id));
		} else if (why == TL_HIDDEN_TRACK_FILTER) {
			tl_tracks_drop_filter(tv);
			trex_ui_message(tv->base.ctx, "track filter cleared to show %s",
			                slice_name(tv, id));
		} else {
			tv->rows.track_flags[track] &= (uint8_t)~TL_TRACK_COLLAPSED;
			tv->rows.max_depth[track] = 0;
			trex_ui_message(tv->base.ctx, "%s unfolded to show %s",
			                tl_track_label(idx_of(tv), track, name, sizeof(name)),
			                slice_name(tv, id));
		}
		tl_rebuild(tv);
	}
}

/* The cursor on the lane row of slice s, its groups expanded first. */
static bool cursor_to_lane(struct timeline_view *tv, const struct trex_slice *s)
{
	const struct trex_track *t = trex_index_track(idx_of(tv), s->track);
	size_t row;

	if (s->depth >= t->lane_count)
		return false;
	tl_rows_reveal(&tv->rows, idx_of(tv), (struct tl_place){2, s->track});
	row = tl_rows_lookup(&tv->rows, TL_ROW_LANE, t->first_lane + s->depth);
	if (row == tv->rows.n)
		return false;
	tv->cur_row = row;
	return true;
}

/* Selects slice id and brings it into the window, zoomed so it can be seen. */
static void focus_slice(struct timeline_view *tv, uint32_t id)
{
	const struct trex_slice *s = trex_index_slice(idx_of(tv), id);
	int64_t span = tv->win.span;

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
}

bool trex_timeline_show_slice(struct trex_view *v, uint32_t id)
{
	struct timeline_view *tv = tl_of(tl_compare_focus_a(v));

	if (tv->base.ops != &timeline_ops || id >= trex_index_slice_count(idx_of(tv)))
		return false;
	unhide(tv, id);
	if (!cursor_to_lane(tv, trex_index_slice(idx_of(tv), id)))
		return false;
	focus_slice(tv, id);
	return true;
}

bool tl_show_drawn_slice(struct timeline_view *tv, uint32_t id)
{
	enum tl_hidden why = tl_rows_slice_hidden(&tv->rows, idx_of(tv), id);

	if (why != TL_SHOWN) {
		say_hidden(tv, id, why);
		return false;
	}
	if (!cursor_to_lane(tv, trex_index_slice(idx_of(tv), id))) {
		msg(tv, "cannot show that slice");
		return false;
	}
	focus_slice(tv, id);
	return true;
}

bool trex_timeline_show_range(struct trex_view *v, int64_t t0, int64_t t1, uint32_t id)
{
	struct timeline_view *tv = tl_of(tl_compare_focus_a(v));
	int64_t len = t1 - t0, margin = len / 4;

	if (tv->base.ops != &timeline_ops || id >= trex_index_slice_count(idx_of(tv)) || t1 < t0)
		return false;
	unhide(tv, id);
	if (!cursor_to_lane(tv, trex_index_slice(idx_of(tv), id)))
		return false;
	zoom_push(tv);
	window_set(tv, sat_add(t0, -margin), sat_add(len, 2 * margin));
	tv->selected = id;
	tv->cursor = t0;
	cursor_clamp(tv);
	return true;
}

/* Lifts, one at a time, what keeps track from having rows (saying so):
 * the slice filter, hidden tracks, the track filter. */
static void unhide_track(struct timeline_view *tv, uint32_t track)
{
	char name[128];

	tl_track_label(idx_of(tv), track, name, sizeof(name));
	if (tv->filter && !trex_search_track_has_match(tv->filter, track)) {
		tl_search_drop_filter(tv);
		trex_ui_message(tv->base.ctx, "filter cleared to show %s", name);
	}
	if ((tv->rows.track_flags[track] & TL_TRACK_NOISE) && !tv->rows.show_hidden &&
	    !(tv->rows.track_flags[track] & TL_TRACK_PINNED)) {
		tv->rows.show_hidden = true;
		trex_ui_message(tv->base.ctx, "hidden tracks shown to show %s", name);
		tl_rebuild(tv);
	}
	if ((tv->rows.track_flags[track] & TL_TRACK_UNMATCHED) && tl_tracks_drop_filter(tv))
		trex_ui_message(tv->base.ctx, "track filter cleared to show %s", name);
}

bool trex_timeline_show_track(struct trex_view *v, uint32_t track, int64_t t, bool has_time)
{
	struct timeline_view *tv = tl_of(tl_compare_focus_a(v));
	size_t row;

	if (tv->base.ops != &timeline_ops || track >= trex_index_track_count(idx_of(tv)))
		return false;
	unhide_track(tv, track);
	row = tl_rows_reveal(&tv->rows, idx_of(tv), (struct tl_place){2, track});
	if (row >= tv->rows.n)
		return false;
	tv->cur_row = row;
	if (has_time)
		tl_goto_time(tv, t);
	else
		tl_select_at_cursor(tv);
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
	tl_select_at_cursor(tv);
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

struct trex_view *tl_view_new(struct trex_ui_ctx *ctx, const struct trex_index *idx)
{
	struct timeline_view *tv = calloc(1, sizeof(*tv));

	if (!tv)
		return NULL;
	tv->base.ops = &timeline_ops;
	tv->base.ctx = ctx;
	tv->idx = idx;
	tv->origin = tv->span_lo = trex_index_start(idx);
	tv->span_hi = trex_index_end(idx);
	tl_details_init(&tv->details);
	tv->peaks = calloc(trex_index_track_count(idx) + 1, sizeof(*tv->peaks));
	if (!tv->peaks || !tl_rows_init(&tv->rows, idx)) {
		timeline_free(&tv->base);
		return NULL;
	}
	tv->cols = 1;
	tv->selected = TREX_NONE;
	while (tv->cur_row + 1 < tv->rows.n && tv->rows.v[tv->cur_row].kind != TL_ROW_LANE)
		tv->cur_row++;
	window_set(tv, trace_start(tv), trace_len(tv));
	tv->cursor = tv->win.t0 + tv->win.span / 2;
	if (!ctx->msg[0])
		tl_tracks_say_hidden(tv);
	return &tv->base;
}

struct trex_view *trex_timeline_view_new(struct trex_ui_ctx *ctx)
{
	if (ctx->compare)
		return tl_compare_new(ctx);
	return tl_view_new(ctx, ctx->idx);
}

void tl_set_span(struct timeline_view *tv, int64_t lo, int64_t hi, bool whole)
{
	tv->span_lo = lo;
	tv->span_hi = hi > lo ? hi : lo;
	if (whole)
		window_set(tv, trace_start(tv), trace_len(tv));
	else
		window_set(tv, tv->win.t0, tv->win.span);
	if (whole)
		tv->cursor = tv->win.t0 + tv->win.span / 2;
	cursor_clamp(tv);
}

bool tl_is_timeline(const struct trex_view *v)
{
	return v->ops == &timeline_ops;
}
