/* Actions: everything the interactive UI can do, by name. Keymaps bind keys
 * to these names; the help screen and trex-keys(5) list them from this table. */
#ifndef TREX_UI_ACTION_H
#define TREX_UI_ACTION_H

#include <stddef.h>

/* X(ID, name, title): the groups the help screen shows, in this order. */
#define TREX_ACTION_GROUP_INFO(X)                                                                  \
	X(MOVE, "move", "Moving around")                                                           \
	X(VIEW, "view", "Views and panes")                                                         \
	X(SEARCH, "search", "Searching and filtering")                                             \
	X(SORT, "sort", "Tables: sorting and grouping")                                            \
	X(ZOOM, "zoom", "Timeline: zooming and panning")                                           \
	X(SELECT, "select", "Timeline: selecting")                                                 \
	X(TRACKS, "tracks", "Timeline: tracks")                                                    \
	X(MISC, "misc", "Miscellaneous")

/* X(GROUP, ID, name, help): every action, once. `name` is what keymap files
 * use; `help` is one line for the help screen and the man page. */
#define TREX_ACTION_INFO(X)                                                                        \
	X(MOVE, MOVE_DOWN, "move-down", "Move the cursor down one line")                           \
	X(MOVE, MOVE_UP, "move-up", "Move the cursor up one line")                                 \
	X(MOVE, PAGE_DOWN, "page-down", "Move down one screen")                                    \
	X(MOVE, PAGE_UP, "page-up", "Move up one screen")                                          \
	X(MOVE, HALF_PAGE_DOWN, "half-page-down", "Move down half a screen")                       \
	X(MOVE, HALF_PAGE_UP, "half-page-up", "Move up half a screen")                             \
	X(MOVE, MOVE_FIRST, "move-first", "Move to the first line")                                \
	X(MOVE, MOVE_LAST, "move-last", "Move to the last line")                                   \
	X(MOVE, SCROLL_LEFT, "scroll-left", "Scroll the columns to the left")                      \
	X(MOVE, SCROLL_RIGHT, "scroll-right", "Scroll the columns to the right")                   \
	X(VIEW, ENTER, "enter", "Open the selected item (drill in)")                               \
	X(VIEW, BACK, "back", "Go back (tables: clear search, marks, filter first)")               \
	X(VIEW, VIEW_CLOSE, "view-close", "Close the view; quit from the top view")                \
	X(VIEW, NEXT_PANE, "next-pane", "Move the focus to the next pane")                         \
	X(VIEW, PREV_PANE, "prev-pane", "Move the focus to the previous pane")                     \
	X(VIEW, OPEN_TIMELINE, "open-timeline", "Show the timeline")                               \
	X(VIEW, OPEN_KERNELS, "open-kernels", "Show the kernels table")                            \
	X(VIEW, OPEN_STALLS, "open-stalls", "Show the stalls table (on a kernel: its report)")     \
	X(VIEW, OPEN_CATEGORIES, "open-categories", "Show the categories breakdown")               \
	X(VIEW, OPEN_SOURCES, "open-sources", "Show the sources table")                            \
	X(VIEW, OPEN_GPU_TIME, "open-gpu-time", "Show the GPU time accounting")                    \
	X(VIEW, OPEN_GAPS, "open-gaps", "Show the idle gaps of each GPU")                          \
	X(VIEW, OPEN_STEPS, "open-steps", "Show the time of each step on the GPUs")                \
	X(VIEW, OPEN_OPS, "open-ops", "Show the CPU ops summary")                                  \
	X(VIEW, OPEN_API, "open-api", "Show the runtime API summary")                              \
	X(VIEW, OPEN_INTEGRITY, "open-integrity",                                                  \
	  "Show the integrity counters: what was lost or repaired")                                \
	X(VIEW, OPEN_METRICS, "open-metrics", "Show the hardware metrics per kernel")              \
	X(VIEW, OPEN_NODES, "open-nodes", "Show the nodes of an execution graph as scheduled")     \
	X(VIEW, OPEN_DIFF, "open-diff", "Show this run against the compared run (diff view)")      \
	X(VIEW, OPEN_STRAGGLERS, "open-stragglers",                                                \
	  "Show which rank each collective and step waited for")                                   \
	X(VIEW, TOGGLE_TIMELINE, "toggle-timeline", "Switch between timeline and table")           \
	X(VIEW, DETAILS, "details", "Show or hide the details pane")                               \
	X(SEARCH, SEARCH, "search", "Search forward (incremental)")                                \
	X(SEARCH, NEXT_MATCH, "next-match", "Go to the next match")                                \
	X(SEARCH, PREV_MATCH, "prev-match", "Go to the previous match")                            \
	X(SEARCH, FILTER, "filter", "Hide what does not match a pattern")                          \
	X(SEARCH, CLEAR, "clear", "Clear the selection, search or filter")                         \
	X(SORT, SORT_NEXT, "sort-next", "Sort by the next column")                                 \
	X(SORT, SORT_PREV, "sort-prev", "Sort by the previous column")                             \
	X(SORT, SORT_INVERT, "sort-invert", "Invert the sort order")                               \
	X(SORT, SORT_MENU, "sort-menu", "Choose the sort column from a list")                      \
	X(SORT, COLUMNS, "columns", "Choose the columns shown")                                    \
	X(SORT, MARK_ROW, "mark-row", "Mark or unmark the selected row")                           \
	X(SORT, TOGGLE_NAMES, "toggle-names", "Show names full or shortened")                      \
	X(SORT, CYCLE_GROUP, "cycle-group", "Group the table by the next key")                     \
	X(SORT, NAME_RULE, "name-rule", "Match names exactly or by the next rule (diff view)")     \
	X(SORT, MIN_CHANGE, "min-change",                                                          \
	  "Hide rows that changed less than a time or a % (diff view)")                            \
	X(SORT, METRIC_COLUMNS, "metric-columns",                                                  \
	  "Show or hide the kernels table's metric columns")                                       \
	X(ZOOM, ZOOM_IN, "zoom-in", "Zoom in around the cursor time")                              \
	X(ZOOM, ZOOM_OUT, "zoom-out", "Zoom out around the cursor time")                           \
	X(ZOOM, PAN_LEFT, "pan-left", "Pan the timeline left")                                     \
	X(ZOOM, PAN_RIGHT, "pan-right", "Pan the timeline right")                                  \
	X(ZOOM, PAN_LEFT_PAGE, "pan-left-page", "Pan the timeline left by one screen")             \
	X(ZOOM, PAN_RIGHT_PAGE, "pan-right-page", "Pan the timeline right by one screen")          \
	X(ZOOM, FIT_SELECTION, "fit-selection", "Centre the selection; again: fit it")             \
	X(ZOOM, FIT_ALL, "fit-all", "Show the whole trace")                                        \
	X(ZOOM, ZOOM_BACK, "zoom-back", "Go back to the previous zoom")                            \
	X(ZOOM, GOTO_TIME, "goto-time", "Prompt for a time and go there")                          \
	X(SELECT, SELECT_NEXT_SLICE, "select-next-slice", "Select the next slice on the track")    \
	X(SELECT, SELECT_PREV_SLICE, "select-prev-slice",                                          \
	  "Select the previous slice on the track")                                                \
	X(SELECT, TRACK_DOWN, "track-down", "Move to the next track")                              \
	X(SELECT, TRACK_UP, "track-up", "Move to the previous track")                              \
	X(SELECT, TOGGLE_GROUP, "toggle-group", "Expand or collapse the track group")              \
	X(SELECT, FOLLOW_LINK, "follow-link",                                                      \
	  "Follow the launch, flow or dependency link of the slice")                               \
	X(SELECT, TOGGLE_FLOWS, "toggle-flows",                                                    \
	  "Draw every flow in the window, or only the selection's")                                \
	X(SELECT, TOGGLE_CRITICAL, "toggle-critical-path",                                         \
	  "Highlight the critical path, or stop highlighting it")                                  \
	X(SELECT, MARK_RANGE, "mark-range", "Set the start, then the end, of a range")             \
	X(SELECT, JUMP_MARK, "jump-mark", "Jump back to the range start")                          \
	X(SELECT, NEXT_MARK, "next-mark", "Go to the next mark")                                   \
	X(SELECT, PREV_MARK, "prev-mark", "Go to the previous mark")                               \
	X(SELECT, ALIGN_SLICE, "align-slice",                                                      \
	  "Align run B at the selected slice's name (--compare)")                                  \
	X(SELECT, ALIGN_STEP, "align-step", "Align run B at a ProfilerStep (--compare)")           \
	X(TRACKS, FIND_TRACK, "find-track", "Jump to a track or rank matching a pattern")          \
	X(TRACKS, FILTER_TRACKS, "filter-tracks", "Show only the tracks matching a pattern")       \
	X(TRACKS, PIN_TRACK, "pin-track", "Pin the track above the others, or unpin it")           \
	X(TRACKS, COLLAPSE_TRACK, "collapse-track", "Fold the track's levels into one row")        \
	X(TRACKS, DEPTH_LESS, "depth-less", "Show one level less of the track")                    \
	X(TRACKS, DEPTH_MORE, "depth-more", "Show one level more of the track")                    \
	X(TRACKS, TOGGLE_HIDDEN, "toggle-hidden", "Show or hide empty and marker-only tracks")     \
	X(TRACKS, FOLLOW_TRACKS, "follow-tracks",                                                  \
	  "Track choices follow the other run, or not (--compare)")                                \
	X(MISC, HELP, "help", "Show the keys of the active keymap")                                \
	X(MISC, PROMPT, "prompt", "Open the command prompt")                                       \
	X(MISC, OPEN_SOURCE, "open-source", "Open the source line in $EDITOR")                     \
	X(MISC, EXPORT_TABLE, "export-table", "Export the table or its marked rows (CSV, JSON)")   \
	X(MISC, EXPORT_TRACE, "export-trace",                                                      \
	  "Export the trace or a part of it (Chrome, Perfetto, Chakra)")                           \
	X(MISC, REDRAW, "redraw", "Redraw the screen")                                             \
	X(MISC, SUSPEND, "suspend", "Suspend trex (fg resumes)")                                   \
	X(MISC, QUIT, "quit", "Quit trex")

