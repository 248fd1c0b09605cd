#include "config.h"

#include "timeline_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "trex/core/kind.h"

#define LABEL_MIN_CELLS 3 /* a name is written into a bar of at least this many cells */
#define AXIS_LABEL_CELLS 10

enum trex_role timeline_slice_role(const struct trex_index *idx, const struct trex_slice *s)
{
	const char *name = trex_index_str(idx, s->name);

	switch (trex_kind_of(trex_index_str(idx, s->cat), name)) {
	case TREX_KIND_KERNEL:
		if (name && (strncasecmp(name, "nccl", 4) == 0 || strstr(name, "ncclKernel") ||
		             strstr(name, "AllReduce") || strstr(name, "AllGather")))
			return TREX_ROLE_SLICE_COMM;
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
	trex_draw_text(win, ctx->term, r->y, r->x + 7, ctx->title, r->w - 8 - rw);
	trex_draw_text(win, ctx->term, r->y, r->x + r->w - rw, right, rw);
}

static struct trex_tmap tmap_of(const struct timeline_view *tv, int cols)
{
	return (struct trex_tmap){tv->win.t0, tv->win.span, cols > 0 ? cols : 1};
}

static void draw_axis(struct timeline_view *tv, WINDOW *win, const struct trex_layout *lay)
{
	struct trex_term *term = tv->base.ctx->term;
	const struct trex_rect *r = &lay->axis;
	struct trex_tmap m = tmap_of(tv, r->w);
	int64_t origin = trex_index_start(tv->base.ctx->idx), k;
	unsigned long attr = trex_term_attr(term, TREX_ROLE_RULER);
	struct trex_axis ax;
	char label[48];
	int next_free = 0;

	trex_draw_fill(win, r->y, lay->axis_label.x, lay->axis_label.w + r->w, attr);
	trex_format_ns(tv->win.span / r->w, label, sizeof(label));
	if ((int)strlen(label) + 6 <= lay->axis_label.w)
		snprintf(label + strlen(label), sizeof(label) - strlen(label), "/col");
	trex_draw_text(win, term, r->y, lay->axis_label.x + 1, label, lay->axis_label.w - 2);
	trex_axis_choose(&m, AXIS_LABEL_CELLS, &ax);
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
		trex_axis_label(&ax, (int64_t)(t128 - origin), label, sizeof(label));
		next_free =
		    (int)c + 1 +
		    trex_draw_text(win, term, r->y, r->x + (int)c + 1, label, r->w - (int)c - 1) +
		    1;
	}
	k = trex_tmap_col(&m, tv->cursor);
	if (k >= 0 && k < r->w)
		trex_draw_glyph(win, term, r->y, r->x + (int)k, L'\x25bc', 'v',
		                trex_term_attr(term, TREX_ROLE_CURSOR));
}

/* ---- rows ------------------------------------------------------------------------------ */

static void row_name(struct timeline_view *tv, const struct tl_row *row, char *buf, size_t size)
{
	const struct trex_index *idx = tv->base.ctx->idx;
	bool utf8 = tv->base.ctx->term->utf8;
	const char *open = utf8 ? "\xe2\x96\xbe" : "-", *closed = utf8 ? "\xe2\x96\xb8" : "+";

	if (row->kind == TL_ROW_FILE) {
		const struct trex_file *f = trex_index_file(idx, row->id);
		const char *path = trex_index_str(idx, f->path), *base = strrchr(path, '/');

		snprintf(buf, size, "%s rank %lld %s",
		         tv->rows.file_collapsed[row->id] ? closed : open, (long long)f->rank,
		         base ? base + 1 : path);
	} else if (row->kind == TL_ROW_PROCESS) {
		const struct trex_process *p = trex_index_process(idx, row->id);

		snprintf(buf, size, " %s %s %s",
		         tv->rows.process_collapsed[row->id] ? closed : open,
		         trex_index_str(idx, p->pid), trex_index_str(idx, p->name));
	} else {
		const struct trex_lane *l = trex_index_lane(idx, row->id);
		const struct trex_track *t = trex_index_track(idx, l->track);
		const char *name = trex_index_str(idx, t->name);

		if (l->depth > 0)
			snprintf(buf, size, "     %u", l->depth);
		else
			snprintf(buf, size, "   %s",
			         name && *name ? name : trex_index_str(idx, t->tid));
	}
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
		trex_draw_fill(win, y, x, 1, trex_term_attr(term, role));
		break;
	case TREX_GLYPH_LEFT:
		trex_draw_glyph(win, term, y, x, (wchar_t)(0x2590 - g.n), ']', bar);
		break;
	case TREX_GLYPH_RIGHT:
		if (g.n >= 8)
			trex_draw_fill(win, y, x, 1, trex_term_attr(term, role));
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

/* The glyph of column c of a lane; *single is the one slice in it, if so. */
static struct trex_glyph lane_glyph(struct timeline_view *tv, const struct trex_lane *lane,
                                    const struct trex_tmap *m, int c, uint32_t *single)
{
	const struct trex_index *idx = tv->base.ctx->idx;
	struct trex_cell cell;
	int64_t lo, hi, xb, xe;
	const struct trex_slice *s;

	*single = TREX_NONE;
	trex_tmap_cell(m, c, &lo, &hi);
	trex_lane_cell(idx, lane, lo, hi, &cell);
	if (cell.count != 1)
		return trex_glyph_busy(cell.count ? (cell.busy > 0 ? cell.busy : 1) : 0, hi - lo);
	*single = cell.first;
	s = trex_index_slice(idx, cell.first);
	xb = trex_tmap_eighth(m, s->ts);
	xe = s->dur > 0 ? trex_tmap_eighth(m, s->ts + s->dur - 1) + 1 : xb + 1;
	return trex_glyph_single(xb, xe > xb ? xe : xb + 1, c);
}

static enum trex_role cell_role(struct timeline_view *tv, uint32_t single, uint32_t fallback_slice)
{
	const struct trex_index *idx = tv->base.ctx->idx;
	uint32_t id = single != TREX_NONE ? single : fallback_slice;

	if (id == TREX_NONE)
		return TREX_ROLE_SLICE_OTHER;
	if (id == tv->selected)
		return TREX_ROLE_CURSOR;
	return timeline_slice_role(idx, trex_index_slice(idx, id));
}

/* Writes slice names into runs of full cells of one slice. */
static void draw_labels(struct timeline_view *tv, WINDOW *win, int y, const struct trex_rect *r,
                        const uint32_t *full)
{
	const struct trex_index *idx = tv->base.ctx->idx;

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
			unsigned long a =
			    trex_term_attr(tv->base.ctx->term, cell_role(tv, full[c], full[c]));

			wattrset(win, (int)a);
			trex_draw_text(win, tv->base.ctx->term, y, r->x + c,
			               trex_index_str(idx, s->name), run);
		}
		c += run;
	}
}

