#include "config.h"

#include "timeline_details.h"
#include "timeline_compare.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeline_view.h"
#include "trex/analysis/counter_range.h"
#include "trex/analysis/labels.h"
#include "trex/core/clock.h"
#include "trex/core/kind.h"
#include "trex/ui/text.h"
#include "trex/ui/timespec.h"

#define INDENT 4 /* continuation lines of a wrapped value */

void tl_details_init(struct tl_details *d)
{
	memset(d, 0, sizeof(*d));
	d->info_for = d->args_for = d->counter_at = TREX_NONE;
}

void tl_details_free(struct tl_details *d)
{
	trex_args_free(&d->args);
	tl_range_clear(d);
	tl_flows_free(&d->flows);
}

static const struct trex_index *idx_of(const struct timeline_view *tv)
{
	return tv->idx;
}

static const char *slice_name(const struct trex_index *idx, uint32_t id)
{
	const char *s = trex_index_str(idx, trex_index_slice(idx, id)->name);

	return s ? s : "";
}

/* The info of the selected slice, recomputed only when the selection
 * changed. */
static void ensure_info(struct timeline_view *tv)
{
	struct tl_details *d = &tv->details;

	if (tv->selected == d->info_for)
		return;
	d->info_for = tv->selected;
	d->link_cur = 0;
	d->scroll = 0;
	if (tv->selected != TREX_NONE)
		trex_slice_info_compute(idx_of(tv), tv->selected, &d->info);
}

const struct trex_slice_info *tl_details_info(struct timeline_view *tv)
{
	if (tv->selected == TREX_NONE)
		return NULL;
	ensure_info(tv);
	return &tv->details.info;
}

/* The selected slice's args, read from the file once per selection and
 * only when the pane shows them; the previous slice's are dropped. */
static void ensure_args(struct timeline_view *tv)
{
	struct tl_details *d = &tv->details;
	struct trex_error err;

	if (tv->selected == d->args_for)
		return;
	trex_args_free(&d->args);
	d->args_error[0] = '\0';
	d->args_for = tv->selected;
	if (tv->selected != TREX_NONE &&
	    trex_slice_args(idx_of(tv), tv->selected, &d->args, &err) != TREX_OK)
		snprintf(d->args_error, sizeof(d->args_error), "%s", err.message);
}

/* ---- following links -------------------------------------------------------------------- */

/* Remembers where the view is before a jump that pushes the zoom stack,
 * so that zoom-back also restores the selection, row and cursor. */
static void push_back(struct tl_details *d, const struct tl_link_back *here)
{
	if (d->nback == TL_BACK_MAX) {
		memmove(d->back, d->back + 1, sizeof(d->back[0]) * (TL_BACK_MAX - 1));
		d->nback--;
	}
	d->back[d->nback++] = *here;
}

void tl_details_jump(struct timeline_view *tv, int64_t t)
{
	struct tl_link_back here = {tv->zoom_depth, tv->selected, tv->cur_row, tv->cursor};

	tl_goto_time(tv, t);
	if (tv->zoom_depth > here.zoom_depth)
		push_back(&tv->details, &here);
}

/* ---- link phrases ---------------------------------------------------------------------- */

/* F follows these: launch <-> GPU work, flows and dependencies (the
 * pane's list has the others, Tab chooses them). */
static bool followable(enum trex_link_kind kind)
{
	return kind == TREX_LINK_LAUNCH || kind == TREX_LINK_LAUNCHED ||
	       kind == TREX_LINK_FLOW_OUT || kind == TREX_LINK_FLOW_IN ||
	       kind == TREX_LINK_WAITS_FOR || kind == TREX_LINK_NEEDED_BY;
}

/* The index of the link F follows, -1 when none. */
static int follow_index(const struct tl_details *d)
{
	for (size_t i = 0; i < d->info.link_count; i++)
		if (followable(d->info.links[i].kind))
			return (int)i;
	return -1;
}

/* What link l of slice `from` is, as the pane, the status line and F say
 * it: "launched by", "launched kernel", "flow (fwdbwd) to", "parent", ... */
