#include "config.h"

#include "table_view.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/export/table_write.h"
#include "trex/ui/nav.h"
#include "trex/ui/table_fit.h"
#include "trex/ui/text.h"

#define COL_GAP 2
#define CELL_BUF 64
#define TEXT_COL_MAX 32      /* widest a label column (device, stream, shape) gets */
#define NAME_MIN_SHARE 1 / 2 /* of the width kept for a last name column, */
#define NAME_KEEP 40         /* ... up to this: wider screens show more columns */
#define NAME_MIN 12
#define MARK_GUTTER 1 /* the column left of the table where a marked row shows its star */
#define KEY_NAME_MAX 32
#define EXACT_WIDTH_CELLS 200000 /* above: widths from the column type, not every cell */
#define WHEEL_ROWS 3
#define HOT_PCT 10.0
#define WARM_PCT 1.0
#define NO_ROW ((size_t)-1)
#define NARROW_COLS 70 /* below: a shorter status line */

/* ---- rows: filter, then sort ------------------------------------------------------ */

static size_t table_row_at(const struct table_view *tv, size_t pos)
{
	return pos < tv->nrows ? tv->rows[pos] : NO_ROW;
}

size_t table_view_selected(const struct table_view *tv)
{
	return table_row_at(tv, tv->sel);
}

/* Puts the selection on table row r if it is shown, else keeps the
 * position (clamped). */
static void select_row(struct table_view *tv, size_t r)
{
	for (size_t i = 0; r != NO_ROW && i < tv->nrows; i++) {
		if (tv->rows[i] == r) {
			tv->sel = i;
			return;
		}
	}
	if (tv->sel >= tv->nrows)
		tv->sel = tv->nrows ? tv->nrows - 1 : 0;
}

/* Sorts the shown rows; the selection follows table row keep. */
static bool order_rows(struct table_view *tv, size_t keep)
{
	if (tv->sort_col != TABLE_VIEW_NO_SORT &&
	    trex_table_sort_rows(&tv->table, tv->sort_col, tv->sort_desc, tv->name_col, tv->rows,
	                         tv->nrows) != TREX_OK) {
		trex_ui_message(tv->base.ctx, "out of memory");
		return false;
	}
	select_row(tv, keep);
	return true;
}

static bool sort_rows(struct table_view *tv)
{
	return order_rows(tv, table_view_selected(tv));
}

/* All rows through the filter (full names), sorted; the selected row stays
 * selected when it is still shown. */
static bool rebuild_rows(struct table_view *tv)
{
	size_t keep = table_view_selected(tv);

	tv->nrows = tv->table.nrows;
	for (size_t i = 0; i < tv->nrows; i++)
		tv->rows[i] = i;
	if (tv->filter)
		tv->nrows = trex_table_filter_rows(&tv->table, tv->name_col, tv->filter, tv->rows,
		                                   tv->nrows, tv->rows);
	return order_rows(tv, keep);
}

/* ---- names ------------------------------------------------------------------------- */

/* Folded names, made on first use (in the table's arena); "..." for the
 * ellipsis where the terminal cannot show U+2026. */
static bool make_short_names(struct table_view *tv)
{
	struct trex_table *t = &tv->table;
	char buf[1024];

	if (tv->shortv || tv->name_col >= t->ncols)
		return true;
	tv->shortv = calloc(t->nrows ? t->nrows : 1, sizeof(*tv->shortv));
	if (!tv->shortv)
		return false;
	for (size_t r = 0; r < t->nrows; r++) {
		const char *name = trex_table_cell(t, r, tv->name_col)->text;
		char *p;

		trex_name_shorten(name ? name : "", buf, sizeof(buf));
		while (!tv->base.ctx->term->utf8 && (p = strstr(buf, "\xe2\x80\xa6")))
			memset(p, '.', 3);
		tv->shortv[r] = trex_table_strdup(t, buf, strlen(buf));
		if (!tv->shortv[r])
			return false;
	}
	return true;
}

const char *table_view_name(struct table_view *tv, size_t r)
{
	const char *s;

	if (tv->name_col >= tv->table.ncols || r >= tv->table.nrows)
		return "";
	if (tv->short_names && tv->shortv)
		return tv->shortv[r];
	s = trex_table_cell(&tv->table, r, tv->name_col)->text;
	return s ? s : "";
}

/* ---- setting the table --------------------------------------------------------------- */

static size_t col_by_key(const struct trex_table *t, const char *key)
{
	for (size_t c = 0; key && c < t->ncols; c++) {
		if (strcmp(t->cols[c].key, key) == 0)
			return c;
	}
	return TABLE_VIEW_NO_SORT;
}

static enum trex_col_type cell_type(const struct table_view *tv, size_t r, size_t c)
{
	return tv->hooks->cell_type ? tv->hooks->cell_type(tv, r, c) : tv->table.cols[c].type;
}

/* The text of cell (r, c) as the CLI's text table writes it. */
static const char *cell_text(const struct table_view *tv, size_t r, size_t c, char *buf,
                             size_t size)
{
	struct trex_column col = tv->table.cols[c];

	col.type = cell_type(tv, r, c);
	return trex_table_cell_text_aligned(&col, trex_table_cell(&tv->table, r, c), NULL, buf,
	                                    size);
}

static int digits(int64_t v)
{
	int n = v < 0 ? 2 : 1;

	for (uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v; u >= 10; u /= 10)
		n++;
	return n;
}

/* Widest cell of a column: exact for small tables, else a bound from the
 * type so that a million instances do not cost a million formats. */
static int column_width(const struct table_view *tv, size_t c, bool exact)
{
	const struct trex_table *t = &tv->table;
	int w = (int)strlen(t->cols[c].title) + 1; /* + the sort mark */
	char buf[CELL_BUF];

	for (size_t r = 0; r < t->nrows; r++) {
		int cw;

		if (exact || t->cols[c].type == TREX_COL_TEXT)
			cw = (int)strlen(cell_text(tv, r, c, buf, sizeof(buf)));
		else if (t->cols[c].type == TREX_COL_COUNT)
			cw = digits(trex_table_cell(t, r, c)->count);
		else
			cw = t->cols[c].type == TREX_COL_PERCENT ? 6 : 10;
		if (cw > w)
			w = cw;
		if (t->cols[c].type == TREX_COL_TEXT && w >= TEXT_COL_MAX)
			return TEXT_COL_MAX;
	}
	return w;
}

