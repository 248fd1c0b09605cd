#include "config.h"

#include "timeline_view.h"
#include "timeline_tracks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/labels.h"
#include "trex/analysis/counter_range.h"
#include "trex/analysis/search.h"
#include "trex/analysis/trace_critical_path.h"
#include "trex/core/schedule.h"
#include "trex/core/kind.h"
#include "trex/ui/nav.h"
#include "trex/ui/text.h"

#define LABEL_MIN_CELLS 3 /* a name is written into a bar of at least this many cells */
#define AXIS_LABEL_CELLS 10
#define NAME_KEPT 30 /* columns of a slice name the status line keeps */
#define NAME_MIN 8   /* the fewest columns of a name worth showing */

/* Colours follow the kind and communication rule the build stored: the
 * same classification gpu-time, categories and the exports use. */
enum trex_role timeline_slice_role(const struct trex_index *idx, uint32_t id)
{
	const struct trex_slice *s = trex_index_slice(idx, id);

	if (trex_kind_is_device_work((enum trex_kind)s->kind) &&
	    trex_slice_comm(idx, id) != TREX_COMM_NONE)
		return TREX_ROLE_SLICE_COMM;
	switch ((enum trex_kind)s->kind) {
	case TREX_KIND_KERNEL:
		return TREX_ROLE_SLICE_COMPUTE;
	case TREX_KIND_MEMCPY:
	case TREX_KIND_MEMSET:
		return TREX_ROLE_SLICE_MEMORY;
	case TREX_KIND_CPU_OP:
	case TREX_KIND_PYTHON:
	case TREX_KIND_RUNTIME:
	case TREX_KIND_ANNOTATION:
	case TREX_KIND_OVERHEAD:
		return TREX_ROLE_SLICE_CPU;
	default:
		return TREX_ROLE_SLICE_OTHER;
	}
}

/* ---- header and axis ---------------------------------------------------------------- */

static void draw_header(struct timeline_view *tv, WINDOW *win, const struct trex_rect *r)
{
	struct trex_ui_ctx *ctx = tv->base.ctx;
	char keys[64], right[96];
	int rw;

	trex_draw_fill(win, r->y, r->x, r->w, trex_term_attr(ctx->term, TREX_ROLE_TITLE));
	trex_keymap_describe(ctx->km, TREX_KEYMAP_TIMELINE, TREX_ACTION_HELP, keys, sizeof(keys));
	*strchrnul(keys, ',') = '\0';
	rw = snprintf(right, sizeof(right), "%s%s ", keys, keys[0] ? " help" : "");
	if (rw >= r->w / 2)
		rw = 0, right[0] = '\0';
	trex_draw_text(win, ctx->term, r->y, r->x, " trex: ", 7);
	trex_draw_text_cut(win, ctx->term, r->y, r->x + 7, ctx->title, r->w - 8 - rw);
	trex_draw_text(win, ctx->term, r->y, r->x + r->w - rw, right, rw);
}

static struct trex_tmap tmap_of(const struct timeline_view *tv, int cols)
{
	return (struct trex_tmap){tv->win.t0, tv->win.span, cols > 0 ? cols : 1};
}

/* The largest |time - origin| in the window, saturated. */
static int64_t axis_max_abs(const struct timeline_view *tv, int64_t origin)
{
	__int128 a = (__int128)tv->win.t0 - origin, b = a + tv->win.span;

	if (a < 0)
		a = -a;
	if (b < 0)
		b = -b;
	if (b > a)
		a = b;
	return a > INT64_MAX ? INT64_MAX : (int64_t)a;
}