enum trex_action_group {
#define TREX_ACTION_GROUP_ENUM(id, name, title) TREX_ACTION_GROUP_##id,
	TREX_ACTION_GROUP_INFO(TREX_ACTION_GROUP_ENUM)
#undef TREX_ACTION_GROUP_ENUM
	    TREX_ACTION_GROUP_COUNT
};

/* TREX_ACTION_NONE (0) is "no action": `none` in a keymap file, which
 * unbinds a key. */
enum trex_action {
	TREX_ACTION_NONE,
#define TREX_ACTION_ENUM(group, id, name, help) TREX_ACTION_##id,
	TREX_ACTION_INFO(TREX_ACTION_ENUM)
#undef TREX_ACTION_ENUM
	    TREX_ACTION_COUNT
};

/* The action called `name` (exact, lower case), `none` -> TREX_ACTION_NONE;
 * -1 when there is no such action. */
int trex_action_by_name(const char *name);

/* Name, help line and group of an action. TREX_ACTION_NONE is "none" with
 * help "" (group 0); out of range: NULL name, "" help, group 0. */
const char *trex_action_name(enum trex_action action);
const char *trex_action_help(enum trex_action action);
enum trex_action_group trex_action_group(enum trex_action action);

/* Short name ("zoom") and title ("Timeline: zooming and panning") of a group;
 * NULL when out of range. */
const char *trex_action_group_name(enum trex_action_group group);
const char *trex_action_group_title(enum trex_action_group group);

#endif
