/* The generic table view (private to src/ui): shows a struct trex_table
 * through a sorted, filtered permutation of its rows, with a header row,
 * a selection bar, scrolling both ways (columns off screen are counted by
 * "◂ N more" / "N more ▸" markers), sorting (also from a list of the
 * columns, F6), columns hidden or shown (F2), a regex filter, an
 * incremental search, marked rows, name folding, export and the mouse.
 * Esc clears the search, then the marks, then the filter, one per press,
 * and then goes back. The kernels, instances, categories and GPU-time
 * views embed it and add their own actions through hooks. */
#ifndef TREX_UI_TABLE_VIEW_H
#define TREX_UI_TABLE_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "export_prompt.h"
#include "list_menu.h"
#include "trex/analysis/table.h"
#include "trex/analysis/table_order.h"
#include "trex/ui/view.h"

#define TABLE_VIEW_NO_SORT ((size_t)-1) /* rows in table order */

struct table_view;

struct table_view_hooks {
	/* Actions of the concrete view, tried first; NULL or TREX_IGNORED: the
	 * generic handling (or a "not here" message). */
	enum trex_handled (*action)(struct table_view *tv, enum trex_action a);
	/* Frees what the concrete view added (not tv itself); may be NULL. */
	void (*free)(struct table_view *tv);
	/* How to show cell (row, col) when a column mixes types (a transposed
	 * table); NULL: the column's own type. */
	enum trex_col_type (*cell_type)(const struct table_view *tv, size_t row, size_t col);
	/* What export-table writes, when not the table shown: *rows NULL means
	 * all *n rows in order; NULL hook: the shown rows of the shown table. */
	const struct trex_table *(*export_table)(struct table_view *tv, const size_t **rows,
	                                         size_t *n);
	/* The role of every cell of table row r in place of the columns' own
	 * (a counter that is zero dimmed); NULL or TREX_ROLE_DEFAULT: theirs. */
	enum trex_role (*row_role)(const struct table_view *tv, size_t r);
	/* Rows drawn between the column titles and the body, never sorted,
	 * filtered or selected (a summary of the columns: min, max, ...); NULL:
	 * none. draw_summary draws summary row i at screen row y, the columns
	 * placed (col_x, col_w) as for the body. */
	int (*summary_rows)(const struct table_view *tv);
	void (*draw_summary)(struct table_view *tv, WINDOW *win, int y, int i, int width);
};

struct table_view {
	struct trex_view base;
	const struct table_view_hooks *hooks;
	struct trex_table table; /* owned */
	bool has_table;
	char title[256]; /* "kernels by name" */

	size_t name_col;     /* filtered, searched, folded; ncols: none */
	const char **shortv; /* folded name per table row, NULL until first asked */
	bool short_names;

	size_t *rows; /* the rows shown, in order */
	size_t nrows; /* of them */
	bool *marked; /* per table row (Space), NULL until the first mark */
	size_t nmarked;
	size_t sort_col;
	bool sort_desc;

	struct trex_regex *filter;
	char filter_text[TREX_PROMPT_MAX];
	struct trex_regex *search;
	char search_text[TREX_PROMPT_MAX];
	size_t search_origin; /* selection when the search prompt opened */

	size_t sel, top;    /* positions in rows[] */
	size_t hcol;        /* scrollable columns scrolled off on the left */
	bool reveal_sort;   /* scroll the sort column into view at the next draw */
	int body_h;         /* rows of the body at the last draw */
	int *width;         /* per column: the widest cell (title and sort mark included) */
	int name_max;       /* the longest name (bytes), title included */
	int *col_x, *col_w; /* last draw: screen x and width per column, -1: hidden */
	int header_y;       /* screen row of the column titles at the last draw */
	int summary_h;      /* summary rows under them at the last draw */
	size_t pct_col;     /* a *_pct column colours hot names; ncols: none */
	char error[TREX_PROMPT_MAX + 64]; /* a bad pattern, shown while its prompt is open */