static bool measure(struct table_view *tv)
{
	const struct trex_table *t = &tv->table;
	size_t n = t->ncols ? t->ncols : 1;
	bool exact = t->nrows * t->ncols <= EXACT_WIDTH_CELLS;

	free(tv->width);
	free(tv->col_x);
	free(tv->col_w);
	tv->width = calloc(n, sizeof(int));
	tv->col_x = calloc(n, sizeof(int));
	tv->col_w = calloc(n, sizeof(int));
	if (!tv->width || !tv->col_x || !tv->col_w)
		return false;
	for (size_t c = 0; c < t->ncols; c++) {
		tv->width[c] = c == tv->name_col ? 0 : column_width(tv, c, exact);
		tv->col_x[c] = tv->col_w[c] = -1;
	}
	tv->name_max = (int)strlen(tv->name_col < t->ncols ? t->cols[tv->name_col].title : "") + 1;
	for (size_t r = 0; tv->name_col < t->ncols && r < t->nrows; r++) {
		const char *name = trex_table_cell(t, r, tv->name_col)->text;
		int w = name ? (int)strlen(name) : 0;

		tv->name_max = w > tv->name_max ? w : tv->name_max;
	}
	return true;
}

static size_t pct_column(const struct trex_table *t)
{
	for (size_t c = 0; c < t->ncols; c++) {
		if (t->cols[c].type == TREX_COL_PERCENT)
			return c;
	}
	return t->ncols;
}

void *table_view_new(size_t size, struct trex_ui_ctx *ctx, const struct trex_view_ops *ops,
                     const struct table_view_hooks *hooks)
{
	static const struct table_view_hooks none = {0};
	struct table_view *tv = calloc(1, size);

	if (!tv) {
		trex_ui_message(ctx, "out of memory");
		return NULL;
	}
	tv->base.ops = ops;
	tv->base.ctx = ctx;
	tv->hooks = hooks ? hooks : &none;
	tv->sort_col = TABLE_VIEW_NO_SORT;
	return tv;
}

static void drop_table(struct table_view *tv)
{
	if (tv->has_table)
		trex_table_free(&tv->table);
	tv->has_table = false;
	free(tv->shortv);
	free(tv->rows);
	free(tv->marked);
	free(tv->marked_rows);
	tv->shortv = NULL;
	tv->rows = NULL;
	tv->marked = NULL;
	tv->marked_rows = NULL;
	tv->nrows = tv->nmarked = 0;
}

/* The columns of t hidden because a column of the same key is hidden now
 * (regrouping keeps what the user hid); NULL when none is, or out of memory. */
static bool *carry_hidden(const struct table_view *tv, const struct trex_table *t)
{
	bool *off = NULL;

	for (size_t c = 0; tv->col_off && tv->has_table && c < tv->table.ncols; c++) {
		size_t nc =
		    tv->col_off[c] ? col_by_key(t, tv->table.cols[c].key) : TABLE_VIEW_NO_SORT;

		if (nc == TABLE_VIEW_NO_SORT)
			continue;
		if (!off && !(off = calloc(t->ncols, sizeof(*off))))
			return NULL;
		off[nc] = true;
	}
	return off;
}

bool table_view_set_table(struct table_view *tv, struct trex_table *t, const char *title,
                          const char *sort_key, bool desc)
{
	const char *old_key = NULL;
	bool *off = carry_hidden(tv, t);
	size_t sc;

	if (tv->has_table && tv->sort_col != TABLE_VIEW_NO_SORT)
		old_key = tv->table.cols[tv->sort_col].key;
	sc = col_by_key(t, old_key);
	if (sc != TABLE_VIEW_NO_SORT) {
		desc = tv->sort_desc;
	} else {
		sc = col_by_key(t, sort_key);
	}
	drop_table(tv);
	free(tv->col_off);
	tv->col_off = off;
	list_menu_close(&tv->menu);
	tv->table = *t;
	tv->has_table = true;
	snprintf(tv->title, sizeof(tv->title), "%s", title);
	tv->name_col = trex_table_name_col(&tv->table);
	tv->pct_col = pct_column(&tv->table);
	tv->sort_col = sc;
	tv->sort_desc = desc;
	tv->sel = tv->top = tv->hcol = 0;
	tv->reveal_sort = true; /* the sort column shows from the start */
	tv->rows = malloc((t->nrows ? t->nrows : 1) * sizeof(*tv->rows));
	if (!tv->rows || !measure(tv) || (tv->short_names && !make_short_names(tv)) ||
	    !rebuild_rows(tv)) {
		drop_table(tv);
		trex_ui_message(tv->base.ctx, "out of memory");
		return false;
	}
	tv->sel = 0;
	return true;
}

struct trex_view *table_view_show(struct table_view *tv, struct trex_table *t, const char *title,
                                  const char *sort_key, bool desc)
{
	if (!table_view_set_table(tv, t, title, sort_key, desc)) {
		table_view_free(&tv->base);
		return NULL;
	}
	return &tv->base;
}

/* ---- moving ------------------------------------------------------------------------ */

static void move_sel(struct table_view *tv, long delta)
{
	tv->sel = (size_t)trex_nav_clamp((long)tv->sel + delta, (long)tv->nrows - 1);
}

/* Keeps the selection inside the body. */
static void follow_sel(struct table_view *tv)
{
	tv->top = trex_nav_follow(tv->top, tv->sel, tv->body_h, tv->nrows);
}

/* Leading columns that never scroll: the view's labels, or a name column first. */
static size_t pinned_count(const struct table_view *tv)
{
	if (tv->pinned_cols)
		return tv->pinned_cols;
	return tv->name_col == 0 && tv->table.ncols > 0 ? 1 : 0;
}

bool table_view_col_shown(const struct table_view *tv, size_t c)
{
	return c == tv->name_col || !tv->col_off || !tv->col_off[c];
}

