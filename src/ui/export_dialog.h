/* The trace-export dialog (private to src/ui; action export-trace): a box
 * over any view with three fields, the format (the exporter registry,
 * each with its one-line summary), the scope (export_scope.h: all, the
 * marked range, the visible tracks, the filter's slices, the selected
 * track; those the screen cannot give are shown with the reason) and the
 * path (the prompt's line editor, prefilled with a default name in the
 * current directory). Enter exports: an existing target asks "replace?
 * (y/n)" first (y is --force), the progress bar is redrawn from the
 * exporter's progress callback at most every 100 ms, Esc or Ctrl-C
 * typed meanwhile cancel (the exporter leaves nothing behind), and the
 * status line says what was written, or one line naming the file on
 * failure. The app owns one dialog, gives it keys while it is open and
 * draws it over the view. */
#ifndef TREX_UI_EXPORT_DIALOG_H
#define TREX_UI_EXPORT_DIALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <curses.h>

#include "export_scope.h"
#include "trex/ui/prompt.h"
#include "trex/ui/view.h"

enum export_field {
	EXPORT_FIELD_FORMAT,
	EXPORT_FIELD_SCOPE,
	EXPORT_FIELD_PATH,
	EXPORT_FIELD_COUNT
};
enum export_phase { EXPORT_EDITING, EXPORT_ASK_REPLACE, EXPORT_RUNNING };

/* What the dialog needs of the app while an export runs. */
struct export_dialog_host {
	void *app;
	void (*redraw)(void *app); /* draws the screen, the dialog over it */
	/* Whether Esc, C-g or C-c was typed since the last call (other keys
	 * typed meanwhile are kept for after the export). */
	bool (*cancel_typed)(void *app);
	/* Before (true) and after (false) the export: C-c must arrive as a key. */
	void (*busy)(void *app, bool on);
};

struct export_dialog {
	bool open;
	enum export_phase phase;
	enum export_field field;
	size_t format; /* exporter index (trace_export.h); kept between openings */
	enum export_scope_kind scope;
	struct export_view_state st;
	uint8_t *shown;                  /* st.tracks_shown's storage */
	struct trex_prompt path;         /* the path's editor; its history outlives openings */
	char auto_path[TREX_PROMPT_MAX]; /* the default the path holds, "" once edited */
	char target[TREX_PROMPT_MAX];    /* the output, "~/" expanded */
	char exists[TREX_PROMPT_MAX];    /* the file the replace question is about */
	/* the export under way */
	struct export_scope_built built;
	uint64_t estimate, events, bytes;
	int64_t last_draw_ns;
	struct export_dialog_host host;
};

void export_dialog_init(struct export_dialog *d, const struct export_dialog_host *host);
void export_dialog_free(struct export_dialog *d);

/* Whether key cancels: Esc, C-g, C-c (also while an export runs). */
bool export_dialog_cancel_key(trex_key key);

/* Opens the dialog over top: the scopes from what the timeline shows when
 * top is the timeline, else "all" only. The marked range is chosen when
 * there is one, else "all". */
void export_dialog_open(struct export_dialog *d, struct trex_ui_ctx *ctx, struct trex_view *top);
/* A key (as read, before the keymap) while the dialog is open. */
void export_dialog_key(struct export_dialog *d, struct trex_ui_ctx *ctx, trex_key key);
/* Draws the dialog over the screen drawn for lay; the terminal cursor ends
 * in the path when that field has the focus (returns true then). */
bool export_dialog_draw(struct export_dialog *d, WINDOW *win, struct trex_term *term,
                        const struct trex_ui_ctx *ctx, const struct trex_layout *lay);

/* What timeline view v shows, for the scopes: st->tracks_shown points to
 * shown (room for every track). false when v is not the timeline. */
bool trex_timeline_export_state(struct trex_view *v, struct export_view_state *st, uint8_t *shown);

#endif