static void link_phrase(const struct trex_index *idx, uint32_t from, const struct trex_link *l,
                        char *buf, size_t size)
{
	const struct trex_slice *to = trex_index_slice(idx, l->slice);
	const struct trex_flow *f;
	const char *what = NULL;

	if (l->kind == TREX_LINK_LAUNCHED) {
		snprintf(buf, size, "launched %s", trex_kind_label((enum trex_kind)to->kind));
		return;
	}
	if ((l->kind == TREX_LINK_FLOW_OUT || l->kind == TREX_LINK_FLOW_IN) &&
	    (f = tl_flow_between(idx, from, l->slice))) {
		what = trex_index_str(idx, f->cat);
		if (!what || !*what)
			what = trex_index_str(idx, f->name);
	}
	if (what && *what)
		snprintf(buf, size, "flow (%s) %s", what,
		         l->kind == TREX_LINK_FLOW_OUT ? "to" : "from");
	else
		snprintf(buf, size, "%s", trex_link_label(l->kind));
}

bool tl_details_follow_hint(struct timeline_view *tv, char *buf, size_t size, const char **target)
{
	struct tl_details *d = &tv->details;
	char phrase[96];
	int i;

	if (tv->selected == TREX_NONE)
		return false;
	ensure_info(tv);
	if ((i = follow_index(d)) < 0)
		return false;
	link_phrase(idx_of(tv), tv->selected, &d->info.links[i], phrase, sizeof(phrase));
	snprintf(buf, size, "F: %s", phrase);
	*target = slice_name(idx_of(tv), d->info.links[i].slice);
	return true;
}

/* Follows link i of the selected slice; i < 0: the link F follows. */
static void follow(struct timeline_view *tv, int i)
{
	struct tl_details *d = &tv->details;
	const struct trex_link *l;
	struct tl_link_back here = {tv->zoom_depth, tv->selected, tv->cur_row, tv->cursor};
	char phrase[96];

	if (tv->selected == TREX_NONE) {
		trex_ui_message(tv->base.ctx, "no slice selected");
		return;
	}
	ensure_info(tv);
	if (d->info.link_count == 0) {
		trex_ui_message(tv->base.ctx, "no links from this slice");
		return;
	}
	if (i < 0 && (i = follow_index(d)) < 0) {
		trex_ui_message(tv->base.ctx,
		                "no launch, flow or dependency link from this slice (Tab chooses "
		                "among its %zu other links)",
		                d->info.link_count);
		return;
	}
	l = &d->info.links[(size_t)i < d->info.link_count ? i : 0];
	link_phrase(idx_of(tv), tv->selected, l, phrase, sizeof(phrase));
	if (!tl_show_drawn_slice(tv, l->slice))
		return; /* it said what hides the slice */
	push_back(d, &here);
	d->focus = false;
	trex_ui_message(tv->base.ctx, "%s: %s (u goes back)", phrase,
	                slice_name(idx_of(tv), l->slice));
}

void tl_details_zoom_back(struct timeline_view *tv)
{
	struct tl_details *d = &tv->details;
	const struct tl_link_back *b;

	while (d->nback > 0 && d->back[d->nback - 1].zoom_depth > tv->zoom_depth)
		d->nback--; /* left by jumps whose zoom was already popped */
	if (d->nback == 0 || d->back[d->nback - 1].zoom_depth != tv->zoom_depth)
		return;
	b = &d->back[--d->nback];
	tv->selected = b->selected;
	tv->cursor = b->cursor;
	tv->cur_row = b->cur_row < tv->rows.n ? b->cur_row : tv->cur_row;
	if (b->selected != TREX_NONE) {
		const struct trex_slice *s = trex_index_slice(idx_of(tv), b->selected);
		const struct trex_track *t = trex_index_track(idx_of(tv), s->track);

		tv->cur_row = tl_rows_find(&tv->rows, TL_ROW_LANE, t->first_lane + s->depth);
	}
}

/* ---- go to time ------------------------------------------------------------------------- */

/* Says where a typed time went when it is not plainly into the trace:
 * outside the trace (the view stops at its end), or read as absolute. */
