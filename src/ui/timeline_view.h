/* The timeline view's state, shared by its actions (timeline_view.c) and
 * its drawing (timeline_draw.c). */
#ifndef TREX_UI_TIMELINE_VIEW_H
#define TREX_UI_TIMELINE_VIEW_H

#include <stdint.h>

#include "timeline_details.h"
#include "export_prompt.h"
#include "timeline_rows.h"
#include "trex/analysis/counter_range.h"
#include "trex/ui/view.h"

#define TL_ZOOM_STACK 64

struct tl_window {
	int64_t t0, span;
};

struct timeline_view {
	struct trex_view base;
	/* the run shown: ctx->idx, or ctx->compare on --compare's side B
	 * (timeline_compare.c), and how its times read on the shared axis */
	const struct trex_index *idx;
	int64_t origin;           /* own clock: the time the axis and status count from */
	int64_t span_lo, span_hi; /* own clock: what the window may cover */
	int64_t shift;            /* added to its times on the shared axis (B: the offset) */
	const char *side;         /* "B" on --compare's second run, else NULL */
	const char *status_note;  /* appended to the status line's first row, or NULL */
	struct tl_rows rows;
	size_t cur_row, top_row;
	int body_h, cols;     /* from the last layout */
	struct tl_window win; /* visible time window */
	int64_t cursor;       /* cursor time, ns */
	uint32_t selected;    /* slice id or TREX_NONE */
	struct tl_window zoom_stack[TL_ZOOM_STACK];
	int zoom_depth;
	uint32_t *cell_slice; /* per column of a lane row: single slice, or TREX_NONE */
	int cell_cap;
	/* search, filter and mouse (timeline_search.c) */
	struct trex_search *search;       /* highlighted matches, NULL: none */
	struct trex_search *search_saved; /* while the prompt is open: the one before */
	struct trex_search *filter;       /* only its matches are drawn, NULL: all */
	struct trex_search *filter_saved;
	struct trex_layout lay;        /* the last layout drawn, for mouse hits */
	struct trex_layout screen_lay; /* lay, or with --compare both runs' (the pane's room) */
	/* details pane, links, marked range, go-to-time (timeline_details.c, timeline_range.c) */
	struct tl_details details;
	struct trex_export_prompt export; /* x: the range statistics to a file */
	struct trex_counter_peaks *peaks; /* per track; a counter's is built at its first draw */
	/* tracks (timeline_tracks.c): the pinned rows' scroll, the track
	 * filter, the track finder */
	size_t pin_top;                    /* first pinned row shown */
	struct trex_pattern *track_filter; /* only matching tracks get rows, NULL: all */
	struct trex_pattern *track_filter_saved;
	struct trex_pattern *find_pattern; /* the track finder's last pattern */
	struct tl_row find_from;           /* the row the finder's prompt opened on */
	size_t find_top;                   /* and the first row shown then */
	/* a trace's critical path without an execution graph, walked at the
	 * first draw that asks (timeline_draw.c): 1 per slice on it */
	uint8_t *tpath_marks;
	bool tpath_tried;
	bool critical_hidden; /* toggle-critical-path turned the highlight off */
};

void timeline_draw(struct trex_view *v, WINDOW *win, const struct trex_layout *lay);
/* Draws tv's rows into lay's names and timeline rectangles with the
 * flows, range shading and (when lay has one) the details pane over
 * them; TL_DRAW_FRAME adds the title, the time axis and the status rows
 * (one run of --compare draws them for both). */
#define TL_DRAW_FRAME 1u
void tl_draw_parts(struct timeline_view *tv, WINDOW *win, const struct trex_layout *lay,
                   unsigned parts);

/* A timeline view of run idx (ctx->idx, or --compare's ctx->compare). */
struct trex_view *tl_view_new(struct trex_ui_ctx *ctx, const struct trex_index *idx);
/* Whether v is a timeline view (of either run). */
bool tl_is_timeline(const struct trex_view *v);
/* Sets what the window may cover, own clock: the window kept on it, or
 * (whole) showing all of it with the cursor in the middle. */
void tl_set_span(struct timeline_view *tv, int64_t lo, int64_t hi, bool whole);

/* toggle-critical-path: turns the critical path's highlight off or on and
 * says so; false for any other action. */
bool tl_critical_dispatch(struct timeline_view *tv, enum trex_action a);

/* Centres the window on t (pushing the zoom stack), puts the cursor there
 * and selects what lies under it on the current row. */
void tl_goto_time(struct timeline_view *tv, int64_t t);

/* Rows again after a state of tv->rows changed (filter, track filter,
 * pins, folding, hidden tracks): the cursor stays on its row, else on the
 * nearest row of its track or group; a selection no longer drawn is
 * dropped. Says "out of memory" when the rows cannot be built. */
void tl_rebuild(struct timeline_view *tv);

/* The slice drawn on lane (filter-aware) under time t in column col: the
 * one containing t, else the first touching the column; TREX_NONE. */
uint32_t tl_slice_at(struct timeline_view *tv, uint32_t lane, int col, int64_t t);

/* Selects the slice drawn under the cursor on the cursor's row: the one
 * containing the cursor time, else the first touching its column. */
void tl_select_at_cursor(struct timeline_view *tv);

/* Selects slice id as trex_timeline_show_slice does, but only when it is
 * drawn (its groups are expanded for it): otherwise the status line says
 * what hides it (the filter, the track filter, hidden tracks, a folded
 * track) and which key shows it, and false is returned. */
bool tl_show_drawn_slice(struct timeline_view *tv, uint32_t id);

/* The key bound to action in the timeline keymap, as text ("H"), or the
 * action's name when no key is bound. */
const char *tl_key_of(struct timeline_view *tv, enum trex_action a, char *buf, size_t size);

/* The role slice id is drawn in (by its kind and communication rule). */
enum trex_role timeline_slice_role(const struct trex_index *idx, uint32_t id);

#endif
