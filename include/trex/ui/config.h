/* The line-oriented configuration syntax shared by keymap and theme files:
 * one command per line, words separated by blanks, `#` at the start of a
 * word comments out the rest of the line (except in a colour, `#` and six
 * hex digits). A bad line is reported as
 * "FILE:LINE: message" and skipped; the rest of the file still loads. */
#ifndef TREX_UI_CONFIG_H
#define TREX_UI_CONFIG_H

#include <stddef.h>

/* Longest line and most words per line the parser accepts. */
#define TREX_CONFIG_LINE_MAX 1024
#define TREX_CONFIG_WORDS_MAX 16
#define TREX_CONFIG_MSG_MAX 1280

/* Receives each problem as one line of text, "FILE:LINE: message" (or
 * "FILE: message" when no line applies), without a newline. */
typedef void (*trex_config_error_fn)(void *user, const char *text);

/* Handles one non-empty line split into argc >= 1 words. Returns 0, or
 * non-zero after writing a message (no file or line) into msg. */
typedef int (*trex_config_line_fn)(void *obj, int argc, char **argv, char *msg, size_t msg_size);

/* Parses len bytes of text named path (used in messages only). err may be
 * NULL. Returns the number of problems reported. */
unsigned trex_config_parse(const char *path, const char *text, size_t len, trex_config_line_fn fn,
                           void *obj, trex_config_error_fn err, void *user);

/* Reads the file at path and parses it; a file that cannot be read is one
 * problem, "FILE: cannot read: reason". */
unsigned trex_config_parse_file(const char *path, trex_config_line_fn fn, void *obj,
                                trex_config_error_fn err, void *user);

/* Where the user's file `leaf` ("keys", "theme") is looked for, given the
 * environment as arguments (NULL or "" = unset): `explicit_path` (a command
 * line option or $TREX_KEYS/$TREX_THEME) wins; then $XDG_CONFIG_HOME/trex/LEAF
 * when XDG_CONFIG_HOME is an absolute path; then $HOME/.config/trex/LEAF.
 * Writes the path into buf and returns buf; NULL when none applies (no HOME)
 * or the path does not fit in size bytes. Does not look at the file system. */
const char *trex_config_user_path(char *buf, size_t size, const char *leaf,
                                  const char *explicit_path, const char *xdg_config_home,
                                  const char *home);

#endif