static void goto_report(struct timeline_view *tv, const char *text,
                        const struct trex_timespec_target *to)
{
	int64_t start = tv->origin, end = tv->span_hi;
	char at[32], len[32];

	trex_format_duration((double)((__int128)end - start), len, sizeof(len));
	if (to->where == TREX_TIMESPEC_BEFORE) {
		trex_ui_message(tv->base.ctx,
		                "%s is before the trace (0 ns .. %s; absolute %" PRId64
		                " .. %" PRId64 " ns): showing its start",
		                text, len, start, end);
	} else if (to->where == TREX_TIMESPEC_AFTER) {
		trex_ui_message(tv->base.ctx,
		                "%s is past the trace (0 ns .. %s; absolute %" PRId64 " .. %" PRId64
		                " ns): showing its end",
		                text, len, start, end);
	} else if (to->base == TREX_TIMESPEC_ABSOLUTE) {
		trex_format_duration((double)((__int128)to->t - start), at, sizeof(at));
		trex_ui_message(tv->base.ctx, "absolute %" PRId64 " ns: %s into the trace", to->t,
		                at);
	}
}

static void goto_submit(struct trex_view *v, const char *text)
{
	struct timeline_view *tv = (struct timeline_view *)v;
	struct trex_timespec_target to;

	while (*text == ' ')
		text++;
	/* ":goto 12.5ms" as well as ":12.5ms" */
	if (strncmp(text, "goto ", 5) == 0)
		text += 5;
	if (!trex_timespec_locate(text, tv->origin, tv->span_hi, tv->cursor, &to)) {
		trex_ui_message(tv->base.ctx, "%s", TREX_TIMESPEC_EXPECTED);
		return;
	}
	tl_details_jump(tv, to.t);
	goto_report(tv, text, &to);
}

static void open_goto(struct timeline_view *tv, bool command)
{
	struct trex_prompt_spec spec = {
	    .label = command ? ":" : "go to time: ",
	    .history = TREX_PROMPT_HISTORY_TIME,
	    .on_submit = goto_submit,
	};

	trex_ui_prompt(tv->base.ctx, &tv->base, &spec);
}

/* ---- actions ---------------------------------------------------------------------------- */

bool tl_details_supports(enum trex_action a)
{
	switch (a) {
	case TREX_ACTION_DETAILS:
	case TREX_ACTION_FOLLOW_LINK:
	case TREX_ACTION_NEXT_PANE:
	case TREX_ACTION_PREV_PANE:
	case TREX_ACTION_MARK_RANGE:
	case TREX_ACTION_JUMP_MARK:
	case TREX_ACTION_NEXT_MARK:
	case TREX_ACTION_PREV_MARK:
	case TREX_ACTION_GOTO_TIME:
	case TREX_ACTION_PROMPT:
	case TREX_ACTION_EXPORT_TABLE:
	case TREX_ACTION_TOGGLE_FLOWS:
	case TREX_ACTION_TOGGLE_CRITICAL:
		return true;
	default:
		return false;
	}
}

static bool showing_range(const struct tl_details *d)
{
	return d->mark == TL_MARK_RANGE && d->stats_ok && !d->range_hidden;
}

static int item_count(struct timeline_view *tv)
{
	struct tl_details *d = &tv->details;

	if (showing_range(d))
		return 0;
	ensure_info(tv);
	return tv->selected == TREX_NONE ? 0 : (int)d->info.link_count;
}

static void move_link(struct timeline_view *tv, int delta)
{
	struct tl_details *d = &tv->details;
	int n = item_count(tv), c = d->link_cur + delta;

	if (n == 0) {
		d->scroll += delta; /* nothing to choose: scroll the text */
		if (d->scroll < 0)
			d->scroll = 0;
		return;
	}
	d->link_cur = c < 0 ? 0 : c >= n ? n - 1 : c;
	d->show_link = true;
}

/* Keys while the pane has the focus: moving keys choose a link (or scroll),
 * Enter and F follow it, Tab/Esc give the focus back. */