/* Columns that scroll sideways: shown, not pinned, not the name (which
 * is pinned, or comes after them taking what is left). */
static bool scrolls(const struct table_view *tv, size_t c)
{
	return c != tv->name_col && c >= pinned_count(tv) && table_view_col_shown(tv, c);
}

/* h / l: by one column while there are more on that side (as counted at
 * the last draw, which also made hcol the scroll position it used). */
static void scroll_columns(struct table_view *tv, int dir)
{
	if (dir < 0 && tv->hcol > 0)
		tv->hcol--;
	else if (dir > 0 && tv->more_right)
		tv->hcol++;
	else
		trex_ui_message(tv->base.ctx, "no more columns on the %s",
		                dir < 0 ? "left" : "right");
}

static bool move_action(struct table_view *tv, enum trex_action a)
{
	/* a page keeps one line of the last screen in sight */
	long page = tv->body_h > 1 ? tv->body_h - 1 : 1, delta;

	if (trex_nav_delta(a, page, (long)tv->nrows, &delta))
		move_sel(tv, delta);
	else if (a == TREX_ACTION_SCROLL_LEFT || a == TREX_ACTION_SCROLL_RIGHT)
		scroll_columns(tv, a == TREX_ACTION_SCROLL_LEFT ? -1 : 1);
	else
		return false;
	follow_sel(tv);
	return true;
}

/* ---- sorting -------------------------------------------------------------------------- */

void table_view_sort_by(struct table_view *tv, size_t col, bool desc)
{
	tv->sort_col = col;
	tv->sort_desc = desc;
	tv->reveal_sort = true;
	sort_rows(tv);
	follow_sel(tv);
}

/* < / >: the previous / next shown column. */
static void sort_step(struct table_view *tv, int dir)
{
	size_t n = tv->table.ncols, c = tv->sort_col;

	if (!n)
		return;
	for (size_t i = 0; i < n; i++) {
		if (c == TABLE_VIEW_NO_SORT)
			c = dir > 0 ? 0 : n - 1;
		else
			c = (c + n + (size_t)(dir > 0 ? 1 : n - 1)) % n;
		if (table_view_col_shown(tv, c))
			break;
	}
	table_view_sort_by(tv, c, tv->table.cols[c].default_desc);
}

/* A click on a header: sort by it, again: invert. */
static void sort_click(struct table_view *tv, size_t c)
{
	if (c == tv->sort_col)
		table_view_sort_by(tv, c, !tv->sort_desc);
	else
		table_view_sort_by(tv, c, tv->table.cols[c].default_desc);
}

static void sort_invert(struct table_view *tv)
{
	if (tv->sort_col == TABLE_VIEW_NO_SORT) {
		trex_ui_message(tv->base.ctx, "no sort column yet: < and > choose one");
		return;
	}
	table_view_sort_by(tv, tv->sort_col, !tv->sort_desc);
}

/* ---- filter and search ------------------------------------------------------------------- */

static struct table_view *of(struct trex_view *v)
{
	return (struct table_view *)v;
}

/* Compiles text; on error keeps *cur, shows why, returns false. An empty
 * text clears *cur. */
static bool set_regex(struct table_view *tv, const char *what, const char *text,
                      struct trex_regex **cur, char *cur_text)
{
	struct trex_regex *re = NULL;
	struct trex_error err;

	tv->error[0] = '\0';
	if (*text && trex_regex_compile(text, &re, &err) != TREX_OK) {
		snprintf(tv->error, sizeof(tv->error), "%s: %s", what, err.message);
		trex_ui_message(tv->base.ctx, "%s", tv->error);
		return false;
	}
	trex_regex_free(*cur);
	*cur = re;
	snprintf(cur_text, TREX_PROMPT_MAX, "%s", text);
	return true;
}

static void filter_change(struct trex_view *v, const char *text)
{
	struct table_view *tv = of(v);

	if (set_regex(tv, "filter", text, &tv->filter, tv->filter_text)) {
		tv->base.ctx->msg[0] = '\0';
		rebuild_rows(tv);
		follow_sel(tv);
	}
}

static void filter_submit(struct trex_view *v, const char *text)
{
	struct table_view *tv = of(v);

	filter_change(v, text);
	if (tv->error[0] && tv->filter)
		trex_ui_message(tv->base.ctx, "%s (kept %s)", tv->error, tv->filter_text);
	tv->error[0] = '\0';
}

static void filter_cancel(struct trex_view *v)
{
	struct table_view *tv = of(v);

	tv->error[0] = '\0';
	filter_change(v, "");
}

static bool name_matches(struct table_view *tv, const struct trex_regex *re, size_t pos)
{
	return trex_regex_match(re, table_view_name(tv, tv->rows[pos]));
}

/* The next shown row from pos (dir +1/-1, wrapping) whose name matches. */
static bool find_match(struct table_view *tv, size_t pos, int dir, size_t *out)
{
	for (size_t i = 0; i < tv->nrows; i++) {
		size_t p = (pos + tv->nrows + (dir > 0 ? i : tv->nrows - i)) % tv->nrows;

		if (name_matches(tv, tv->search, p)) {
			*out = p;
			return true;
		}
	}
	return false;
}

static void search_change(struct trex_view *v, const char *text)
{
	struct table_view *tv = of(v);
	size_t pos;

	if (!set_regex(tv, "search", text, &tv->search, tv->search_text))
		return;
	tv->base.ctx->msg[0] = '\0';
	tv->sel = tv->search_origin < tv->nrows ? tv->search_origin : 0;
	if (tv->search && tv->nrows && find_match(tv, tv->sel, 1, &pos))
		tv->sel = pos;
	follow_sel(tv);
}

static size_t count_matches(struct table_view *tv, size_t *index)
{
	size_t n = 0;

	*index = 0;
	for (size_t i = 0; tv->search && i < tv->nrows; i++) {
		if (name_matches(tv, tv->search, i)) {
			n++;
			if (i == tv->sel)
				*index = n;
		}
	}
	return n;
}

