#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/ui/theme.h"

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

static int color(const char *name)
{
	int c = -2;

	cr_assert(trex_color_parse(name, &c), "colour '%s' parses", name);
	return c;
}

Test(role, names)
{
	cr_assert_eq(trex_role_by_name("kernel-hot"), TREX_ROLE_KERNEL_HOT);
	cr_assert_eq(trex_role_by_name("Kernel_Hot"), TREX_ROLE_KERNEL_HOT);
	cr_assert_eq(trex_role_by_name("CURSOR"), TREX_ROLE_CURSOR);
	cr_assert_eq(trex_role_by_name("kernel"), -1);
	cr_assert_eq(trex_role_by_name(NULL), -1);
	for (int r = 0; r < TREX_ROLE_COUNT; r++) {
		cr_assert_eq(trex_role_by_name(trex_role_name((enum trex_role)r)), r);
		cr_assert(strlen(trex_role_help((enum trex_role)r)) > 0);
	}
	cr_assert_null(trex_role_name(TREX_ROLE_COUNT));
	cr_assert_eq(trex_role_mono_attrs(TREX_ROLE_CURSOR), TREX_ATTR_REVERSE);
}

Test(color, parse)
{
	cr_assert_eq(color("default"), TREX_COLOR_DEFAULT);
	cr_assert_eq(color("black"), 0);
	cr_assert_eq(color("White"), 7);
	cr_assert_eq(color("bright-red"), 9);
	cr_assert_eq(color("bright-white"), 15);
	cr_assert_eq(color("color0"), 0);
	cr_assert_eq(color("color255"), 255);
	cr_assert_eq(color("33"), 33);
	cr_assert_eq(color("#ff0000"), 196);
	cr_assert_eq(color("#000000"), 16);
	cr_assert_eq(color("#808080"), 244);
	cr_assert_eq(color("#FFFFFF"), 231);

	static const char *const bad[] = {"",      "color256", "256",           "-1",
	                                  "#fff",  "#gg0000",  "bright-",       "brown",
	                                  "color", "color1x",  "bright-default"};
	int c;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_not(trex_color_parse(bad[i], &c), "'%s' should not parse", bad[i]);
	cr_assert_not(trex_color_parse(NULL, &c));
}

Test(color, depth_from_mode_no_color_and_terminal)
{
	cr_assert_eq(trex_color_depth(TREX_COLOR_AUTO, NULL, 256), 256);
	cr_assert_eq(trex_color_depth(TREX_COLOR_AUTO, NULL, 88), 16);
	cr_assert_eq(trex_color_depth(TREX_COLOR_AUTO, NULL, 16), 16);
	cr_assert_eq(trex_color_depth(TREX_COLOR_AUTO, NULL, 8), 8);
	cr_assert_eq(trex_color_depth(TREX_COLOR_AUTO, NULL, 2), 0);
	cr_assert_eq(trex_color_depth(TREX_COLOR_AUTO, NULL, 0), 0, "vt100: no colours");
	cr_assert_eq(trex_color_depth(TREX_COLOR_AUTO, "1", 256), 0, "NO_COLOR=1");
	cr_assert_eq(trex_color_depth(TREX_COLOR_AUTO, "", 256), 256, "empty NO_COLOR is unset");
	cr_assert_eq(trex_color_depth(TREX_COLOR_ALWAYS, "1", 256), 256, "always beats NO_COLOR");
	cr_assert_eq(trex_color_depth(TREX_COLOR_ALWAYS, NULL, 0), 0, "but not the terminal");
	cr_assert_eq(trex_color_depth(TREX_COLOR_NEVER, NULL, 256), 0);
}

Test(color, mode_parse)
{
	enum trex_color_mode m = TREX_COLOR_NEVER;

	cr_assert(trex_color_mode_parse("auto", &m));
	cr_assert_eq(m, TREX_COLOR_AUTO);
	cr_assert(trex_color_mode_parse("always", &m));
	cr_assert_eq(m, TREX_COLOR_ALWAYS);
	cr_assert(trex_color_mode_parse("never", &m));
	cr_assert_eq(m, TREX_COLOR_NEVER);
	cr_assert_not(trex_color_mode_parse("yes", &m));
	cr_assert_not(trex_color_mode_parse(NULL, &m));
}