static bool dispatch_focus(struct timeline_view *tv, enum trex_action a)
{
	struct tl_details *d = &tv->details;
	int page = d->pane_h > 1 ? d->pane_h - 1 : 1;

	switch (a) {
	case TREX_ACTION_MOVE_DOWN:
	case TREX_ACTION_TRACK_DOWN:
		move_link(tv, 1);
		return true;
	case TREX_ACTION_MOVE_UP:
	case TREX_ACTION_TRACK_UP:
		move_link(tv, -1);
		return true;
	case TREX_ACTION_MOVE_FIRST:
		move_link(tv, -1000000);
		return true;
	case TREX_ACTION_MOVE_LAST:
		move_link(tv, 1000000);
		return true;
	case TREX_ACTION_PAGE_DOWN:
	case TREX_ACTION_HALF_PAGE_DOWN:
		d->scroll += page;
		return true;
	case TREX_ACTION_PAGE_UP:
	case TREX_ACTION_HALF_PAGE_UP:
		d->scroll = d->scroll > page ? d->scroll - page : 0;
		return true;
	case TREX_ACTION_DETAILS:
	case TREX_ACTION_FOLLOW_LINK:
		if (showing_range(d))
			return false;
		follow(tv, d->link_cur);
		return true;
	case TREX_ACTION_NEXT_PANE:
	case TREX_ACTION_PREV_PANE:
	case TREX_ACTION_CLEAR:
		d->focus = false;
		return true;
	default:
		return false;
	}
}

static void toggle_details(struct timeline_view *tv)
{
	struct tl_details *d = &tv->details;

	if (showing_range(d) && d->shown) {
		d->range_hidden = true; /* from the range statistics to the slice */
		return;
	}
	d->shown = !d->shown;
	d->focus = false;
	if (d->shown && d->pane_h == 0 && tv->screen_lay.header.w > 0) {
		struct trex_layout probe = tv->screen_lay;

		if (!trex_layout_details(&probe))
			trex_ui_message(tv->base.ctx,
			                "the window is too small for the details pane");
	}
}

static void focus_pane(struct timeline_view *tv)
{
	struct tl_details *d = &tv->details;

	if (!d->shown)
		d->shown = true;
	d->focus = true;
	d->show_link = true;
	trex_ui_message(tv->base.ctx, "%s",
	                showing_range(d) ? "details pane: j/k scroll, Tab returns"
	                                 : "details pane: j/k choose a link, Enter follows "
	                                   "it, Tab returns");
}

bool tl_details_dispatch(struct timeline_view *tv, enum trex_action a)
{
	struct tl_details *d = &tv->details;

	if (d->focus && d->shown && dispatch_focus(tv, a))
		return true;
	switch (a) {
	case TREX_ACTION_DETAILS:
		toggle_details(tv);
		return true;
	case TREX_ACTION_FOLLOW_LINK:
		follow(tv, -1);
		return true;
	case TREX_ACTION_NEXT_PANE:
	case TREX_ACTION_PREV_PANE:
		focus_pane(tv);
		return true;
	case TREX_ACTION_GOTO_TIME:
	case TREX_ACTION_PROMPT:
		open_goto(tv, a == TREX_ACTION_PROMPT);
		return true;
	default:
		return tl_flows_dispatch(tv, a) || tl_range_dispatch(tv, a) ||
		       tl_critical_dispatch(tv, a);
	}
}

/* ---- the pane --------------------------------------------------------------------------- */

void tl_details_layout(const struct timeline_view *tv, struct trex_layout *lay)
{
	lay->details = (struct trex_rect){0, 0, 0, 0};
	if (tv->details.shown)
		trex_layout_details(lay);
}

/* Bytes of s that fit in width columns, stopping before a newline. */
static size_t fit(const char *s, int width)
{
	return trex_text_fit(s, strlen(s), width);
}

/* Where to end a line of n bytes of s: after the last blank, comma or
 * bracket in its last third, so that long C++ names wrap between their
 * parts; n when the line ends the text or has none there. */
static size_t soft_break(const char *s, size_t n)
{
	if (s[n] == '\0' || s[n] == '\n')
		return n;
	for (size_t i = n; i > n - n / 3; i--)
		if (strchr(" ,(<[/", s[i - 1]))
			return i;
	return n;
}

/* Lines are laid out twice: once to count them (and find the chosen
 * link's line), once to draw the visible ones. */
struct pane {
	struct timeline_view *tv;
	WINDOW *win;
	struct trex_rect r; /* the text area */
	bool draw;
	int line, scroll;
	int link_line;  /* the chosen link's first line, -1 */
	int probe_line; /* a pane line asked about (a click), -1 */
	int probe_link; /* the link drawn on probe_line, -1 */
};

