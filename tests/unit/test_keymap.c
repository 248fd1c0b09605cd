#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curses.h>

#include "trex/ui/config.h"
#include "trex/ui/keymap.h"

/* ---- key names ------------------------------------------------------------------ */

static trex_key parse(const char *name)
{
	trex_key key = 0;

	cr_assert(trex_key_parse(name, &key), "parse '%s'", name);
	return key;
}

static void assert_name(trex_key key, const char *want)
{
	char buf[TREX_KEY_NAME_MAX];

	trex_key_name(key, buf, sizeof(buf));
	cr_assert_str_eq(buf, want);
}

Test(key, characters)
{
	cr_assert_eq(parse("j"), 'j');
	cr_assert_eq(parse("G"), 'G');
	cr_assert_eq(parse("?"), '?');
	cr_assert_eq(parse("<"), '<');
	cr_assert_eq(parse(">"), '>');
	cr_assert_eq(parse("<j>"), 'j');
	cr_assert_eq(parse("\\"), '\\');
	cr_assert_eq(parse("é"), 0xe9u);
	cr_assert_eq(parse("<€>"), 0x20acu);
}

Test(key, control_and_meta)
{
	cr_assert_eq(parse("C-d"), 4);
	cr_assert_eq(parse("<C-d>"), 4);
	cr_assert_eq(parse("<C-D>"), 4, "Ctrl is case-insensitive");
	cr_assert_eq(parse("ctrl-x"), 24);
	cr_assert_eq(parse("<Ctrl-x>"), 24);
	cr_assert_eq(parse("C-_"), 31);
	cr_assert_eq(parse("C-?"), 127);
	cr_assert_eq(parse("M-x"), TREX_KEY_META | 'x');
	cr_assert_eq(parse("<Alt-x>"), TREX_KEY_META | 'x');
	cr_assert_eq(parse("M-<"), TREX_KEY_META | '<');
	cr_assert_eq(parse("<M->>"), TREX_KEY_META | '>');
	cr_assert_eq(parse("M-C-f"), TREX_KEY_META | 6);
	cr_assert_eq(parse("<M-Up>"), TREX_KEY_META | TREX_KEY_FUNC | KEY_UP);
}

Test(key, named_keys)
{
	cr_assert_eq(parse("<Up>"), TREX_KEY_FUNC | KEY_UP);
	cr_assert_eq(parse("down"), TREX_KEY_FUNC | KEY_DOWN);
	cr_assert_eq(parse("PgUp"), TREX_KEY_FUNC | KEY_PPAGE);
	cr_assert_eq(parse("<PgDown>"), TREX_KEY_FUNC | KEY_NPAGE);
	cr_assert_eq(parse("PageDown"), TREX_KEY_FUNC | KEY_NPAGE);
	cr_assert_eq(parse("Home"), TREX_KEY_FUNC | KEY_HOME);
	cr_assert_eq(parse("End"), TREX_KEY_FUNC | KEY_END);
	cr_assert_eq(parse("F1"), TREX_KEY_FUNC | (trex_key)KEY_F(1));
	cr_assert_eq(parse("<f12>"), TREX_KEY_FUNC | (trex_key)KEY_F(12));
	cr_assert_eq(parse("S-F3"), TREX_KEY_FUNC | (trex_key)KEY_F(15));
	cr_assert_eq(parse("Shift-F3"), TREX_KEY_FUNC | (trex_key)KEY_F(15));
	cr_assert_eq(parse("Enter"), '\r');
	cr_assert_eq(parse("<Return>"), '\r');
	cr_assert_eq(parse("Esc"), 27);
	cr_assert_eq(parse("Tab"), '\t');
	cr_assert_eq(parse("<BackTab>"), TREX_KEY_FUNC | KEY_BTAB);
	cr_assert_eq(parse("S-Tab"), TREX_KEY_FUNC | KEY_BTAB);
	cr_assert_eq(parse("Space"), ' ');
	cr_assert_eq(parse("<Hash>"), '#');
	cr_assert_eq(parse("<LessThan>"), '<');
	cr_assert_eq(parse("Backspace"), TREX_KEY_FUNC | KEY_BACKSPACE);
	cr_assert_eq(parse("<ShiftRight>"), TREX_KEY_FUNC | KEY_SRIGHT);
	cr_assert_eq(parse("Shift-Left"), TREX_KEY_FUNC | KEY_SLEFT);
	cr_assert_eq(parse("Delete"), TREX_KEY_FUNC | KEY_DC);
}