static void draw_axis(struct timeline_view *tv, WINDOW *win, const struct trex_layout *lay)
{
	struct trex_term *term = tv->base.ctx->term;
	const struct trex_rect *r = &lay->axis;
	struct trex_tmap m = tmap_of(tv, r->w);
	int64_t origin = tv->origin, k, cursor_col;
	unsigned long attr = trex_term_attr(term, TREX_ROLE_RULER);
	struct trex_axis ax;
	char label[48];
	int next_free = 0, label_len;

	trex_draw_fill(win, r->y, lay->axis_label.x, lay->axis_label.w + r->w, attr);
	trex_format_duration((double)(tv->win.span / r->w), label, sizeof(label));
	if ((int)strlen(label) + 6 <= lay->axis_label.w)
		snprintf(label + strlen(label), sizeof(label) - strlen(label), "/col");
	trex_draw_text(win, term, r->y, lay->axis_label.x + 1, label, lay->axis_label.w - 2);
	trex_axis_choose(&m, AXIS_LABEL_CELLS, &ax);
	trex_axis_fit_unit(&ax, axis_max_abs(tv, origin));
	cursor_col = trex_tmap_col(&m, tv->cursor);
	k = (int64_t)(((__int128)tv->win.t0 - origin) / ax.step);
	/* at most one tick per column; stop where times leave int64 */
	for (int n = 0; n <= r->w; n++, k++) {
		__int128 t128 = (__int128)origin + (__int128)k * ax.step;
		int64_t t, c;

		if (t128 > INT64_MAX || t128 < INT64_MIN)
			break;
		t = (int64_t)t128;
		c = trex_tmap_col(&m, t);
		if (c >= r->w)
			break;
		if (c < next_free)
			continue;
		trex_draw_glyph(win, term, r->y, r->x + (int)c, L'\x2502', '|', attr);
		label_len = trex_axis_label(&ax, (int64_t)(t128 - origin), label, sizeof(label));
		/* the cursor's marker never covers a digit: its label is left out */
		if (cursor_col > c && cursor_col <= c + label_len)
			continue;
		next_free =
		    (int)c + 1 +
		    trex_draw_text(win, term, r->y, r->x + (int)c + 1, label, r->w - (int)c - 1) +
		    1;
	}
	if (cursor_col >= 0 && cursor_col < r->w)
		trex_draw_glyph(win, term, r->y, r->x + (int)cursor_col, L'\x25bc', 'v',
		                trex_term_attr(term, TREX_ROLE_CURSOR));
}

/* ---- rows ------------------------------------------------------------------------------ */

static void row_name(struct timeline_view *tv, size_t row, int width, char *buf, size_t size)
{
	tl_rows_label(&tv->rows, tv->idx, row, tv->base.ctx->term->utf8, width, buf, size);
}

static void draw_cell(struct timeline_view *tv, WINDOW *win, int y, int x, struct trex_glyph g,
                      enum trex_role role)
{
	struct trex_term *term = tv->base.ctx->term;
	unsigned long bar = trex_term_bar_attr(term, role);
	static const wchar_t shades[] = {L' ', L'\x2591', L'\x2592', L'\x2593'};
	static const char ascii_shades[] = " .:#";

	switch (g.kind) {
	case TREX_GLYPH_FULL:
		trex_draw_fill(win, y, x, 1, trex_term_fill_attr(term, role));
		break;
	case TREX_GLYPH_LEFT:
		trex_draw_glyph(win, term, y, x, (wchar_t)(0x2590 - g.n), ']', bar);
		break;
	case TREX_GLYPH_RIGHT:
		if (g.n >= 8)
			trex_draw_fill(win, y, x, 1, trex_term_fill_attr(term, role));
		else if (term->utf8)
			trex_draw_glyph(win, term, y, x, (wchar_t)(0x2590 - (8 - g.n)), '[',
			                bar | A_REVERSE);
		else
			trex_draw_glyph(win, term, y, x, L'[', '[', bar);
		break;
	case TREX_GLYPH_SHADE:
		trex_draw_glyph(win, term, y, x, shades[g.n], ascii_shades[g.n], bar);
		break;
	default:
		break;
	}
}

/* Whether a search match touches [lo, hi) of lane (two binary searches). */
static bool match_in(const struct trex_search *s, uint32_t lane, int64_t lo, int64_t hi)
{
	uint32_t b, e;

	trex_search_lane_range(s, lane, lo, hi, &b, &e);
	return e > b;
}

/* The slices of lane touching [lo, hi): all of them, or the filter's. */
static void cell_of(struct timeline_view *tv, const struct trex_lane *lane, uint32_t lane_id,
                    int64_t lo, int64_t hi, struct trex_cell_info *cell)
{
	const struct trex_index *idx = tv->idx;
	uint32_t n, b, e;
	const uint32_t *ids;

	if (!tv->filter) {
		trex_lane_cell(idx, lane, lo, hi, cell);
		return;
	}
	ids = trex_search_lane(tv->filter, lane_id, &n);
	trex_search_lane_range(tv->filter, lane_id, lo, hi, &b, &e);
	trex_ids_cell(idx, ids, b, e, lo, hi, cell);
}