	struct trex_export_prompt exp; /* export-table: the prompts and the path */

	/* Leading columns that never scroll sideways (labels such as rank and
	 * device), set by the view before it shows its table; a name column
	 * first is pinned whatever this says. */
	size_t pinned_cols;
	bool *col_off;                 /* per column: hidden with F2; NULL until the first */
	size_t more_left, more_right;  /* last draw: scrolling columns off screen */
	int more_left_x, more_right_x; /* ... and where their markers are, -1: none */
	struct list_menu menu;         /* F6 / F2 column list, drawn over the table while open */
	size_t *marked_rows;           /* export of the marked rows: them in the shown order */
	char export_label[64];         /* "export 3 marked rows to: " */
};

/* The ops of a table view called view_name: the generic parts, for
 * `static const struct trex_view_ops x_ops = TABLE_VIEW_OPS("x");`. */
#define TABLE_VIEW_OPS(view_name)                                                                  \
	{                                                                                          \
		.name = (view_name), .keymap = TREX_KEYMAP_TABLE,                                  \
		.supports = trex_table_view_supports, .dispatch = table_view_dispatch,             \
		.draw = table_view_draw, .free = table_view_free, .mouse = table_view_mouse,       \
	}

/* A zeroed view of size bytes (a struct that starts with its struct
 * table_view), set up for ops and hooks; NULL with ctx->msg "out of memory". */
void *table_view_new(size_t size, struct trex_ui_ctx *ctx, const struct trex_view_ops *ops,
                     const struct table_view_hooks *hooks);

/* Shows t (taken over, also on failure) titled title. The sort column is
 * kept when t has a column of the same key, else sort_key (NULL: table
 * order) with desc; the filter is kept and re-applied; the selection goes
 * to the first row. false when out of memory (ctx->msg says so). */
bool table_view_set_table(struct table_view *tv, struct trex_table *t, const char *title,
                          const char *sort_key, bool desc);
/* The end of a constructor: table_view_set_table(), then the view, or
 * NULL with tv freed (table_view_free) when that fails. */
struct trex_view *table_view_show(struct table_view *tv, struct trex_table *t, const char *title,
                                  const char *sort_key, bool desc);

/* The table row under the selection bar, or (size_t)-1 when none. */
size_t table_view_selected(const struct table_view *tv);
/* The name of table row r as shown (folded when names are shortened). */
const char *table_view_name(struct table_view *tv, size_t r);
/* Sorts by column col (descending when desc), keeping the selected row
 * selected and scrolling the column into view. */
void table_view_sort_by(struct table_view *tv, size_t col, bool desc);
/* The sort direction's mark: ▼ / ▲, v / ^ without UTF-8. */
const char *table_view_sort_mark(const struct table_view *tv);
/* Is column col shown (not hidden with F2)? */
bool table_view_col_shown(const struct table_view *tv, size_t col);

/* ---- the column lists (table_columns.c) ---- */
/* F6: the columns to sort by (Enter sorts, Esc cancels); F2: the columns
 * to show or hide (Enter or Space toggles, Esc closes). */
void table_columns_open_sort(struct table_view *tv);
void table_columns_open_shown(struct table_view *tv);
/* An action or a mouse event while a list is open (tv->menu.open): all
 * go to the list, which keeps the keys of the table to itself. */
enum trex_handled table_columns_action(struct table_view *tv, enum trex_action a);
enum trex_handled table_columns_mouse(struct table_view *tv, int y, int x, unsigned long bstate);
/* Draws the open list over the body of the table (below its header row y). */
void table_columns_draw(struct table_view *tv, WINDOW *win, const struct trex_layout *lay, int y);

/* The generic parts of the ops. */
enum trex_handled table_view_dispatch(struct trex_view *v, enum trex_action a);
void table_view_draw(struct trex_view *v, WINDOW *win, const struct trex_layout *lay);
void table_view_free(struct trex_view *v);
enum trex_handled table_view_mouse(struct trex_view *v, int y, int x, unsigned long bstate);

#endif
