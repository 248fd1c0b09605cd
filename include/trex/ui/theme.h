/* Themes: views ask for semantic colour roles, never for colours; a theme
 * file (trex-theme(5)) maps each role to colours and attributes, and the
 * pure functions below reduce that to what the terminal can show (256 ->
 * 16/8 colours -> monochrome attributes), honouring NO_COLOR and --color. */
#ifndef TREX_UI_THEME_H
#define TREX_UI_THEME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/ui/config.h"

/* Attributes, as bits (the UI maps them to A_BOLD, ...). */
#define TREX_ATTR_INFO(X)                                                                          \
	X(BOLD, "bold", 1u << 0)                                                                   \
	X(DIM, "dim", 1u << 1)                                                                     \
	X(REVERSE, "reverse", 1u << 2)                                                             \
	X(UNDERLINE, "underline", 1u << 3)                                                         \
	X(STANDOUT, "standout", 1u << 4)                                                           \
	X(BLINK, "blink", 1u << 5)                                                                 \
	X(ITALIC, "italic", 1u << 6)

enum {
#define TREX_ATTR_ENUM(id, name, bit) TREX_ATTR_##id = bit,
	TREX_ATTR_INFO(TREX_ATTR_ENUM)
#undef TREX_ATTR_ENUM
};
#define TREX_ATTR_NONE 0u

/* X(ID, name, mono, help): every colour role. `mono` is what the role gets
 * on a monochrome screen in place of the colours a theme gives it, so that
 * no meaning is carried by colour alone. */
#define TREX_ROLE_INFO(X)                                                                          \
	X(DEFAULT, "default", 0, "Normal text and the background")                                 \
	X(CURSOR, "cursor", TREX_ATTR_REVERSE, "The selected line or slice in the focused pane")   \
	X(SELECTION, "selection", TREX_ATTR_UNDERLINE,                                             \
	  "The selected line in a pane without focus")                                             \
	X(TITLE, "title", TREX_ATTR_REVERSE, "The title bar of a view")                            \
	X(STATUS, "status", 0, "The status line")                                                  \
	X(HEADER, "header", TREX_ATTR_BOLD, "Table column headers")                                \
	X(HEADER_SORT, "header-sort", TREX_ATTR_BOLD | TREX_ATTR_UNDERLINE,                        \
	  "The header of the sort column")                                                         \
	X(BORDER, "border", 0, "Pane borders and separators")                                      \
	X(DIM, "dim", TREX_ATTR_DIM, "Secondary text")                                             \
	X(NUMBER, "number", 0, "Numbers in tables")                                                \
	X(LARGE_NUMBER, "large-number", TREX_ATTR_BOLD, "Large numbers (milliseconds and more)")   \
	X(SEARCH_MATCH, "search-match", TREX_ATTR_UNDERLINE, "Text that matches the search")       \
	X(SEARCH_FAILED, "search-failed", TREX_ATTR_BOLD,                                          \
	  "The search prompt when nothing matches")                                                \
	X(FILTER_BADGE, "filter-badge", TREX_ATTR_REVERSE, "The FILTER badge in the status line")  \
	X(PROMPT, "prompt", TREX_ATTR_BOLD, "Search, filter and command prompts")                  \
	X(FKEY, "fkey", TREX_ATTR_BOLD, "Function bar: key names")                                 \
	X(FKEY_LABEL, "fkey-label", TREX_ATTR_REVERSE, "Function bar: labels")                     \
	X(HELP_KEY, "help-key", TREX_ATTR_BOLD, "Key names on the help screen")                    \
	X(HELP_GROUP, "help-group", TREX_ATTR_BOLD | TREX_ATTR_UNDERLINE,                          \
	  "Group titles on the help screen")                                                       \
	X(ERROR, "error", TREX_ATTR_BOLD, "Error messages")                                        \
	X(WARNING, "warning", TREX_ATTR_BOLD, "Warnings")                                          \
	X(RULER, "ruler", 0, "The time axis of the timeline")                                      \
	X(TRACK_NAME, "track-name", 0, "Track names in the timeline")                              \
	X(TRACK_GROUP, "track-group", TREX_ATTR_BOLD, "Track group (process, rank) names")         \
	X(SLICE_COMPUTE, "slice-compute", TREX_ATTR_REVERSE, "Compute kernels in the timeline")    \
	X(SLICE_MEMORY, "slice-memory", TREX_ATTR_REVERSE,                                         \
	  "Memory copies and sets in the timeline")                                                \
	X(SLICE_COMM, "slice-comm", TREX_ATTR_REVERSE,                                             \
	  "Communication (collectives) in the timeline")                                           \
	X(SLICE_CPU, "slice-cpu", TREX_ATTR_REVERSE, "CPU-side slices in the timeline")            \
	X(SLICE_OTHER, "slice-other", TREX_ATTR_REVERSE, "Other slices in the timeline")           \
	X(IDLE, "idle", TREX_ATTR_DIM, "Idle time and empty tracks")                               \
	X(KERNEL_HOT, "kernel-hot", TREX_ATTR_BOLD, "Kernels above the hot share of GPU time")     \
	X(KERNEL_WARM, "kernel-warm", 0, "Kernels above the warm share of GPU time")               \
	X(STALL, "stall", TREX_ATTR_BOLD, "Stall samples and stalled instructions")                \
	X(MARK, "mark", TREX_ATTR_UNDERLINE, "Marks, marked table rows and the range on the axis") \
	X(RANGE, "range", TREX_ATTR_UNDERLINE,                                                     \
	  "The tint behind what the marked time range covers in the timeline")                     \
	X(FLOW, "flow", TREX_ATTR_BOLD, "Flow links between slices")                               \
	X(DETAILS_KEY, "details-key", TREX_ATTR_BOLD, "Field names in the details pane")