static void search_submit(struct trex_view *v, const char *text)
{
	struct table_view *tv = of(v);
	size_t index, n;

	search_change(v, text);
	tv->error[0] = '\0';
	n = count_matches(tv, &index);
	if (tv->search && !n)
		trex_ui_message(tv->base.ctx, "no match for /%s", tv->search_text);
}

static void search_cancel(struct trex_view *v)
{
	struct table_view *tv = of(v);

	tv->error[0] = '\0';
	set_regex(tv, "search", "", &tv->search, tv->search_text);
	tv->sel = tv->search_origin < tv->nrows ? tv->search_origin : 0;
	follow_sel(tv);
}

static void next_match(struct table_view *tv, int dir)
{
	size_t pos, index, n;

	if (!tv->search) {
		trex_ui_message(tv->base.ctx, "no search yet: / starts one");
		return;
	}
	if (!tv->nrows ||
	    !find_match(tv, tv->sel + (size_t)(dir > 0 ? 1 : tv->nrows - 1), dir, &pos)) {
		trex_ui_message(tv->base.ctx, "no match for /%s", tv->search_text);
		return;
	}
	if ((dir > 0 && pos <= tv->sel) || (dir < 0 && pos >= tv->sel))
		trex_ui_message(tv->base.ctx, "search wrapped around");
	tv->sel = pos;
	follow_sel(tv);
	n = count_matches(tv, &index);
	if (!tv->base.ctx->msg[0])
		trex_ui_message(tv->base.ctx, "/%s  %zu/%zu", tv->search_text, index, n);
}

static void open_filter(struct table_view *tv)
{
	struct trex_prompt_spec spec = {.label = "filter: ",
	                                .initial = tv->filter_text,
	                                .history = TREX_PROMPT_HISTORY_FILTER,
	                                .on_change = filter_change,
	                                .on_submit = filter_submit,
	                                .on_cancel = filter_cancel};

	tv->error[0] = '\0';
	trex_ui_prompt(tv->base.ctx, &tv->base, &spec);
}

static void open_search(struct table_view *tv)
{
	struct trex_prompt_spec spec = {.label = "/",
	                                .history = TREX_PROMPT_HISTORY_SEARCH,
	                                .on_change = search_change,
	                                .on_submit = search_submit,
	                                .on_cancel = search_cancel};

	tv->error[0] = '\0';
	tv->search_origin = tv->sel;
	trex_ui_prompt(tv->base.ctx, &tv->base, &spec);
}

static void clear_marks(struct table_view *tv)
{
	size_t n = tv->nmarked;

	memset(tv->marked, 0, tv->table.nrows * sizeof(*tv->marked));
	tv->nmarked = 0;
	trex_ui_message(tv->base.ctx, "%zu mark%s cleared", n, n == 1 ? "" : "s");
}

/* Esc (and clear): the search, then the marks, then the filter, one per
 * press, each saying so; false when there was nothing left to clear. */
static bool clear_step(struct table_view *tv)
{
	if (tv->search) {
		set_regex(tv, "search", "", &tv->search, tv->search_text);
		trex_ui_message(tv->base.ctx, "search cleared");
	} else if (tv->nmarked) {
		clear_marks(tv);
	} else if (tv->filter) {
		set_regex(tv, "filter", "", &tv->filter, tv->filter_text);
		rebuild_rows(tv);
		follow_sel(tv);
		trex_ui_message(tv->base.ctx, "filter cleared (%zu rows)", tv->nrows);
	} else {
		return false;
	}
	return true;
}

static void toggle_names(struct table_view *tv)
{
	if (!make_short_names(tv)) {
		trex_ui_message(tv->base.ctx, "out of memory");
		return;
	}
	/* no message: the names change in place, and the status line keeps
	 * showing the selected one */
	tv->short_names = !tv->short_names;
}

/* ---- export ---------------------------------------------------------------------------- */

/* The marked rows in the order shown (marked rows the filter hides now
 * included), in tv->marked_rows; false when out of memory. */
static bool order_marked(struct table_view *tv)
{
	size_t k = 0;

	free(tv->marked_rows);
	if (!(tv->marked_rows = malloc(tv->nmarked * sizeof(*tv->marked_rows))))
		return false;
	for (size_t r = 0; r < tv->table.nrows && k < tv->nmarked; r++) {
		if (tv->marked[r])
			tv->marked_rows[k++] = r;
	}
	return tv->sort_col == TABLE_VIEW_NO_SORT ||
	       trex_table_sort_rows(&tv->table, tv->sort_col, tv->sort_desc, tv->name_col,
	                            tv->marked_rows, k) == TREX_OK;
}

/* The marked rows when there are any, else what is shown (full names, the
 * current order and filter); or what the view's export hook names. */
static const struct trex_table *export_rows(struct trex_view *v, const size_t **rows, size_t *n)
{
	struct table_view *tv = of(v);

	if (tv->hooks->export_table)
		return tv->hooks->export_table(tv, rows, n);
	if (tv->nmarked) {
		if (!order_marked(tv)) {
			trex_ui_message(v->ctx, "out of memory");
			return NULL;
		}
		*rows = tv->marked_rows;
		*n = tv->nmarked;
		return &tv->table;
	}
	*rows = tv->rows;
	*n = tv->nrows;
	return &tv->table;
}

static void export_submit(struct trex_view *v, const char *text)
{
	trex_export_prompt_submit(&of(v)->exp, v, text);
}

static void export_cancel(struct trex_view *v)
{
	trex_export_prompt_cancel(&of(v)->exp, v);
}

/* The default file: the table's name, file-name friendly, as CSV. */
static void open_export(struct table_view *tv)
{
	char path[TREX_PROMPT_MAX];

	snprintf(path, sizeof(path), "%s.csv", tv->table.name ? tv->table.name : "table");
	for (char *p = path; *p; p++) {
		if (*p == '_' || *p == ' ' || *p == '/')
			*p = '-';
	}
	tv->exp.on_submit = export_submit;
	tv->exp.on_cancel = export_cancel;
	tv->exp.table = export_rows;
	/* marks choose the rows, unless the view exports a table of its own */
	tv->exp.what = tv->nmarked && !tv->hooks->export_table ? "the marked rows" : NULL;
	snprintf(tv->export_label, sizeof(tv->export_label),
	         "export %zu marked row%s to: ", tv->nmarked, tv->nmarked == 1 ? "" : "s");
	tv->exp.label_first = tv->exp.what ? tv->export_label : NULL;
	trex_export_prompt_open(&tv->base, &tv->exp, path);
}

