/* The one-line prompt at the bottom of the screen ("/", "filter: ", "go to
 * time: ", "export to: ", "overwrite? (y/n)"): a small line editor with
 * readline's common keys and a history per kind of prompt. Pure text
 * editing, no curses: the app feeds it keys and draws its text; the view
 * that opened it gets the text through callbacks. */
#ifndef TREX_UI_PROMPT_H
#define TREX_UI_PROMPT_H

#include <stdbool.h>
#include <stddef.h>

#include "trex/ui/keymap.h"

#define TREX_PROMPT_MAX 1024   /* bytes of text, NUL included */
#define TREX_PROMPT_HISTORY 32 /* entries kept per history */

/* X(ID, name): separate histories, so Up in a search prompt recalls
 * searches and not file names. */
#define TREX_PROMPT_HISTORY_INFO(X)                                                                \
	X(SEARCH, "search")                                                                        \
	X(FILTER, "filter")                                                                        \
	X(TRACK, "track")                                                                          \
	X(TIME, "time")                                                                            \
	X(PATH, "path")                                                                            \
	X(OTHER, "other")

enum trex_prompt_history {
#define TREX_PROMPT_HISTORY_ENUM(id, name) TREX_PROMPT_HISTORY_##id,
	TREX_PROMPT_HISTORY_INFO(TREX_PROMPT_HISTORY_ENUM)
#undef TREX_PROMPT_HISTORY_ENUM
	    TREX_PROMPT_HISTORY_COUNT
};

struct trex_view;

/* What a view asks for. The callbacks get the view that opened the prompt
 * and the current text (UTF-8, NUL-terminated). */
struct trex_prompt_spec {
	const char *label;   /* shown before the text: "/", "go to time: " */
	const char *initial; /* initial text, NULL for "" */
	enum trex_prompt_history history;
	/* yes_no: the first y/Y or n/N key answers ("y" or "n" to on_submit);
	 * Enter counts as no, Esc cancels. */
	bool yes_no;
	/* Every edit (incremental search); NULL if not wanted. */
	void (*on_change)(struct trex_view *v, const char *text);
	/* Enter: the prompt closes, then this runs (it may open another prompt). */
	void (*on_submit)(struct trex_view *v, const char *text);
	/* Esc or C-g: the prompt closes, then this runs; NULL if not wanted. */
	void (*on_cancel)(struct trex_view *v);
};

/* The editor: text, cursor (byte offset, always on a UTF-8 boundary) and
 * the histories, which outlive each prompt. */
struct trex_prompt {
	bool active;
	struct trex_prompt_spec spec;
	struct trex_view *owner;
	char text[TREX_PROMPT_MAX];
	size_t len, cursor;
	char saved[TREX_PROMPT_MAX]; /* the text being edited while browsing history */
	int hist_pos;                /* -1: not browsing; else index into the history */
	char *history[TREX_PROMPT_HISTORY_COUNT][TREX_PROMPT_HISTORY]; /* newest first */
};

enum trex_prompt_result {
	TREX_PROMPT_CONTINUE, /* still editing; text unchanged */
	TREX_PROMPT_CHANGED,  /* still editing; text changed (call on_change) */
	TREX_PROMPT_SUBMIT,   /* closed with Enter (or y/n): call on_submit */
	TREX_PROMPT_CANCEL,   /* closed with Esc / C-g: call on_cancel */
};

void trex_prompt_init(struct trex_prompt *p);
/* Frees the histories. */
void trex_prompt_free(struct trex_prompt *p);

/* Opens the prompt for owner with spec (copied; its strings must outlive
 * the prompt). The text starts as spec->initial, cursor at its end. */
void trex_prompt_open(struct trex_prompt *p, struct trex_view *owner,
                      const struct trex_prompt_spec *spec);

/* One key (as read by the app, before keymap lookup). Editing keys:
 * printable characters insert; Left/Right, C-b/C-f move; Home/C-a,
 * End/C-e; Backspace/C-h delete before, Delete/C-d after; C-u kills to
 * the start, C-k to the end, C-w the word before; Up/Down (C-p/C-n)
 * browse the history; Enter submits (and records a non-empty text in the
 * history); Esc/C-g cancel. Submitting or cancelling makes the prompt
 * inactive; the app then calls the callback. */
enum trex_prompt_result trex_prompt_key(struct trex_prompt *p, trex_key key);

/* The column (in display cells) of the cursor within the text. */
int trex_prompt_cursor_col(const struct trex_prompt *p);

#endif