Test(color, reduce_256_to_16_to_8)
{
	bool bright = true;

	cr_assert_eq(trex_color_reduce(196, 256, &bright), 196);
	cr_assert_not(bright);
	cr_assert_eq(trex_color_reduce(196, 16, &bright), 9);
	cr_assert_not(bright);
	cr_assert_eq(trex_color_reduce(196, 8, &bright), 1);
	cr_assert(bright, "bright red on 8 colours: red + bold");
	cr_assert_eq(trex_color_reduce(21, 16, &bright), 4, "pure blue is the basic blue");
	cr_assert_eq(trex_color_reduce(21, 8, &bright), 4);
	cr_assert_not(bright);
	cr_assert_eq(trex_color_reduce(244, 16, NULL), 8, "mid grey");
	cr_assert_eq(trex_color_reduce(244, 8, &bright), 0);
	cr_assert(bright);
	cr_assert_eq(trex_color_reduce(231, 8, &bright), 7);
	cr_assert(bright);
	cr_assert_eq(trex_color_reduce(3, 8, &bright), 3);
	cr_assert_not(bright);
	cr_assert_eq(trex_color_reduce(TREX_COLOR_DEFAULT, 8, &bright), TREX_COLOR_DEFAULT);
	for (int c = 0; c < 256; c++) {
		cr_assert_lt(trex_color_reduce(c, 16, NULL), 16);
		cr_assert_lt(trex_color_reduce(c, 8, NULL), 8);
	}
}

static struct trex_theme theme;

static void setup(void)
{
	trex_theme_init(&theme);
}

TestSuite(theme, .init = setup);

Test(theme, init_is_plain)
{
	for (int r = 0; r < TREX_ROLE_COUNT; r++) {
		cr_assert_eq(theme.role[r].fg, TREX_COLOR_DEFAULT);
		cr_assert_eq(theme.role[r].bg, TREX_COLOR_DEFAULT);
		cr_assert_eq(theme.role[r].attrs, 0);
	}
	cr_assert_eq(theme.colors, 256);
}

Test(theme, parse_errors_and_the_rest_loads)
{
	struct errors e = {0};
	const char *text = "# a theme\n"
	                   "set theme-colors = 16\n"
	                   "color cursor black cyan bold\n"
	                   "color kernel black red\n"
	                   "color header brown default\n"
	                   "color header color33 default\n"
	                   "color stall red default blinking\n"
	                   "colour mark red default\n"
	                   "color flow red\n"
	                   "set theme-colors = 12\n"
	                   "set colours = 8\n"
	                   "set theme-colors 8\n"
	                   "color Kernel_Hot bright-red default bold underline\n"
	                   "color mark default default normal reverse";
	unsigned n = trex_theme_load_string(&theme, "my.theme", text, collect, &e);

	cr_assert_eq(n, 9);
	cr_assert_str_eq(e.text[0], "my.theme:4: unknown role 'kernel'");
	cr_assert_str_eq(e.text[1], "my.theme:5: unknown colour 'brown'");
	cr_assert_str_eq(e.text[2], "my.theme:6: colour 'color33' needs theme-colors = 256");
	cr_assert_str_eq(e.text[3], "my.theme:7: unknown attribute 'blinking'");
	cr_assert_str_eq(e.text[4], "my.theme:8: unknown command 'colour' (expected color or set)");
	cr_assert_str_eq(e.text[5], "my.theme:9: color takes ROLE FG BG [ATTRIBUTE]...");
	cr_assert_str_eq(e.text[6], "my.theme:10: theme-colors must be 8, 16 or 256, not '12'");
	cr_assert_str_eq(e.text[7], "my.theme:11: unknown setting 'colours'");
	cr_assert_str_eq(e.text[8], "my.theme:12: set takes NAME = VALUE");

	cr_assert_eq(theme.colors, 16);
	cr_assert_eq(theme.role[TREX_ROLE_CURSOR].fg, 0);
	cr_assert_eq(theme.role[TREX_ROLE_CURSOR].bg, 6);
	cr_assert_eq(theme.role[TREX_ROLE_CURSOR].attrs, TREX_ATTR_BOLD);
	cr_assert_eq(theme.role[TREX_ROLE_KERNEL_HOT].fg, 9);
	cr_assert_eq(theme.role[TREX_ROLE_KERNEL_HOT].attrs, TREX_ATTR_BOLD | TREX_ATTR_UNDERLINE);
	cr_assert_eq(theme.role[TREX_ROLE_MARK].attrs, TREX_ATTR_REVERSE);
	cr_assert_eq(theme.role[TREX_ROLE_HEADER].fg, TREX_COLOR_DEFAULT,
	             "bad lines change nothing");
	cr_assert_eq(theme.role[TREX_ROLE_STALL].fg, TREX_COLOR_DEFAULT);
}