/* ---- marks ---------------------------------------------------------------------------- */

/* Space: marks the selected row (a * and the mark colour), then moves down,
 * so that rows can be kept in sight across sorts and filters. */
static void mark_row(struct table_view *tv)
{
	size_t r = table_view_selected(tv);

	if (r == NO_ROW)
		return;
	if (!tv->marked && !(tv->marked = calloc(tv->table.nrows, sizeof(*tv->marked)))) {
		trex_ui_message(tv->base.ctx, "out of memory");
		return;
	}
	tv->marked[r] = !tv->marked[r];
	tv->nmarked += tv->marked[r] ? 1 : (size_t)-1;
	if (tv->nmarked == 1 && tv->marked[r])
		trex_ui_message(tv->base.ctx,
		                "1 marked: x exports the marked rows, Esc clears the marks");
	move_sel(tv, 1);
	follow_sel(tv);
}

/* ---- dispatch ---------------------------------------------------------------------------- */

bool trex_table_view_supports(enum trex_action a)
{
	if (trex_nav_is_move(a))
		return true;
	switch (a) {
	case TREX_ACTION_SCROLL_LEFT:
	case TREX_ACTION_SCROLL_RIGHT:
	case TREX_ACTION_ENTER:
	case TREX_ACTION_SEARCH:
	case TREX_ACTION_NEXT_MATCH:
	case TREX_ACTION_PREV_MATCH:
	case TREX_ACTION_FILTER:
	case TREX_ACTION_CLEAR:
	case TREX_ACTION_SORT_NEXT:
	case TREX_ACTION_SORT_PREV:
	case TREX_ACTION_SORT_INVERT:
	case TREX_ACTION_TOGGLE_NAMES:
	case TREX_ACTION_CYCLE_GROUP:
	case TREX_ACTION_METRIC_COLUMNS:
	case TREX_ACTION_NAME_RULE:
	case TREX_ACTION_MIN_CHANGE:
	case TREX_ACTION_EXPORT_TABLE:
	case TREX_ACTION_SORT_MENU:
	case TREX_ACTION_COLUMNS:
	case TREX_ACTION_MARK_ROW:
	case TREX_ACTION_BACK:
		return true;
	default:
		return false;
	}
}

/* Sorting, columns, marks and names; false when a is none of those. */
static bool sort_action(struct table_view *tv, enum trex_action a)
{
	switch (a) {
	case TREX_ACTION_SORT_NEXT:
	case TREX_ACTION_SORT_PREV:
		sort_step(tv, a == TREX_ACTION_SORT_NEXT ? 1 : -1);
		break;
	case TREX_ACTION_SORT_INVERT:
		sort_invert(tv);
		break;
	case TREX_ACTION_SORT_MENU:
		table_columns_open_sort(tv);
		break;
	case TREX_ACTION_COLUMNS:
		table_columns_open_shown(tv);
		break;
	case TREX_ACTION_MARK_ROW:
		mark_row(tv);
		break;
	case TREX_ACTION_TOGGLE_NAMES:
		toggle_names(tv);
		break;
	default:
		return false;
	}
	return true;
}

/* Search, filter and clear; false when a is none of those. */
static bool search_action(struct table_view *tv, enum trex_action a)
{
	switch (a) {
	case TREX_ACTION_FILTER:
		open_filter(tv);
		break;
	case TREX_ACTION_SEARCH:
		open_search(tv);
		break;
	case TREX_ACTION_NEXT_MATCH:
	case TREX_ACTION_PREV_MATCH:
		next_match(tv, a == TREX_ACTION_NEXT_MATCH ? 1 : -1);
		break;
	case TREX_ACTION_CLEAR:
		if (!clear_step(tv))
			trex_ui_message(tv->base.ctx, "nothing to clear");
		break;
	default:
		return false;
	}
	return true;
}

enum trex_handled table_view_dispatch(struct trex_view *v, enum trex_action a)
{
	struct table_view *tv = of(v);

	if (tv->menu.open)
		return table_columns_action(tv, a);
	if (tv->hooks->action && tv->hooks->action(tv, a) == TREX_HANDLED)
		return TREX_HANDLED;
	if (move_action(tv, a) || sort_action(tv, a) || search_action(tv, a))
		return TREX_HANDLED;
	switch (a) {
	case TREX_ACTION_BACK:
		/* with nothing left to clear the app goes back */
		return clear_step(tv) ? TREX_HANDLED : TREX_IGNORED;
	case TREX_ACTION_EXPORT_TABLE:
		open_export(tv);
		break;
	case TREX_ACTION_ENTER:
		trex_ui_message(v->ctx, "nothing to open in the %s table", v->ops->name);
		break;
	case TREX_ACTION_CYCLE_GROUP:
		trex_ui_message(v->ctx, "the %s table has no other grouping", v->ops->name);
		break;
	case TREX_ACTION_METRIC_COLUMNS:
		trex_ui_message(v->ctx, "metric columns are for the kernels table (2)");
		break;
	case TREX_ACTION_NAME_RULE:
	case TREX_ACTION_MIN_CHANGE:
		trex_ui_message(v->ctx, "name rules and hiding small changes are for the diff view "
		                        "(V, with --compare B)");
		break;
	default:
		return TREX_IGNORED;
	}
	return TREX_HANDLED;
}

/* ---- drawing ------------------------------------------------------------------------------ */

static bool right_aligned(enum trex_col_type type)
{
	return type != TREX_COL_TEXT;
}