Test(key, rejects_bad_names)
{
	static const char *const bad[] = {
	    "",   "jj",  "<>",  "<jj>", "C-",  "C-1", "C-dd", "C-@",  "M-",   "M-M-x",
	    "F0", "F13", "F1x", "S-F0", "Foo", "\t",  "\x7f", "\xff", "\xc3", "<C-Up>",
	};
	trex_key key;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_not(trex_key_parse(bad[i], &key), "'%s' should not parse", bad[i]);
	cr_assert_not(trex_key_parse(NULL, &key));
}

Test(key, canonical_names)
{
	assert_name('j', "j");
	assert_name(4, "C-d");
	assert_name(TREX_KEY_META | 'x', "M-x");
	assert_name(TREX_KEY_FUNC | KEY_NPAGE, "PgDn");
	assert_name(TREX_KEY_FUNC | KEY_PPAGE, "PgUp");
	assert_name(TREX_KEY_FUNC | (trex_key)KEY_F(10), "F10");
	assert_name(TREX_KEY_FUNC | (trex_key)KEY_F(13), "S-F1");
	assert_name(' ', "Space");
	assert_name('#', "Hash");
	assert_name('<', "<");
	assert_name(TREX_KEY_META | '<', "M-<");
	assert_name('\r', "Enter");
	assert_name(27, "Esc");
	assert_name('\t', "Tab");
	assert_name(127, "C-?");
	assert_name(0xe9, "é");
	assert_name(TREX_KEY_META | TREX_KEY_FUNC | KEY_UP, "M-Up");
}

static void assert_round_trip(trex_key key)
{
	char buf[TREX_KEY_NAME_MAX];
	trex_key back = 0;

	trex_key_name(key, buf, sizeof(buf));
	cr_assert(trex_key_parse(buf, &back), "name '%s' of %#x parses", buf, (unsigned)key);
	cr_assert_eq(back, key, "'%s': %#x -> %#x", buf, (unsigned)key, (unsigned)back);
}

Test(key, every_name_round_trips)
{
	for (trex_key c = 1; c < 128; c++) {
		assert_round_trip(c);
		assert_round_trip(TREX_KEY_META | c);
	}
	for (int f = 1; f <= 24; f++)
		assert_round_trip(TREX_KEY_FUNC | (trex_key)KEY_F(f));
	static const int fn[] = {KEY_UP,        KEY_DOWN,  KEY_LEFT,  KEY_RIGHT,  KEY_PPAGE,
	                         KEY_NPAGE,     KEY_HOME,  KEY_END,   KEY_IC,     KEY_DC,
	                         KEY_BACKSPACE, KEY_BTAB,  KEY_SLEFT, KEY_SRIGHT, KEY_SR,
	                         KEY_SF,        KEY_SHOME, KEY_SEND};
	for (size_t i = 0; i < sizeof(fn) / sizeof(fn[0]); i++) {
		assert_round_trip(TREX_KEY_FUNC | (trex_key)fn[i]);
		assert_round_trip(TREX_KEY_META | TREX_KEY_FUNC | (trex_key)fn[i]);
	}
	assert_round_trip(0xe9);
	assert_round_trip(0x1f600);
}

Test(key, normalize)
{
	cr_assert_eq(trex_key_normalize(127), TREX_KEY_FUNC | KEY_BACKSPACE);
	cr_assert_eq(trex_key_normalize('\n'), '\r');
	cr_assert_eq(trex_key_normalize(TREX_KEY_FUNC | KEY_ENTER), '\r');
	cr_assert_eq(trex_key_normalize(TREX_KEY_META | 127),
	             TREX_KEY_META | TREX_KEY_FUNC | KEY_BACKSPACE);
	cr_assert_eq(trex_key_normalize('j'), 'j');
	cr_assert_eq(trex_key_normalize(8), 8, "C-h stays C-h");
}

/* ---- keymap files ------------------------------------------------------------- */

struct errors {
	char text[16][256];
	int n;
};

static void collect(void *user, const char *text)
{
	struct errors *e = user;

	if (e->n < 16)
		snprintf(e->text[e->n], sizeof(e->text[0]), "%s", text);
	e->n++;
}

static struct trex_keymap *km;

static void setup(void)
{
	km = trex_keymap_new();
	cr_assert_not_null(km);
}

static void teardown(void)
{
	trex_keymap_free(km);
}

TestSuite(keymap, .init = setup, .fini = teardown);