/* The glyph of column c of a lane; *single is the one slice in it, if so,
 * and *hit whether a search match is in it. */
static struct trex_glyph lane_glyph(struct timeline_view *tv, const struct trex_lane *lane,
                                    uint32_t lane_id, const struct trex_tmap *m, int c,
                                    uint32_t *single, bool *hit)
{
	const struct trex_index *idx = tv->idx;
	struct trex_cell_info cell;
	int64_t lo, hi, xb, xe;
	const struct trex_slice *s;

	*single = TREX_NONE;
	trex_tmap_cell(m, c, &lo, &hi);
	cell_of(tv, lane, lane_id, lo, hi, &cell);
	*hit = tv->search && cell.count > 0 && match_in(tv->search, lane_id, lo, hi);
	if (cell.count != 1)
		return trex_glyph_busy(cell.count ? (cell.busy > 0 ? cell.busy : 1) : 0, hi - lo);
	*single = cell.first;
	s = trex_index_slice(idx, cell.first);
	xb = trex_tmap_eighth(m, s->ts);
	xe = s->dur > 0 ? trex_tmap_eighth(m, s->ts + s->dur - 1) + 1 : xb + 1;
	return trex_glyph_single(xb, xe > xb ? xe : xb + 1, c);
}

/* Whether slice is on the critical path (trex critical-path lists it):
 * a node of an execution graph's schedule (the loader's), else a slice of
 * the trace's path, walked once at the first question (without memory
 * for it, nothing is highlighted). */
static bool on_critical_path(struct timeline_view *tv, uint32_t slice)
{
	const struct trex_index *idx = tv->idx;
	const struct trex_graph *g = trex_index_graph(idx);
	const struct trex_schedule *s = g ? trex_graph_schedule(g) : NULL;
	uint32_t node = s ? trex_graph_node_of_slice(g, slice) : TREX_GRAPH_NONE;

	if (tv->critical_hidden)
		return false;
	if (g)
		return node != TREX_GRAPH_NONE && (s->flags[node] & TREX_SCHED_CRITICAL);
	if (!tv->tpath_tried) {
		tv->tpath_tried = true;
		if (trex_tpath_slice_marks(idx, &tv->tpath_marks, NULL) != TREX_OK)
			tv->tpath_marks = NULL;
	}
	return tv->tpath_marks && tv->tpath_marks[slice];
}

bool tl_critical_dispatch(struct timeline_view *tv, enum trex_action a)
{
	const struct trex_index *idx = tv->idx;

	if (a != TREX_ACTION_TOGGLE_CRITICAL)
		return false;
	tv->critical_hidden = !tv->critical_hidden;
	if (tv->critical_hidden) {
		trex_ui_message(tv->base.ctx, "critical path: not highlighted");
		return true;
	}
	if (!trex_index_graph(idx) && !tv->tpath_tried && trex_index_slice_count(idx))
		(void)on_critical_path(tv, 0); /* walk it now, to say whether there is one */
	if (!trex_index_graph(idx) && !tv->tpath_marks)
		trex_ui_message(tv->base.ctx, "critical path: none in this trace (no device work "
		                              "or thread to follow)");
	else
		trex_ui_message(tv->base.ctx, "critical path: highlighted in the mark colour (trex "
		                              "critical-path lists it)");
	return true;
}

static enum trex_role cell_role(struct timeline_view *tv, uint32_t single, uint32_t fallback_slice,
                                bool hit)
{
	const struct trex_index *idx = tv->idx;
	uint32_t id = single != TREX_NONE ? single : fallback_slice;

	if (id == TREX_NONE)
		return TREX_ROLE_SLICE_OTHER;
	if (id == tv->selected)
		return TREX_ROLE_CURSOR;
	if (hit)
		return TREX_ROLE_SEARCH_MATCH;
	if (on_critical_path(tv, id))
		return TREX_ROLE_MARK;
	return timeline_slice_role(idx, id);
}

static bool is_match(struct timeline_view *tv, uint32_t id)
{
	return tv->search && trex_search_slice_matches(tv->search, id);
}

