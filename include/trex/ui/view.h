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
#include "trex/ui/term.h"

#define TREX_UI_MSG_MAX 256

/* What views share: the terminal, the model, the keys, the status message. */
struct trex_ui_ctx {
	struct trex_term *term;
	const struct trex_index *idx;
	const struct trex_keymap *km;
	const char *title;         /* the file(s) shown */
	char msg[TREX_UI_MSG_MAX]; /* one-shot status message, "" when none */
};

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
};

struct trex_view {
	const struct trex_view_ops *ops;
	struct trex_ui_ctx *ctx;
};

/* ---- the views and the status line ------------------------------------------------ */

/* The timeline of ctx->idx; NULL when out of memory. */
struct trex_view *trex_timeline_view_new(struct trex_ui_ctx *ctx);

/* The actions the timeline implements. */
bool trex_timeline_supports(enum trex_action action);

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

/* Writes UTF-8 text at (y, x) clipped to width columns (invalid bytes as
 * '?'; in ASCII mode non-ASCII characters as '?'); returns columns used. */
int trex_draw_text(WINDOW *win, struct trex_term *term, int y, int x, const char *s, int width);
/* Fills width cells at (y, x) with blanks in attr. */
void trex_draw_fill(WINDOW *win, int y, int x, int width, unsigned long attr);
/* One glyph: wc when term->utf8, else ascii. */
void trex_draw_glyph(WINDOW *win, struct trex_term *term, int y, int x, wchar_t wc, char ascii,
                     unsigned long attr);

#endif