/* A pinned name column: as wide as the longest name on screen, up to half the width. */
static int pinned_name_width(struct table_view *tv, int width)
{
	int w = (int)strlen(tv->table.cols[tv->name_col].title) + 1;

	for (size_t i = tv->top; i < tv->top + (size_t)tv->body_h && i < tv->nrows; i++) {
		int nw = (int)strlen(table_view_name(tv, tv->rows[i]));

		w = nw > w ? nw : w;
	}
	return w > width / 2 ? width / 2 : w;
}

/* What a name column after the others keeps: NAME_MIN_SHARE of the width
 * up to NAME_KEEP, or less for short names (categories) so that more
 * columns show. */
static int name_keep(const struct table_view *tv, int width)
{
	int keep = width * NAME_MIN_SHARE;

	keep = keep > NAME_KEEP ? NAME_KEEP : keep;
	keep = keep < NAME_MIN ? NAME_MIN : keep;
	if (tv->name_max < keep)
		keep = tv->name_max > NAME_MIN ? tv->name_max : NAME_MIN;
	return keep;
}

/* How column c takes part in the fitting: pinned, scrolling, the name
 * taking what is left, or hidden. */
static struct trex_fit_col fit_col(struct table_view *tv, size_t c, int width)
{
	const char *title = tv->table.cols[c].title;
	struct trex_fit_col fc = {TREX_FIT_SCROLL, tv->width[c],
	                          trex_text_cols(title, strlen(title))};

	if (c == tv->name_col && c < pinned_count(tv))
		fc = (struct trex_fit_col){TREX_FIT_PINNED, pinned_name_width(tv, width), fc.title};
	else if (c == tv->name_col)
		fc = (struct trex_fit_col){TREX_FIT_NAME, name_keep(tv, width), fc.title};
	else if (!table_view_col_shown(tv, c))
		fc.role = TREX_FIT_OFF;
	else if (c < pinned_count(tv))
		fc.role = TREX_FIT_PINNED;
	return fc;
}

/* Where each column goes this time (trex_fit_columns), and what is off
 * screen on either side; hcol becomes the scroll position used. */
static void place_columns(struct table_view *tv, int width)
{
	size_t n = tv->table.ncols;
	struct trex_fit_col *cols = calloc(n ? n : 1, sizeof(*cols));
	struct trex_fit out = {.x = tv->col_x, .w = tv->col_w};

	if (!cols) { /* nothing shown rather than a wrong layout */
		for (size_t c = 0; c < n; c++)
			tv->col_x[c] = tv->col_w[c] = -1;
		tv->more_left = tv->more_right = 0;
		tv->more_left_x = tv->more_right_x = -1;
		return;
	}
	for (size_t c = 0; c < n; c++)
		cols[c] = fit_col(tv, c, width);
	trex_fit_columns(
	    &(struct trex_fit_spec){cols, n, width, MARK_GUTTER, COL_GAP, tv->hcol, NAME_MIN},
	    &out);
	free(cols);
	tv->hcol = out.first;
	tv->more_left = out.left;
	tv->more_right = out.right;
	tv->more_left_x = out.left_x;
	tv->more_right_x = out.right_x;
}

static void draw_title(struct table_view *tv, WINDOW *win, const struct trex_rect *r)
{
	struct trex_term *term = tv->base.ctx->term;
	char line[512];

	trex_draw_fill(win, r->y, r->x, r->w, trex_term_attr(term, TREX_ROLE_TITLE));
	snprintf(line, sizeof(line), " trex: %s%s%s", tv->title, tv->base.ctx->title ? " - " : "",
	         tv->base.ctx->title ? tv->base.ctx->title : "");
	trex_draw_text_cut(win, term, r->y, r->x, line, r->w);
}

/* Text of len columns in a cell of width w: right-aligned or left, clipped. */
static void put_cell(WINDOW *win, struct trex_term *term, int y, int x, int w, const char *s,
                     int len, bool right)
{
	if (right && len < w)
		x += w - len;
	trex_draw_text(win, term, y, x, s, w);
}

const char *table_view_sort_mark(const struct table_view *tv)
{
	if (tv->base.ctx->term->utf8)
		return tv->sort_desc ? "\xe2\x96\xbc" : "\xe2\x96\xb2";
	return tv->sort_desc ? "v" : "^";
}

/* "◂ N more" and "N more ▸" (ASCII < and >) where columns are off screen. */
static void draw_more(struct table_view *tv, WINDOW *win, int y)
{
	struct trex_term *term = tv->base.ctx->term;
	char text[48];

	wattrset(win, (int)trex_term_attr(term, TREX_ROLE_HEADER));
	if (tv->more_left && tv->more_left_x >= 0) {
		snprintf(text, sizeof(text), "%s %zu more", term->utf8 ? "\xe2\x97\x82" : "<",
		         tv->more_left);
		trex_draw_text(win, term, y, tv->more_left_x, text,
		               trex_fit_marker_width(tv->more_left));
	}
	if (tv->more_right && tv->more_right_x >= 0) {
		snprintf(text, sizeof(text), "%zu more %s", tv->more_right,
		         term->utf8 ? "\xe2\x96\xb8" : ">");
		trex_draw_text(win, term, y, tv->more_right_x, text,
		               trex_fit_marker_width(tv->more_right));
	}
}

static void draw_headers(struct table_view *tv, WINDOW *win, int y, int x0)
{
	struct trex_term *term = tv->base.ctx->term;
	const struct trex_table *t = &tv->table;

	for (size_t c = 0; c < t->ncols; c++) {
		bool sorted = c == tv->sort_col;
		char title[128];

		if (tv->col_w[c] < 0)
			continue;
		snprintf(title, sizeof(title), "%s%s", t->cols[c].title,
		         sorted ? table_view_sort_mark(tv) : "");
		wattrset(win, (int)trex_term_attr(term, sorted ? TREX_ROLE_HEADER_SORT
		                                               : TREX_ROLE_HEADER));
		/* the mark is one column whatever its bytes */
		put_cell(win, term, y, x0 + tv->col_x[c], tv->col_w[c], title,
		         (int)strlen(t->cols[c].title) + sorted,
		         right_aligned(t->cols[c].type) && c != tv->name_col);
	}
	draw_more(tv, win, y);
}

static enum trex_role name_role(const struct table_view *tv, size_t r)
{
	double pct;