/* Writes slice names into runs of full cells of one slice. */
static void draw_labels(struct timeline_view *tv, WINDOW *win, int y, const struct trex_rect *r,
                        const uint32_t *full)
{
	const struct trex_index *idx = tv->idx;

	for (int c = 0; c < r->w;) {
		int run = 1;

		if (full[c] == TREX_NONE) {
			c++;
			continue;
		}
		while (c + run < r->w && full[c + run] == full[c])
			run++;
		if (run >= LABEL_MIN_CELLS) {
			const struct trex_slice *s = trex_index_slice(idx, full[c]);
			unsigned long a = trex_term_fill_attr(
			    tv->base.ctx->term,
			    cell_role(tv, full[c], full[c], is_match(tv, full[c])));

			wattrset(win, (int)a);
			trex_draw_text(win, tv->base.ctx->term, y, r->x + c,
			               trex_index_str(idx, s->name), run);
		}
		c += run;
	}
}

/* An instant tick in an empty cell of a thread's top lane (not under a
 * filter: instants are not slices and never match one). */
static void draw_instant(struct timeline_view *tv, WINDOW *win, int y, int x,
                         const struct trex_lane *lane, const struct trex_tmap *m, int c)
{
	const struct trex_index *idx = tv->idx;
	int64_t lo, hi;

	if (lane->depth != 0 || tv->filter ||
	    trex_index_track(idx, lane->track)->instant_count == 0)
		return;
	trex_tmap_cell(m, c, &lo, &hi);
	if (trex_track_instants_in(idx, lane->track, lo, hi) > 0)
		trex_draw_glyph(win, tv->base.ctx->term, y, x, L'\x2502', '|',
		                trex_term_bar_attr(tv->base.ctx->term, TREX_ROLE_SLICE_OTHER));
}

static void draw_lane(struct timeline_view *tv, WINDOW *win, int y, const struct trex_rect *r,
                      uint32_t lane_id)
{
	const struct trex_lane *lane = trex_index_lane(tv->idx, lane_id);
	struct trex_tmap m = tmap_of(tv, r->w);
	uint32_t *full = tv->cell_slice;
	uint32_t last = TREX_NONE;

	for (int c = 0; c < r->w; c++) {
		uint32_t single;
		bool hit;
		struct trex_glyph g = lane_glyph(tv, lane, lane_id, &m, c, &single, &hit);

		if (single != TREX_NONE)
			last = single;
		full[c] = g.kind == TREX_GLYPH_FULL && single != TREX_NONE ? single : TREX_NONE;
		if (g.kind == TREX_GLYPH_EMPTY)
			draw_instant(tv, win, y, r->x + c, lane, &m, c);
		else
			draw_cell(tv, win, y, r->x + c, g, cell_role(tv, single, last, hit));
	}
	draw_labels(tv, win, y, r, full);
}

/* Every instant of a track: a tick where one falls in the cell, a heavy
 * tick where several do (two binary searches per cell). */
static void draw_instants(struct timeline_view *tv, WINDOW *win, int y, const struct trex_rect *r,
                          uint32_t track)
{
	const struct trex_index *idx = tv->idx;
	struct trex_term *term = tv->base.ctx->term;
	struct trex_tmap m = tmap_of(tv, r->w);
	unsigned long attr = trex_term_bar_attr(term, TREX_ROLE_SLICE_OTHER);

	for (int c = 0; c < r->w; c++) {
		int64_t lo, hi;
		uint32_t n;

		trex_tmap_cell(&m, c, &lo, &hi);
		n = trex_track_instants_in(idx, track, lo, hi);
		if (n == 1)
			trex_draw_glyph(win, term, y, r->x + c, L'\x2502', '|', attr);
		else if (n > 1)
			trex_draw_glyph(win, term, y, r->x + c, L'\x2503', '!', attr);
	}
}

/* The exact peak of a series in [lo, hi): its peaks structure is built at
 * the first draw; without memory for it, the sampled maximum. */
static bool counter_value(struct timeline_view *tv, uint32_t track, int64_t lo, int64_t hi,
                          double *v)
{
	const struct trex_index *idx = tv->idx;
	struct trex_counter_peaks *p = tv->peaks ? &tv->peaks[track] : NULL;

	if (p && !p->idx)
		trex_counter_peaks_build(idx, track, p, NULL);
	if (p && (p->table || p->count == 0))
		return trex_counter_peaks_cell(p, lo, hi, v);
	return trex_counter_cell(idx, track, lo, hi, v);
}