static void draw_lane(struct timeline_view *tv, WINDOW *win, int y, const struct trex_rect *r,
                      const struct trex_lane *lane)
{
	struct trex_tmap m = tmap_of(tv, r->w);
	uint32_t *full = tv->cell_slice;
	uint32_t last = TREX_NONE;

	for (int c = 0; c < r->w; c++) {
		uint32_t single;
		struct trex_glyph g = lane_glyph(tv, lane, &m, c, &single);

		if (single != TREX_NONE)
			last = single;
		full[c] = g.kind == TREX_GLYPH_FULL && single != TREX_NONE ? single : TREX_NONE;
		draw_cell(tv, win, y, r->x + c, g, cell_role(tv, single, last));
	}
	draw_labels(tv, win, y, r, full);
}

static void scroll_to_cursor(struct timeline_view *tv)
{
	size_t h = tv->body_h > 0 ? (size_t)tv->body_h : 1;

	if (tv->cur_row < tv->top_row)
		tv->top_row = tv->cur_row;
	if (tv->cur_row >= tv->top_row + h)
		tv->top_row = tv->cur_row - h + 1;
	if (tv->top_row + h > tv->rows.n)
		tv->top_row = tv->rows.n > h ? tv->rows.n - h : 0;
}

static enum trex_role name_role(const struct tl_row *row)
{
	return row->kind == TL_ROW_LANE ? TREX_ROLE_TRACK_NAME : TREX_ROLE_TRACK_GROUP;
}

static void draw_rows(struct timeline_view *tv, WINDOW *win, const struct trex_layout *lay)
{
	struct trex_term *term = tv->base.ctx->term;
	unsigned long sep = trex_term_attr(term, TREX_ROLE_BORDER);
	char name[256];

	scroll_to_cursor(tv);
	for (int i = 0; i < lay->names.h; i++) {
		size_t ri = tv->top_row + (size_t)i;
		int y = lay->names.y + i;
		const struct tl_row *row;
		enum trex_role role;

		trex_draw_glyph(win, term, y, lay->names.w, L'\x2502', '|', sep);
		if (ri >= tv->rows.n)
			continue;
		row = &tv->rows.v[ri];
		role = ri == tv->cur_row ? TREX_ROLE_CURSOR : name_role(row);
		row_name(tv, row, name, sizeof(name));
		trex_draw_fill(win, y, lay->names.x, lay->names.w, trex_term_attr(term, role));
		trex_draw_text(win, term, y, lay->names.x, name, lay->names.w);
		if (row->kind == TL_ROW_LANE)
			draw_lane(tv, win, y, &lay->timeline,
			          trex_index_lane(tv->base.ctx->idx, row->id));
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

static void draw_status(struct timeline_view *tv, WINDOW *win, const struct trex_rect *r)
{
	const struct trex_index *idx = tv->base.ctx->idx;
	int64_t origin = trex_index_start(idx);
	char a[32], b[32], c[32], left1[160], right1[128], left2[512] = "";

	trex_format_ns(rel(tv->win.t0, origin), a, sizeof(a));
	trex_format_ns(clamp64((__int128)tv->win.t0 + tv->win.span - origin), b, sizeof(b));
	trex_format_ns(tv->win.span, c, sizeof(c));
	snprintf(left1, sizeof(left1), " %s .. %s (%s)", a, b, c);
	trex_format_ns(tv->win.span / (tv->cols > 0 ? tv->cols : 1), a, sizeof(a));
	trex_format_ns(rel(tv->cursor, origin), b, sizeof(b));
	snprintf(right1, sizeof(right1), "cursor %s  %s/col ", b, a);
	if (tv->selected != TREX_NONE) {
		const struct trex_slice *s = trex_index_slice(idx, tv->selected);

		trex_format_ns(rel(s->ts, origin), a, sizeof(a));
		trex_format_ns(s->dur, b, sizeof(b));
		snprintf(left2, sizeof(left2), " %s  start %s  dur %s",
		         trex_index_str(idx, s->name), a, b);
	}
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

void timeline_draw(struct trex_view *v, WINDOW *win, const struct trex_layout *lay)
{
	struct timeline_view *tv = (struct timeline_view *)v;

	if (!ensure_cells(tv, lay->timeline.w))
		return;
	tv->body_h = lay->names.h;
	tv->cols = lay->timeline.w;
	draw_header(tv, win, &lay->header);
	draw_axis(tv, win, lay);
	draw_rows(tv, win, lay);
	draw_status(tv, win, &lay->status);
}
