/* The builder: the sink every loader streams events into (write side of
 * the index). A loader makes one builder per (file, chunk) it parses, in
 * parallel if it likes; trex_index_build() merges them in order, remaps
 * their strings and tracks, pairs B/E and b/e, sorts, nests, links flows
 * and correlations, and freezes the result.
 *
 * A builder is used by one thread at a time. Ids it returns (strings,
 * tracks) are local to it. Event functions return 0, or -1 when out of
 * memory (the builder is then unusable and the build fails with NOMEM). */
#ifndef TREX_CORE_BUILDER_H
#define TREX_CORE_BUILDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/index.h"
#include "trex/core/status.h"

struct trex_builder;

/* One event as a loader sees it. Unused fields are 0. */
struct trex_ev {
	int64_t ts;          /* ns on the file's clock (base time is added at build) */
	int64_t dur;         /* ns; X only; may be negative (then flagged REVERSED) */
	uint32_t name;       /* local string id */
	uint32_t cat;        /* local string id */
	trex_args_ref args;
	uint32_t corr;       /* with TREX_SLICE_HAS_CORR */
	uint32_t ext_id;     /* with TREX_SLICE_HAS_EXT_ID */
	uint32_t shape;      /* local string id, 0 if none */
	uint16_t flags;      /* TREX_SLICE_HAS_CORR | TREX_SLICE_HAS_EXT_ID | TREX_SLICE_TS_SATURATED */
};

/* file: the global file id this builder's events belong to. */
struct trex_builder *trex_builder_new(uint32_t file);
/* Gives the builder's events to global file id file instead (the loader
 * numbers files by rank once every file is parsed). */
void trex_builder_set_file(struct trex_builder *b, uint32_t file);
void trex_builder_free(struct trex_builder *b);
/* Gives back spare room once nothing more will be added (a loader part is
 * done); adding after it still works, it only grows again. */
void trex_builder_trim(struct trex_builder *b);

/* Interns into the builder's own table; TREX_STR_ERROR when out of memory. */
uint32_t trex_builder_intern(struct trex_builder *b, const char *s, size_t len);

/* The thread/stream track for (pid text, tid text) of this builder's file,
 * created on first use. pid/tid are local string ids of their textual form
 * (integers printed in decimal, strings as written). TREX_NONE on OOM. */
uint32_t trex_builder_track(struct trex_builder *b, uint32_t pid, uint32_t tid);

/* Events. ts order is not required; file order is kept for B/E pairing. */
int trex_builder_complete(struct trex_builder *b, uint32_t track, const struct trex_ev *ev);
int trex_builder_begin(struct trex_builder *b, uint32_t track, const struct trex_ev *ev);
/* E closes the most recent open B of its track (file order); its args,
 * if any, are ignored. */
int trex_builder_end(struct trex_builder *b, uint32_t track, const struct trex_ev *ev);
int trex_builder_instant(struct trex_builder *b, uint32_t track, const struct trex_ev *ev,
			 enum trex_instant_scope scope);

/* One counter sample: series is the local string id of the series name
 * ("name" for a single-series counter, "name series" otherwise); the
 * series becomes a TREX_TRACK_COUNTER track of process pid. */
int trex_builder_counter(struct trex_builder *b, uint32_t pid, uint32_t series, int64_t ts,
			 double value);

/* Flow points. Flows are matched per file by (cat, id); id_str (a local
 * string id, 0 if none) is used instead of id for string ids.
 * phase is 's', 't' or 'f'; bind_enclosing is true for "bp":"e" (and for
 * s/t, which always bind to the enclosing slice), false for the default
 * 'f' binding to the next slice starting at or after ts. */
int trex_builder_flow(struct trex_builder *b, uint32_t track, int64_t ts, uint32_t cat,
		      uint32_t name, uint64_t id, uint32_t id_str, char phase, bool bind_enclosing);

/* Nestable async events (phase 'b', 'e' or 'n') of process pid, matched by
 * (cat, id, id_str). A b/e pair becomes a slice flagged ASYNC on the
 * process's async track named after the outermost 'b'; 'n' becomes an
 * instant there. */
int trex_builder_async(struct trex_builder *b, uint32_t pid, char phase, uint64_t id,
		       uint32_t id_str, const struct trex_ev *ev);

/* Metadata (M events). Later calls win (file order across builders). */
int trex_builder_process_name(struct trex_builder *b, uint32_t pid, uint32_t name);
int trex_builder_process_labels(struct trex_builder *b, uint32_t pid, uint32_t labels);
int trex_builder_process_sort_index(struct trex_builder *b, uint32_t pid, int64_t index);
int trex_builder_thread_name(struct trex_builder *b, uint32_t track, uint32_t name);
int trex_builder_thread_sort_index(struct trex_builder *b, uint32_t track, int64_t index);

/* Events recorded so far (all kinds), for progress lines. */
uint64_t trex_builder_event_count(const struct trex_builder *b);

/* The decoded byte offset in the file of the event whose records follow
 * (-1: not known), so that problems the build finds with them (a ts far
 * outside the file's span) can say where they are. */
void trex_builder_at(struct trex_builder *b, int64_t offset);

/* A problem the loader found, for the file's integrity examples (index.h):
 * kept when among the first TREX_PROBLEM_EXAMPLES of its counter in this
 * builder (spans are also offered as the file's largest). p->track and
 * p->name are this builder's local ids or TREX_NONE, p->ts is on the
 * file's clock; line, col, disk_offset and slice are filled by the build.
 * Damaged spans are noted under syntax_errors (skipped) or bytes_ignored
 * (a cut tail) with their length and events_lost; the examples of
 * bytes_skipped and events_lost are made from them.
 * The count itself is the loader's (trex_build_file.integrity). Returns 0,
 * or -1 when out of memory (the builder is then unusable). */
int trex_builder_problem(struct trex_builder *b, const struct trex_problem *p);

/* ---- building the index ----------------------------------------------------- */

struct trex_build_input {
	/* files[i] describes global file id i. The loader fills path, format,
	 * dialect (as strings, below), rank, flags, byte and phase counts and
	 * its integrity counters; the build adds its own (overlaps, unmatched,
	 * orphans, ...). Sources move into the index (closed by the build
	 * on failure); files[i].source is set to NULL either way. */
	struct trex_build_file *files;
	size_t file_count;
	/* Builders in file order, and within a file in byte order. Consumed
	 * (freed, parts[i] set to NULL) by the build, also on failure. */
	struct trex_builder **parts;
	size_t part_count;
	unsigned threads; /* worker threads for merging, sorting, placing and linking; 0 or 1 = this thread */
};

/* What a loader knows about a file; strings are plain C strings here. */
struct trex_build_file {
	const char *path;
	const char *format;
	const char *dialect;
	int64_t rank;
	bool has_rank;
	bool gzip;
	bool truncated;
	int64_t base_time_ns;
	uint64_t bytes_on_disk;
	uint64_t bytes_decoded;
	uint64_t phase_counts[TREX_PH_COUNT];
	uint64_t events;
	struct trex_integrity integrity;
	struct trex_error first_problem;
	struct trex_source *source;
};

enum trex_status trex_index_build(const struct trex_build_input *in, struct trex_index **out,
				  struct trex_error *err);

#endif