/* A counter series as a sparkline: per cell the largest value in force,
 * as an eighth block scaled to the series' min..max. */
static void draw_counter(struct timeline_view *tv, WINDOW *win, int y, const struct trex_rect *r,
                         uint32_t track)
{
	static const char ascii_levels[] = " _.-:=+*#";
	struct trex_term *term = tv->base.ctx->term;
	struct trex_tmap m = tmap_of(tv, r->w);
	unsigned long attr = trex_term_bar_attr(term, TREX_ROLE_SLICE_OTHER);
	double min = tv->rows.counter_min[track], max = tv->rows.counter_max[track];

	for (int c = 0; c < r->w; c++) {
		int64_t lo, hi;
		double v;
		int level;

		trex_tmap_cell(&m, c, &lo, &hi);
		if (!counter_value(tv, track, lo, hi, &v))
			continue;
		level = trex_spark_level(v, min, max);
		trex_draw_glyph(win, term, y, r->x + c, (wchar_t)(0x2580 + level),
		                ascii_levels[level], attr);
	}
}

static void scroll_to_cursor(struct timeline_view *tv, const struct tl_body *b)
{
	tl_rows_scroll(&tv->rows, b, tv->cur_row, &tv->pin_top, &tv->top_row);
}

/* Group rows bold, a track's deeper levels dimmed, track names plain. */
static enum trex_role name_role(struct timeline_view *tv, size_t ri)
{
	const struct tl_row *row = &tv->rows.v[ri];

	if (row->kind == TL_ROW_FILE || row->kind == TL_ROW_PROCESS)
		return TREX_ROLE_TRACK_GROUP;
	return tl_rows_is_depth_row(&tv->rows, tv->idx, ri) ? TREX_ROLE_DIM : TREX_ROLE_TRACK_NAME;
}

/* The line between the pinned rows and the rest, across names and time. */
static void draw_pin_line(struct timeline_view *tv, WINDOW *win, const struct trex_layout *lay,
                          int y)
{
	struct trex_term *term = tv->base.ctx->term;
	unsigned long sep = trex_term_attr(term, TREX_ROLE_BORDER);
	int w = lay->timeline.x + lay->timeline.w - lay->names.x;

	for (int x = 0; x < w; x++)
		trex_draw_glyph(win, term, y, lay->names.x + x, L'\x2500', '-', sep);
	wattrset(win, (int)sep);
	trex_draw_text(win, term, y, lay->names.x + 1, " pinned ", lay->names.w - 1);
}

static void draw_rows(struct timeline_view *tv, WINDOW *win, const struct trex_layout *lay)
{
	struct trex_term *term = tv->base.ctx->term;
	unsigned long sep = trex_term_attr(term, TREX_ROLE_BORDER);
	struct tl_body b = tl_rows_body(&tv->rows, lay->names.h);
	char name[256];

	scroll_to_cursor(tv, &b);
	for (int i = 0; i < lay->names.h; i++) {
		size_t ri = tl_rows_at_line(&tv->rows, &b, tv->pin_top, tv->top_row, i);
		int y = lay->names.y + i;
		const struct tl_row *row;
		enum trex_role role;

		if (ri == TL_LINE_SEPARATOR) {
			draw_pin_line(tv, win, lay, y);
			continue;
		}
		trex_draw_glyph(win, term, y, lay->names.w, L'\x2502', '|', sep);
		if (ri >= tv->rows.n)
			continue;
		row = &tv->rows.v[ri];
		role = ri == tv->cur_row ? TREX_ROLE_CURSOR : name_role(tv, ri);
		row_name(tv, ri, lay->names.w, name, sizeof(name));
		trex_draw_fill(win, y, lay->names.x, lay->names.w, trex_term_attr(term, role));
		trex_draw_text(win, term, y, lay->names.x, name, lay->names.w);
		if (row->kind == TL_ROW_LANE)
			draw_lane(tv, win, y, &lay->timeline, row->id);
		else if (row->kind == TL_ROW_COUNTER)
			draw_counter(tv, win, y, &lay->timeline, row->id);
		else if (row->kind == TL_ROW_INSTANTS)
			draw_instants(tv, win, y, &lay->timeline, row->id);
	}
}

/* ---- status ------------------------------------------------------------------------- */

