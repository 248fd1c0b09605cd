/* Trace exporters: the loaded index, or a scope of it, written back as a
 * trace for another tool (Chrome JSON for chrome://tracing and Perfetto's
 * JSON importer, Perfetto protobuf, a CSV of slices). One table of
 * exporters, as the loaders have one of formats: a new output format is
 * one entry of TREX_TRACE_EXPORTERS and its function, which gets the index,
 * the output path and the options, and makes its own files (one file, or
 * one per rank).
 *
 * Every exporter writes through a temp file renamed on success
 * (atomic_file.h), refuses an existing output without force, reports
 * progress and stops (leaving nothing behind) when the progress function
 * asks it to. */
#ifndef TREX_EXPORT_TRACE_EXPORT_H
#define TREX_EXPORT_TRACE_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "trex/core/index.h"
#include "trex/core/status.h"

struct trex_regex; /* analysis/table_order.h */

/* Ranks lo..hi (inclusive). */
struct trex_rank_range {
	int64_t lo, hi;
};

/* What an export keeps; a zeroed scope keeps everything.
 *  - range [start, end] (ns on the index clock): slices that touch it, cut
 *    to it (the cut ones flagged, trex_export_clip); instants and counter
 *    samples inside it, and each counter's value at start;
 *  - tracks: tracks whose name (else tid text) matches;
 *  - names: slices, instants and counter series whose names match;
 *  - ranks: tracks of processes whose rank is in one of the ranges;
 *  - track_set: tracks whose entry (indexed by track id) is nonzero, for a
 *    set no pattern names (the tracks a screen shows).
 * A flow is kept when both its ends are. */
struct trex_export_scope {
	bool has_range;
	int64_t start, end;
	const struct trex_regex *tracks;
	const struct trex_regex *names;
	const struct trex_rank_range *ranks;
	size_t nranks;
	const uint8_t *track_set; /* NULL: every track */
};

/* How far an export got: output bytes (before gzip) and events written. */
struct trex_export_progress {
	uint64_t bytes;
	uint64_t events;
	char note[240]; /* at the end: what the output approximates, "" if nothing */
	/* at the end: lines about files written beside OUT and how to use
	 * them ('\n' between lines), "" if none */
	char also[1024];
};

/* Called every few MiB of output and once at the end; returning true
 * cancels the export (CANCELLED, nothing left behind). */
typedef bool trex_export_progress_fn(void *user, const struct trex_export_progress *p);

struct trex_export_opts {
	struct trex_export_scope scope;
	bool force;                        /* replace existing output */
	trex_export_progress_fn *progress; /* NULL: none */
	void *progress_user;
	/* --steps: ProfilerStep numbers lo..hi (export_steps.h); the chakra
	 * exporters keep the work launched in them, the CLI turns them into
	 * scope.range for the others */
	const struct trex_rank_range *steps;
	size_t nsteps;
	const char *host_et; /* chakra, chakra-json: --host-et (chakra_host_link.h), or NULL */
};

/* X(ID, "name", "extensions", function, "summary"): the exporters. The
 * extensions (blank-separated, longest first where one ends another) are
 * the output names that ask for the format when none is named. */
#define TREX_TRACE_EXPORTERS(X)                                                                    \
	X(CHROME, "chrome", ".json .json.gz", trex_chrome_export,                                  \
	  "Chrome trace-event JSON (gzip when OUT ends in .gz)")                                   \
	X(PERFETTO, "perfetto", ".pftrace .perfetto-trace .pb", trex_perfetto_export,              \
	  "Perfetto protobuf trace (track events, interned names)")                                \
	X(CSV, "csv", ".csv", trex_slices_csv_export,                                              \
	  "one row per slice: rank, process, track, ts_ns, dur_ns, depth, kind, category, name")   \
	X(CHAKRA, "chakra", "", trex_chakra_export,                                                \
	  "Chakra execution traces for ASTRA-sim: -o PREFIX writes PREFIX.RANK.et per rank")       \
	X(CHAKRA_JSON, "chakra-json", "", trex_chakra_json_export,                                 \
	  "the Chakra ET set as one JSON document (every rank's metadata and nodes)")

/* Writes idx, as far as opts->scope keeps it, to path ("-": standard
 * output, for single-file formats). *done (may be NULL) gets what was
 * written. */
typedef enum trex_status trex_trace_export_fn(const struct trex_index *idx, const char *path,
                                              const struct trex_export_opts *opts,
                                              struct trex_export_progress *done,
                                              struct trex_error *err);

#define TREX_TRACE_EXPORT_DECL(id, name, ext, fn, summary) trex_trace_export_fn fn;
TREX_TRACE_EXPORTERS(TREX_TRACE_EXPORT_DECL)
#undef TREX_TRACE_EXPORT_DECL

