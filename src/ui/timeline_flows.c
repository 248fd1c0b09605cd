#include "config.h"

#include "timeline_details.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeline_view.h"

#define FLOWS_DRAWN_MAX 64 /* flows of the window drawn at once (toggle-flows) */

/* One end of a connector on screen: row and column relative to the top
 * left of the timeline's body, either possibly outside it. */
struct end {
	long row, col;
};

struct canvas {
	struct timeline_view *tv;
	WINDOW *win;
	const struct trex_rect *body; /* the timeline area: rows of tracks x time columns */
	unsigned long attr;
};

static const struct trex_index *idx_of(const struct timeline_view *tv)
{
	return tv->idx;
}

void tl_flows_free(struct tl_flows *f)
{
	trex_flow_order_free(&f->order);
	f->order_built = false;
}

const struct trex_flow *tl_flow_between(const struct trex_index *idx, uint32_t a, uint32_t b)
{
	uint32_t ids[TREX_SLICE_INFO_LINKS];
	size_t n = trex_index_flows_of(idx, a, ids, TREX_SLICE_INFO_LINKS);

	for (size_t i = 0; i < n && i < TREX_SLICE_INFO_LINKS; i++) {
		const struct trex_flow *f = trex_index_flow(idx, ids[i]);

		if (f->from_slice == b || f->to_slice == b)
			return f;
	}
	return NULL;
}

/* ---- where an end is ------------------------------------------------------------------------ */

/* The row showing lane, or the row of its process or file when those are
 * collapsed; false when none shows (a filter hides it). */
static bool lane_row(const struct timeline_view *tv, uint32_t lane, size_t *row)
{
	const struct trex_track *t =
	    trex_index_track(idx_of(tv), trex_index_lane(idx_of(tv), lane)->track);
	const struct trex_process *p = trex_index_process(idx_of(tv), t->process);

	*row = tl_rows_lookup(&tv->rows, TL_ROW_LANE, lane);
	if (*row == tv->rows.n)
		*row = tl_rows_lookup(&tv->rows, TL_ROW_PROCESS, t->process);
	if (*row == tv->rows.n)
		*row = tl_rows_lookup(&tv->rows, TL_ROW_FILE, p->file);
	return *row < tv->rows.n;
}

/* The end at time ts on lane, on screen coordinates of body. */
static bool end_at(const struct timeline_view *tv, const struct trex_rect *body, uint32_t lane,
                   int64_t ts, struct end *e)
{
	struct trex_tmap m = {tv->win.t0, tv->win.span, body->w > 0 ? body->w : 1};
	int64_t col = trex_tmap_col(&m, ts);
	struct tl_body b = tl_rows_body(&tv->rows, body->h);
	size_t row;

	if (lane == TREX_NONE || !lane_row(tv, lane, &row))
		return false;
	e->row = tl_rows_line_of(&tv->rows, &b, tv->pin_top, tv->top_row, row);
	e->col = col < -1 ? -1 : col > body->w ? body->w : (long)col;
	return true;
}

/* The lane of a flow end: its slice's, else its track's first. */
static uint32_t flow_lane(const struct trex_index *idx, uint32_t slice, uint32_t track)
{
	const struct trex_track *t;

	if (slice != TREX_NONE) {
		const struct trex_slice *s = trex_index_slice(idx, slice);

		return trex_index_track(idx, s->track)->first_lane + s->depth;
	}
	if (track == TREX_NONE || (t = trex_index_track(idx, track))->lane_count == 0)
		return TREX_NONE;
	return t->first_lane;
}

static uint32_t slice_lane(const struct trex_index *idx, uint32_t slice)
{
	return flow_lane(idx, slice, TREX_NONE);
}

/* ---- drawing --------------------------------------------------------------------------------- */

static bool on_screen(const struct canvas *c, long row, long col)
{
	return row >= 0 && row < c->body->h && col >= 0 && col < c->body->w;
}

static void put(const struct canvas *c, long row, long col, wchar_t wc, char ascii)
{
	if (on_screen(c, row, col))
		trex_draw_glyph(c->win, c->tv->base.ctx->term, c->body->y + (int)row,
		                c->body->x + (int)col, wc, ascii, c->attr);
}

