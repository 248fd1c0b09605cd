/* trex_check_config: parses keymap or theme files as trex would and prints
 * every problem ("FILE:LINE: message"); used by tests/e2e/uifiles.sh.
 *
 *   trex_check_config keys FILE...       exit 1 when a line is bad
 *   trex_check_config theme FILE...
 *   trex_check_config unbound FILE...    actions no line of the files binds
 *   trex_check_config actions | roles    every action / role name
 *   trex_check_config man-actions        the action table as man(7) text
 *   trex_check_config man-roles          the role table as man(7) text
 *   trex_check_config man-ui             the working UI keys (default keymap) as man(7) text */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "trex/ui/action.h"
#include "trex/ui/app.h"
#include "trex/ui/keymap.h"
#include "trex/ui/theme.h"
#include "trex/ui/view.h"

static void print_error(void *user, const char *text)
{
	(void)user;
	printf("%s\n", text);
}

static int check_keys(int argc, char **argv, int unbound)
{
	struct trex_keymap *km = trex_keymap_new();
	unsigned errors = 0;

	if (!km)
		return 2;
	for (int i = 0; i < argc; i++)
		errors += trex_keymap_load_file(km, argv[i], print_error, NULL);
	for (int a = 1; unbound && a < TREX_ACTION_COUNT; a++) {
		size_t n = 0;

		for (int m = 0; m < TREX_KEYMAP_COUNT; m++)
			n += trex_keymap_keys(km, (enum trex_keymap_id)m, (enum trex_action)a, NULL,
			                      0);
		if (n == 0) {
			printf("unbound: %s\n", trex_action_name((enum trex_action)a));
			errors++;
		}
	}
	trex_keymap_free(km);
	return errors ? 1 : 0;
}

static int check_theme(int argc, char **argv)
{
	unsigned errors = 0;

	for (int i = 0; i < argc; i++) {
		struct trex_theme theme;

		trex_theme_init(&theme);
		errors += trex_theme_load_file(&theme, argv[i], print_error, NULL);
	}
	return errors ? 1 : 0;
}

/* A name with its hyphens and backslashes escaped for troff. */
static void man_name(const char *name)
{
	for (; *name; name++)
		fputs(*name == '-' ? "\\-" : *name == '\\' ? "\\e" : (char[]){*name, 0}, stdout);
}

static void man_attrs(unsigned attrs)
{
	static const struct {
		const char *name;
		unsigned bit;
	} names[] = {
#define ATTR_NAME(id, name, bit) {name, bit},
	    TREX_ATTR_INFO(ATTR_NAME)
#undef ATTR_NAME
	};
	const char *sep = " (";

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (attrs & names[i].bit) {
			printf("%s%s", sep, names[i].name);
			sep = ", ";
		}
	}
	if (attrs)
		printf(")");
}

static void man_actions(void)
{
	for (int g = 0; g < TREX_ACTION_GROUP_COUNT; g++) {
		printf(".SS %s\n", trex_action_group_title((enum trex_action_group)g));
		for (int a = 1; a < TREX_ACTION_COUNT; a++) {
			if ((int)trex_action_group((enum trex_action)a) != g)
				continue;
			printf(".TP\n.B ");
			man_name(trex_action_name((enum trex_action)a));
			printf("\n%s\n", trex_action_help((enum trex_action)a));
		}
	}
}

/* The default keys of action a where it works: the timeline's, the
 * tables', both ("KEYS (timeline); KEYS (tables)" when they differ), or
 * the generic ones for actions of the whole interface. */
static int action_keys(const struct trex_keymap *km, enum trex_action a, char *buf, size_t size)
{
	char tl[128] = "", tb[128] = "";
	bool in_tl = trex_timeline_supports(a), in_tb = trex_table_view_supports(a);

	if (!in_tl && !in_tb)
		return trex_keymap_describe(km, TREX_KEYMAP_GENERIC, a, buf, size);
	if (in_tl)
		trex_keymap_describe(km, TREX_KEYMAP_TIMELINE, a, tl, sizeof(tl));
	if (in_tb)
		trex_keymap_describe(km, TREX_KEYMAP_TABLE, a, tb, sizeof(tb));
	if (!*tb || strcmp(tl, tb) == 0)
		return snprintf(buf, size, "%s", tl);
	if (!*tl)
		return snprintf(buf, size, "%s", tb);
	return snprintf(buf, size, "%s (timeline); %s (tables)", tl, tb);
}

/* The actions the interface implements, with their default keys. */
static int man_ui(void)
{
	struct trex_keymap *km = trex_keymap_new();
	char keys[300];

	if (!km || trex_keymap_load_builtin(km, print_error, NULL))
		return 2;
	for (int g = 0; g < TREX_ACTION_GROUP_COUNT; g++) {
		bool titled = false;

		for (int a = 1; a < TREX_ACTION_COUNT; a++) {
			if ((int)trex_action_group((enum trex_action)a) != g ||
			    !trex_ui_action_supported((enum trex_action)a) ||
			    action_keys(km, (enum trex_action)a, keys, sizeof(keys)) <= 0)
				continue;
			if (!titled)
				printf(".SS %s\n",
				       trex_action_group_title((enum trex_action_group)g));
			titled = true;
			printf(".TP\n.B ");
			man_name(keys);
			printf("\n%s (", trex_action_help((enum trex_action)a));
			man_name(trex_action_name((enum trex_action)a));
			printf(")\n");
		}
	}
	trex_keymap_free(km);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	if (strcmp(cmd, "keys") == 0 && argc > 2)
		return check_keys(argc - 2, argv + 2, 0);
	if (strcmp(cmd, "unbound") == 0 && argc > 2)
		return check_keys(argc - 2, argv + 2, 1);
	if (strcmp(cmd, "theme") == 0 && argc > 2)
		return check_theme(argc - 2, argv + 2);
	if (strcmp(cmd, "actions") == 0) {
		for (int a = 1; a < TREX_ACTION_COUNT; a++)
			printf("%s\n", trex_action_name((enum trex_action)a));
		return 0;
	}
	if (strcmp(cmd, "roles") == 0) {
		for (int r = 0; r < TREX_ROLE_COUNT; r++)
			printf("%s\n", trex_role_name((enum trex_role)r));
		return 0;
	}
	if (strcmp(cmd, "man-roles") == 0) {
		for (int r = 0; r < TREX_ROLE_COUNT; r++) {
			printf(".TP\n.B ");
			man_name(trex_role_name((enum trex_role)r));
			printf("\n%s", trex_role_help((enum trex_role)r));
			man_attrs(trex_role_mono_attrs((enum trex_role)r));
			printf("\n");
		}
		return 0;
	}
	if (strcmp(cmd, "man-ui") == 0)
		return man_ui();
	if (strcmp(cmd, "man-actions") == 0) {
		man_actions();
		return 0;
	}
	fprintf(stderr, "usage: trex_check_config keys|theme|unbound FILE... | actions | roles "
	                "| man-actions | man-roles | man-ui\n");
	return 2;
}