static void put_text(struct pane *p, int x, const char *s, size_t n, enum trex_role role)
{
	char buf[1024];
	int y = p->r.y + p->line - p->scroll;

	if (!p->draw || p->line < p->scroll || y >= p->r.y + p->r.h || x >= p->r.w)
		return;
	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	wattrset(p->win, (int)trex_term_attr(p->tv->base.ctx->term, role));
	trex_draw_text_cut(p->win, p->tv->base.ctx->term, y, p->r.x + x, buf, p->r.w - x);
}

static void fill_line(struct pane *p, enum trex_role role)
{
	int y = p->r.y + p->line - p->scroll;

	if (p->draw && p->line >= p->scroll && y < p->r.y + p->r.h)
		trex_draw_fill(p->win, y, p->r.x, p->r.w,
		               trex_term_attr(p->tv->base.ctx->term, role));
}

/* "key: value", the value wrapped under the key (a newline in it shows as
 * \n, as every control character, so a name never looks like two). */
static void row(struct pane *p, const char *key, const char *value, enum trex_role role)
{
	int kw = key[0] ? (int)strlen(key) + 2 : 0, x = 1 + kw;
	bool first = true;

	if (role != TREX_ROLE_DEFAULT)
		fill_line(p, role);
	if (kw) {
		put_text(p, 1, key, strlen(key),
		         role == TREX_ROLE_DEFAULT ? TREX_ROLE_DETAILS_KEY : role);
		put_text(p, 1 + kw - 2, ": ", 2, role);
	}
	do {
		size_t n = soft_break(value, fit(value, p->r.w - x > 1 ? p->r.w - x : 1));

		if (n == 0 && *value)
			n = 1; /* a character wider than the pane */
		if (!first && role != TREX_ROLE_DEFAULT)
			fill_line(p, role);
		put_text(p, x, value, n, role);
		value += n;
		p->line++;
		x = INDENT;
		first = false;
	} while (*value);
}

static void fmt_dur(int64_t ns, char *buf, size_t size)
{
	char h[32];

	trex_format_duration((double)ns, h, sizeof(h));
	snprintf(buf, size, "%s (%" PRId64 " ns)", h, ns);
}

void tl_track_path(const struct trex_index *idx, uint32_t track, char *buf, size_t size)
{
	const struct trex_track *t = trex_index_track(idx, track);
	const char *name = trex_index_str(idx, t->name);
	char run[256], dev[256];

	snprintf(buf, size, "%s / %s / %s",
	         trex_file_label(idx, trex_index_track_file(idx, track), run, sizeof(run)),
	         trex_device_name(idx, t->process, dev, sizeof(dev)),
	         name && *name ? name : trex_index_str(idx, t->tid));
}

/* What the loader had to repair about the slice, "" when nothing. */
static void flags_text(uint16_t flags, char *buf, size_t size)
{
	static const struct {
		uint16_t flag;
		const char *text;
	} odd[] = {
	    {TREX_SLICE_UNTERMINATED, "no end event: runs to the end of its file"},
	    {TREX_SLICE_OVERLAP, "overlaps an earlier sibling: drawn one level deeper"},
	    {TREX_SLICE_REVERSED, "ends before it starts: duration set to 0"},
	    {TREX_SLICE_TS_SATURATED, "time beyond int64 ns: saturated"},
	};
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]) && n < size; i++)
		if (flags & odd[i].flag)
			n +=
			    (size_t)snprintf(buf + n, size - n, "%s%s", n ? "; " : "", odd[i].text);
}

/* With ranks put on one clock (--align): the slice's time as its rank
 * recorded it, and the correction. */
static void recorded_row(struct pane *p, const struct trex_slice *s)
{
	const struct trex_index *idx = idx_of(p->tv);
	const struct trex_clock_fix *f =
	    trex_index_clock_fix(idx, trex_index_track(idx, s->track)->process);
	char buf[256], off[32];

	if (!f)
		return;
	trex_format_duration((double)f->offset_ns, off, sizeof(off));
	snprintf(buf, sizeof(buf), "absolute %" PRId64 " ns (clock offset %s, drift %.3f ppm)",
	         trex_clock_fix_undo(f, s->ts), off, f->drift * 1e6);
	row(p, "recorded", buf, TREX_ROLE_DEFAULT);
}