Test(theme, eight_colour_files_refuse_bright)
{
	struct errors e = {0};

	cr_assert_eq(trex_theme_load_string(&theme, "t",
	                                    "set theme-colors = 8\n"
	                                    "color error bright-red default\n"
	                                    "color error red default\n",
	                                    collect, &e),
	             1);
	cr_assert_str_eq(e.text[0], "t:2: colour 'bright-red' needs theme-colors = 16");
	cr_assert_eq(theme.role[TREX_ROLE_ERROR].fg, 1);
}

Test(theme, style_falls_back_256_16_8_mono)
{
	struct trex_style s;

	cr_assert_eq(trex_theme_load_string(&theme, "t",
	                                    "color cursor color16 color51\n"
	                                    "color kernel-hot color196 default bold\n"
	                                    "color number default default\n"
	                                    "color dim color244 default\n",
	                                    NULL, NULL),
	             0);
	s = trex_theme_style(&theme, TREX_ROLE_KERNEL_HOT, 256);
	cr_assert_eq(s.fg, 196);
	cr_assert_eq(s.bg, TREX_COLOR_DEFAULT);
	cr_assert_eq(s.attrs, TREX_ATTR_BOLD);
	s = trex_theme_style(&theme, TREX_ROLE_KERNEL_HOT, 16);
	cr_assert_eq(s.fg, 9);
	s = trex_theme_style(&theme, TREX_ROLE_KERNEL_HOT, 8);
	cr_assert_eq(s.fg, 1);
	cr_assert_eq(s.attrs, TREX_ATTR_BOLD);
	s = trex_theme_style(&theme, TREX_ROLE_DIM, 16);
	cr_assert_eq(s.fg, 8, "mid grey is bright black on 16 colours");
	/* on 8 colours bright black is black + bold: black on a black
	 * terminal where bold is not bright, so the terminal's own colour,
	 * dimmed as without colours */
	s = trex_theme_style(&theme, TREX_ROLE_DIM, 8);
	cr_assert_eq(s.fg, TREX_COLOR_DEFAULT);
	cr_assert_eq(s.attrs, TREX_ATTR_BOLD | TREX_ATTR_DIM);
	s = trex_theme_style(&theme, TREX_ROLE_CURSOR, 16);
	cr_assert_eq(s.fg, 0);
	cr_assert_eq(s.bg, 14, "cyan 51 -> bright cyan");
	s = trex_theme_style(&theme, TREX_ROLE_CURSOR, 8);
	cr_assert_eq(s.bg, 6);
	cr_assert_eq(s.attrs, 0, "a bright background gets no bold");
	/* monochrome: no colours; roles that had colours get their mono attributes */
	s = trex_theme_style(&theme, TREX_ROLE_CURSOR, 0);
	cr_assert_eq(s.fg, TREX_COLOR_DEFAULT);
	cr_assert_eq(s.bg, TREX_COLOR_DEFAULT);
	cr_assert_eq(s.attrs, TREX_ATTR_REVERSE);
	s = trex_theme_style(&theme, TREX_ROLE_KERNEL_HOT, 0);
	cr_assert_eq(s.attrs, TREX_ATTR_BOLD);
	s = trex_theme_style(&theme, TREX_ROLE_DIM, 0);
	cr_assert_eq(s.attrs, TREX_ATTR_DIM);
	s = trex_theme_style(&theme, TREX_ROLE_NUMBER, 0);
	cr_assert_eq(s.attrs, 0, "no colour, nothing to replace");
	s = trex_theme_style(&theme, TREX_ROLE_COUNT, 256);
	cr_assert_eq(s.fg, TREX_COLOR_DEFAULT);
}

