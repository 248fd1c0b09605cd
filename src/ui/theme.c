#include "config.h"

#include "trex/ui/theme.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct role_info {
	const char *name;
	const char *help;
	unsigned mono;
};

static const struct role_info roles[TREX_ROLE_COUNT] = {
#define ROLE_ROW(id, name, mono, help) [TREX_ROLE_##id] = {name, help, mono},
    TREX_ROLE_INFO(ROLE_ROW)
#undef ROLE_ROW
};

static const struct {
	const char *name;
	unsigned bit;
} attrs[] = {
#define ATTR_ROW(id, name, bit) {name, bit},
    TREX_ATTR_INFO(ATTR_ROW)
#undef ATTR_ROW
};

static const char *const basic_names[8] = {"black", "red",     "green", "yellow",
                                           "blue",  "magenta", "cyan",  "white"};

/* Names compare case-insensitively, `-` and `_` alike. */
static bool same_name(const char *a, const char *b)
{
	for (;; a++, b++) {
		int ca = *a == '_' ? '-' : *a;
		int cb = *b == '_' ? '-' : *b;

		if (ca >= 'A' && ca <= 'Z')
			ca += 'a' - 'A';
		if (cb >= 'A' && cb <= 'Z')
			cb += 'a' - 'A';
		if (ca != cb)
			return false;
		if (ca == '\0')
			return true;
	}
}

int trex_role_by_name(const char *name)
{
	for (int i = 0; name && i < TREX_ROLE_COUNT; i++)
		if (same_name(roles[i].name, name))
			return i;
	return -1;
}

static bool role_valid(enum trex_role role)
{
	return (int)role >= 0 && role < TREX_ROLE_COUNT;
}

const char *trex_role_name(enum trex_role role)
{
	return role_valid(role) ? roles[role].name : NULL;
}

const char *trex_role_help(enum trex_role role)
{
	return role_valid(role) ? roles[role].help : NULL;
}

unsigned trex_role_mono_attrs(enum trex_role role)
{
	return role_valid(role) ? roles[role].mono : 0;
}

/* ---- colours ---------------------------------------------------------------------- */

/* The xterm palette, as R, G, B of index i. */
static void palette_rgb(int i, int rgb[3])
{
	static const unsigned char base[16][3] = {
	    {0, 0, 0},       {205, 0, 0},   {0, 205, 0},   {205, 205, 0},
	    {0, 0, 238},     {205, 0, 205}, {0, 205, 205}, {229, 229, 229},
	    {127, 127, 127}, {255, 0, 0},   {0, 255, 0},   {255, 255, 0},
	    {92, 92, 255},   {255, 0, 255}, {0, 255, 255}, {255, 255, 255},
	};
	static const int level[6] = {0, 95, 135, 175, 215, 255};

	if (i < 16) {
		for (int c = 0; c < 3; c++)
			rgb[c] = base[i][c];
	} else if (i < 232) {
		rgb[0] = level[(i - 16) / 36];
		rgb[1] = level[(i - 16) / 6 % 6];
		rgb[2] = level[(i - 16) % 6];
	} else {
		rgb[0] = rgb[1] = rgb[2] = 8 + 10 * (i - 232);
	}
}

