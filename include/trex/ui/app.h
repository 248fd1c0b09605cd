/* The interactive UI: runs the timeline of a loaded index on the terminal
 * until the user quits. The CLI's only way into the UI. */
#ifndef TREX_UI_APP_H
#define TREX_UI_APP_H

#include <stdbool.h>

#include "trex/core/index.h"
#include "trex/core/status.h"
#include "trex/ui/action.h"
#include "trex/ui/theme.h"

struct trex_catset;
struct trex_ideal_log;
struct trex_profile;
struct trex_srcfiles;
struct trex_metrics;

struct trex_ui_opts {
	const char *keys;  /* --keys FILE, else the user's keys file if any */
	const char *theme; /* --theme FILE|NAME, NULL: $TREX_THEME / user file / built-in */
	enum trex_color_mode color;
	bool ascii;
	const char *script;      /* --script: key names separated by spaces, fed first */
	const char *dump_screen; /* --dump-screen FILE: write the screen after the script, quit */
	const char *title;       /* the file(s) shown in the title bar */
	bool no_mouse;           /* --no-mouse: leave the mouse to the terminal */
	bool force;              /* --force: --dump-screen may replace an existing FILE */
	const struct trex_catset *catset; /* --schema rules for the categories view, or NULL */
	const struct trex_ideal_log
	    *ideal;               /* --compiler-log: acelyzer's categories view, or NULL */
	unsigned core_mhz;        /* --core-freq, 0: the default */
	const char *step_pattern; /* --step REGEX for the steps view, or NULL */
	const struct trex_profile *profile; /* stall reports for the stalls views, or NULL */
	uint32_t baseline;                  /* --compare's report, TREX_PROFILE_NONE: none */
	struct trex_srcfiles *sources;      /* --source-path and --source-map, or NULL */
	const struct trex_metrics *metrics; /* metrics inputs linked to the index, or NULL */
	const char *const *metric_names;    /* --metric: the kernels table's metric columns */
	size_t metric_count;
	const struct trex_index *compare; /* --compare's run B: the timeline stacks it, or NULL */
	const char *compare_label;        /* run B's file(s) */
	unsigned diff_rules;              /* --normalize: the diff view's name rules at first */
	int64_t diff_min_ns;              /* --min: the diff view hides smaller changes at first */
	double diff_min_pct;
};

/* Does the interface implement action (in the timeline or everywhere)?
 * Only these are dispatched, shown on the help screen and in trex(1). */
bool trex_ui_action_supported(enum trex_action action);

/* Loads keys and theme (problems go to stderr as "FILE:LINE: message",
 * before the screen starts), then runs the UI. USAGE for a bad --script key
 * or an unknown theme name, IO when the terminal cannot be used or the dump
 * cannot be written. */
enum trex_status trex_ui_run(const struct trex_index *idx, const struct trex_ui_opts *o,
                             struct trex_error *err);

#endif