Test(theme, no_color_end_to_end)
{
	struct trex_style s;
	int depth = trex_color_depth(TREX_COLOR_AUTO, "1", 256);

	cr_assert_eq(trex_theme_load_builtin(&theme, NULL, NULL), 0);
	for (int r = 0; r < TREX_ROLE_COUNT; r++) {
		s = trex_theme_style(&theme, (enum trex_role)r, depth);
		cr_assert_eq(s.fg, TREX_COLOR_DEFAULT);
		cr_assert_eq(s.bg, TREX_COLOR_DEFAULT);
	}
	s = trex_theme_style(&theme, TREX_ROLE_CURSOR, depth);
	cr_assert(s.attrs & TREX_ATTR_REVERSE, "the cursor stays visible without colour");
}

Test(theme, builtin_is_dark_and_sets_every_role)
{
	struct errors e = {0};

	cr_assert_eq(trex_theme_load_builtin(&theme, collect, &e), 0, "%s", e.text[0]);
	cr_assert_eq(theme.colors, 256);
	for (int r = 1; r < TREX_ROLE_COUNT; r++) {
		const struct trex_style *s = &theme.role[r];

		cr_assert(s->fg != TREX_COLOR_DEFAULT || s->bg != TREX_COLOR_DEFAULT || s->attrs ||
		              r == TREX_ROLE_NUMBER,
		          "dark.theme leaves %s plain", trex_role_name((enum trex_role)r));
	}
}

Test(theme, shipped_themes_load_cleanly)
{
	static const char *const files[] = {"dark", "light", "mono", "high-contrast"};
	const char *srcdir = getenv("TREX_SRCDIR");

	if (!srcdir)
		cr_skip_test("TREX_SRCDIR is not set (run through make check)");
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct errors e = {0};
		char path[1024];
		struct trex_theme t;

		trex_theme_init(&t);
		snprintf(path, sizeof(path), "%s/themes/%s.theme", srcdir, files[i]);
		cr_assert_eq(trex_theme_load_file(&t, path, collect, &e), 0, "%s", e.text[0]);
		if (strcmp(files[i], "mono") == 0)
			for (int r = 0; r < TREX_ROLE_COUNT; r++)
				cr_assert(t.role[r].fg == TREX_COLOR_DEFAULT &&
				          t.role[r].bg == TREX_COLOR_DEFAULT);
	}
}

Test(theme, rgb_colours_are_not_comments)
{
	struct errors e = {0};

	cr_assert_eq(trex_theme_load_string(&theme, "t",
	                                    "color mark #ffd7ff #000000 # pink on black\n"
	                                    "color flow #ff0000 default #comment\n"
	                                    "color dim red default #12345 bold\n",
	                                    collect, &e),
	             0, "%s", e.text[0]);
	cr_assert_eq(theme.role[TREX_ROLE_MARK].fg, 225);
	cr_assert_eq(theme.role[TREX_ROLE_MARK].bg, 16);
	cr_assert_eq(theme.role[TREX_ROLE_FLOW].fg, 196);
	cr_assert_eq(theme.role[TREX_ROLE_DIM].attrs, 0, "#12345 is a comment");
}

