/* A scrolling list of rows for the stall views (private to src/ui): the
 * kernel's stall report and the source pane. Each row is a text, an
 * optional bar after it (share 0..1) and a text after the bar; rows that
 * can be selected carry what they stand for (an instruction, a source
 * line, what an instruction waits for). The cursor moves over selectable
 * rows only. */
#ifndef TREX_UI_STALL_LIST_H
#define TREX_UI_STALL_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/ui/view.h"

enum stall_row_kind {
	STALL_ROW_TEXT,   /* a title or a note: not selectable */
	STALL_ROW_REASON, /* a stall reason's total */
	STALL_ROW_INSN,   /* an instruction (insn) */
	STALL_ROW_WAIT,   /* what insn waits for: the instruction at producer */
	STALL_ROW_SOURCE, /* a source line (file, line) */
};

struct stall_row {
	enum stall_row_kind kind;
	enum trex_role role;
	char *text;        /* before the bar */
	double bar;        /* 0..1; < 0: no bar */
	char *tail;        /* after the bar, may be NULL (owned) */
	uint32_t insn;     /* INSN, WAIT: store index; else TREX_PROFILE_NONE */
	uint64_t producer; /* WAIT */
	uint32_t file;     /* SOURCE (and INSN, WAIT: their line's file) */
	int64_t line;
};

struct stall_list {
	struct stall_row *v;
	size_t n, cap;
	size_t sel, top; /* rows; sel is selectable when any row is */
	int body_h;
	int bar_w; /* columns of a bar */
};

/* Appends row r (its text printf-style, tail copied, r's own text and
 * tail ignored); false when out of memory. */
bool stall_list_add(struct stall_list *l, const struct stall_row *r, const char *tail,
                    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void stall_list_clear(struct stall_list *l);
bool stall_list_selectable(const struct stall_row *r);
/* Moves the cursor for a move action; false when a is none. */
bool stall_list_move(struct stall_list *l, enum trex_action a);
/* Puts the cursor on row i (or the next selectable one). */
void stall_list_select(struct stall_list *l, size_t i);
/* The row under the cursor, NULL when none. */
const struct stall_row *stall_list_selected(const struct stall_list *l);
/* Draws the title row, the rows and the status line. */
void stall_list_draw(struct stall_list *l, struct trex_view *v, WINDOW *win,
                     const struct trex_layout *lay, const char *title, const char *status);

/* Leaves curses, runs $EDITOR (else vi) +line path, waits for it and
 * comes back; a message on ctx when it cannot be run. */
void stall_open_editor(struct trex_ui_ctx *ctx, const char *path, int64_t line);

#endif
