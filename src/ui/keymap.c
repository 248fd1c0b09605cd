#include "config.h"

#include "trex/core/grow.h"
#include "trex/ui/keymap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curses.h>

/* ---- key names ------------------------------------------------------------------ */

/* Named keys; the first row for a key is its canonical name. */
static const struct key_name {
	const char *name;
	trex_key key;
} key_names[] = {
    {"Up", TREX_KEY_FUNC | KEY_UP},
    {"Down", TREX_KEY_FUNC | KEY_DOWN},
    {"Left", TREX_KEY_FUNC | KEY_LEFT},
    {"Right", TREX_KEY_FUNC | KEY_RIGHT},
    {"PgUp", TREX_KEY_FUNC | KEY_PPAGE},
    {"PageUp", TREX_KEY_FUNC | KEY_PPAGE},
    {"PgDn", TREX_KEY_FUNC | KEY_NPAGE},
    {"PgDown", TREX_KEY_FUNC | KEY_NPAGE},
    {"PageDown", TREX_KEY_FUNC | KEY_NPAGE},
    {"Home", TREX_KEY_FUNC | KEY_HOME},
    {"End", TREX_KEY_FUNC | KEY_END},
    {"Insert", TREX_KEY_FUNC | KEY_IC},
    {"Ins", TREX_KEY_FUNC | KEY_IC},
    {"Delete", TREX_KEY_FUNC | KEY_DC},
    {"Del", TREX_KEY_FUNC | KEY_DC},
    {"Backspace", TREX_KEY_FUNC | KEY_BACKSPACE},
    {"BS", TREX_KEY_FUNC | KEY_BACKSPACE},
    {"BackTab", TREX_KEY_FUNC | KEY_BTAB},
    {"S-Tab", TREX_KEY_FUNC | KEY_BTAB},
    {"S-Left", TREX_KEY_FUNC | KEY_SLEFT},
    {"ShiftLeft", TREX_KEY_FUNC | KEY_SLEFT},
    {"S-Right", TREX_KEY_FUNC | KEY_SRIGHT},
    {"ShiftRight", TREX_KEY_FUNC | KEY_SRIGHT},
    {"S-Up", TREX_KEY_FUNC | KEY_SR},
    {"ShiftUp", TREX_KEY_FUNC | KEY_SR},
    {"S-Down", TREX_KEY_FUNC | KEY_SF},
    {"ShiftDown", TREX_KEY_FUNC | KEY_SF},
    {"S-Home", TREX_KEY_FUNC | KEY_SHOME},
    {"S-End", TREX_KEY_FUNC | KEY_SEND},
    {"Enter", '\r'},
    {"Return", '\r'},
    {"Esc", 27},
    {"Escape", 27},
    {"Tab", '\t'},
    {"Space", ' '},
    {"Hash", '#'},
    {"LessThan", '<'},
    {"LT", '<'},
};

static int ascii_lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

/* Decodes one UTF-8 code point; returns its length, 0 when invalid. */
static size_t utf8_decode(const unsigned char *s, uint32_t *cp)
{
	size_t len;
	uint32_t c;

	if (s[0] < 0x80) {
		*cp = s[0];
		return s[0] ? 1 : 0;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		c = s[0] & 0x1fu;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		c = s[0] & 0x0fu;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		c = s[0] & 0x07u;
	} else {
		return 0;
	}
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3fu);
	}
	/* overlong forms, surrogates and values past U+10FFFF */
	if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