Test(keymap, bad_lines_are_reported_and_skipped)
{
	struct errors e = {0};
	const char *text = "# comment\n"
	                   "\n"
	                   "bind generic j move-down\n"
	                   "bind generic jj move-down\n"
	                   "   bind nowhere j move-down   # trailing comment\n"
	                   "bind timeline w zoom\n"
	                   "bind generic k\n"
	                   "unbind generic k\n"
	                   "bind generic k move-up\n"
	                   "bind generic K move-up extra\n"
	                   "bind generic <Up> move-up";
	unsigned n = trex_keymap_load_string(km, "test.keys", text, collect, &e);

	cr_assert_eq(n, 6);
	cr_assert_eq(e.n, 6);
	cr_assert_str_eq(e.text[0], "test.keys:4: unknown key 'jj'");
	cr_assert_str_eq(e.text[1], "test.keys:5: unknown keymap 'nowhere'");
	cr_assert_str_eq(e.text[2], "test.keys:6: unknown action 'zoom'");
	cr_assert_str_eq(e.text[3],
	                 "test.keys:7: bind takes 3 arguments (bind KEYMAP KEY ACTION), not 2");
	cr_assert_str_eq(e.text[4], "test.keys:8: unknown command 'unbind' (expected bind)");
	cr_assert_str_eq(e.text[5],
	                 "test.keys:10: bind takes 3 arguments (bind KEYMAP KEY ACTION), not 4");
	/* the rest loaded, the last line without a newline too */
	cr_assert_eq(trex_keymap_lookup(km, TREX_KEYMAP_GENERIC, 'j'), TREX_ACTION_MOVE_DOWN);
	cr_assert_eq(trex_keymap_lookup(km, TREX_KEYMAP_GENERIC, 'k'), TREX_ACTION_MOVE_UP);
	cr_assert_eq(trex_keymap_lookup(km, TREX_KEYMAP_GENERIC, TREX_KEY_FUNC | KEY_UP),
	             TREX_ACTION_MOVE_UP);
	cr_assert_eq(trex_keymap_lookup(km, TREX_KEYMAP_GENERIC, 'K'), TREX_ACTION_NONE);
}

Test(keymap, crlf_tabs_and_hash_key)
{
	struct errors e = {0};

	cr_assert_eq(
	    trex_keymap_load_string(km, "x", "bind\tgeneric\t<Hash>\thelp\r\n", collect, &e), 0);
	cr_assert_eq(trex_keymap_lookup(km, TREX_KEYMAP_GENERIC, '#'), TREX_ACTION_HELP);
	/* a bare # starts a comment, so this line lacks its key and action */
	cr_assert_eq(trex_keymap_load_string(km, "x", "bind generic # help\n", collect, &e), 1);
	cr_assert_str_eq(e.text[0], "x:1: bind takes 3 arguments (bind KEYMAP KEY ACTION), not 1");
}

Test(keymap, later_binding_wins)
{
	const char *text = "bind generic x export-table\n"
	                   "bind generic y redraw\n"
	                   "bind generic x quit\n";

	cr_assert_eq(trex_keymap_load_string(km, "t", text, NULL, NULL), 0);
	cr_assert_eq(trex_keymap_lookup(km, TREX_KEYMAP_GENERIC, 'x'), TREX_ACTION_QUIT);
	trex_key keys[4];

	cr_assert_eq(trex_keymap_keys(km, TREX_KEYMAP_GENERIC, TREX_ACTION_EXPORT_TABLE, keys, 4),
	             0);
	cr_assert_eq(trex_keymap_keys(km, TREX_KEYMAP_GENERIC, TREX_ACTION_QUIT, keys, 4), 1);
}

Test(keymap, view_keymap_then_generic_and_none_unbinds)
{
	const char *text = "bind generic j move-down\n"
	                   "bind generic G move-last\n"
	                   "bind generic q view-close\n"
	                   "bind timeline j track-down\n"
	                   "bind timeline q none\n";

	cr_assert_eq(trex_keymap_load_string(km, "t", text, NULL, NULL), 0);
	cr_assert_eq(trex_keymap_lookup(km, TREX_KEYMAP_TIMELINE, 'j'), TREX_ACTION_TRACK_DOWN);
	cr_assert_eq(trex_keymap_lookup(km, TREX_KEYMAP_TABLE, 'j'), TREX_ACTION_MOVE_DOWN);
	cr_assert_eq(trex_keymap_lookup(km, TREX_KEYMAP_TIMELINE, 'G'), TREX_ACTION_MOVE_LAST);
	cr_assert_eq(trex_keymap_lookup(km, TREX_KEYMAP_TIMELINE, 'q'), TREX_ACTION_NONE);
	cr_assert_eq(trex_keymap_lookup(km, TREX_KEYMAP_GENERIC, 'q'), TREX_ACTION_VIEW_CLOSE);
	cr_assert_eq(trex_keymap_lookup(km, TREX_KEYMAP_GENERIC, 'z'), TREX_ACTION_NONE);
}