/* The index in [from, to) nearest to rgb. */
static int nearest(const int rgb[3], int from, int to)
{
	long best_d = -1;
	int best = from;

	for (int i = from; i < to; i++) {
		int p[3];
		long d = 0;

		palette_rgb(i, p);
		for (int c = 0; c < 3; c++)
			d += (long)(p[c] - rgb[c]) * (p[c] - rgb[c]);
		if (best_d < 0 || d < best_d) {
			best_d = d;
			best = i;
		}
	}
	return best;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool parse_index(const char *s, int *color)
{
	char *end;
	long n;

	if (*s < '0' || *s > '9')
		return false;
	n = strtol(s, &end, 10);
	if (*end != '\0' || n > 255)
		return false;
	*color = (int)n;
	return true;
}

bool trex_color_parse(const char *name, int *color)
{
	const char *rest = name;

	if (!name)
		return false;
	if (strcasecmp(name, "default") == 0) {
		*color = TREX_COLOR_DEFAULT;
		return true;
	}
	if (name[0] == '#') {
		int rgb[3];

		if (strlen(name) != 7)
			return false;
		for (int c = 0; c < 3; c++) {
			int hi = hex_digit(name[1 + 2 * c]), lo = hex_digit(name[2 + 2 * c]);

			if (hi < 0 || lo < 0)
				return false;
			rgb[c] = hi * 16 + lo;
		}
		*color = nearest(rgb, 16, 256);
		return true;
	}
	if (strncasecmp(name, "color", 5) == 0)
		return parse_index(name + 5, color);
	if (parse_index(name, color))
		return true;
	int bright = strncasecmp(name, "bright-", 7) == 0 ? 8 : 0;

	if (bright)
		rest = name + 7;
	for (int i = 0; i < 8; i++) {
		if (strcasecmp(rest, basic_names[i]) == 0) {
			*color = bright + i;
			return true;
		}
	}
	return false;
}

/* The grey of the 16 basic and bright colours nearest to lightness v:
 * black, bright-black, white, bright-white. */
static int grey16(int v)
{
	static const int index[4] = {0, 8, 7, 15}, level[4] = {0, 127, 229, 255};
	int best = 0;

	for (int i = 1; i < 4; i++)
		if (abs(level[i] - v) < abs(level[best] - v))
			best = i;
	return index[best];
}

/* The basic colour (1-6) of a hue sector: red, yellow, green, cyan, blue,
 * magenta, each 60 degrees wide around its hue. */
static int hue_basic(const int rgb[3], int hi, int lo)
{
	static const int sector_color[6] = {1, 3, 2, 6, 4, 5};
	double d = hi - lo, h;

	if (hi == rgb[0])
		h = 60.0 * (rgb[1] - rgb[2]) / d;
	else if (hi == rgb[1])
		h = 120.0 + 60.0 * (rgb[2] - rgb[0]) / d;
	else
		h = 240.0 + 60.0 * (rgb[0] - rgb[1]) / d;
	if (h < 0)
		h += 360.0;
	return sector_color[(int)((h + 30.0) / 60.0) % 6];
}

static long rgb_dist2(const int a[3], const int b[3])
{
	long d = 0;

	for (int c = 0; c < 3; c++)
		d += (long)(a[c] - b[c]) * (a[c] - b[c]);
	return d;
}

/* One of the 16 basic and bright colours for rgb, by hue rather than by
 * distance: the nearest by distance turns every muted colour (the greens
 * and blues of a 256-colour theme) into grey, and grey into black on 8
 * colours, so that slices of every kind looked the same. A colour of
 * little saturation is a grey; any other keeps its hue sector, and of the
 * basic and bright colour of that hue the nearer one. */
static int reduce_rgb(const int rgb[3])
{
	int hi = rgb[0], lo = rgb[0], basic, b[3], br[3];

	for (int c = 1; c < 3; c++) {
		hi = rgb[c] > hi ? rgb[c] : hi;
		lo = rgb[c] < lo ? rgb[c] : lo;
	}
	if (hi - lo < 24 || (hi - lo) * 4 < hi)
		return grey16((rgb[0] + rgb[1] + rgb[2]) / 3);
	basic = hue_basic(rgb, hi, lo);
	palette_rgb(basic, b);
	palette_rgb(basic + 8, br);
	return rgb_dist2(rgb, br) < rgb_dist2(rgb, b) ? basic + 8 : basic;
}

int trex_color_reduce(int color, int depth, bool *bright)
{
	int rgb[3];

	if (bright)
		*bright = false;
	if (color < 0 || depth >= 256)
		return color;
	if (color >= 16) {
		palette_rgb(color, rgb);
		color = reduce_rgb(rgb);
	}
	if (depth >= 16 || color < 8)
		return color;
	if (bright)
		*bright = true;
	return color - 8;
}

bool trex_color_extreme(int color)
{
	int rgb[3], hi, lo;

	if (color < 0 || color > 255)
		return false;
	palette_rgb(color, rgb);
	hi = lo = rgb[0];
	for (int c = 1; c < 3; c++) {
		hi = rgb[c] > hi ? rgb[c] : hi;
		lo = rgb[c] < lo ? rgb[c] : lo;
	}
	return hi <= TREX_EXTREME_DARK || lo >= TREX_EXTREME_LIGHT;
}

/* Relative luminance of palette colour c, 0-255 (Rec. 709 weights). */
static int luma(int c)
{
	int rgb[3];

	palette_rgb(c, rgb);
	return (2126 * rgb[0] + 7152 * rgb[1] + 722 * rgb[2]) / 10000;
}

bool trex_color_close(int a, int b)
{
	int ra[3], rb[3];

	if (a < 0 || b < 0 || a > 255 || b > 255)
		return a == b;
	palette_rgb(a, ra);
	palette_rgb(b, rb);
	return rgb_dist2(ra, rb) < (long)TREX_COLOR_DISTINCT * TREX_COLOR_DISTINCT ||
	       abs(luma(a) - luma(b)) < TREX_LUMA_DISTINCT;
}

int trex_color_ink(int bg, int depth)
{
	if (bg < 0 || bg > 255)
		return TREX_COLOR_DEFAULT;
	if (luma(bg) >= 110)
		return depth >= 256 ? 16 : 0;
	return depth >= 256 ? 231 : depth >= 16 ? 15 : 7;
}

#define MODE_NAMES 3

bool trex_color_mode_parse(const char *s, enum trex_color_mode *mode)
{
	static const char *const names[MODE_NAMES] = {"auto", "always", "never"};

	for (int i = 0; s && i < MODE_NAMES; i++) {
		if (strcmp(s, names[i]) == 0) {
			*mode = (enum trex_color_mode)i;
			return true;
		}
	}
	return false;
}

int trex_color_depth(enum trex_color_mode mode, const char *no_color, int term_colors)
{
	if (mode == TREX_COLOR_NEVER)
		return 0;
	if (mode == TREX_COLOR_AUTO && no_color && no_color[0])
		return 0;
	if (term_colors >= 256)
		return 256;
	if (term_colors >= 16)
		return 16;
	if (term_colors >= 8)
		return 8;
	return 0;
}

/* The legibility rules of trex_theme_style on colours already reduced to
 * depth (> 0): the terminal's own foreground never meets a colour
 * background, a colour foreground on the terminal's background is never
 * one that background could be, and two colours are never too close. */
static void legible(struct trex_style *s, unsigned mono, int depth)
{
	if (s->fg == TREX_COLOR_DEFAULT && s->bg != TREX_COLOR_DEFAULT) {
		s->fg = (int16_t)trex_color_ink(s->bg, depth);
	} else if (s->bg == TREX_COLOR_DEFAULT) {
		if (trex_color_extreme(s->fg)) {
			s->fg = TREX_COLOR_DEFAULT;
			s->attrs |= (uint16_t)mono; /* the colour's meaning, as on mono */
		}
	} else if (trex_color_close(s->fg, s->bg)) {
		s->fg = (int16_t)trex_color_ink(s->bg, depth);
	}
}

struct trex_style trex_theme_style(const struct trex_theme *theme, enum trex_role role, int depth)
{
	struct trex_style s = {TREX_COLOR_DEFAULT, TREX_COLOR_DEFAULT, 0};
	struct trex_style in;
	bool bright = false;

	if (!role_valid(role))
		return s;
	in = theme->role[role];
	s.attrs = in.attrs;
	if (depth <= 0) {
		if (in.fg != TREX_COLOR_DEFAULT || in.bg != TREX_COLOR_DEFAULT)
			s.attrs |= (uint16_t)roles[role].mono;
		return s;
	}
	s.fg = (int16_t)trex_color_reduce(in.fg, depth, &bright);
	if (bright)
		s.attrs |= TREX_ATTR_BOLD;
	s.bg = (int16_t)trex_color_reduce(in.bg, depth, NULL);
	legible(&s, roles[role].mono, depth);
	return s;
}

/* ---- theme files ------------------------------------------------------------------ */

void trex_theme_init(struct trex_theme *theme)
{
	for (int i = 0; i < TREX_ROLE_COUNT; i++)
		theme->role[i] = (struct trex_style){TREX_COLOR_DEFAULT, TREX_COLOR_DEFAULT, 0};
	theme->colors = 256;
}

static int parse_set(struct trex_theme *theme, int argc, char **argv, char *msg, size_t size)
{
	if (argc != 4 || strcmp(argv[2], "=") != 0) {
		snprintf(msg, size, "set takes NAME = VALUE");
		return -1;
	}
	if (!same_name(argv[1], "theme-colors")) {
		snprintf(msg, size, "unknown setting '%s'", argv[1]);
		return -1;
	}
	if (strcmp(argv[3], "8") && strcmp(argv[3], "16") && strcmp(argv[3], "256")) {
		snprintf(msg, size, "theme-colors must be 8, 16 or 256, not '%s'", argv[3]);
		return -1;
	}
	theme->colors = atoi(argv[3]);
	return 0;
}

static int parse_colour_arg(const struct trex_theme *theme, const char *arg, int *color, char *msg,
                            size_t size)
{
	if (!trex_color_parse(arg, color)) {
		snprintf(msg, size, "unknown colour '%s'", arg);
		return -1;
	}
	if (*color >= theme->colors) {
		snprintf(msg, size, "colour '%s' needs theme-colors = %d", arg,
		         *color >= 16 ? 256 : 16);
		return -1;
	}
	return 0;
}

static int parse_color(struct trex_theme *theme, int argc, char **argv, char *msg, size_t size)
{
	struct trex_style st = {0, 0, 0};
	int role, fg, bg;

	if (argc < 4) {
		snprintf(msg, size, "color takes ROLE FG BG [ATTRIBUTE]...");
		return -1;
	}
	if ((role = trex_role_by_name(argv[1])) < 0) {
		snprintf(msg, size, "unknown role '%s'", argv[1]);
		return -1;
	}
	if (parse_colour_arg(theme, argv[2], &fg, msg, size) ||
	    parse_colour_arg(theme, argv[3], &bg, msg, size))
		return -1;
	for (int i = 4; i < argc; i++) {
		size_t a;

		for (a = 0; a < sizeof(attrs) / sizeof(attrs[0]); a++)
			if (strcasecmp(argv[i], attrs[a].name) == 0)
				break;
		if (a < sizeof(attrs) / sizeof(attrs[0]))
			st.attrs |= (uint16_t)attrs[a].bit;
		else if (strcasecmp(argv[i], "normal") != 0) {
			snprintf(msg, size, "unknown attribute '%s'", argv[i]);
			return -1;
		}
	}
	st.fg = (int16_t)fg;
	st.bg = (int16_t)bg;
	theme->role[role] = st;
	return 0;
}

static int theme_line(void *obj, int argc, char **argv, char *msg, size_t size)
{
	if (strcmp(argv[0], "color") == 0)
		return parse_color(obj, argc, argv, msg, size);
	if (strcmp(argv[0], "set") == 0)
		return parse_set(obj, argc, argv, msg, size);
	snprintf(msg, size, "unknown command '%s' (expected color or set)", argv[0]);
	return -1;
}

unsigned trex_theme_load_string(struct trex_theme *theme, const char *name, const char *text,
                                trex_config_error_fn err, void *user)
{
	return trex_config_parse(name, text, strlen(text), theme_line, theme, err, user);
}

unsigned trex_theme_load_file(struct trex_theme *theme, const char *path, trex_config_error_fn err,
                              void *user)
{
	return trex_config_parse_file(path, theme_line, theme, err, user);
}

const struct trex_theme_text *trex_theme_builtin(const char *name)
{
	for (const struct trex_theme_text *t = trex_theme_builtins; name && t->name; t++)
		if (strcmp(t->name, name) == 0)
			return t;
	return NULL;
}

unsigned trex_theme_load_builtin(struct trex_theme *theme, trex_config_error_fn err, void *user)
{
	/* dark comes first in the table (Makefile.am) */
	return trex_theme_load_string(theme, "(built-in themes/dark.theme)",
	                              trex_theme_builtins[0].text, err, user);
}