static int utf8_encode(uint32_t c, char *out)
{
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | (c >> 6));
		out[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (char)(0xe0 | (c >> 12));
		out[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		out[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (c >> 18));
	out[1] = (char)(0x80 | ((c >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((c >> 6) & 0x3f));
	out[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/* If s starts with prefix (case-insensitive), returns what follows it. */
static const char *skip_prefix(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncasecmp(s, prefix, n) == 0 ? s + n : NULL;
}

static bool parse_ctrl(const char *rest, trex_key *key)
{
	int c = (unsigned char)rest[0];

	if (c == 0 || rest[1] != '\0')
		return false;
	c = ascii_lower(c);
	if (c >= 'a' && c <= 'z')
		*key = (trex_key)(c & 0x1f);
	else if (c == '?')
		*key = 127;
	else if (strchr("[\\]^_", c))
		*key = (trex_key)(c & 0x1f);
	else
		return false; /* C-@ (NUL) included: 0 means no key */
	return true;
}

static bool parse_fkey(const char *s, int base, trex_key *key)
{
	char *end;
	long n;

	if ((s[0] != 'F' && s[0] != 'f') || s[1] < '1' || s[1] > '9')
		return false;
	n = strtol(s + 1, &end, 10);
	if (*end != '\0' || n < 1 || n > 12)
		return false;
	*key = TREX_KEY_FUNC | (trex_key)KEY_F(base + (int)n);
	return true;
}

static bool parse_bare(const char *s, bool allow_meta, trex_key *key)
{
	const char *rest;
	uint32_t cp;
	size_t n;

	if (s[0] == '\0')
		return false;
	n = utf8_decode((const unsigned char *)s, &cp);
	if (n > 0 && s[n] == '\0') {
		if (cp < 0x20 || cp == 127)
			return false; /* raw control characters: use C-x */
		*key = cp;
		return true;
	}
	if ((rest = skip_prefix(s, "C-")) || (rest = skip_prefix(s, "Ctrl-")))
		return parse_ctrl(rest, key);
	if (allow_meta && ((rest = skip_prefix(s, "M-")) || (rest = skip_prefix(s, "Alt-")))) {
		if (!parse_bare(rest, false, key))
			return false;
		*key |= TREX_KEY_META;
		return true;
	}
	if (parse_fkey(s, 0, key))
		return true;
	if (((rest = skip_prefix(s, "S-")) || (rest = skip_prefix(s, "Shift-"))) &&
	    parse_fkey(rest, 12, key))
		return true;
	for (size_t i = 0; i < sizeof(key_names) / sizeof(key_names[0]); i++) {
		if (strcasecmp(s, key_names[i].name) == 0) {
			*key = key_names[i].key;
			return true;
		}
	}
	/* Shift-Left is S-Left */
	if ((rest = skip_prefix(s, "Shift-")) && strlen(rest) < 16) {
		char alias[20];

		snprintf(alias, sizeof(alias), "S-%s", rest);
		for (size_t i = 0; i < sizeof(key_names) / sizeof(key_names[0]); i++) {
			if (strcasecmp(alias, key_names[i].name) == 0) {
				*key = key_names[i].key;
				return true;
			}
		}
	}
	return false;
}

bool trex_key_parse(const char *name, trex_key *key)
{
	char inner[64];
	size_t n;

	if (!name)
		return false;
	n = strlen(name);
	if (n > 2 && name[0] == '<' && name[n - 1] == '>') {
		if (n - 2 >= sizeof(inner))
			return false;
		memcpy(inner, name + 1, n - 2);
		inner[n - 2] = '\0';
		name = inner;
	}
	return parse_bare(name, true, key);
}

static const char *named_key(trex_key key)
{
	for (size_t i = 0; i < sizeof(key_names) / sizeof(key_names[0]); i++)
		if (key_names[i].key == key)
			return key_names[i].name;
	return NULL;
}

int trex_key_name(trex_key key, char *buf, size_t size)
{
	trex_key code = key & TREX_KEY_CODE_MASK;
	const char *meta = (key & TREX_KEY_META) ? "M-" : "";
	const char *named;
	char ch[5];

	if (key & TREX_KEY_FUNC) {
		int fn = (int)code - KEY_F0;

		if (fn >= 1 && fn <= 12)
			return snprintf(buf, size, "%sF%d", meta, fn);
		if (fn >= 13 && fn <= 24)
			return snprintf(buf, size, "%sS-F%d", meta, fn - 12);
	}
	/* '<' shows as itself; LessThan and LT are spellings for key files */
	named = code == '<' && !(key & TREX_KEY_FUNC) ? NULL : named_key(key & ~TREX_KEY_META);
	if (named)
		return snprintf(buf, size, "%s%s", meta, named);
	if (key & TREX_KEY_FUNC)
		return snprintf(buf, size, "%sKEY_%u", meta, (unsigned)code);
	if (code == 127)
		return snprintf(buf, size, "%sC-?", meta);
	if (code >= 1 && code < 0x20) {
		int c = (int)code | 0x40;

		return snprintf(buf, size, "%sC-%c", meta, ascii_lower(c));
	}
	if (code == 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
		return snprintf(buf, size, "%s", "<invalid>");
	ch[utf8_encode(code, ch)] = '\0';
	return snprintf(buf, size, "%s%s", meta, ch);
}

trex_key trex_key_normalize(trex_key key)
{
	trex_key meta = key & TREX_KEY_META;
	trex_key base = key & ~TREX_KEY_META;

	if (base == 127)
		base = TREX_KEY_FUNC | KEY_BACKSPACE;
	else if (base == '\n' || base == (TREX_KEY_FUNC | KEY_ENTER))
		base = '\r';
	return meta | base;
}

/* ---- keymaps -------------------------------------------------------------------- */

static const char *const keymap_names[TREX_KEYMAP_COUNT] = {
#define KEYMAP_NAME(id, name) [TREX_KEYMAP_##id] = name,
    TREX_KEYMAP_INFO(KEYMAP_NAME)
#undef KEYMAP_NAME
};

int trex_keymap_by_name(const char *name)
{
	for (int i = 0; i < TREX_KEYMAP_COUNT; i++)
		if (name && strcmp(keymap_names[i], name) == 0)
			return i;
	return -1;
}

const char *trex_keymap_name(enum trex_keymap_id id)
{
	return (int)id >= 0 && id < TREX_KEYMAP_COUNT ? keymap_names[id] : NULL;
}

struct binding {
	trex_key key;
	enum trex_keymap_id map;
	enum trex_action action;
};

struct trex_keymap {
	struct binding *b;
	size_t n, cap;
};

struct trex_keymap *trex_keymap_new(void)
{
	return calloc(1, sizeof(struct trex_keymap));
}

void trex_keymap_free(struct trex_keymap *km)
{
	if (!km)
		return;
	free(km->b);
	free(km);
}

/* The index of key's binding in keymap id, or km->n. */
static size_t find_index(const struct trex_keymap *km, enum trex_keymap_id id, trex_key key)
{
	size_t i;

	for (i = 0; i < km->n; i++)
		if (km->b[i].map == id && km->b[i].key == key)
			break;
	return i;
}

static const struct binding *find(const struct trex_keymap *km, enum trex_keymap_id id,
                                  trex_key key)
{
	size_t i = find_index(km, id, key);

	return i < km->n ? &km->b[i] : NULL;
}

int trex_keymap_bind(struct trex_keymap *km, enum trex_keymap_id id, trex_key key,
                     enum trex_action action)
{
	size_t old = find_index(km, id, key);

	if (old < km->n) {
		/* later wins; the key moves to the end so listings follow the file */
		memmove(&km->b[old], &km->b[old + 1], (km->n - old - 1) * sizeof(km->b[0]));
		km->n--;
	}
	struct binding *b = trex_grow(km->b, &km->cap, km->n + 1, sizeof(*b), 64);

	if (!b)
		return -1;
	km->b = b;
	km->b[km->n++] = (struct binding){key, id, action};
	return 0;
}

static int keys_line(void *obj, int argc, char **argv, char *msg, size_t size)
{
	struct trex_keymap *km = obj;
	trex_key key;
	int map, action;

	if (strcmp(argv[0], "bind") != 0) {
		snprintf(msg, size, "unknown command '%s' (expected bind)", argv[0]);
		return -1;
	}
	if (argc != 4) {
		snprintf(msg, size, "bind takes 3 arguments (bind KEYMAP KEY ACTION), not %d",
		         argc - 1);
		return -1;
	}
	if ((map = trex_keymap_by_name(argv[1])) < 0) {
		snprintf(msg, size, "unknown keymap '%s'", argv[1]);
		return -1;
	}
	if (!trex_key_parse(argv[2], &key)) {
		snprintf(msg, size, "unknown key '%s'", argv[2]);
		return -1;
	}
	if ((action = trex_action_by_name(argv[3])) < 0) {
		snprintf(msg, size, "unknown action '%s'", argv[3]);
		return -1;
	}
	if (trex_keymap_bind(km, (enum trex_keymap_id)map, key, (enum trex_action)action) != 0) {
		snprintf(msg, size, "out of memory");
		return -1;
	}
	return 0;
}

unsigned trex_keymap_load_string(struct trex_keymap *km, const char *name, const char *text,
                                 trex_config_error_fn err, void *user)
{
	return trex_config_parse(name, text, strlen(text), keys_line, km, err, user);
}

unsigned trex_keymap_load_file(struct trex_keymap *km, const char *path, trex_config_error_fn err,
                               void *user)
{
	return trex_config_parse_file(path, keys_line, km, err, user);
}

unsigned trex_keymap_load_builtin(struct trex_keymap *km, trex_config_error_fn err, void *user)
{
	return trex_keymap_load_string(km, "(built-in keymaps/default.keys)",
	                               trex_keymap_builtin_text, err, user);
}

enum trex_action trex_keymap_lookup(const struct trex_keymap *km, enum trex_keymap_id id,
                                    trex_key key)
{
	const struct binding *b;

	key = trex_key_normalize(key);
	b = find(km, id, key);
	if (!b && id != TREX_KEYMAP_GENERIC)
		b = find(km, TREX_KEYMAP_GENERIC, key);
	return b ? b->action : TREX_ACTION_NONE;
}

size_t trex_keymap_keys(const struct trex_keymap *km, enum trex_keymap_id id,
                        enum trex_action action, trex_key *out, size_t max)
{
	size_t n = 0;

	if (action == TREX_ACTION_NONE)
		return 0;
	for (size_t i = 0; i < km->n; i++) {
		if (km->b[i].map == id && km->b[i].action == action) {
			if (n < max)
				out[n] = km->b[i].key;
			n++;
		}
	}
	if (id == TREX_KEYMAP_GENERIC)
		return n;
	for (size_t i = 0; i < km->n; i++) {
		const struct binding *b = &km->b[i];

		if (b->map == TREX_KEYMAP_GENERIC && b->action == action && !find(km, id, b->key)) {
			if (n < max)
				out[n] = b->key;
			n++;
		}
	}
	return n;
}

int trex_keymap_describe(const struct trex_keymap *km, enum trex_keymap_id id,
                         enum trex_action action, char *buf, size_t size)
{
	trex_key keys[32];
	size_t n = trex_keymap_keys(km, id, action, keys, 32);
	int len = 0;

	if (size > 0)
		buf[0] = '\0';
	for (size_t i = 0; i < n && i < 32; i++) {
		char name[TREX_KEY_NAME_MAX];
		size_t at = (size_t)len < size ? (size_t)len : size;

		trex_key_name(keys[i], name, sizeof(name));
		len += snprintf(buf + at, size - at, "%s%s", i ? ", " : "", name);
	}
	return len;
}