	if (tv->pct_col >= tv->table.ncols)
		return TREX_ROLE_DEFAULT;
	pct = trex_table_cell(&tv->table, r, tv->pct_col)->number;
	return pct >= HOT_PCT    ? TREX_ROLE_KERNEL_HOT
	       : pct >= WARM_PCT ? TREX_ROLE_KERNEL_WARM
	                         : TREX_ROLE_DEFAULT;
}

static void draw_row(struct table_view *tv, WINDOW *win, int y, int width, size_t pos)
{
	struct trex_term *term = tv->base.ctx->term;
	const struct trex_table *t = &tv->table;
	size_t r = tv->rows[pos];
	bool cursor = pos == tv->sel;
	unsigned long cur = trex_term_attr(term, TREX_ROLE_CURSOR);
	bool marked = tv->marked && tv->marked[r];
	enum trex_role row_role =
	    tv->hooks->row_role ? tv->hooks->row_role(tv, r) : TREX_ROLE_DEFAULT;
	char buf[CELL_BUF];

	/* a marked row: a star in the gutter, and the whole row in the mark role */
	trex_draw_fill(win, y, 0, width,
	               cursor ? cur
	                      : trex_term_attr(term, marked ? TREX_ROLE_MARK : TREX_ROLE_DEFAULT));
	if (marked)
		trex_draw_glyph(win, term, y, 0, L'*', '*',
		                cursor ? cur : trex_term_attr(term, TREX_ROLE_MARK));
	for (size_t c = 0; c < t->ncols; c++) {
		enum trex_col_type type = cell_type(tv, r, c);
		enum trex_role role = TREX_ROLE_DEFAULT;
		const char *s;

		if (tv->col_w[c] < 0)
			continue;
		if (c == tv->name_col) {
			s = table_view_name(tv, r);
			role = name_role(tv, r);
		} else {
			s = cell_text(tv, r, c, buf, sizeof(buf));
			if (type != TREX_COL_TEXT)
				role = type == TREX_COL_DURATION &&
				               trex_table_cell(t, r, c)->number >= 1e6
				           ? TREX_ROLE_LARGE_NUMBER
				           : TREX_ROLE_NUMBER;
		}
		if (row_role != TREX_ROLE_DEFAULT)
			role = row_role;
		wattrset(win, (int)(cursor ? cur
		                           : trex_term_attr(term, marked ? TREX_ROLE_MARK : role)));
		put_cell(win, term, y, tv->col_x[c], tv->col_w[c], s, (int)strlen(s),
		         right_aligned(type) && c != tv->name_col);
	}
}

