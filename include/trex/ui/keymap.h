/* Keymaps: key names <-> key codes, keymap files (trex-keys(5)), lookup of
 * the action a key is bound to, and the inverse (the keys of an action) for
 * the help screen. Keys are ncursesw codes; nothing here touches a screen. */
#ifndef TREX_UI_KEYMAP_H
#define TREX_UI_KEYMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/ui/action.h"
#include "trex/ui/config.h"

/* X(ID, name): the keymaps (contexts). A view looks a key up in its own
 * keymap first, then in `generic`. */
#define TREX_KEYMAP_INFO(X)                                                                        \
	X(GENERIC, "generic")                                                                      \
	X(TABLE, "table")                                                                          \
	X(TIMELINE, "timeline")

enum trex_keymap_id {
#define TREX_KEYMAP_ENUM(id, name) TREX_KEYMAP_##id,
	TREX_KEYMAP_INFO(TREX_KEYMAP_ENUM)
#undef TREX_KEYMAP_ENUM
	    TREX_KEYMAP_COUNT
};

/* A key: a Unicode code point (control characters included: C-a is 1,
 * Enter 13, Esc 27), or TREX_KEY_FUNC | an ncurses KEY_* code; either may
 * carry TREX_KEY_META (Alt, or Esc before the key). 0 is no key. */
typedef uint32_t trex_key;
#define TREX_KEY_FUNC 0x01000000u
#define TREX_KEY_META 0x02000000u
#define TREX_KEY_CODE_MASK 0x00ffffffu

/* Longest name trex_key_name writes, with its NUL. */
#define TREX_KEY_NAME_MAX 24

/* Parses a key name: one character (`j`, `G`, `?`, `é`), optionally in
 * angle brackets (`<j>`), or a name, case-insensitive, with or without
 * brackets: `C-x`/`Ctrl-x` (x a letter or one of [\]^_?), `M-x`/`Alt-x`
 * (any other key), `Up` `Down` `Left` `Right` `PgUp` `PgDn` `Home` `End`
 * `Insert` `Delete` `Backspace` `Enter` `Esc` `Tab` `BackTab` `Space` `Hash`
 * `LessThan` `F1`..`F12`, `S-Left` `S-Right` `S-Up` `S-Down` `S-Home` `S-End`
 * `S-F1`..`S-F12` (aliases in trex-keys(5)). Returns false for anything else. */
bool trex_key_parse(const char *name, trex_key *key);

/* The canonical name of key (what the help screen shows; trex_key_parse reads
 * it back), e.g. "j", "C-d", "M-x", "PgDn", "F10", "Space", "Hash".
 * Returns the length, as snprintf. */
int trex_key_name(trex_key key, char *buf, size_t size);

/* Maps the variants terminals send to the key a keymap binds: DEL (127) ->
 * Backspace, LF and keypad Enter -> Enter (CR). Other keys are unchanged. */
trex_key trex_key_normalize(trex_key key);

/* The keymap called name, or -1. */
int trex_keymap_by_name(const char *name);
const char *trex_keymap_name(enum trex_keymap_id id);

struct trex_keymap;

/* An empty keymap (no bindings); NULL when out of memory. */
struct trex_keymap *trex_keymap_new(void);
void trex_keymap_free(struct trex_keymap *km);

/* Binds key in keymap id to action; a later binding of the same key in the
 * same keymap replaces the earlier one. TREX_ACTION_NONE unbinds the key
 * there, also hiding a `generic` binding. Returns 0, or -1 when out of memory. */
int trex_keymap_bind(struct trex_keymap *km, enum trex_keymap_id id, trex_key key,
                     enum trex_action action);

/* Loads keymap text (name is used in messages) or a file on top of km.
 * Each bad line is reported through err (may be NULL) as "FILE:LINE:
 * message" and skipped. Returns the number of problems. */
unsigned trex_keymap_load_string(struct trex_keymap *km, const char *name, const char *text,
                                 trex_config_error_fn err, void *user);
unsigned trex_keymap_load_file(struct trex_keymap *km, const char *path, trex_config_error_fn err,
                               void *user);

/* The default bindings, compiled in from keymaps/default.keys. */
extern const char trex_keymap_builtin_text[];
unsigned trex_keymap_load_builtin(struct trex_keymap *km, trex_config_error_fn err, void *user);

/* The action key (normalised first) triggers in keymap id: its binding
 * there, else its `generic` binding, else TREX_ACTION_NONE. */
enum trex_action trex_keymap_lookup(const struct trex_keymap *km, enum trex_keymap_id id,
                                    trex_key key);

/* The keys that trigger action in keymap id (its own bindings first, then
 * the `generic` ones it does not override), in the order they were bound.
 * Stores up to max keys in out and returns how many there are in all. */
size_t trex_keymap_keys(const struct trex_keymap *km, enum trex_keymap_id id,
                        enum trex_action action, trex_key *out, size_t max);

/* Those keys as text for the help screen, "j, Down, C-n" ("" when unbound).
 * Returns the length, as snprintf. */
int trex_keymap_describe(const struct trex_keymap *km, enum trex_keymap_id id,
                         enum trex_action action, char *buf, size_t size);

#endif
