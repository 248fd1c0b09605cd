/* The trace-export dialog's model (private to src/ui): which scopes the
 * screen offers, the trex_export_scope each one builds, the default file
 * name, and the progress line. Pure (no curses), so every rule is unit-tested
 * (test_export_scope.c); the dialog (export_dialog.c) draws it and runs the
 * exporter, the timeline fills in what it shows (timeline_export.c). */
#ifndef TREX_UI_EXPORT_SCOPE_H
#define TREX_UI_EXPORT_SCOPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/index.h"
#include "trex/core/status.h"
#include "trex/export/trace_export.h"

/* X(ID, word, title): the scopes, in the dialog's order; word goes into
 * the default file name ("trace.range.json"). */
#define EXPORT_SCOPE_INFO(X)                                                                       \
	X(ALL, "all", "all")                                                                       \
	X(RANGE, "range", "marked range")                                                          \
	X(VISIBLE, "tracks", "visible tracks")                                                     \
	X(FILTER, "filter", "filter's slices")                                                     \
	X(SELECTION, "track", "selected track")

enum export_scope_kind {
#define EXPORT_SCOPE_ENUM(id, word, title) EXPORT_SCOPE_##id,
	EXPORT_SCOPE_INFO(EXPORT_SCOPE_ENUM)
#undef EXPORT_SCOPE_ENUM
	    EXPORT_SCOPE_COUNT
};

const char *export_scope_word(enum export_scope_kind k);
const char *export_scope_title(enum export_scope_kind k);

/* What the screen shows, as the scopes need it. A view other than the
 * timeline leaves everything but idx zeroed (only "all" is offered). */
struct export_view_state {
	bool timeline;  /* filled in by the timeline */
	bool has_range; /* a range is marked: [range_start, range_end) */
	int64_t range_start, range_end;
	const uint8_t *tracks_shown; /* per track: it has rows (not hidden, not filtered out) */
	uint32_t shown_count;        /* how many do */
	const char *filter;          /* the slice filter's pattern (the view's), NULL: none */
	uint32_t filter_matches;     /* slices it matches */
	uint32_t selected_track;     /* the selection's track, TREX_NONE: none */
	bool selected_slice;         /* ... a selected slice's (else the cursor's row's) */
	char selected_label[160];    /* where that track is ("rank 0 / GPU 0 / stream 7") */
	char mark_key[24];           /* the key of mark-range ("m"), "": its name */
};

/* Whether scope k can be exported with exporter ex from what st shows;
 * when not, why, one line ("no range is marked (m marks one)"), in why. */
bool export_scope_available(const struct export_view_state *st,
                            const struct trex_trace_exporter *ex, enum export_scope_kind k,
                            char *why, size_t size);

/* The scope's line in the dialog: its title and what it holds ("marked
 * range 1.20 ms .. 3.40 ms", "visible tracks: 12 of 40", "filter's
 * slices: /gemm/ (41 slices)", "selected track: rank 0 / GPU 0 / stream 7"). */
void export_scope_label(const struct trex_index *idx, const struct export_view_state *st,
                        enum export_scope_kind k, char *buf, size_t size);

/* A scope built for the exporter, owning what it points to. */
struct export_scope_built {
	struct trex_export_scope scope;
	struct trex_regex *names;
	uint8_t *tracks;
};

/* Builds scope k from st (which must offer it): the range, the shown
 * tracks' set, the filter's pattern as `--filter` takes it, or the one
 * track. NOMEM, or USAGE for a pattern PCRE2 refuses. */
enum trex_status export_scope_build(const struct trex_index *idx,
                                    const struct export_view_state *st, enum export_scope_kind k,
                                    struct export_scope_built *out, struct trex_error *err);
void export_scope_release(struct export_scope_built *b);

/* About how many events an exporter writes for scope (slices, instants and
 * counter samples of the kept tracks, those touching the range when there
 * is one; at most filter_matches slices when a name pattern is set): what
 * the progress bar counts against. At least 1. */
uint64_t export_scope_estimate(const struct trex_index *idx, const struct trex_export_scope *s,
                               uint32_t filter_matches);

/* The progress line: a bar of bar_w cells ('#' done, '.' to do), the
 * percentage (at most 99% until done), events and megabytes:
 * "[#####.....]  50%  1,234 events  1.2 MB". */
void export_progress_text(uint64_t events, uint64_t bytes, uint64_t estimate, bool done, int bar_w,
                          char *buf, size_t size);

/* The default output name in the current directory: the first file's name
 * without its directory and trace extensions, the scope's word and the
 * format's extension ("run.range.json"; chakra: the prefix "run.all";
 * chakra-json: "run.all.chakra.json"); "trace" when no file has a name. */
void export_default_path(const struct trex_index *idx, const struct trex_trace_exporter *ex,
                         enum export_scope_kind k, char *buf, size_t size);

/* path with a leading "~/" replaced by home/ (home NULL or "": as is). */
void export_expand_home(const char *path, const char *home, char *buf, size_t size);

#endif