static void slice_fields(struct pane *p, const struct trex_slice *s)
{
	const struct trex_index *idx = idx_of(p->tv);
	const struct tl_details *d = &p->tv->details;
	int64_t rel = (int64_t)((__int128)s->ts - p->tv->origin);
	char buf[512], h[32];

	row(p, "name", slice_name(idx, d->info_for), TREX_ROLE_DEFAULT);
	row(p, "category", trex_index_str(idx, s->cat), TREX_ROLE_DEFAULT);
	tl_track_path(idx, s->track, buf, sizeof(buf));
	row(p, "track", buf, TREX_ROLE_DEFAULT);
	trex_format_duration((double)rel, h, sizeof(h));
	/* absolute on the axis shown: run B's own clock is on the next row */
	snprintf(buf, sizeof(buf), "%s (%" PRId64 " ns; absolute %" PRId64 " ns)", h, rel,
	         (int64_t)((__int128)s->ts + p->tv->shift));
	row(p, "start", buf, TREX_ROLE_DEFAULT);
	if (p->tv->side) {
		tl_compare_original_time(p->tv, s->ts, buf, sizeof(buf));
		row(p, "run B time", buf, TREX_ROLE_DEFAULT);
	}
	recorded_row(p, s);
	fmt_dur(s->dur, buf, sizeof(buf));
	row(p, "duration", buf, TREX_ROLE_DEFAULT);
	fmt_dur(d->info.self_ns, buf, sizeof(buf));
	row(p, "self", buf, TREX_ROLE_DEFAULT);
	snprintf(buf, sizeof(buf), "%u (%u %s)", (unsigned)s->depth, d->info.child_count,
	         trex_plural(d->info.child_count, "child", "children"));
	row(p, "depth", buf, TREX_ROLE_DEFAULT);
	flags_text(s->flags, buf, sizeof(buf));
	if (buf[0])
		row(p, "note", buf, TREX_ROLE_WARNING);
	if (d->info.step != TREX_NONE)
		row(p, "step", slice_name(idx, d->info.step), TREX_ROLE_DEFAULT);
	if (d->info.annotation != TREX_NONE)
		row(p, "annotation", slice_name(idx, d->info.annotation), TREX_ROLE_DEFAULT);
}

static void link_rows(struct pane *p)
{
	const struct trex_index *idx = idx_of(p->tv);
	const struct tl_details *d = &p->tv->details;
	char key[128], val[512], h[96];
	int f = follow_index(d);

	if (d->info.link_count == 0)
		return;
	if (d->focus)
		snprintf(val, sizeof(val), "j/k choose, Enter follows");
	else if (f >= 0)
		snprintf(val, sizeof(val), "F follows %d, Tab chooses", f + 1);
	else
		snprintf(val, sizeof(val), "Tab chooses (no launch or flow link for F)");
	row(p, "links", val, TREX_ROLE_DEFAULT);
	for (size_t i = 0; i < d->info.link_count; i++) {
		const struct trex_link *l = &d->info.links[i];
		bool cur = (int)i == d->link_cur;

		link_phrase(idx, d->info_for, l, h, sizeof(h));
		snprintf(key, sizeof(key), "%2zu %s", i + 1, h);
		trex_format_duration((double)trex_index_slice(idx, l->slice)->dur, h, sizeof(h));
		snprintf(val, sizeof(val), "%s (%s)", slice_name(idx, l->slice), h);
		int first = p->line;

		if (cur)
			p->link_line = p->line;
		row(p, key, val,
		    cur ? (d->focus ? TREX_ROLE_CURSOR : TREX_ROLE_SELECTION) : TREX_ROLE_DEFAULT);
		if (p->probe_line >= first && p->probe_line < p->line)
			p->probe_link = (int)i;
	}
	if (d->info.links_dropped) {
		snprintf(val, sizeof(val), "%zu more", d->info.links_dropped);
		row(p, "", val, TREX_ROLE_DIM);
	}
}

static void arg_rows(struct pane *p)
{
	const struct tl_details *d = &p->tv->details;

	if (d->args_error[0]) {
		row(p, "args", d->args_error, TREX_ROLE_WARNING);
		return;
	}
	if (d->args.n == 0)
		return;
	row(p, "args", "", TREX_ROLE_DEFAULT);
	for (size_t i = 0; i < d->args.n; i++) {
		char key[96];

		snprintf(key, sizeof(key), "  %s", d->args.v[i].key);
		row(p, key, d->args.v[i].value, TREX_ROLE_DEFAULT);
	}
}