/* Appends to the text in buf (printf-style), cut at size. */
static void append(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void append(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

/* The first key bound to action a in the view's keymap ("h"), else its name. */
static void first_key(const struct table_view *tv, enum trex_action a, char *buf, size_t size)
{
	if (trex_keymap_describe(tv->base.ctx->km, tv->base.ops->keymap, a, buf, size) <= 0)
		snprintf(buf, size, "%s", trex_action_name(a));
	buf[strcspn(buf, ",")] = '\0';
}

/* The first status row: title, rows, sort, filter, search, marks, and the
 * keys that scroll to the columns off screen. */
static void status_left(const struct table_view *tv, char *buf, size_t size, bool narrow)
{
	const struct trex_table *t = &tv->table;
	size_t more = tv->more_left + tv->more_right;

	snprintf(buf, size, " %s%s%zu/%zu %s  sort: ", narrow ? "" : tv->title, narrow ? "" : "  ",
	         tv->nrows, t->nrows, trex_plural(t->nrows, "row", "rows"));
	if (tv->sort_col != TABLE_VIEW_NO_SORT)
		append(buf, size, "%s %s", t->cols[tv->sort_col].title, table_view_sort_mark(tv));
	else
		append(buf, size, "table order");
	if (tv->filter)
		append(buf, size, "  FILTER: %s", tv->filter_text);
	if (tv->search)
		append(buf, size, "  /%s", tv->search_text);
	if (tv->nmarked)
		append(buf, size, "  %zu marked", tv->nmarked);
	if (more) {
		char left[KEY_NAME_MAX], right[KEY_NAME_MAX];

		first_key(tv, TREX_ACTION_SCROLL_LEFT, left, sizeof(left));
		first_key(tv, TREX_ACTION_SCROLL_RIGHT, right, sizeof(right));
		append(buf, size, "  %s/%s: %zu more %s", left, right, more,
		       trex_plural(more, "column", "columns"));
	}
}

static void draw_status(struct table_view *tv, WINDOW *win, const struct trex_rect *r)
{
	char left1[TREX_PROMPT_MAX * 2 + 256], right1[64];
	size_t sel = table_view_selected(tv);
	bool narrow = r->w < NARROW_COLS;

	/* narrow screens drop what the title bar already says, and the position */
	if (tv->error[0])
		snprintf(left1, sizeof(left1), " %s", tv->error);
	else
		status_left(tv, left1, sizeof(left1), narrow);
	snprintf(right1, sizeof(right1), "%zu/%zu ", tv->nrows ? tv->sel + 1 : 0, tv->nrows);
	if (narrow)
		right1[0] = '\0';
	trex_statusbar_draw(
	    win, tv->base.ctx->term, r,
	    &(struct trex_status_text){left1, right1, sel == NO_ROW ? "" : table_view_name(tv, sel),
	                               tv->base.ctx->msg});
	if (tv->error[0]) {
		wattrset(win, (int)trex_term_attr(tv->base.ctx->term, TREX_ROLE_ERROR));
		trex_draw_text(win, tv->base.ctx->term, r->y, r->x + 1, tv->error, r->w - 1);
	}
}

/* Scrolls sideways until the sort column is on screen (after a sort). */
static void reveal_sort_col(struct table_view *tv, int width)
{
	size_t c = tv->sort_col;

	tv->reveal_sort = false;
	if (c == TABLE_VIEW_NO_SORT || !scrolls(tv, c))
		return;
	place_columns(tv, width);
	if (tv->col_w[c] >= 0)
		return;
	tv->hcol = 0;
	for (size_t i = 0; i < c; i++)
		tv->hcol += scrolls(tv, i);
	/* the first position that shows it (fewer columns off on the left) */
	while (tv->hcol > 0) {
		tv->hcol--;
		place_columns(tv, width);
		if (tv->col_w[c] < 0) {
			tv->hcol++;
			break;
		}
	}
}

/* Why there is no row (the filter, or the table's note), word-wrapped
 * over the body from row y, width columns from column 1. */
static void draw_empty(struct table_view *tv, WINDOW *win, int y, int width)
{
	const char *s = tv->table.nrows  ? "(no row matches the filter)"
	                : tv->table.note ? tv->table.note
	                                 : "(no rows)";
	char line[512];

	wattrset(win, (int)trex_term_attr(tv->base.ctx->term, TREX_ROLE_DIM));
	for (int row = 0; *s && width > 0 && row < tv->body_h; row++) {
		size_t cut = strlen(s),
		       max = (size_t)width < sizeof(line) ? (size_t)width : sizeof(line) - 1;

		if (cut > max) {
			for (cut = max; cut > 0 && s[cut] != ' '; cut--)
				;
			cut = cut ? cut : max;
		}
		memcpy(line, s, cut);
		line[cut] = '\0';
		trex_draw_text(win, tv->base.ctx->term, y + row, 1, line, width);
		for (s += cut; *s == ' '; s++)
			;
	}
}

void table_view_draw(struct trex_view *v, WINDOW *win, const struct trex_layout *lay)
{
	struct table_view *tv = of(v);
	int width = lay->header.w, y0 = lay->header.y + 1;

	tv->summary_h = tv->hooks->summary_rows && tv->has_table ? tv->hooks->summary_rows(tv) : 0;
	if (tv->summary_h > lay->status.y - y0 - 2)
		tv->summary_h = lay->status.y - y0 - 2 > 0 ? lay->status.y - y0 - 2 : 0;
	tv->body_h = lay->status.y - y0 - 1 - tv->summary_h;
	if (tv->body_h < 1)
		tv->body_h = 1;
	follow_sel(tv);
	werase(win);
	draw_title(tv, win, &lay->header);
	if (!tv->has_table) {
		draw_status(tv, win, &lay->status);
		return;
	}
	if (tv->reveal_sort)
		reveal_sort_col(tv, width);
	place_columns(tv, width);
	tv->header_y = y0;
	trex_draw_fill(win, y0, 0, width, trex_term_attr(v->ctx->term, TREX_ROLE_HEADER));
	draw_headers(tv, win, y0, 0);
	for (int i = 0; i < tv->summary_h; i++)
		tv->hooks->draw_summary(tv, win, y0 + 1 + i, i, width);
	y0 += tv->summary_h;
	for (int i = 0; i < tv->body_h && tv->top + (size_t)i < tv->nrows; i++)
		draw_row(tv, win, y0 + 1 + i, width, tv->top + (size_t)i);
	if (!tv->nrows)
		draw_empty(tv, win, y0 + 1, width - 1);
	y0 -= tv->summary_h;
	if (tv->menu.open)
		table_columns_draw(tv, win, lay, y0);
	draw_status(tv, win, &lay->status);
}

/* ---- mouse and freeing --------------------------------------------------------------------- */

static bool on_marker(int mx, size_t n, int x)
{
	return n && mx >= 0 && x >= mx && x < mx + trex_fit_marker_width(n);
}

/* A click on the header row: a marker scrolls that way, a column title
 * sorts by it (again: inverts). */
static enum trex_handled header_click(struct table_view *tv, int x)
{
	if (on_marker(tv->more_left_x, tv->more_left, x) ||
	    on_marker(tv->more_right_x, tv->more_right, x)) {
		scroll_columns(tv, on_marker(tv->more_left_x, tv->more_left, x) ? -1 : 1);
		return TREX_HANDLED;
	}
	for (size_t c = 0; c < tv->table.ncols; c++) {
		if (tv->col_w[c] >= 0 && x >= tv->col_x[c] &&
		    x < tv->col_x[c] + tv->col_w[c] + COL_GAP) {
			sort_click(tv, c);
			return TREX_HANDLED;
		}
	}
	return TREX_IGNORED;
}

enum trex_handled table_view_mouse(struct trex_view *v, int y, int x, unsigned long bstate)
{
	struct table_view *tv = of(v);

	if (!tv->has_table)
		return TREX_IGNORED;
	if (tv->menu.open)
		return table_columns_mouse(tv, y, x, bstate);
	if (bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED)) {
		long d = bstate & BUTTON4_PRESSED ? -WHEEL_ROWS : WHEEL_ROWS;
		long top = (long)tv->top + d, max = (long)tv->nrows - tv->body_h;

		top = top > max ? max : top;
		tv->top = top < 0 ? 0 : (size_t)top;
		/* the wheel scrolls the view; the selection stays on screen */
		if (tv->sel < tv->top)
			tv->sel = tv->top;
		if (tv->body_h > 0 && tv->sel >= tv->top + (size_t)tv->body_h)
			tv->sel = tv->top + (size_t)tv->body_h - 1;
		return TREX_HANDLED;
	}
	if (!(bstate & (BUTTON1_RELEASED | BUTTON1_CLICKED)))
		return TREX_IGNORED;
	if (y == tv->header_y)
		return header_click(tv, x);
	y -= tv->summary_h; /* the body starts under the summary rows */
	if (y > tv->header_y && y <= tv->header_y + tv->body_h &&
	    tv->top + (size_t)(y - tv->header_y - 1) < tv->nrows) {
		tv->sel = tv->top + (size_t)(y - tv->header_y - 1);
		return TREX_HANDLED;
	}
	return TREX_IGNORED;
}

void table_view_free(struct trex_view *v)
{
	struct table_view *tv = of(v);

	if (tv->hooks->free)
		tv->hooks->free(tv);
	drop_table(tv);
	trex_regex_free(tv->filter);
	trex_regex_free(tv->search);
	free(tv->width);
	free(tv->col_x);
	free(tv->col_w);
	free(tv->col_off);
	free(tv);
}