Test(keymap, lookup_normalizes_terminal_variants)
{
	cr_assert_eq(trex_keymap_load_string(km, "t",
	                                     "bind generic <Enter> enter\n"
	                                     "bind generic <Backspace> back\n",
	                                     NULL, NULL),
	             0);
	cr_assert_eq(trex_keymap_lookup(km, TREX_KEYMAP_GENERIC, '\n'), TREX_ACTION_ENTER);
	cr_assert_eq(trex_keymap_lookup(km, TREX_KEYMAP_GENERIC, TREX_KEY_FUNC | KEY_ENTER),
	             TREX_ACTION_ENTER);
	cr_assert_eq(trex_keymap_lookup(km, TREX_KEYMAP_GENERIC, 127), TREX_ACTION_BACK);
}

Test(keymap, inverse_map_for_help)
{
	const char *text = "bind generic j move-down\n"
	                   "bind generic <Down> move-down\n"
	                   "bind generic <C-n> move-down\n"
	                   "bind timeline j track-down\n"
	                   "bind timeline <Down> track-down\n";
	char buf[64];

	cr_assert_eq(trex_keymap_load_string(km, "t", text, NULL, NULL), 0);
	trex_keymap_describe(km, TREX_KEYMAP_GENERIC, TREX_ACTION_MOVE_DOWN, buf, sizeof(buf));
	cr_assert_str_eq(buf, "j, Down, C-n");
	/* in the timeline j and Down are taken: only C-n still moves down */
	trex_keymap_describe(km, TREX_KEYMAP_TIMELINE, TREX_ACTION_MOVE_DOWN, buf, sizeof(buf));
	cr_assert_str_eq(buf, "C-n");
	trex_keymap_describe(km, TREX_KEYMAP_TIMELINE, TREX_ACTION_TRACK_DOWN, buf, sizeof(buf));
	cr_assert_str_eq(buf, "j, Down");
	trex_keymap_describe(km, TREX_KEYMAP_TABLE, TREX_ACTION_TRACK_DOWN, buf, sizeof(buf));
	cr_assert_str_eq(buf, "");
	cr_assert_eq(trex_keymap_describe(km, TREX_KEYMAP_GENERIC, TREX_ACTION_MOVE_DOWN, buf, 4),
	             12, "returns the full length, as snprintf");
	cr_assert_str_eq(buf, "j, ");
	trex_key keys[1];

	cr_assert_eq(trex_keymap_keys(km, TREX_KEYMAP_GENERIC, TREX_ACTION_MOVE_DOWN, keys, 1), 3);
	cr_assert_eq(keys[0], 'j');
}

Test(keymap, builtin_loads_cleanly_and_binds_every_action)
{
	struct errors e = {0};

	cr_assert_eq(trex_keymap_load_builtin(km, collect, &e), 0, "%s", e.text[0]);
	for (int a = 1; a < TREX_ACTION_COUNT; a++) {
		size_t n = 0;

		for (int m = 0; m < TREX_KEYMAP_COUNT; m++)
			n += trex_keymap_keys(km, (enum trex_keymap_id)m, (enum trex_action)a, NULL,
			                      0);
		cr_assert_gt(n, 0, "%s is not bound", trex_action_name((enum trex_action)a));
	}
	/* a few habits from tui.md section 13 */
	cr_assert_eq(trex_keymap_lookup(km, TREX_KEYMAP_TABLE, 'j'), TREX_ACTION_MOVE_DOWN);
	cr_assert_eq(trex_keymap_lookup(km, TREX_KEYMAP_TIMELINE, 'w'), TREX_ACTION_ZOOM_IN);
	cr_assert_eq(trex_keymap_lookup(km, TREX_KEYMAP_TABLE, 'w'), TREX_ACTION_NONE);
	cr_assert_eq(trex_keymap_lookup(km, TREX_KEYMAP_TIMELINE, '?'), TREX_ACTION_HELP);
	cr_assert_eq(
	    trex_keymap_lookup(km, TREX_KEYMAP_GENERIC, TREX_KEY_FUNC | (trex_key)KEY_F(10)),
	    TREX_ACTION_QUIT);
	cr_assert_eq(trex_keymap_lookup(km, TREX_KEYMAP_GENERIC, 4), TREX_ACTION_HALF_PAGE_DOWN);
	cr_assert_eq(trex_keymap_lookup(km, TREX_KEYMAP_TIMELINE, 27), TREX_ACTION_CLEAR);
	cr_assert_eq(trex_keymap_lookup(km, TREX_KEYMAP_GENERIC, '\\'), TREX_ACTION_FILTER);
}

