/* The terminal: the only process-wide state of the UI. Starts and stops
 * curses (always restored: on return, exit and fatal signals), keeps stderr
 * in a temporary file while curses owns the screen, decides UTF-8 or ASCII
 * glyphs and the colour depth, and maps theme roles to curses attributes. */
#ifndef TREX_UI_TERM_H
#define TREX_UI_TERM_H

#include <stdbool.h>
#include <stdio.h>

#include "trex/core/status.h"
#include "trex/ui/theme.h"

#define TREX_TERM_PAIRS_MAX 128

struct trex_term_opts {
	enum trex_color_mode color;
	bool ascii;    /* --ascii: no Unicode glyphs even in a UTF-8 locale */
	bool headless; /* no terminal: draw on /dev/null (--dump-screen without a tty) */
	bool mouse;    /* report clicks and the wheel (off: the terminal keeps the mouse) */
};

struct trex_term {
	bool active;
	bool utf8; /* draw Unicode glyphs */
	int depth; /* colour depth: 0, 8, 16 or 256 */
	struct trex_theme theme;
	int npairs;
	short pair_fg[TREX_TERM_PAIRS_MAX], pair_bg[TREX_TERM_PAIRS_MAX];
	void *screen;   /* SCREEN * */
	FILE *in, *out; /* what newterm reads and writes; closed at stop when headless */
	int saved_stderr;
	FILE *err_tmp;
};

/* Starts curses with theme (copied). NOT_SUPPORTED-like errors (no
 * terminal description) come back as IO with a message. */
enum trex_status trex_term_start(struct trex_term *t, const struct trex_term_opts *o,
                                 const struct trex_theme *theme, struct trex_error *err);
/* Restores the terminal and replays what was written to stderr meanwhile.
 * Safe to call twice. */
void trex_term_stop(struct trex_term *t);

/* The curses attributes (colour pair included) for text in role. */
unsigned long trex_term_attr(struct trex_term *t, enum trex_role role);
/* For block glyphs of a bar in role: the ink is the role's bar colour (its
 * background), on the default background; where that colour could be the
 * terminal's background (or at depth 0), the terminal's own foreground. */
unsigned long trex_term_bar_attr(struct trex_term *t, enum trex_role role);
/* For the full cells of a bar in role and the text written into them: the
 * role's colours, or, where its background could vanish into the
 * terminal's, reverse video (a block in the role's foreground or the
 * terminal's). */
unsigned long trex_term_fill_attr(struct trex_term *t, enum trex_role role);
/* What a cell drawn with attr (colour pair included; blank: it shows only
 * its background) becomes under the tint of role: a cell on the default
 * background takes the role's background and keeps its ink (black or
 * white for the terminal's own, underlined where the ink is too close to
 * the tint); any other cell, and every cell without colours, is
 * underlined. Never hides what the cell shows. */
unsigned long trex_term_tint(struct trex_term *t, unsigned long attr, bool blank,
                             enum trex_role role);

#endif
