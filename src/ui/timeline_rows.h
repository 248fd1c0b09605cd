/* The timeline's rows: rank -> process -> track lanes, with collapsible
 * group headers, built from the index and the view's choices (collapsed
 * groups, the slice filter, the track filter, pinned, collapsed and
 * depth-limited tracks, hidden noise tracks). O(tracks + lanes) per build;
 * pure (no curses), so every state is unit-tested (test_timeline_rows.c). */
#ifndef TREX_UI_TIMELINE_ROWS_H
#define TREX_UI_TIMELINE_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/index.h"

struct trex_search;
struct trex_pattern;

/* TL_ROW_COUNTER: one counter series (id: its track), drawn as a sparkline.
 * TL_ROW_INSTANTS: every instant of a track (id: the track), as ticks, under
 * the track's lanes; slices hide nothing there. */
enum tl_row_kind { TL_ROW_FILE, TL_ROW_PROCESS, TL_ROW_LANE, TL_ROW_COUNTER, TL_ROW_INSTANTS };

struct tl_row {
	uint8_t kind; /* enum tl_row_kind */
	uint32_t id;  /* file, process or lane id */
};

/* Per-track state (tl_rows.track_flags). */
enum tl_track_flag {
	TL_TRACK_NOISE = 1u << 0,     /* tl_track_is_noise(): hidden unless show_hidden */
	TL_TRACK_PINNED = 1u << 1,    /* drawn above the rest, out of its group */
	TL_TRACK_COLLAPSED = 1u << 2, /* one row: its first lane shown */
	TL_TRACK_UNMATCHED = 1u << 3, /* the track filter hides it (pinned tracks stay) */
};

struct tl_rows {
	struct tl_row *v;
	size_t n, cap;
	size_t n_pinned;         /* v[0, n_pinned): the rows of the pinned tracks */
	bool *file_collapsed;    /* per file */
	bool *process_collapsed; /* per process */
	/* Set before tl_rows_build: only lanes with a match (and the processes
	 * and ranks holding one) get rows; counters and instants are left out.
	 * NULL: everything. */
	const struct trex_search *filter;
	double *counter_min, *counter_max; /* per track: the series' range */
	uint8_t *track_flags;              /* per track: enum tl_track_flag */
	uint16_t *max_depth;               /* per track: lanes of depth >= this hidden; 0: all */
	bool show_hidden;                  /* the noise tracks and empty groups get rows too */
	bool track_filter; /* a track filter is set (UNMATCHED flags): ranks without a match go */
	uint32_t *proc_order;  /* every process in display order: by file, GPU ones first */
	uint32_t *track_order; /* every track in display order: by proc_order, GPU ones first */
	/* per lane: it has a row, or would have once its groups are expanded
	 * (what n/N may go to); refreshed by tl_rows_build */
	uint8_t *lane_drawn;
	/* what show_hidden shows: noise tracks, and processes with nothing but
	 * noise tracks (or no track at all); counted once at init */
	uint32_t noise_tracks, noise_groups;
};

/* Allocates the per-file/process/track state (all expanded, nothing pinned,
 * noise hidden) and builds the rows. Returns false when out of memory. */
bool tl_rows_init(struct tl_rows *r, const struct trex_index *idx);
/* Rebuilds the rows after a state changed. false when out of memory. */
bool tl_rows_build(struct tl_rows *r, const struct trex_index *idx);
void tl_rows_free(struct tl_rows *r);
/* The row index of (kind, id), or 0 when it has no row. */
size_t tl_rows_find(const struct tl_rows *r, enum tl_row_kind kind, uint32_t id);
/* The row index of (kind, id), or r->n when it has no row. */
size_t tl_rows_lookup(const struct tl_rows *r, enum tl_row_kind kind, uint32_t id);

/* The noise rule: a track that carries no time information worth a row.
 * True when it has nothing to draw (no slice, instant or counter sample)
 * or nothing but the profiler's own markers: slices of category "Trace"
 * (Kineto's span over the profiling window, pid "Spans") and instants of
 * global scope (Kineto's "Iteration Start" on pid "Traces" and "Record
 * Window End" on pid ""). Decided from the index alone. */
bool tl_track_is_noise(const struct trex_index *idx, uint32_t track);

/* The track a row belongs to (lane, counter and instants rows), else
 * TREX_NONE. */
uint32_t tl_row_track(const struct trex_index *idx, const struct tl_row *row);
/* The first row of track in the rows, or r->n. */
size_t tl_rows_track_row(const struct tl_rows *r, const struct trex_index *idx, uint32_t track);
/* Whether track gets rows (in the pinned part when pinned), its groups
 * expanded. */
bool tl_rows_track_shown(const struct tl_rows *r, uint32_t track);
/* Whether a lane's slices are drawn (or would be, its groups expanded). */
bool tl_rows_lane_drawn(const struct tl_rows *r, uint32_t lane);

/* Why a slice is not drawn, its groups expanded: the first reason that
 * applies, in this order. */