Test(color, reduce_keeps_the_hue)
{
	bool bright;

	/* the dark theme's slice colours: muted, and all nearest to grey by
	 * distance (what drew every slice black on 8-colour terminals) */
	cr_assert_eq(trex_color_reduce(71, 16, NULL), 2, "muted green: green");
	cr_assert_eq(trex_color_reduce(71, 8, NULL), 2);
	cr_assert_eq(trex_color_reduce(179, 8, NULL), 3, "tan: yellow");
	cr_assert_eq(trex_color_reduce(140, 8, NULL), 5, "violet: magenta");
	cr_assert_eq(trex_color_reduce(67, 8, NULL), 4, "steel blue: blue");
	cr_assert_eq(trex_color_reduce(117, 16, NULL), 14, "light sky blue: bright cyan");
	cr_assert_eq(trex_color_reduce(117, 8, &bright), 6);
	cr_assert(bright);
	/* greys by lightness */
	cr_assert_eq(trex_color_reduce(16, 16, NULL), 0);
	cr_assert_eq(trex_color_reduce(236, 16, NULL), 0);
	cr_assert_eq(trex_color_reduce(246, 16, NULL), 8);
	cr_assert_eq(trex_color_reduce(252, 16, NULL), 7);
	cr_assert_eq(trex_color_reduce(231, 16, NULL), 15);
	cr_assert_eq(trex_color_reduce(109, 16, NULL), 8, "greyish cyan of little saturation");
}

Test(color, extreme_close_and_ink)
{
	static const int extreme[] = {0, 7, 15, 16, 231, 232, 237, 251, 255, 230};
	static const int mid[] = {1, 2, 3, 4, 5, 6, 8, 17, 71, 238, 250, 196, 11, 14};

	for (size_t i = 0; i < sizeof(extreme) / sizeof(extreme[0]); i++)
		cr_assert(trex_color_extreme(extreme[i]), "%d could be a background", extreme[i]);
	for (size_t i = 0; i < sizeof(mid) / sizeof(mid[0]); i++)
		cr_assert_not(trex_color_extreme(mid[i]), "%d is a mid colour", mid[i]);
	cr_assert_not(trex_color_extreme(TREX_COLOR_DEFAULT));
	cr_assert(trex_color_close(244, 246));
	cr_assert(trex_color_close(0, 16));
	cr_assert(trex_color_close(0, 4), "black on blue is too dark to read");
	cr_assert_not(trex_color_close(0, 1), "black on red reads");
	cr_assert_not(trex_color_close(7, 4), "white on blue reads");
	cr_assert(trex_color_close(TREX_COLOR_DEFAULT, TREX_COLOR_DEFAULT));
	cr_assert_not(trex_color_close(TREX_COLOR_DEFAULT, 0));
	cr_assert_eq(trex_color_ink(4, 8), 7, "white on blue");
	cr_assert_eq(trex_color_ink(6, 8), 0, "black on cyan");
	cr_assert_eq(trex_color_ink(6, 16), 0);
	cr_assert_eq(trex_color_ink(17, 256), 231);
	cr_assert_eq(trex_color_ink(17, 16), 15);
	cr_assert_eq(trex_color_ink(229, 256), 16);
}

Test(theme, style_is_legible)
{
	struct trex_style s;

	cr_assert_eq(trex_theme_load_string(&theme, "t",
	                                    "color selection default color238\n"
	                                    "color fkey color231 default bold\n"
	                                    "color track-name color16 default\n"
	                                    "color error color244 color246\n"
	                                    "color title color16 color71\n",
	                                    NULL, NULL),
	             0);
	s = trex_theme_style(&theme, TREX_ROLE_SELECTION, 256);
	cr_assert_eq(s.fg, 231, "the terminal's text colour never meets a colour background");
	s = trex_theme_style(&theme, TREX_ROLE_FKEY, 256);
	cr_assert_eq(s.fg, TREX_COLOR_DEFAULT, "white text vanishes on a light terminal");
	cr_assert_eq(s.attrs, TREX_ATTR_BOLD);
	s = trex_theme_style(&theme, TREX_ROLE_TRACK_NAME, 16);
	cr_assert_eq(s.fg, TREX_COLOR_DEFAULT, "black text vanishes on a dark terminal");
	s = trex_theme_style(&theme, TREX_ROLE_ERROR, 256);
	cr_assert_eq(s.fg, 16, "grey on grey: black");
	/* black on a muted green: black on green with 8 colours, never black on black */
	s = trex_theme_style(&theme, TREX_ROLE_TITLE, 8);
	cr_assert_eq(s.fg, 0);
	cr_assert_eq(s.bg, 2);
}

