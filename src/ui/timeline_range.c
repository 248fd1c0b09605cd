#include "config.h"

#include "timeline_details.h"

#include <stdio.h>
#include <string.h>

#include "timeline_view.h"

#define NAMES_SHOWN 20 /* top names listed in the pane */

static const struct trex_index *idx_of(const struct timeline_view *tv)
{
	return tv->idx;
}

static int64_t rel(const struct timeline_view *tv, int64_t t)
{
	__int128 r = (__int128)t - tv->origin;

	return r > INT64_MAX ? INT64_MAX : r < INT64_MIN ? INT64_MIN : (int64_t)r;
}

void tl_range_clear(struct tl_details *d)
{
	if (d->stats_ok)
		trex_range_stats_free(&d->stats);
	d->stats_ok = false;
	d->mark = TL_MARK_NONE;
	d->range_hidden = false;
	d->scroll = 0;
}

/* t of one run's clock on the other's: t + delta, saturated */
static int64_t moved(int64_t t, int64_t delta)
{
	__int128 r = (__int128)t + delta;

	return r > INT64_MAX ? INT64_MAX : r < INT64_MIN ? INT64_MIN : (int64_t)r;
}

void tl_range_follow(struct timeline_view *tv, const struct timeline_view *from)
{
	struct tl_details *d = &tv->details;
	const struct tl_details *f = &from->details;
	int64_t delta = (int64_t)((__int128)from->shift - tv->shift);
	int64_t a = moved(f->mark_a, delta), b = moved(f->mark_b, delta);
	struct trex_error err;

	if (f->mark == d->mark &&
	    (f->mark == TL_MARK_NONE ||
	     (d->mark_a == a && (f->mark == TL_MARK_STARTED || d->mark_b == b)))) {
		d->range_hidden = f->range_hidden;
		return;
	}
	tl_range_clear(d);
	d->mark = f->mark;
	d->mark_a = a;
	d->mark_b = b;
	if (f->mark == TL_MARK_RANGE)
		d->stats_ok =
		    trex_range_stats_compute(idx_of(tv), a, b, &d->stats, &err) == TREX_OK;
	d->range_hidden = f->range_hidden;
}

/* ---- marking ---------------------------------------------------------------------------- */

static void mark_start(struct timeline_view *tv)
{
	struct tl_details *d = &tv->details;
	char t[32];

	tl_range_clear(d);
	d->mark = TL_MARK_STARTED;
	d->mark_a = tv->cursor;
	trex_format_duration((double)rel(tv, d->mark_a), t, sizeof(t));
	trex_ui_message(tv->base.ctx, "range start at %s: move, then m sets the end", t);
}

static void mark_end(struct timeline_view *tv)
{
	struct tl_details *d = &tv->details;
	int64_t a = d->mark_a, b = tv->cursor;
	struct trex_error err;

	if (a == b) {
		trex_ui_message(tv->base.ctx, "the range is empty: move the cursor, then m");
		return;
	}
	d->mark_a = a < b ? a : b;
	d->mark_b = a < b ? b : a;
	if (trex_range_stats_compute(idx_of(tv), d->mark_a, d->mark_b, &d->stats, &err) !=
	    TREX_OK) {
		trex_ui_message(tv->base.ctx, "range statistics: %s", err.message);
		return;
	}
	d->stats_ok = true;
	d->mark = TL_MARK_RANGE;
	d->range_hidden = false;
	d->shown = true;
	d->scroll = 0;
}

/* The marks in time order: the range start, then its end. */
static int marks(const struct tl_details *d, int64_t *m)
{
	if (d->mark == TL_MARK_NONE)
		return 0;
	m[0] = d->mark_a;
	if (d->mark == TL_MARK_STARTED)
		return 1;
	m[1] = d->mark_b;
	return 2;
}

static void goto_mark(struct timeline_view *tv, int dir)
{
	int64_t m[2];
	int n = marks(&tv->details, m);

	if (n == 0) {
		trex_ui_message(tv->base.ctx, "no marks: m sets the range start");
		return;
	}
	if (dir == 0) {
		tl_details_jump(tv, m[0]);
		return;
	}
	for (int i = dir > 0 ? 0 : n - 1; i >= 0 && i < n; i += dir) {
		if ((dir > 0 && m[i] > tv->cursor) || (dir < 0 && m[i] < tv->cursor)) {
			tl_details_jump(tv, m[i]);
			return;
		}
	}
	trex_ui_message(tv->base.ctx,
	                dir > 0 ? "no mark after the cursor" : "no mark before the cursor");
}