enum tl_hidden {
	TL_SHOWN,
	TL_HIDDEN_FILTER,       /* the slice filter does not match it */
	TL_HIDDEN_NOISE,        /* its track is a hidden noise track */
	TL_HIDDEN_TRACK_FILTER, /* the track filter hides its track */
	TL_HIDDEN_DEPTH,        /* its track is collapsed or depth-limited above it */
};
enum tl_hidden tl_rows_slice_hidden(const struct tl_rows *r, const struct trex_index *idx,
                                    uint32_t slice);

/* Labels: text only, so that row names and the track finder agree. The
 * rank of a file ("rank 3 trace.json"; its name as trex_file_name gives
 * it, "rank 1 run1/trace.json" when another file claims rank 1), a
 * process ("7 python3", "(no pid) name") and a track ("stream 7", its
 * thread name, else its tid). */
void tl_file_label(const struct trex_index *idx, uint32_t file, char *buf, size_t size);
void tl_process_label(const struct trex_index *idx, uint32_t process, char *buf, size_t size);
const char *tl_track_name(const struct trex_index *idx, uint32_t track);
/* tl_track_name without the blank Kineto ends its thread names with
 * ("stream 7 "), into buf. */
const char *tl_track_label(const struct trex_index *idx, uint32_t track, char *buf, size_t size);
/* What the track finder and the track filter match: the file, process and
 * track labels of track joined by blanks ("rank 0 t.json 0 python3 stream 7").
 * level 0 is the file only, 1 the file and process, 2 the whole track. */
void tl_track_text(const struct trex_index *idx, uint32_t track, int level, char *buf, size_t size);

/* Sets the track filter: tracks whose text does not match p get
 * TL_TRACK_UNMATCHED (p NULL: none do). Returns how many tracks match.
 * Rows are rebuilt by the caller. */
uint32_t tl_rows_set_track_filter(struct tl_rows *r, const struct trex_index *idx,
                                  struct trex_pattern *p);

/* A place the track finder stops at: a file, process or track (level 0, 1,
 * 2) and its id. */
struct tl_place {
	int level;
	uint32_t id;
};
/* The place of row i (a lane/counter/instants row is its track). */
struct tl_place tl_rows_place(const struct tl_rows *r, const struct trex_index *idx, size_t i);
/* The first place after from (from itself last), in display order (each
 * file, its processes, their tracks), that is shown by the filters (in a
 * collapsed group or not) and whose text (tl_track_text at its level)
 * matches p. false when none does. */
bool tl_rows_find_next(const struct tl_rows *r, const struct trex_index *idx,
                       struct trex_pattern *p, struct tl_place from, struct tl_place *found);
/* Expands the groups of place (rows rebuilt) and returns its row, or r->n. */
size_t tl_rows_reveal(struct tl_rows *r, const struct trex_index *idx, struct tl_place place);

/* The name of row i as the names column shows it in width columns: group
 * rows with their open/closed marker, a track's first row with its name
 * (the rank first when pinned and several files are loaded, "(depth N)"
 * when its first shown lane is not the top one, "+N" when levels are
 * hidden below), its other lanes as "├ depth N" / "└ depth N" (depth
 * counted from 1 at the top), its instants as "└ instants". utf8: the
 * box-drawing and triangle glyphs, else ASCII. */
void tl_rows_label(const struct tl_rows *r, const struct trex_index *idx, size_t i, bool utf8,
                   int width, char *buf, size_t size);
/* Whether row i is a lane below its track's first row (drawn dimmed). */
bool tl_rows_is_depth_row(const struct tl_rows *r, const struct trex_index *idx, size_t i);

/* The body split: pinned rows at the top (at most half the body, so the
 * rest can scroll), one separator line under them, then the rest. */
struct tl_body {
	int pin_h;    /* lines of pinned rows; 0: none and no separator */
	int scroll_y; /* first line of the scrolled rows */
	int scroll_h; /* lines of the scrolled rows */
};
struct tl_body tl_rows_body(const struct tl_rows *r, int body_h);
/* Scrolls both parts so that row cur is on screen, each as little as
 * possible: *pin_top is the first pinned row shown, *top_row the first of
 * the other rows shown (never a pinned one). */
void tl_rows_scroll(const struct tl_rows *r, const struct tl_body *b, size_t cur, size_t *pin_top,
                    size_t *top_row);
/* The row shown at body line y, TL_LINE_SEPARATOR for the line under the
 * pinned rows, TL_LINE_NONE past the last row. */
#define TL_LINE_SEPARATOR ((size_t)-2)
#define TL_LINE_NONE ((size_t)-1)
size_t tl_rows_at_line(const struct tl_rows *r, const struct tl_body *b, size_t pin_top,
                       size_t top_row, int y);
/* The inverse: the body line of row, negative for a row above what is
 * shown (a pinned row scrolled off counts as above), b->scroll_y +
 * b->scroll_h or more for one below. */
long tl_rows_line_of(const struct tl_rows *r, const struct tl_body *b, size_t pin_top,
                     size_t top_row, size_t row);

#endif
