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
/* --script: key names separated by blanks -> malloc'd keys (NULL, 0 for none). */
enum trex_status app_parse_script(const char *script, trex_key **keys, size_t *n,
                                  struct trex_error *err);

#endif
