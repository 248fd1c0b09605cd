/* What the app loads before the screen starts: keys, theme, script keys.
 * Problems in files go to stderr as "trex: FILE:LINE: message". */
#ifndef TREX_UI_APP_CONFIG_H
#define TREX_UI_APP_CONFIG_H

#include <stddef.h>

#include "trex/core/grow.h"
#include "trex/core/status.h"
#include "trex/ui/keymap.h"
#include "trex/ui/theme.h"

/* Built-in keys, then --keys FILE (USAGE when unreadable), else
 * $TREX_KEYS or $XDG_CONFIG_HOME/trex/keys (~/.config/trex/keys) if present. */
enum trex_status app_load_keys(struct trex_keymap *km, const char *option, struct trex_error *err);
/* Built-in theme, then --theme FILE|NAME, else $TREX_THEME or the user's
 * theme file if present. */
enum trex_status app_load_theme(struct trex_theme *theme, const char *option,
                                struct trex_error *err);
/* One input: a key, or (key == TREX_KEY_FUNC | KEY_MOUSE) a mouse event at
 * screen (y, x) with ncurses button state bstate. */
struct app_input {
	trex_key key;
	int y, x;
	unsigned long bstate;
};

/* --script: words separated by blanks -> malloc'd inputs (NULL, 0 for
 * none). A word is a key name (trex_key_parse) or a mouse event
 * `[S-|C-]click|rclick|wheel-up|wheel-down:Y,X` (0-based screen row and
 * column; S- Shift, C- Ctrl held). */
enum trex_status app_parse_script(const char *script, struct app_input **inputs, size_t *n,
                                  struct trex_error *err);

#endif