bool tl_counter_row(const struct timeline_view *tv, uint32_t *track)
{
	if (tv->cur_row >= tv->rows.n || tv->rows.v[tv->cur_row].kind != TL_ROW_COUNTER)
		return false;
	*track = tv->rows.v[tv->cur_row].id;
	return true;
}

static void sample_row(struct pane *p, uint32_t sample, const struct trex_counter_window *w)
{
	const struct trex_index *idx = idx_of(p->tv);
	const struct trex_counter_sample *cs = trex_index_sample(idx, sample);
	bool at = sample == w->at;
	char key[48], val[64];

	trex_format_time((int64_t)((__int128)cs->ts - p->tv->origin), 1, key + 2, sizeof(key) - 2);
	key[0] = key[1] = ' ';
	snprintf(val, sizeof(val), "%.6g%s", cs->value,
	         !at               ? ""
	         : w->before_first ? "  (first, after the cursor)"
	                           : "  (at the cursor)");
	if (at)
		p->link_line = p->line;
	row(p, key, val, at ? TREX_ROLE_SELECTION : TREX_ROLE_DEFAULT);
}

/* A counter row: the samples around the cursor, the one in force marked. */
static void counter_lines(struct pane *p, uint32_t track)
{
	struct timeline_view *tv = p->tv;
	const struct trex_index *idx = idx_of(tv);
	const struct trex_track *t = trex_index_track(idx, track);
	const char *name = trex_index_str(idx, t->name);
	struct trex_counter_window w;
	char buf[128];

	row(p, "counter", name && *name ? name : trex_index_str(idx, t->tid), TREX_ROLE_DEFAULT);
	snprintf(buf, sizeof(buf), "%u, min %.6g, max %.6g", t->sample_count,
	         tv->rows.counter_min[track], tv->rows.counter_max[track]);
	row(p, "samples", buf, TREX_ROLE_DEFAULT);
	if (!trex_counter_around(idx, track, tv->cursor, TL_COUNTER_AROUND, &w))
		return;
	if (w.at != tv->details.counter_at) {
		tv->details.counter_at = w.at; /* the cursor moved: scroll to its sample */
		tv->details.show_link = true;
	}
	if (w.first > t->first_sample) {
		snprintf(buf, sizeof(buf), "%u earlier samples", w.first - t->first_sample);
		row(p, "", buf, TREX_ROLE_DIM);
	}
	for (uint32_t i = w.first; i < w.first + w.count; i++)
		sample_row(p, i, &w);
	if (w.first + w.count < t->first_sample + t->sample_count) {
		snprintf(buf, sizeof(buf), "%u later samples",
		         t->first_sample + t->sample_count - w.first - w.count);
		row(p, "", buf, TREX_ROLE_DIM);
	}
}

static void pane_lines(struct pane *p)
{
	struct timeline_view *tv = p->tv;
	uint32_t track;

	p->line = 0;
	p->link_line = -1;
	p->probe_link = -1;
	if (tv->selected == TREX_NONE && tl_counter_row(tv, &track)) {
		counter_lines(p, track);
		return;
	}
	if (tv->selected == TREX_NONE) {
		row(p, "", "no slice selected: j/k pick a row, . and , select slices",
		    TREX_ROLE_DIM);
		return;
	}
	slice_fields(p, trex_index_slice(idx_of(tv), tv->selected));
	link_rows(p);
	arg_rows(p);
}

/* Scrolls so that the chosen link shows (once after it moved), and never
 * past the last line. */
static void settle_scroll(struct tl_details *d, const struct pane *p)
{
	if (d->show_link && p->link_line >= 0) {
		if (p->link_line < d->scroll)
			d->scroll = p->link_line;
		if (p->link_line >= d->scroll + p->r.h)
			d->scroll = p->link_line - p->r.h + 1;
	}
	d->show_link = false;
	if (d->scroll > p->line - p->r.h)
		d->scroll = p->line - p->r.h;
	if (d->scroll < 0)
		d->scroll = 0;
}

/* The text area of pane r: below its title row, right of a side border. */
static struct trex_rect pane_text(const struct trex_rect *r)
{
	struct trex_rect text = {r->y + 1, r->x, r->h - 1, r->w};