/* ---- export ------------------------------------------------------------------------------ */

/* x writes the busy-by-track table: the range's per-track busy time is
 * what the range is marked for (the top names stay in the pane). */
static const struct trex_table *export_table(struct trex_view *v, const size_t **rows, size_t *n)
{
	struct tl_details *d = &((struct timeline_view *)v)->details;

	if (d->mark != TL_MARK_RANGE || !d->stats_ok) {
		trex_ui_message(v->ctx, "the range is gone: nothing exported");
		return NULL;
	}
	*rows = NULL;
	*n = d->stats.tracks.nrows;
	return &d->stats.tracks;
}

static void export_submit(struct trex_view *v, const char *text)
{
	trex_export_prompt_submit(&((struct timeline_view *)v)->export, v, text);
}

static void export_cancel(struct trex_view *v)
{
	trex_export_prompt_cancel(&((struct timeline_view *)v)->export, v);
}

static void export_range(struct timeline_view *tv)
{
	struct trex_export_prompt *ep = &tv->export;

	if (tv->details.mark != TL_MARK_RANGE || !tv->details.stats_ok) {
		trex_ui_message(tv->base.ctx, "mark a range with m first to export its statistics");
		return;
	}
	ep->on_submit = export_submit;
	ep->on_cancel = export_cancel;
	ep->table = export_table;
	ep->what = "busy by track";
	trex_export_prompt_open(&tv->base, ep, "range.csv");
}

bool tl_range_dispatch(struct timeline_view *tv, enum trex_action a)
{
	struct tl_details *d = &tv->details;

	switch (a) {
	case TREX_ACTION_MARK_RANGE:
		if (d->mark == TL_MARK_STARTED)
			mark_end(tv);
		else
			mark_start(tv);
		return true;
	case TREX_ACTION_JUMP_MARK:
		goto_mark(tv, 0);
		return true;
	case TREX_ACTION_NEXT_MARK:
		goto_mark(tv, 1);
		return true;
	case TREX_ACTION_PREV_MARK:
		goto_mark(tv, -1);
		return true;
	case TREX_ACTION_EXPORT_TABLE:
		export_range(tv);
		return true;
	case TREX_ACTION_CLEAR:
		/* Esc clears the range first, the selection and search next */
		if (d->mark == TL_MARK_NONE)
			return false;
		tl_range_clear(d);
		return true;
	default:
		return false;
	}
}

/* ---- shading ---------------------------------------------------------------------------- */

/* Gives cell (y, x) the attribute attr (colour pair included), keeping its character. */
static void mark_cell(WINDOW *win, int y, int x, unsigned long attr)
{
	mvwchgat(win, y, x, 1, (attr_t)(attr & ~(unsigned long)A_COLOR),
	         (short)PAIR_NUMBER((int)attr), NULL);
}

/* Tints cell (y, x) with the range role: what it shows stays visible. */
static void tint_cell(struct timeline_view *tv, WINDOW *win, int y, int x)
{
	cchar_t cc;
	wchar_t wc[CCHARW_MAX + 1];
	attr_t at;
	short pair;
	bool blank;

	if (mvwin_wch(win, y, x, &cc) == ERR || getcchar(&cc, wc, &at, &pair, NULL) == ERR)
		return;
	blank = wc[0] == L' ' || wc[0] == L'\0';
	mark_cell(win, y, x,
	          trex_term_tint(tv->base.ctx->term,
	                         (at & ~(attr_t)A_COLOR) | (unsigned long)COLOR_PAIR(pair), blank,
	                         TREX_ROLE_RANGE));
}

/* Columns [c0, c1) of the timeline holding the range (or the start mark). */
static bool range_cols(const struct timeline_view *tv, const struct trex_rect *tl, int *c0, int *c1)
{
	const struct tl_details *d = &tv->details;
	struct trex_tmap m = {tv->win.t0, tv->win.span, tl->w > 0 ? tl->w : 1};
	int64_t a = trex_tmap_col(&m, d->mark_a);
	int64_t b = d->mark == TL_MARK_RANGE ? trex_tmap_col(&m, d->mark_b - 1) + 1 : a + 1;

	if (a < 0)
		a = 0;
	if (b > tl->w)
		b = tl->w;
	*c0 = (int)a;
	*c1 = (int)b;
	return a < b;
}