/* Clamped to int64 (traces with saturated times span nearly all of it). */
static int64_t clamp64(__int128 d)
{
	return d > INT64_MAX ? INT64_MAX : d < INT64_MIN ? INT64_MIN : (int64_t)d;
}

static int64_t rel(int64_t t, int64_t origin)
{
	return clamp64((__int128)t - origin);
}

/* "  /gemm 3/41  FILTER: nccl" after the visible range. */
static void search_status(struct timeline_view *tv, char *buf, size_t size)
{
	size_t len = strlen(buf);

	if (tv->search && len < size) {
		uint32_t n = trex_search_count_in(tv->search, tv->rows.lane_drawn);
		struct trex_search_pos p;

		if (tv->selected != TREX_NONE &&
		    trex_search_slice_matches(tv->search, tv->selected)) {
			p = trex_search_pos_of(tv->idx, tv->selected);
			len += (size_t)snprintf(
			    buf + len, size - len, "  /%s %u/%u", trex_search_pattern(tv->search),
			    trex_search_rank_in(tv->search, &p, tv->rows.lane_drawn) + 1, n);
		} else {
			len += (size_t)snprintf(buf + len, size - len, "  /%s %u",
			                        trex_search_pattern(tv->search), n);
		}
	}
	if (tv->filter && len < size)
		snprintf(buf + len, size - len, "  FILTER: %s", trex_search_pattern(tv->filter));
	tl_tracks_status(tv, buf, size);
	tl_flows_status(tv, buf, size);
}

/* " mem = 1.5e+06 at 12.3 ms  (min 0, max 2e+06; Enter: samples)". */
static void counter_status(struct timeline_view *tv, uint32_t track, int64_t per_col, char *buf,
                           size_t size)
{
	const struct trex_index *idx = tv->idx;
	const struct trex_track *t = trex_index_track(idx, track);
	const char *name = trex_index_str(idx, t->name);
	struct trex_counter_window w;
	char at[32];

	if (!name || !*name)
		name = trex_index_str(idx, t->tid);
	trex_format_time(rel(tv->cursor, tv->origin), per_col, at, sizeof(at));
	if (!trex_counter_around(idx, track, tv->cursor, 0, &w)) {
		snprintf(buf, size, " %s: no samples", name);
		return;
	}
	if (w.before_first)
		snprintf(buf, size, " %s: no value yet at %s", name, at);
	else
		snprintf(buf, size, " %s = %.6g at %s", name, trex_index_sample(idx, w.at)->value,
		         at);
	snprintf(buf + strlen(buf), size - strlen(buf), "  (min %.6g, max %.6g; Enter: samples)",
	         tv->rows.counter_min[track], tv->rows.counter_max[track]);
}

/* name cut to keep columns (with an ellipsis), into buf. */
static void cut_name(const struct timeline_view *tv, const char *name, int keep, char *buf,
                     size_t size)
{
	size_t n = strlen(name);

	if (trex_text_cols(name, n) <= keep) {
		snprintf(buf, size, "%s", name);
		return;
	}
	n = trex_text_fit(name, n, keep > 1 ? keep - 1 : 0);
	snprintf(buf, size, "%.*s%s", (int)n, name,
	         tv->base.ctx->term->utf8 ? "\xe2\x80\xa6" : "~");
}

static int cols_of(const char *s)
{
	return trex_text_cols(s, strlen(s));
}

/* " name  start 12.3 ms  dur 4 us  F: launched kernel sgemm_..." in width
 * columns: the slice's name first (long names cut, keeping NAME_KEPT
 * columns), then start and duration, then what F follows (its target's
 * name cut too, or the whole hint left out when there is no room). */