	if (r->x > 0) {
		text.x++;
		text.w--;
	}
	return text;
}

/* The title row, and the text area below it (right of a side border). */
static struct trex_rect pane_frame(struct timeline_view *tv, WINDOW *win, const struct trex_rect *r,
                                   const char *title)
{
	struct trex_term *term = tv->base.ctx->term;
	struct trex_rect text = pane_text(r);
	enum trex_role role = tv->details.focus ? TREX_ROLE_CURSOR : TREX_ROLE_HEADER;

	for (int y = r->y; y < r->y + r->h; y++)
		trex_draw_fill(win, y, r->x, r->w, trex_term_attr(term, TREX_ROLE_DEFAULT));
	if (r->x > 0) /* a side pane: a border on its left */
		for (int y = r->y; y < r->y + r->h; y++)
			trex_draw_glyph(win, term, y, r->x, L'\x2502', '|',
			                trex_term_attr(term, TREX_ROLE_BORDER));
	trex_draw_fill(win, r->y, text.x, text.w, trex_term_attr(term, role));
	trex_draw_text_cut(win, term, r->y, text.x + 1, title, text.w - 1);
	return text;
}

/* The link drawn on screen row y of the pane (as last drawn), -1 if none. */
static int link_at(struct timeline_view *tv, int y)
{
	struct pane p = {.tv = tv, .r = pane_text(&tv->lay.details)};

	if (showing_range(&tv->details) || tv->selected == TREX_NONE || y < p.r.y)
		return -1;
	ensure_info(tv);
	ensure_args(tv);
	p.scroll = tv->details.scroll;
	p.probe_line = y - p.r.y + p.scroll;
	pane_lines(&p);
	return p.probe_link;
}

bool tl_details_mouse(struct timeline_view *tv, int y, int x, unsigned long bstate)
{
	const struct trex_rect *r = &tv->lay.details;
	struct tl_details *d = &tv->details;
	int link;

	if (!d->shown || r->h <= 0 || y < r->y || y >= r->y + r->h || x < r->x || x >= r->x + r->w)
		return false;
	if (bstate & BUTTON4_PRESSED) {
		d->scroll = d->scroll > 3 ? d->scroll - 3 : 0;
		return true;
	}
#ifdef BUTTON5_PRESSED
	if (bstate & BUTTON5_PRESSED) {
		d->scroll += 3; /* the next draw stops it at the last line */
		return true;
	}
#endif
	if (!(bstate & (BUTTON1_PRESSED | BUTTON1_RELEASED | BUTTON1_CLICKED)))
		return true; /* the pane takes the event: nothing under it reacts */
	link = link_at(tv, y);
	if (link >= 0) {
		d->link_cur = link;
		follow(tv, link);
		return true;
	}
	if (!d->focus)
		focus_pane(tv);
	return true;
}

void tl_details_draw(struct timeline_view *tv, WINDOW *win, const struct trex_layout *lay)
{
	struct tl_details *d = &tv->details;
	struct pane p = {.tv = tv, .win = win, .probe_line = -1};
	uint32_t track;

	tl_flows_draw(tv, win, lay);
	tl_range_shade(tv, win, lay);
	d->pane_h = lay->details.h > 1 ? lay->details.h - 1 : 0;
	if (d->pane_h == 0) {
		d->focus = false;
		return;
	}
	if (showing_range(d)) {
		p.r = pane_frame(tv, win, &lay->details,
		                 "Range statistics (Esc clears, Enter: slice)");
		tl_range_draw_pane(tv, win, &p.r);
		return;
	}
	ensure_info(tv);
	ensure_args(tv);
	if (tv->selected == TREX_NONE && tl_counter_row(tv, &track))
		p.r = pane_frame(tv, win, &lay->details,
		                 d->focus ? "Counter samples: j/k scroll, Tab back"
		                          : "Counter samples (Enter hides, Tab scrolls)");
	else
		p.r = pane_frame(tv, win, &lay->details,
		                 d->focus ? "Details: j/k link, Enter follow, Tab back"
		                          : "Details (Enter hides, F follows, Tab links, u back)");
	pane_lines(&p);
	settle_scroll(d, &p);
	p.scroll = d->scroll;
	p.draw = true;
	pane_lines(&p);
}
