#include "config.h"

#include "app_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curses.h>

#ifndef TREX_PKGDATADIR
#define TREX_PKGDATADIR "/usr/local/share/trex"
#endif

static void print_problem(void *user, const char *text)
{
	(void)user;
	fprintf(stderr, "trex: %s\n", text);
}

static bool readable(const char *path)
{
	return access(path, R_OK) == 0;
}

/* The user's file for leaf, when there is one: explicit (option or env)
 * paths are loaded even when missing, so that the problem is reported. */
static const char *user_file(char *buf, size_t size, const char *leaf, const char *env)
{
	const char *explicit_path = getenv(env);
	const char *path = trex_config_user_path(buf, size, leaf, explicit_path,
	                                         getenv("XDG_CONFIG_HOME"), getenv("HOME"));

	if (!path)
		return NULL;
	if (explicit_path && *explicit_path)
		return path;
	return readable(path) ? path : NULL;
}

enum trex_status app_load_keys(struct trex_keymap *km, const char *option, struct trex_error *err)
{
	char buf[4096];
	const char *path = option;

	trex_keymap_load_builtin(km, print_problem, NULL);
	if (!path)
		path = user_file(buf, sizeof(buf), "keys", "TREX_KEYS");
	if (!path)
		return TREX_OK;
	if (option && !readable(option))
		return trex_error_set(err, TREX_USAGE, option, -1, "--keys: cannot read the file");
	trex_keymap_load_file(km, path, print_problem, NULL);
	return TREX_OK;
}

/* "dark, light, mono, high-contrast": the shipped themes, for a message. */
static void builtin_names(char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (const struct trex_theme_text *t = trex_theme_builtins; t->name && n < size; t++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "", t->name);
}

/* FILE, or NAME: a shipped theme (compiled in) or $(pkgdatadir)/themes/NAME.theme.
 * *builtin is set for a shipped one, *path for a file. */
static enum trex_status theme_option_path(const char *option, char *buf, size_t size,
                                          const char **path, const struct trex_theme_text **builtin,
                                          struct trex_error *err)
{
	char names[128];

	*path = NULL;
	*builtin = NULL;
	if (strchr(option, '/') || readable(option)) {
		if (!readable(option))
			return trex_error_set(err, TREX_USAGE, option, -1,
			                      "--theme: cannot read the file");
		*path = option;
		return TREX_OK;
	}
	if ((*builtin = trex_theme_builtin(option)))
		return TREX_OK;
	snprintf(buf, size, "%s/themes/%s.theme", TREX_PKGDATADIR, option);
	if (!readable(buf)) {
		builtin_names(names, sizeof(names));
		return trex_error_set(err, TREX_USAGE, NULL, -1,
		                      "--theme: no theme file or theme called '%s' (themes: %s)",
		                      option, names);
	}
	*path = buf;
	return TREX_OK;
}

enum trex_status app_load_theme(struct trex_theme *theme, const char *option,
                                struct trex_error *err)
{
	char buf[4096], name[96];
	const char *path = NULL;
	const struct trex_theme_text *builtin = NULL;

	trex_theme_init(theme);
	trex_theme_load_builtin(theme, print_problem, NULL);
	if (option) {
		enum trex_status st =
		    theme_option_path(option, buf, sizeof(buf), &path, &builtin, err);

		if (st != TREX_OK)
			return st;
	} else {
		path = user_file(buf, sizeof(buf), "theme", "TREX_THEME");
	}
	if (builtin) {
		snprintf(name, sizeof(name), "(built-in themes/%s.theme)", builtin->name);
		trex_theme_load_string(theme, name, builtin->text, print_problem, NULL);
	}
	if (path)
		trex_theme_load_file(theme, path, print_problem, NULL);
	return TREX_OK;
}

static const struct {
	const char *name;
	unsigned long bstate;
} mouse_words[] = {
    {"click", BUTTON1_RELEASED},
    {"rclick", BUTTON3_RELEASED},
    {"wheel-up", BUTTON4_PRESSED},
    {"wheel-down", BUTTON5_PRESSED},
};

/* `[S-|C-]NAME:Y,X` -> a mouse input; false if w is not one. */
static bool parse_mouse_word(const char *w, struct app_input *in)
{
	unsigned long mods = 0;
	const char *colon = strchr(w, ':');
	int y, x, used = 0;

	for (;; w += 2) {
		if (strncmp(w, "S-", 2) == 0)
			mods |= BUTTON_SHIFT;
		else if (strncmp(w, "C-", 2) == 0)
			mods |= BUTTON_CTRL;
		else
			break;
	}
	if (!colon || sscanf(colon + 1, "%d,%d%n", &y, &x, &used) != 2 || colon[1 + used] ||
	    y < 0 || x < 0)
		return false;
	for (size_t i = 0; i < sizeof(mouse_words) / sizeof(mouse_words[0]); i++)
		if (strlen(mouse_words[i].name) == (size_t)(colon - w) &&
		    strncmp(w, mouse_words[i].name, (size_t)(colon - w)) == 0) {
			*in = (struct app_input){TREX_KEY_FUNC | (trex_key)KEY_MOUSE, y, x,
			                         mouse_words[i].bstate | mods};
			return true;
		}
	return false;
}

static bool parse_input_word(const char *w, struct app_input *in)
{
	trex_key k;

	if (strchr(w, ':') && strlen(w) > 1 && parse_mouse_word(w, in))
		return true;
	if (!trex_key_parse(w, &k))
		return false;
	*in = (struct app_input){k, 0, 0, 0};
	return true;
}

enum trex_status app_parse_script(const char *script, struct app_input **inputs, size_t *n,
                                  struct trex_error *err)
{
	char *copy, *save = NULL;
	size_t cap = 0;

	*inputs = NULL;
	*n = 0;
	if (!script)
		return TREX_OK;
	if (!(copy = strdup(script)))
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	for (char *w = strtok_r(copy, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		struct app_input in, *v;

		if (!parse_input_word(w, &in)) {
			trex_error_set(err, TREX_USAGE, NULL, -1, "--script: unknown key name '%s'",
			               w);
			free(copy);
			free(*inputs);
			*inputs = NULL;
			*n = 0;
			return TREX_USAGE;
		}
		if (!(v = trex_grow(*inputs, &cap, *n + 1, sizeof(*v), 16))) {
			free(copy);
			return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
		}
		*inputs = v;
		v[(*n)++] = in;
	}
	free(copy);
	return TREX_OK;
}