struct trex_trace_exporter {
	const char *name;
	const char *extensions;
	trex_trace_export_fn *write;
	const char *summary;
};

size_t trex_trace_exporter_count(void);
const struct trex_trace_exporter *trex_trace_exporter_at(size_t i);
/* The exporter called name; NULL if none. */
const struct trex_trace_exporter *trex_trace_exporter_named(const char *name);
/* The exporter one of whose extensions path ends in (case-insensitive);
 * NULL if none. */
const struct trex_trace_exporter *trex_trace_exporter_for_path(const char *path);
/* "chrome, perfetto, csv" into buf. */
void trex_trace_exporter_names(char *buf, size_t size);

/* Fails with TREX_EXISTS when path exists and !force (before a long load);
 * "-" is always fine. */
enum trex_status trex_trace_export_check(const char *path, bool force, struct trex_error *err);

/* ---- scope, for the exporters ------------------------------------------------------------ */

/* Whether track passes the scope's ranks and track pattern. */
bool trex_export_track_in(const struct trex_index *idx, const struct trex_export_scope *s,
                          uint32_t track);
/* Whether a name passes the scope's name pattern. */
bool trex_export_name_in(const struct trex_export_scope *s, const char *name);

/* Which ends of a slice the range cut. */
enum trex_clip { TREX_CLIP_NONE = 0, TREX_CLIP_START = 1, TREX_CLIP_END = 2, TREX_CLIP_BOTH = 3 };
/* "start", "end", "both" ("" for none): the trex_clipped arg's value. */
const char *trex_clip_name(enum trex_clip c);

/* Whether [ts, ts + dur] touches the range (a zero-length slice: lies in
 * it); *cts and *cdur get it cut to the range, *clip which ends were cut. */
bool trex_export_clip(const struct trex_export_scope *s, int64_t ts, int64_t dur, int64_t *cts,
                      int64_t *cdur, enum trex_clip *clip);
/* Whether time t lies in the range (always without one). */
bool trex_export_time_in(const struct trex_export_scope *s, int64_t t);

/* ---- output, for the exporters ------------------------------------------------------------ */

/* A big output buffer in front of a file, optionally gzip'd (zlib),
 * reporting progress and cancelling (trex_export_opts). */
struct trex_wbuf {
	char *p, *end;   /* free space */
	char *buf;       /* TREX_WBUF_SIZE bytes */
	void *impl;      /* the file, gzip state, progress */
	bool failed;     /* an error was recorded in the impl */
	uint64_t events; /* counted by the writer, for progress */
};
#define TREX_WBUF_SIZE ((size_t)1 << 20)
/* Room a writer may always ask for at once (trex_wbuf_room). */
#define TREX_WBUF_MAX_RESERVE (TREX_WBUF_SIZE / 2)

/* The body of a single-file export, writing to w; returns the status. */
typedef enum trex_status trex_wbuf_write_fn(struct trex_wbuf *w, const struct trex_index *idx,
                                            const struct trex_export_opts *opts,
                                            struct trex_error *err);

/* Runs fn into path through an atomic file (gzip when gzip), committing on
 * success, removing everything on failure or cancel. */
enum trex_status trex_export_to_path(const struct trex_index *idx, const char *path, bool gzip,
                                     const struct trex_export_opts *opts, trex_wbuf_write_fn *fn,
                                     struct trex_export_progress *done, struct trex_error *err);

/* Flushes the buffer (and reports progress); false once the export failed
 * or was cancelled (the status is then trex_wbuf_status's). */
bool trex_wbuf_flush(struct trex_wbuf *w);
/* Makes room for n <= TREX_WBUF_MAX_RESERVE bytes at w->p; false on failure. */
static inline bool trex_wbuf_room(struct trex_wbuf *w, size_t n)
{
	return (size_t)(w->end - w->p) >= n || trex_wbuf_flush(w);
}
/* Appends n bytes of any length (trex_wbuf_put: the fast path inline). */
bool trex_wbuf_put_slow(struct trex_wbuf *w, const void *s, size_t n);
static inline bool trex_wbuf_put(struct trex_wbuf *w, const void *s, size_t n)
{
	if ((size_t)(w->end - w->p) < n)
		return trex_wbuf_put_slow(w, s, n);
	memcpy(w->p, s, n);
	w->p += n;
	return true;
}
/* The status of a failed or cancelled buffer, with its error copied to err. */
enum trex_status trex_wbuf_status(const struct trex_wbuf *w, struct trex_error *err);

/* Decimal digits of v at p; returns the end. */
char *trex_fmt_u64(char *p, uint64_t v);
char *trex_fmt_i64(char *p, int64_t v);
/* ns as microseconds with the exact ns decimals ("12.345", "12", "-0.5"),
 * never through double; at most 24 bytes. */
char *trex_fmt_ns_as_us(char *p, int64_t ns);

#endif