/* Every shipped theme, every role, every colour depth: what trex draws is
 * legible on dark and light terminals (the rule the screen test
 * tests/screen/contrast.sh checks on the real screen). */
Test(theme, shipped_themes_are_legible_at_every_depth)
{
	static const int depths[] = {8, 16, 256};

	for (const struct trex_theme_text *t = trex_theme_builtins; t->name; t++) {
		struct trex_theme th;

		trex_theme_init(&th);
		cr_assert_eq(trex_theme_load_string(&th, t->name, t->text, NULL, NULL), 0);
		for (size_t d = 0; d < sizeof(depths) / sizeof(depths[0]); d++) {
			for (int r = 0; r < TREX_ROLE_COUNT; r++) {
				struct trex_style s =
				    trex_theme_style(&th, (enum trex_role)r, depths[d]);
				const char *what = trex_role_name((enum trex_role)r);

				cr_assert(s.fg != TREX_COLOR_DEFAULT || s.bg == TREX_COLOR_DEFAULT,
				          "%s %d %s: default text on a colour", t->name, depths[d],
				          what);
				cr_assert(s.bg != TREX_COLOR_DEFAULT || !trex_color_extreme(s.fg),
				          "%s %d %s: text that could be the background", t->name,
				          depths[d], what);
				cr_assert(
				    s.bg == TREX_COLOR_DEFAULT || !trex_color_close(s.fg, s.bg),
				    "%s %d %s: %d on %d", t->name, depths[d], what, s.fg, s.bg);
			}
		}
	}
}

/* At 256 colours the shipped files need no correction: what they say is
 * what is drawn. */
Test(theme, shipped_themes_are_drawn_as_written)
{
	for (const struct trex_theme_text *t = trex_theme_builtins; t->name; t++) {
		struct trex_theme th;

		trex_theme_init(&th);
		trex_theme_load_string(&th, t->name, t->text, NULL, NULL);
		for (int r = 0; r < TREX_ROLE_COUNT; r++) {
			struct trex_style s = trex_theme_style(&th, (enum trex_role)r, 256);

			cr_assert(s.fg == th.role[r].fg && s.bg == th.role[r].bg &&
			              s.attrs == th.role[r].attrs,
			          "%s: %s is corrected", t->name,
			          trex_role_name((enum trex_role)r));
		}
	}
}

/* With 8 and 16 colours the slice kinds of the colour themes still differ,
 * and every one of them is a colour that shows on any terminal. */
Test(theme, slice_kinds_stay_apart_on_few_colours)
{
	static const enum trex_role slices[] = {TREX_ROLE_SLICE_COMPUTE, TREX_ROLE_SLICE_MEMORY,
	                                        TREX_ROLE_SLICE_COMM, TREX_ROLE_SLICE_CPU};
	static const char *const names[] = {"dark", "light", "high-contrast"};

	for (size_t n = 0; n < sizeof(names) / sizeof(names[0]); n++) {
		struct trex_theme th;

		trex_theme_init(&th);
		trex_theme_load_string(&th, names[n], trex_theme_builtin(names[n])->text, NULL,
		                       NULL);
		for (int depth = 8; depth <= 16; depth += 8) {
			int bg[4];

			for (int i = 0; i < 4; i++) {
				bg[i] = trex_theme_style(&th, slices[i], depth).bg;
				cr_assert_not(trex_color_extreme(bg[i]), "%s %d: %s", names[n],
				              depth, trex_role_name(slices[i]));
				for (int j = 0; j < i; j++)
					cr_assert_neq(bg[i], bg[j], "%s %d: %s and %s", names[n],
					              depth, trex_role_name(slices[i]),
					              trex_role_name(slices[j]));
			}
		}
	}
}

Test(theme, every_shipped_theme_is_built_in)
{
	static const char *const names[] = {"dark", "light", "mono", "high-contrast"};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		cr_assert_not_null(trex_theme_builtin(names[i]), "%s", names[i]);
	cr_assert_null(trex_theme_builtin("solarized"));
	cr_assert_null(trex_theme_builtin(NULL));
}