Test(keymap, user_file_on_top_of_builtin)
{
	char path[] = "/tmp/trex-keys-XXXXXX";
	int fd = mkstemp(path);
	FILE *f;
	struct errors e = {0};

	cr_assert_geq(fd, 0);
	f = fdopen(fd, "w");
	fputs("bind generic j move-up\nbind generic <Nope> quit\n", f);
	fclose(f);
	trex_keymap_load_builtin(km, NULL, NULL);
	cr_assert_eq(trex_keymap_load_file(km, path, collect, &e), 1);
	char want[128];

	snprintf(want, sizeof(want), "%s:2: unknown key '<Nope>'", path);
	cr_assert_str_eq(e.text[0], want);
	cr_assert_eq(trex_keymap_lookup(km, TREX_KEYMAP_GENERIC, 'j'), TREX_ACTION_MOVE_UP);
	cr_assert_eq(trex_keymap_lookup(km, TREX_KEYMAP_GENERIC, 'k'), TREX_ACTION_MOVE_UP);
	unlink(path);
	cr_assert_eq(trex_keymap_load_file(km, path, collect, &e), 1);
	snprintf(want, sizeof(want), "%s: cannot read: No such file or directory", path);
	cr_assert_str_eq(e.text[1], want);
}

Test(keymap, long_lines_and_too_many_words)
{
	struct errors e = {0};
	char *text = malloc(TREX_CONFIG_LINE_MAX + 64);

	memset(text, 'x', TREX_CONFIG_LINE_MAX + 1);
	strcpy(text + TREX_CONFIG_LINE_MAX + 1, "\nbind generic j quit\n");
	cr_assert_eq(trex_keymap_load_string(km, "t", text, collect, &e), 1);
	cr_assert_str_eq(e.text[0], "t:1: line longer than 1024 bytes");
	cr_assert_eq(trex_keymap_lookup(km, TREX_KEYMAP_GENERIC, 'j'), TREX_ACTION_QUIT);
	free(text);
	cr_assert_eq(
	    trex_keymap_load_string(km, "t", "a b c d e f g h i j k l m n o p q\n", collect, &e),
	    1);
	cr_assert_str_eq(e.text[1], "t:1: more than 16 words");
}

Test(keymap, names)
{
	cr_assert_eq(trex_keymap_by_name("timeline"), TREX_KEYMAP_TIMELINE);
	cr_assert_eq(trex_keymap_by_name("Timeline"), -1);
	cr_assert_str_eq(trex_keymap_name(TREX_KEYMAP_TABLE), "table");
	cr_assert_null(trex_keymap_name(TREX_KEYMAP_COUNT));
}

/* ---- where the user's file is ---------------------------------------------------- */

Test(config_path, search_order)
{
	char buf[64];

	cr_assert_str_eq(
	    trex_config_user_path(buf, sizeof(buf), "keys", "/x/my.keys", "/xdg", "/h"),
	    "/x/my.keys");
	cr_assert_str_eq(trex_config_user_path(buf, sizeof(buf), "keys", "", "/xdg", "/h"),
	                 "/xdg/trex/keys");
	cr_assert_str_eq(trex_config_user_path(buf, sizeof(buf), "theme", NULL, NULL, "/h"),
	                 "/h/.config/trex/theme");
	cr_assert_str_eq(trex_config_user_path(buf, sizeof(buf), "keys", NULL, "", "/h"),
	                 "/h/.config/trex/keys");
	cr_assert_str_eq(trex_config_user_path(buf, sizeof(buf), "keys", NULL, "rel", "/h"),
	                 "/h/.config/trex/keys", "a relative XDG_CONFIG_HOME is ignored");
	cr_assert_null(trex_config_user_path(buf, sizeof(buf), "keys", NULL, NULL, NULL));
	cr_assert_null(trex_config_user_path(buf, sizeof(buf), "keys", NULL, NULL, ""));
	cr_assert_null(trex_config_user_path(buf, 8, "keys", NULL, "/xdg", "/h"), "too long");
}
