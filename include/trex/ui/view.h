/* Views: one vtable for every screen of the UI (timeline, help, ...). The
 * app loop turns a key into an action through the view's keymap and hands it
 * to the view only when the view supports it; a view draws from the model
 * into the window it is given, inside the layout's rectangles. */
#ifndef TREX_UI_VIEW_H
#define TREX_UI_VIEW_H

#include <stdbool.h>

#include <curses.h>

#include "trex/core/index.h"
#include "trex/ui/action.h"
#include "trex/ui/keymap.h"
#include "trex/ui/layout.h"
#include "trex/ui/prompt.h"
#include "trex/ui/term.h"

#define TREX_UI_MSG_MAX 256

struct trex_catset;    /* analysis/categories.h */
struct trex_ideal_log; /* load/deeptools_log.h */
struct trex_profile;   /* core/profile.h */
struct trex_srcfiles;  /* load/source_files.h */
struct trex_metrics;   /* core/metrics.h */

/* What a view asks the app to do once its action returns. */
enum trex_ui_request_kind {
	TREX_UI_REQ_NONE,
	TREX_UI_REQ_PUSH_VIEW,  /* push request.view on top (drill-in: instances) */
	TREX_UI_REQ_SHOW_SLICE, /* go to the timeline and select request.slice */
	TREX_UI_REQ_SHOW_RANGE, /* go to the timeline, show [t0, t1) and select request.slice */
	TREX_UI_REQ_SHOW_TRACK, /* go to the timeline, to request.track at t0 (if has_time) */
};

struct trex_ui_request {
	enum trex_ui_request_kind kind;
	struct trex_view *view; /* PUSH_VIEW: owned by the app from then on */
	uint32_t slice;         /* SHOW_SLICE, SHOW_RANGE */
	int64_t t0, t1;         /* SHOW_RANGE; SHOW_TRACK: t0 */
	uint32_t track;         /* SHOW_TRACK */
	bool has_time;          /* SHOW_TRACK: t0 is a time (else the time stays) */
};

/* What views share: the terminal, the model, the keys, the status message,
 * the prompt and the pending request. */
struct trex_ui_ctx {
	struct trex_term *term;
	const struct trex_index *idx;
	const struct trex_index *compare; /* --compare's run B, stacked under idx's; or NULL */
	const char *compare_label;        /* run B's file(s), for its header row */
	unsigned diff_rules;              /* --normalize: the diff view's first name rules */
	int64_t diff_min_ns;              /* --min TIME: the diff view hides smaller changes */
	double diff_min_pct;              /* --min PCT%: ... or smaller than this % */
	const struct trex_keymap *km;
	const char *title;                  /* the file(s) shown */
	char msg[TREX_UI_MSG_MAX];          /* one-shot status message, "" when none */
	const struct trex_catset *catset;   /* --schema rules, NULL: the built-in ones */
	const struct trex_ideal_log *ideal; /* --compiler-log, or NULL */
	unsigned core_mhz;                  /* --core-freq, 0: the default */
	const char *step_pattern;           /* --step REGEX for the steps view, NULL: the default */
	const struct trex_profile *profile; /* stall reports, or NULL (core/profile.h) */
	uint32_t baseline;                  /* --compare's report, TREX_PROFILE_NONE: none */
	struct trex_srcfiles *sources; /* source files of the stalls views (load/source_files.h) */
	const struct trex_metrics *metrics; /* metrics inputs linked to idx, or NULL */
	const char *const *metric_names; /* --metric names (the kernels table's metric columns) */
	size_t metric_count;
	struct trex_prompt prompt; /* drawn over the last row while active */
	struct trex_ui_request request;
};

/* Opens the bottom-line prompt for view v (keys go to it until Enter/Esc). */
void trex_ui_prompt(struct trex_ui_ctx *ctx, struct trex_view *v,
                    const struct trex_prompt_spec *spec);
/* Asks the app to push view (taking ownership) / show slice in the
 * timeline, once the current action returns. */
void trex_ui_push_view(struct trex_ui_ctx *ctx, struct trex_view *view);
void trex_ui_show_slice(struct trex_ui_ctx *ctx, uint32_t slice);
/* Asks the app to show the time range [t0, t1) in the timeline with a
 * margin around it, slice selected (its track scrolled into view). */
void trex_ui_show_range(struct trex_ui_ctx *ctx, int64_t t0, int64_t t1, uint32_t slice);
/* Asks the app to show track in the timeline with the cursor on it at
 * time t (has_time), or at the time the timeline shows (no time). */