/* "▼ 3 rows" at the edge row, at col: the other end lies that many rows
 * beyond the body in that direction. */
static void edge_rows(const struct canvas *c, long col, long beyond, int dir)
{
	char text[32];
	long row = dir > 0 ? c->body->h - 1 : 0;

	if (col < 0 || col >= c->body->w)
		return;
	put(c, row, col, dir > 0 ? L'\x25bc' : L'\x25b2', dir > 0 ? 'v' : '^');
	snprintf(text, sizeof(text), " %ld row%s", beyond, beyond == 1 ? "" : "s");
	wattrset(c->win, (int)c->attr);
	trex_draw_text(c->win, c->tv->base.ctx->term, c->body->y + (int)row,
	               c->body->x + (int)col + 1, text, c->body->w - (int)col - 1);
}

/* The corner where the vertical part (coming from dir: +1 from above) turns
 * toward the right (right) or the left. */
static void corner(const struct canvas *c, long row, long col, int dir, bool right)
{
	if (dir > 0)
		put(c, row, col, right ? L'\x2514' : L'\x2518', '+');
	else
		put(c, row, col, right ? L'\x250c' : L'\x2510', '+');
}

/* The arrow head at the destination b, reached from column a_col. */
static void head(const struct canvas *c, const struct end *a, const struct end *b)
{
	int dir = b->row > a->row ? 1 : -1;

	if (b->col > a->col)
		put(c, b->row, b->col - 1, L'\x25b6', '>');
	else if (b->col < a->col)
		put(c, b->row, b->col + 1, L'\x25c0', '<');
	else if (labs(b->row - a->row) > 1)
		put(c, b->row - dir, b->col, dir > 0 ? L'\x25bc' : L'\x25b2', dir > 0 ? 'v' : '^');
	else
		put(c, b->row, b->col, dir > 0 ? L'\x25bc' : L'\x25b2', dir > 0 ? 'v' : '^');
}

/* A connector from a to b: down (or up) a's column to b's row, then
 * along b's row to b, an arrow head at b. What lies off the body is
 * clipped; an end off the body while the other shows gets an edge marker
 * pointing at it (rows beyond, or the side it lies on). */
static void connector(const struct canvas *c, const struct end *a, const struct end *b)
{
	int dir = b->row > a->row ? 1 : b->row < a->row ? -1 : 0;
	bool a_in = on_screen(c, a->row, a->col), b_in = on_screen(c, b->row, b->col);

	for (long r = a->row + dir; dir && r != b->row; r += dir)
		put(c, r, a->col, L'\x2502', '|');
	if (b->col != a->col && dir)
		corner(c, b->row, a->col, dir, b->col > a->col);
	for (long x = a->col + (b->col > a->col ? 1 : -1); b->col != a->col && x != b->col;
	     x += b->col > a->col ? 1 : -1)
		put(c, b->row, x, L'\x2500', '-');
	if (b_in)
		head(c, a, b);
	if (a_in == b_in)
		return;
	{
		const struct end *out = a_in ? b : a;
		long h = c->body->h;

		if (out->row < 0 || out->row >= h)
			edge_rows(c, a->col, out->row < 0 ? -out->row : out->row - h + 1,
			          out->row < 0 ? -1 : 1);
		else /* beside the window: the horizontal part runs along b's row */
			put(c, b->row, out->col < 0 ? 0 : c->body->w - 1,
			    out->col < 0 ? L'\x25c0' : L'\x25b6', out->col < 0 ? '<' : '>');
	}
}

static void draw_ends(const struct canvas *c, uint32_t a_lane, int64_t a_ts, uint32_t b_lane,
                      int64_t b_ts)
{
	struct end a, b;

	if (end_at(c->tv, c->body, a_lane, a_ts, &a) && end_at(c->tv, c->body, b_lane, b_ts, &b))
		connector(c, &a, &b);
}

static void draw_flow(const struct canvas *c, const struct trex_flow *f)
{
	const struct trex_index *idx = idx_of(c->tv);

	draw_ends(c, flow_lane(idx, f->from_slice, f->from_track), f->from_ts,
	          flow_lane(idx, f->to_slice, f->to_track), f->to_ts);
}