void tl_range_shade(struct timeline_view *tv, WINDOW *win, const struct trex_layout *lay)
{
	unsigned long attr = trex_term_attr(tv->base.ctx->term, TREX_ROLE_MARK);
	int c0, c1;

	if (tv->details.mark == TL_MARK_NONE || !range_cols(tv, &lay->timeline, &c0, &c1))
		return;
	for (int c = c0; c < c1; c++) {
		mark_cell(win, lay->axis.y, lay->axis.x + c, attr);
		for (int y = lay->timeline.y; y < lay->timeline.y + lay->timeline.h; y++)
			tint_cell(tv, win, y, lay->timeline.x + c);
	}
}

/* ---- the statistics pane ---------------------------------------------------------------- */

struct out {
	struct timeline_view *tv;
	WINDOW *win;
	const struct trex_rect *r;
	int line, scroll;
};

static void out_line(struct out *o, const char *text, enum trex_role role)
{
	int y = o->r->y + o->line - o->scroll;

	if (o->line >= o->scroll && y < o->r->y + o->r->h) {
		wattrset(o->win, (int)trex_term_attr(o->tv->base.ctx->term, role));
		trex_draw_text_cut(o->win, o->tv->base.ctx->term, y, o->r->x + 1, text,
		                   o->r->w - 1);
	}
	o->line++;
}

static void track_lines(struct out *o, const struct trex_table *t)
{
	const struct trex_index *idx = o->tv->idx;
	char line[1024], busy[32], where[768];

	out_line(o, "busy by track:", TREX_ROLE_DETAILS_KEY);
	if (t->nrows == 0)
		out_line(o, "  no slices in the range", TREX_ROLE_DIM);
	for (size_t r = 0; r < t->nrows; r++) {
		trex_format_duration(trex_table_cell(t, r, TREX_RANGE_TRACK_BUSY)->number, busy,
		                     sizeof(busy));
		tl_track_path(idx, (uint32_t)trex_table_cell(t, r, TREX_RANGE_TRACK_ID)->count,
		              where, sizeof(where));
		snprintf(line, sizeof(line), "  %5.1f%%  %9s  %s",
		         trex_table_cell(t, r, TREX_RANGE_TRACK_BUSY_PCT)->number, busy, where);
		out_line(o, line, TREX_ROLE_DEFAULT);
	}
}

static void name_lines(struct out *o, const struct trex_table *t)
{
	char line[512], total[32];

	out_line(o, "top names by time:", TREX_ROLE_DETAILS_KEY);
	for (size_t r = 0; r < t->nrows && r < NAMES_SHOWN; r++) {
		trex_format_duration(trex_table_cell(t, r, TREX_RANGE_NAME_TOTAL)->number, total,
		                     sizeof(total));
		snprintf(line, sizeof(line), "  %9s  %6lldx  %s", total,
		         (long long)trex_table_cell(t, r, TREX_RANGE_NAME_COUNT)->count,
		         trex_table_cell(t, r, TREX_RANGE_NAME_NAME)->text);
		out_line(o, line, TREX_ROLE_DEFAULT);
	}
	if (t->nrows > NAMES_SHOWN) {
		snprintf(line, sizeof(line), "  ... %zu more %s", t->nrows - NAMES_SHOWN,
		         trex_plural(t->nrows - NAMES_SHOWN, "name", "names"));
		out_line(o, line, TREX_ROLE_DIM);
	}
}

static void all_lines(struct out *o)
{
	const struct tl_details *d = &o->tv->details;
	char a[32], b[32], len[32], line[160];

	o->line = 0;
	trex_format_duration((double)rel(o->tv, d->mark_a), a, sizeof(a));
	trex_format_duration((double)rel(o->tv, d->mark_b), b, sizeof(b));
	trex_format_duration((double)(d->mark_b - d->mark_a), len, sizeof(len));
	snprintf(line, sizeof(line), "range %s .. %s (%s)", a, b, len);
	out_line(o, line, TREX_ROLE_DEFAULT);
	track_lines(o, &d->stats.tracks);
	name_lines(o, &d->stats.names);
}

void tl_range_draw_pane(struct timeline_view *tv, WINDOW *win, const struct trex_rect *r)
{
	struct tl_details *d = &tv->details;
	struct out o = {tv, win, r, 0, 1 << 30};

	all_lines(&o); /* counting: nothing is visible past scroll 2^30 */
	if (d->scroll > o.line - r->h)
		d->scroll = o.line - r->h;
	if (d->scroll < 0)
		d->scroll = 0;
	o.scroll = d->scroll;
	all_lines(&o);
}
