/* The timeline's details pane, links, marked range and go-to-time
 * (timeline_details.c, timeline_range.c): their state lives in struct
 * timeline_view as one struct tl_details; timeline_view.c hands them its
 * actions and timeline_draw.c calls tl_details_draw once. */
#ifndef TREX_UI_TIMELINE_DETAILS_H
#define TREX_UI_TIMELINE_DETAILS_H

#include <stdbool.h>
#include <stdint.h>

#include <curses.h>

#include "trex/analysis/flow_window.h"
#include "trex/analysis/range_stats.h"
#include "trex/analysis/slice_info.h"
#include "trex/ui/action.h"
#include "trex/ui/layout.h"

#define TL_BACK_MAX 64        /* link jumps remembered for zoom-back */
#define TL_COUNTER_AROUND 200 /* counter samples listed either side of the cursor */

/* Where a followed link came from: zoom-back to zoom_depth restores it. */
struct tl_link_back {
	int zoom_depth;
	uint32_t selected;
	size_t cur_row;
	int64_t cursor;
};

enum tl_mark_state { TL_MARK_NONE, TL_MARK_STARTED, TL_MARK_RANGE };

/* The flow connectors (timeline_flows.c): the selected slice's links are
 * always drawn; toggle-flows adds every flow with an end in the window. */
struct tl_flows {
	bool all;
	bool order_built;
	struct trex_flow_order order; /* built at the first toggle */
};

struct tl_details {
	bool shown;        /* the pane is toggled on */
	bool focus;        /* keys move between the pane's links */
	int link_cur;      /* the chosen link */
	bool show_link;    /* scroll the chosen link into view at the next draw */
	int scroll;        /* first pane line shown */
	int pane_h;        /* text lines of the pane at the last draw, 0 when hidden */
	uint32_t info_for; /* the slice info is for, TREX_NONE */
	struct trex_slice_info info;
	uint32_t args_for;   /* the slice args are for: read when the pane shows it */
	uint32_t counter_at; /* on a counter row: the sample the pane was scrolled to */
	struct trex_args args;
	char args_error[TREX_ERROR_MSG_MAX];
	struct tl_link_back back[TL_BACK_MAX];
	int nback;
	/* the marked range [mark_a, mark_b) and its statistics */
	enum tl_mark_state mark;
	int64_t mark_a, mark_b;
	bool range_hidden; /* the pane shows the slice, not the range statistics */
	bool stats_ok;
	struct trex_range_stats stats;
	struct tl_flows flows;
};

struct timeline_view;

void tl_details_init(struct tl_details *d);
void tl_details_free(struct tl_details *d);

/* Does the timeline's details/range/go-to-time part implement action? */
bool tl_details_supports(enum trex_action a);
/* Runs action a when it belongs to this part (or to the focused pane,
 * which takes the moving keys); false: the timeline handles it. */
bool tl_details_dispatch(struct timeline_view *tv, enum trex_action a);
/* After the timeline popped its zoom stack: restores the selection a
 * followed link (or a jump) left. */
void tl_details_zoom_back(struct timeline_view *tv);
/* What F would follow from the selected slice: "F: launched by", "F: flow
 * (fwdbwd) to", ... into buf and the name of the slice it leads to in
 * *target; false when nothing. */
bool tl_details_follow_hint(struct timeline_view *tv, char *buf, size_t size, const char **target);
/* The selected slice's info (links, children, ...), NULL when none. */
const struct trex_slice_info *tl_details_info(struct timeline_view *tv);
/* Is the current row a counter? Then *track is its series. */
bool tl_counter_row(const struct timeline_view *tv, uint32_t *track);
/* Where a track is, as the details and range panes name it: "rank 0 /
 * GPU 0 / stream 7", the run and the device by analysis/labels.h
 * ("rank 1 (base.json.gz) / GPU 1 / stream 7" for runs of one rank). */
void tl_track_path(const struct trex_index *idx, uint32_t track, char *buf, size_t size);
/* tl_goto_time, remembering the selection and cursor for zoom-back. */
void tl_details_jump(struct timeline_view *tv, int64_t t);

/* A mouse event at screen (y, x): false when it is not on the pane. A
 * click on a link line follows that link (as F on it would), elsewhere it
 * gives the pane the focus; the wheel scrolls the pane. */
bool tl_details_mouse(struct timeline_view *tv, int y, int x, unsigned long bstate);

/* The layout with room for the pane taken from the body, when shown. */
void tl_details_layout(const struct timeline_view *tv, struct trex_layout *lay);
/* Draws the range shading, then the pane, over a drawn timeline. */
void tl_details_draw(struct timeline_view *tv, WINDOW *win, const struct trex_layout *lay);

/* The marked range (timeline_range.c). */
bool tl_range_dispatch(struct timeline_view *tv, enum trex_action a);
void tl_range_clear(struct tl_details *d);
/* Gives tv the marks of from, moved onto tv's clock (shift), with the
 * statistics of tv's run over the range (--compare's other run). */
void tl_range_follow(struct timeline_view *tv, const struct timeline_view *from);
void tl_range_shade(struct timeline_view *tv, WINDOW *win, const struct trex_layout *lay);
/* Writes the range statistics into the pane rectangle r. */
void tl_range_draw_pane(struct timeline_view *tv, WINDOW *win, const struct trex_rect *r);

/* Flow connectors (timeline_flows.c). */
void tl_flows_free(struct tl_flows *f);
bool tl_flows_dispatch(struct timeline_view *tv, enum trex_action a);
/* Draws the connectors over a drawn timeline. */
void tl_flows_draw(struct timeline_view *tv, WINDOW *win, const struct trex_layout *lay);
/* Appends "  FLOWS 12" (or "  FLOWS 64 of 300") to buf while every flow is drawn. */
void tl_flows_status(const struct timeline_view *tv, char *buf, size_t size);
/* A flow between slices a and b, NULL when none. */
const struct trex_flow *tl_flow_between(const struct trex_index *idx, uint32_t a, uint32_t b);

#endif