void trex_ui_show_track(struct trex_ui_ctx *ctx, uint32_t track, int64_t t, bool has_time);
/* Sets the one-shot status message (printf-style). */
void trex_ui_message(struct trex_ui_ctx *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

enum trex_handled { TREX_IGNORED, TREX_HANDLED };

struct trex_view;

struct trex_view_ops {
	const char *name;
	enum trex_keymap_id keymap;
	/* Does the view implement action? (unsupported actions are neither
	 * dispatched nor shown on the help screen) */
	bool (*supports)(enum trex_action action);
	enum trex_handled (*dispatch)(struct trex_view *v, enum trex_action action);
	/* Draws the whole screen (status line included) for layout lay. */
	void (*draw)(struct trex_view *v, WINDOW *win, const struct trex_layout *lay);
	void (*free)(struct trex_view *v);
	/* A mouse event at screen (y, x) with ncurses bstate; NULL: ignored. */
	enum trex_handled (*mouse)(struct trex_view *v, int y, int x, unsigned long bstate);
};

struct trex_view {
	const struct trex_view_ops *ops;
	struct trex_ui_ctx *ctx;
};

/* ---- the views and the status line ------------------------------------------------ */

/* The actions the timeline implements. */
bool trex_timeline_supports(enum trex_action action);
/* Selects slice in timeline view v (the bottom view), scrolls its track into
 * view and centres it in time; false if slice is not a slice id. */
bool trex_timeline_show_slice(struct trex_view *v, uint32_t slice);
/* Shows [t0, t1) (t0 <= t1) with a quarter of its length (at least a few
 * columns) on each side, slice selected as trex_timeline_show_slice does
 * and the cursor at t0; false if slice is not a slice id. */
bool trex_timeline_show_range(struct trex_view *v, int64_t t0, int64_t t1, uint32_t slice);
/* Puts the cursor on track (lifting what hides it, saying so) and, with
 * has_time, goes to time t as the go-to-time prompt does (zoom kept, the
 * slice under the cursor selected); false if track is not a track id or
 * cannot be shown. */
bool trex_timeline_show_track(struct trex_view *v, uint32_t track, int64_t t, bool has_time);

/* X(ID, OPEN_ACTION, constructor): the top-level views, each opened by its
 * action (a key in the keymap) and kept on its own stack of drilled-in
 * views by the app. A new view is one line here and one file defining its
 * constructor; the timeline comes first and is where q on a top-level
 * view returns to. Constructors return NULL with ctx->msg set when the
 * view cannot be made (its table cannot be computed, out of memory). */
#define TREX_ROOT_VIEW_INFO(X)                                                                     \
	X(TIMELINE, OPEN_TIMELINE, trex_timeline_view_new)                                         \
	X(KERNELS, OPEN_KERNELS, trex_kernels_view_new)                                            \
	X(CATEGORIES, OPEN_CATEGORIES, trex_categories_view_new)                                   \
	X(GPU_TIME, OPEN_GPU_TIME, trex_gpu_time_view_new)                                         \
	X(GAPS, OPEN_GAPS, trex_gaps_view_new)                                                     \
	X(STEPS, OPEN_STEPS, trex_steps_view_new)                                                  \
	X(OPS, OPEN_OPS, trex_ops_view_new)                                                        \
	X(API, OPEN_API, trex_api_view_new)                                                        \
	X(INTEGRITY, OPEN_INTEGRITY, trex_integrity_view_new)                                      \
	X(STALLS, OPEN_STALLS, trex_stalls_view_new)                                               \
	X(SOURCES, OPEN_SOURCES, trex_sources_view_new)                                            \
	X(METRICS, OPEN_METRICS, trex_metrics_view_new)                                            \
	X(NODES, OPEN_NODES, trex_nodes_view_new)                                                  \
	X(DIFF, OPEN_DIFF, trex_diff_view_new)                                                     \
	X(STRAGGLERS, OPEN_STRAGGLERS, trex_stragglers_view_new)

#define TREX_ROOT_VIEW_DECL(id, action, make) struct trex_view *make(struct trex_ui_ctx *ctx);
TREX_ROOT_VIEW_INFO(TREX_ROOT_VIEW_DECL)
#undef TREX_ROOT_VIEW_DECL
/* The kernels view over one category's work (kernels, copies and sets
 * whose names ctx->catset, else the built-in rules, put in category). */
struct trex_view *trex_category_kernels_view_new(struct trex_ui_ctx *ctx, const char *category);
/* The actions the table views implement. */
bool trex_table_view_supports(enum trex_action action);
/* The metrics of the instances linked to slices ids[0..n) (one row of the
 * kernels table), titled after name; NULL with ctx->msg set when there are
 * none. */
struct trex_view *trex_kernel_metrics_view_new(struct trex_ui_ctx *ctx, const uint32_t *ids,
                                               size_t n, const char *name);

/* The bindings of keymap for the actions marked in supported[TREX_ACTION_COUNT]. */
struct trex_view *trex_help_view_new(struct trex_ui_ctx *ctx, enum trex_keymap_id keymap,
                                     const bool *supported);

/* The two status rows. */
struct trex_status_text {
	const char *left1, *right1; /* first row: visible range | per-cell */
	const char *left2;          /* second row: selection, unless a message is set */
	const char *message;        /* "" or a message, shown in place of left2 */
};
void trex_statusbar_draw(WINDOW *win, struct trex_term *term, const struct trex_rect *r,
                         const struct trex_status_text *s);

/* ---- drawing helpers (draw.c) --------------------------------------------------------- */

/* Writes UTF-8 text at (y, x) clipped to width columns; returns columns
 * used. Nothing a terminal acts on is ever written: control characters,
 * DEL, C1 controls, the string table's NUL, bytes that are not UTF-8 and
 * characters the locale cannot print are drawn as their escapes ("\x1b",
 * "\0"; trex/ui/text.h) in reverse video; in ASCII mode non-ASCII
 * characters are '?'. */
int trex_draw_text(WINDOW *win, struct trex_term *term, int y, int x, const char *s, int width);
/* trex_draw_text, but text that does not fit ends in U+2026 (ASCII '~')
 * in the last column, so a cut never looks whole. */
int trex_draw_text_cut(WINDOW *win, struct trex_term *term, int y, int x, const char *s, int width);
/* Fills width cells at (y, x) with blanks in attr. */
void trex_draw_fill(WINDOW *win, int y, int x, int width, unsigned long attr);
/* One glyph: wc when term->utf8, else ascii. */
void trex_draw_glyph(WINDOW *win, struct trex_term *term, int y, int x, wchar_t wc, char ascii,
                     unsigned long attr);

#endif