enum trex_role {
#define TREX_ROLE_ENUM(id, name, mono, help) TREX_ROLE_##id,
	TREX_ROLE_INFO(TREX_ROLE_ENUM)
#undef TREX_ROLE_ENUM
	    TREX_ROLE_COUNT
};

/* The role called name (case-insensitive; `-` and `_` are the same), or -1. */
int trex_role_by_name(const char *name);
const char *trex_role_name(enum trex_role role);
const char *trex_role_help(enum trex_role role);
/* The attributes that replace the role's colours on a monochrome screen. */
unsigned trex_role_mono_attrs(enum trex_role role);

/* Colours: TREX_COLOR_DEFAULT (the terminal's own) or an xterm-256 index. */
#define TREX_COLOR_DEFAULT (-1)

struct trex_style {
	int16_t fg, bg;
	uint16_t attrs; /* TREX_ATTR_* bits */
};

struct trex_theme {
	struct trex_style role[TREX_ROLE_COUNT];
	int colors; /* `set theme-colors`: 8, 16 or 256 (the default) */
};

/* Parses a colour: `default`, black red green yellow blue magenta cyan white,
 * bright-black ... bright-white (8-15), colorN or N (0-255), #rrggbb (nearest
 * index of the 6x6x6 cube and grey ramp). Returns false for anything else. */
bool trex_color_parse(const char *name, int *color);

/* Every role default/default/no attributes, theme-colors 256. */
void trex_theme_init(struct trex_theme *theme);

/* Loads theme text or a file on top of theme. Each bad line is reported
 * through err (may be NULL) as "FILE:LINE: message" and skipped. Returns the
 * number of problems. */
unsigned trex_theme_load_string(struct trex_theme *theme, const char *name, const char *text,
                                trex_config_error_fn err, void *user);
unsigned trex_theme_load_file(struct trex_theme *theme, const char *path, trex_config_error_fn err,
                              void *user);

/* The shipped themes, compiled in from themes/NAME.theme: dark (the
 * default), light, mono and high-contrast; the list ends with {NULL, NULL}. */
struct trex_theme_text {
	const char *name, *text;
};
extern const struct trex_theme_text trex_theme_builtins[];
/* The shipped theme called name, NULL when there is none. */
const struct trex_theme_text *trex_theme_builtin(const char *name);
/* Loads the default theme (dark). */
unsigned trex_theme_load_builtin(struct trex_theme *theme, trex_config_error_fn err, void *user);

/* --color=auto|always|never */
enum trex_color_mode { TREX_COLOR_AUTO, TREX_COLOR_ALWAYS, TREX_COLOR_NEVER };
bool trex_color_mode_parse(const char *s, enum trex_color_mode *mode);

/* The colour depth to draw with: 0 (monochrome), 8, 16 or 256.
 * term_colors is COLORS after start_color(), 0 when !has_colors().
 * never -> 0; auto -> 0 when no_color (the value of $NO_COLOR, NULL when
 * unset) is non-empty; always ignores NO_COLOR. Otherwise the largest of
 * 256, 16, 8 the terminal has (88 colours -> 16), 0 below 8. */
int trex_color_depth(enum trex_color_mode mode, const char *no_color, int term_colors);

/* color reduced to a depth of 8, 16 or 256. Below 256 a colour keeps its
 * hue: a grey becomes the nearest of black, bright-black, white and
 * bright-white, any other colour the basic or bright colour of its hue
 * sector (red, yellow, green, cyan, blue, magenta), whichever is nearer.
 * At depth 8 a bright colour becomes its base colour and *bright is set
 * (foregrounds then get bold); bright may be NULL. */
int trex_color_reduce(int color, int depth, bool *bright);

/* Legibility. A terminal's own background may be dark or light, so trex
 * treats as "could be the terminal's background" (extreme) every colour
 * whose channels are all at most TREX_EXTREME_DARK or all at least
 * TREX_EXTREME_LIGHT (xterm palette), and two colours closer than
 * TREX_COLOR_DISTINCT (RGB distance) or TREX_LUMA_DISTINCT in luminance
 * (0-255; black on blue) as too close to read. */
#define TREX_EXTREME_DARK 64
#define TREX_EXTREME_LIGHT 190
#define TREX_COLOR_DISTINCT 64
#define TREX_LUMA_DISTINCT 40
/* Is color (0-255) near black or near white? Never for TREX_COLOR_DEFAULT. */
bool trex_color_extreme(int color);
/* Are a and b (0-255 or TREX_COLOR_DEFAULT) too close to tell apart? */
bool trex_color_close(int a, int b);
/* Black or white, whichever reads on bg, as a colour of depth (8, 16, 256). */
int trex_color_ink(int bg, int depth);

/* What to apply for role at depth (as trex_color_depth returns): colours
 * reduced to the depth; at depth 0 no colours, and the role's mono
 * attributes added when the theme gave it a colour. At every depth the
 * result is legible on dark and light terminals alike: a default
 * foreground on a colour background becomes black or white (what reads on
 * it); a foreground that could be the terminal's background on the
 * default background becomes default, with the role's mono attributes; a
 * foreground too close to its background becomes black or white. */
struct trex_style trex_theme_style(const struct trex_theme *theme, enum trex_role role, int depth);

#endif