/* The selected slice's launch <-> GPU work and flow links. */
static void draw_selection(const struct canvas *c)
{
	struct timeline_view *tv = c->tv;
	const struct trex_index *idx = idx_of(tv);
	const struct trex_slice_info *info;
	uint32_t sel = tv->selected;

	if (sel == TREX_NONE || !(info = tl_details_info(tv)))
		return;
	for (size_t i = 0; i < info->link_count; i++) {
		const struct trex_link *l = &info->links[i];
		uint32_t from = sel, to = l->slice;
		const struct trex_flow *f;

		switch (l->kind) {
		case TREX_LINK_FLOW_OUT:
		case TREX_LINK_FLOW_IN:
			if ((f = tl_flow_between(idx, sel, l->slice))) {
				draw_flow(c, f);
				continue;
			}
			if (l->kind == TREX_LINK_FLOW_IN)
				from = l->slice, to = sel;
			break;
		case TREX_LINK_LAUNCH:
			from = l->slice, to = sel;
			break;
		case TREX_LINK_LAUNCHED:
			break;
		default:
			continue;
		}
		draw_ends(c, slice_lane(idx, from), trex_index_slice(idx, from)->ts,
		          slice_lane(idx, to), trex_index_slice(idx, to)->ts);
	}
}

/* The flows with an end in the window (the first max of them into ids),
 * how many in all. */
static size_t window_flows(const struct timeline_view *tv, uint32_t *ids, size_t max)
{
	__int128 end = (__int128)tv->win.t0 + tv->win.span;

	return trex_flows_in_window(&tv->details.flows.order, tv->win.t0,
	                            end > INT64_MAX ? INT64_MAX : (int64_t)end, ids, max);
}

/* Every flow with an end in the window, at most FLOWS_DRAWN_MAX. */
static void draw_all(const struct canvas *c)
{
	uint32_t ids[FLOWS_DRAWN_MAX];
	size_t n = window_flows(c->tv, ids, FLOWS_DRAWN_MAX);

	for (size_t i = 0; i < n && i < FLOWS_DRAWN_MAX; i++)
		draw_flow(c, trex_index_flow(idx_of(c->tv), ids[i]));
}

void tl_flows_draw(struct timeline_view *tv, WINDOW *win, const struct trex_layout *lay)
{
	struct canvas c = {tv, win, &lay->timeline,
	                   trex_term_attr(tv->base.ctx->term, TREX_ROLE_FLOW)};

	if (lay->timeline.w <= 0 || lay->timeline.h <= 0)
		return;
	if (tv->details.flows.all && tv->details.flows.order_built)
		draw_all(&c);
	draw_selection(&c);
}

/* ---- the key and the status line ------------------------------------------------------------ */

bool tl_flows_dispatch(struct timeline_view *tv, enum trex_action a)
{
	struct tl_flows *f = &tv->details.flows;
	struct trex_error err;

	if (a != TREX_ACTION_TOGGLE_FLOWS)
		return false;
	if (!f->order_built) {
		if (trex_flow_order_build(idx_of(tv), &f->order, &err) != TREX_OK) {
			trex_ui_message(tv->base.ctx, "flows: %s", err.message);
			return true;
		}
		f->order_built = true;
	}
	f->all = !f->all;
	if (!f->all)
		trex_ui_message(tv->base.ctx, "flows: only the selected slice's links are drawn");
	else if (f->order.count == 0)
		trex_ui_message(tv->base.ctx,
		                "this trace has no flows: only launch links are drawn");
	else
		trex_ui_message(tv->base.ctx, "flows: every flow of the window is drawn (up to %d)",
		                FLOWS_DRAWN_MAX);
	return true;
}

void tl_flows_status(const struct timeline_view *tv, char *buf, size_t size)
{
	const struct tl_flows *f = &tv->details.flows;
	size_t len = strlen(buf), total;

	if (!f->all || !f->order_built || len >= size)
		return;
	total = window_flows(tv, NULL, 0);
	if (total > FLOWS_DRAWN_MAX)
		snprintf(buf + len, size - len, "  FLOWS %d of %zu", FLOWS_DRAWN_MAX, total);
	else
		snprintf(buf + len, size - len, "  FLOWS %zu", total);
}