static void slice_status(struct timeline_view *tv, int64_t per_col, int width, char *buf,
                         size_t size)
{
	const struct trex_index *idx = tv->idx;
	const struct trex_slice *s = trex_index_slice(idx, tv->selected);
	const char *name = trex_index_str(idx, s->name), *target = NULL;
	char a[32], b[32], rest[96], head[128] = "", shown[256], to[256] = "";
	int avail, name_cols, head_cols = 0, target_cols = 0;

	if (!name)
		name = "";
	trex_format_time(rel(s->ts, tv->origin), per_col, a, sizeof(a));
	trex_format_duration((double)s->dur, b, sizeof(b));
	avail = width - 1 - snprintf(rest, sizeof(rest), "  start %s  dur %s", a, b);
	if (tl_details_follow_hint(tv, head, sizeof(head), &target)) {
		head_cols = cols_of(head) + 3; /* "  " before, " " after */
		target_cols = cols_of(target);
	}
	name_cols = cols_of(name);
	if (name_cols + head_cols + target_cols > avail) {
		int keep = avail - head_cols - target_cols;

		name_cols = keep > NAME_KEPT ? keep : name_cols < NAME_KEPT ? name_cols : NAME_KEPT;
		target_cols = avail - name_cols - head_cols;
		if (target_cols < NAME_MIN)
			head_cols = 0; /* no room for the hint */
	}
	if (!head_cols && cols_of(name) > avail && avail >= NAME_KEPT)
		name_cols = avail;
	else if (!head_cols)
		name_cols = cols_of(name);
	cut_name(tv, name, name_cols, shown, sizeof(shown));
	if (head_cols)
		cut_name(tv, target, target_cols, to, sizeof(to));
	snprintf(buf, size, " %s%s%s%s%s%s", shown, rest, head_cols ? "  " : "",
	         head_cols ? head : "", head_cols ? " " : "", to);
}

static void draw_status(struct timeline_view *tv, WINDOW *win, const struct trex_rect *r)
{
	int64_t origin = tv->origin;
	char a[32], b[32], c[32], left1[160], right1[128], left2[640] = "";
	int64_t per_col = tv->win.span / (tv->cols > 0 ? tv->cols : 1);
	uint32_t track;

	trex_format_time(rel(tv->win.t0, origin), per_col, a, sizeof(a));
	trex_format_time(clamp64((__int128)tv->win.t0 + tv->win.span - origin), per_col, b,
	                 sizeof(b));
	trex_format_duration((double)tv->win.span, c, sizeof(c));
	snprintf(left1, sizeof(left1), " %s .. %s (%s)", a, b, c);
	search_status(tv, left1, sizeof(left1));
	if (tv->status_note)
		snprintf(left1 + strlen(left1), sizeof(left1) - strlen(left1), "  %s",
		         tv->status_note);
	/* the prompt covers the message row: show the live count or error here */
	if (tv->base.ctx->prompt.active && tv->base.ctx->msg[0])
		snprintf(left1, sizeof(left1), " %.150s", tv->base.ctx->msg);
	trex_format_duration((double)per_col, a, sizeof(a));
	trex_format_time(rel(tv->cursor, origin), per_col, b, sizeof(b));
	snprintf(right1, sizeof(right1), "cursor %s  %s/col ", b, a);
	if (tv->selected != TREX_NONE)
		slice_status(tv, per_col, r->w, left2, sizeof(left2));
	else if (tl_counter_row(tv, &track))
		counter_status(tv, track, per_col, left2, sizeof(left2));
	trex_statusbar_draw(win, tv->base.ctx->term, r,
	                    &(struct trex_status_text){left1, right1, left2, tv->base.ctx->msg});
}

static bool ensure_cells(struct timeline_view *tv, int w)
{
	uint32_t *p;

	if (w <= tv->cell_cap)
		return true;
	p = realloc(tv->cell_slice, sizeof(*p) * (size_t)w);
	if (!p)
		return false;
	tv->cell_slice = p;
	tv->cell_cap = w;
	return true;
}

void tl_draw_parts(struct timeline_view *tv, WINDOW *win, const struct trex_layout *lay,
                   unsigned parts)
{
	if (!ensure_cells(tv, lay->timeline.w))
		return;
	tv->body_h = lay->names.h;
	tv->lay = tv->screen_lay = *lay;
	tv->cols = lay->timeline.w;
	if (parts & TL_DRAW_FRAME) {
		draw_header(tv, win, &lay->header);
		draw_axis(tv, win, lay);
	}
	draw_rows(tv, win, lay);
	if (parts & TL_DRAW_FRAME)
		draw_status(tv, win, &lay->status);
	tl_details_draw(tv, win, lay);
}

void timeline_draw(struct trex_view *v, WINDOW *win, const struct trex_layout *full)
{
	struct timeline_view *tv = (struct timeline_view *)v;
	struct trex_layout with_pane = *full;

	tl_details_layout(tv, &with_pane);
	tl_draw_parts(tv, win, &with_pane, TL_DRAW_FRAME);
}
