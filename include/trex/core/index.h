/* The frozen trace index: what every analysis, view and exporter reads.
 *
 * Built once by trex_index_build() (builder.h) and read-only afterwards, so
 * callers keep plain 32-bit ids into it. Times are int64 nanoseconds on one
 * absolute clock (a file's baseTimeNanoseconds already added).
 *
 * Hierarchy: file (one rank) -> process -> track (thread, GPU stream,
 * counter series or async group) -> lanes (one per nesting depth).
 * Slices are stored ordered by (track, depth, ts): each lane is one
 * contiguous run of slice ids whose slices do not overlap, so a lane is
 * sorted by start and by end at once and "what touches [t0, t1)" is two
 * binary searches (trex_lane_find_*). */
#ifndef TREX_CORE_INDEX_H
#define TREX_CORE_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/status.h"
#include "trex/core/strtab.h"

#define TREX_NONE UINT32_MAX /* "no such id" for slice/track/... ids */

/* ---- slices ------------------------------------------------------------ */

enum trex_slice_flag {
	TREX_SLICE_FROM_BE = 1u << 0,       /* paired from B/E events */
	TREX_SLICE_UNTERMINATED = 1u << 1,  /* B without E: runs to the file's end */
	TREX_SLICE_OVERLAP = 1u << 2,       /* partially overlaps an earlier sibling */
	TREX_SLICE_REVERSED = 1u << 3,      /* E before B or dur < 0: dur clamped to 0 */
	TREX_SLICE_ASYNC = 1u << 4,         /* from b/e async events */
	TREX_SLICE_HAS_CORR = 1u << 5,      /* corr is valid */
	TREX_SLICE_HAS_EXT_ID = 1u << 6,    /* ext_id is valid */
	TREX_SLICE_TS_SATURATED = 1u << 7,  /* ts or dur did not fit int64 ns */
};

/* Reference to an event's raw "args" JSON object inside its source file
 * (decompressed byte offset and length), decoded lazily. 0 = no args. */
typedef uint64_t trex_args_ref;
#define TREX_ARGS_OFFSET_BITS 40
#define TREX_ARGS_LEN_MAX ((1u << 24) - 1u) /* longer: length unknown, re-scanned */
static inline trex_args_ref trex_args_ref_make(uint64_t offset, uint64_t len)
{
	if (len > TREX_ARGS_LEN_MAX)
		len = TREX_ARGS_LEN_MAX;
	return (len << TREX_ARGS_OFFSET_BITS) | (offset & ((1ull << TREX_ARGS_OFFSET_BITS) - 1));
}
static inline uint64_t trex_args_ref_offset(trex_args_ref r)
{
	return r & ((1ull << TREX_ARGS_OFFSET_BITS) - 1);
}
static inline uint32_t trex_args_ref_len(trex_args_ref r)
{
	return (uint32_t)(r >> TREX_ARGS_OFFSET_BITS);
}

/* 56 bytes. ts + dur never overflows int64 (durations are clamped and
 * flagged TREX_SLICE_TS_SATURATED instead), so end = ts + dur is safe. */
struct trex_slice {
	int64_t ts;          /* start, ns */
	int64_t dur;         /* >= 0, ns */
	uint32_t name;       /* string id */
	uint32_t cat;        /* string id (category) */
	uint32_t track;      /* track id */
	uint16_t depth;      /* nesting depth within the track, 0 = top */
	uint16_t flags;      /* enum trex_slice_flag */
	trex_args_ref args;  /* lazy args */
	uint32_t corr;       /* Kineto args.correlation (TREX_SLICE_HAS_CORR) */
	uint32_t ext_id;     /* Kineto args."External id" (TREX_SLICE_HAS_EXT_ID) */
	uint32_t shape;      /* string id: "grid=[x,y,z] block=[x,y,z] smem=N", 0 if none */
	uint32_t reserved;
};

/* ---- instants, counters, flows ----------------------------------------- */

enum trex_instant_scope { TREX_SCOPE_THREAD = 0, TREX_SCOPE_PROCESS, TREX_SCOPE_GLOBAL };

struct trex_instant {
	int64_t ts;
	uint32_t name;
	uint32_t cat;
	uint32_t track;
	uint8_t scope;       /* enum trex_instant_scope */
	uint8_t pad[3];
	trex_args_ref args;
};

/* One sample of a counter series; the series is its track. */
struct trex_counter_sample {
	int64_t ts;
	double value;
};

/* A flow edge between two slices (Chrome s -> t... -> f chains become one
 * edge per hop). from/to are slice ids, or TREX_NONE when the flow point
 * lies on no slice of its track. */
struct trex_flow {
	uint32_t from_slice;
	uint32_t to_slice;
	uint32_t from_track;
	uint32_t to_track;
	int64_t from_ts;
	int64_t to_ts;
	uint32_t cat;        /* string id */
	uint32_t name;       /* string id */
};

/* ---- tracks ------------------------------------------------------------ */

enum trex_track_kind {
	TREX_TRACK_THREAD = 0,  /* CPU thread: slices + instants */
	TREX_TRACK_GPU,         /* GPU stream / device queue (decided by categories and labels) */
	TREX_TRACK_COUNTER,     /* one counter series */
	TREX_TRACK_ASYNC,       /* async (b/e/n) events of one name in a process */
};

struct trex_lane {
	uint32_t track;
	uint32_t depth;
	uint32_t first;      /* first slice id */
	uint32_t count;      /* slices in the lane */
};

struct trex_track {
	uint32_t process;     /* process id */
	uint32_t tid;         /* string id of the tid text ("7", "stream 7", async/counter key) */
	int64_t tid_num;      /* numeric tid when tid is an integer, else 0 */
	uint32_t name;        /* display name: thread_name M event, or a derived one */
	int64_t sort_index;   /* thread_sort_index, else tid_num */
	uint8_t kind;         /* enum trex_track_kind */
	uint8_t has_sort_index;
	uint16_t max_depth;   /* deepest lane + 1 (0 if no slices) */
	uint32_t first_lane, lane_count;
	uint32_t first_slice, slice_count;     /* all lanes together */
	uint32_t first_instant, instant_count; /* instants ordered by (track, ts) */
	uint32_t first_sample, sample_count;   /* counter samples, by (track, ts) */
};

struct trex_process {
	uint32_t file;        /* file id (== rank slot) */
	uint32_t pid;         /* string id of the pid text */
	int64_t pid_num;      /* numeric pid when pid is an integer, else 0 */
	uint32_t name;        /* process_name M event, or "" */
	uint32_t labels;      /* process_labels M event, or "" */
	int64_t sort_index;   /* process_sort_index, else pid_num */
	uint8_t has_sort_index;
	uint8_t is_gpu;       /* holds GPU tracks */
	uint8_t pad[6];
	uint32_t first_track, track_count; /* tracks of a process are contiguous and sorted */
};

/* ---- files and load statistics ------------------------------------------ */

/* X(name, "ph letters") : phases counted at load. */
#define TREX_PHASE_INFO(X)      \
	X(COMPLETE, "X")         \
	X(BEGIN, "B")            \
	X(END, "E")              \
	X(INSTANT, "i/I")        \
	X(COUNTER, "C")          \
	X(METADATA, "M")         \
	X(FLOW_START, "s")       \
	X(FLOW_STEP, "t")        \
	X(FLOW_END, "f")         \
	X(ASYNC_BEGIN, "b")      \
	X(ASYNC_END, "e")        \
	X(ASYNC_INSTANT, "n")    \
	X(OTHER, "other")

enum trex_phase {
#define TREX_PHASE_ENUM(name, letters) TREX_PH_##name,
	TREX_PHASE_INFO(TREX_PHASE_ENUM)
#undef TREX_PHASE_ENUM
	TREX_PH_COUNT
};
const char *trex_phase_letters(enum trex_phase ph);

/* Integrity counters: nothing is dropped silently, everything odd is counted.
 * X(field, "label") */
#define TREX_INTEGRITY_INFO(X)                                                 \
	X(overlaps, "slices partially overlapping a sibling (kept, nested deeper)") \
	X(zero_duration, "zero-duration slices (kept)")                          \
	X(reversed, "slices with negative duration (kept, clamped to 0)")        \
	X(unmatched_begin, "B without E (kept, run to end of file)")              \
	X(unmatched_end, "E without B (ignored)")                                \
	X(orphan_flow_start, "flow starts without an end")                       \
	X(orphan_flow_end, "flow ends/steps without a start")                     \
	X(unbound_flow_points, "flow points on no slice")                        \
	X(unknown_phase, "events with an unknown phase (ignored)")               \
	X(unknown_keys, "unknown event keys (ignored)")                          \
	X(missing_fields, "events missing a required field (ignored)")           \
	X(bad_values, "values of the wrong type (ignored or defaulted)")         \
	X(saturated_numbers, "numbers beyond int64 (saturated)")                 \
	X(invalid_utf8, "strings with invalid UTF-8 (replaced by U+FFFD)")       \
	X(syntax_errors, "corrupt spots skipped")                                \
	X(bytes_skipped, "bytes skipped at corrupt spots")                       \
	X(bytes_ignored, "bytes ignored after truncation")

struct trex_integrity {
#define TREX_INTEGRITY_FIELD(field, label) uint64_t field;
	TREX_INTEGRITY_INFO(TREX_INTEGRITY_FIELD)
#undef TREX_INTEGRITY_FIELD
};
/* Adds every counter of b to a. */
void trex_integrity_add(struct trex_integrity *a, const struct trex_integrity *b);

struct trex_source; /* load/source.h: owned by the index for lazy args */

struct trex_file {
	uint32_t path;          /* string id */
	uint32_t format;        /* string id: "chrome-json" */
	uint32_t dialect;       /* string id: "kineto", "kineto-2021", "unitrace", "acelyzer-flex", ... */
	int64_t rank;           /* distributedInfo.rank, else the lowest rank >= 0 no file
	                         * claims (files without one in command-line order) */
	uint8_t has_rank;       /* rank came from the file */
	uint8_t gzip;
	uint8_t truncated;      /* input ended inside the trace */
	uint8_t pad[5];
	int64_t base_time_ns;   /* baseTimeNanoseconds, 0 if absent */
	uint64_t bytes_on_disk;
	uint64_t bytes_decoded; /* JSON bytes seen (after gunzip) */
	uint64_t phase_counts[TREX_PH_COUNT];
	uint64_t events;        /* trace events seen, all phases */
	struct trex_integrity integrity;
	struct trex_error first_problem; /* first warning with position, status OK if none */
	struct trex_source *source;      /* for lazy args; owned by the index */
};

/* ---- the index ------------------------------------------------------------ */

struct trex_index; /* opaque */

struct trex_strtab *trex_index_strings(const struct trex_index *idx);
static inline const char *trex_index_str(const struct trex_index *idx, uint32_t id);

/* Loaded files are numbered by rank, files claiming the same rank by base
 * name and path (trex_load_sources); analysis/labels.h names them. */
uint32_t trex_index_file_count(const struct trex_index *idx);
const struct trex_file *trex_index_file(const struct trex_index *idx, uint32_t id);

uint32_t trex_index_process_count(const struct trex_index *idx);
const struct trex_process *trex_index_process(const struct trex_index *idx, uint32_t id);

/* Tracks are numbered in display order: file, process sort order, track sort order. */
uint32_t trex_index_track_count(const struct trex_index *idx);
const struct trex_track *trex_index_track(const struct trex_index *idx, uint32_t id);

uint32_t trex_index_lane_count(const struct trex_index *idx);
const struct trex_lane *trex_index_lane(const struct trex_index *idx, uint32_t id);

uint32_t trex_index_slice_count(const struct trex_index *idx);
const struct trex_slice *trex_index_slice(const struct trex_index *idx, uint32_t id);

uint32_t trex_index_instant_count(const struct trex_index *idx);
const struct trex_instant *trex_index_instant(const struct trex_index *idx, uint32_t id);

uint32_t trex_index_sample_count(const struct trex_index *idx);
const struct trex_counter_sample *trex_index_sample(const struct trex_index *idx, uint32_t id);

uint32_t trex_index_flow_count(const struct trex_index *idx);
const struct trex_flow *trex_index_flow(const struct trex_index *idx, uint32_t id);

/* Earliest start and latest end over all events; both 0 for an empty index. */
int64_t trex_index_start(const struct trex_index *idx);
int64_t trex_index_end(const struct trex_index *idx);

/* Sum of every file's integrity counters. */
struct trex_integrity trex_index_integrity(const struct trex_index *idx);

/* Bytes held by the index (slices, tables, strings), for bytes/event stats. */
size_t trex_index_memory(const struct trex_index *idx);

void trex_index_free(struct trex_index *idx);

/* ---- queries -------------------------------------------------------------- */

/* First slice id in lane whose end >= t (end = ts + dur), or lane->first +
 * lane->count if none. Zero-length slices at t count as touching t. */
uint32_t trex_lane_find_end_at_or_after(const struct trex_index *idx,
					const struct trex_lane *lane, int64_t t);
/* First slice id in lane whose ts > t, or lane end if none. */
uint32_t trex_lane_find_start_after(const struct trex_index *idx,
				    const struct trex_lane *lane, int64_t t);

/* Deepest slice on track containing t (ts <= t < ts + dur, or ts == t for
 * zero-length); TREX_NONE if none. */
uint32_t trex_index_slice_at(const struct trex_index *idx, uint32_t track, int64_t t);

/* The slice enclosing id one level up, TREX_NONE at depth 0. */
uint32_t trex_index_parent(const struct trex_index *idx, uint32_t slice);
/* trex_index_parent of every slice at once, walking each lane beside the
 * one above it (no search per slice): parent[i] for slice i; parent has
 * room for trex_index_slice_count(idx) ids. A parent's id is always lower
 * than its child's. */
void trex_index_parents(const struct trex_index *idx, uint32_t *parent);

/* Kineto links (same file only). Both write at most max ids into out and
 * return how many exist in total.
 *  - trex_index_correlated: other slices with the same correlation id
 *    (runtime launch <-> GPU kernels/memcpy/memset).
 *  - trex_index_same_ext_id: other slices with the same External id
 *    (CPU op <-> runtime calls <-> GPU work). */
size_t trex_index_correlated(const struct trex_index *idx, uint32_t slice,
			     uint32_t *out, size_t max);
size_t trex_index_same_ext_id(const struct trex_index *idx, uint32_t slice,
			      uint32_t *out, size_t max);

/* The runtime call (cudaLaunchKernel, cuLaunchKernel, hipLaunchKernel,
 * cudaMemcpyAsync, ...) that launched a GPU slice, found through its
 * correlation id; TREX_NONE if none. */
uint32_t trex_index_launch_of(const struct trex_index *idx, uint32_t slice);

/* Flows leaving or entering a slice: writes flow ids, returns the total. */
size_t trex_index_flows_of(const struct trex_index *idx, uint32_t slice,
			   uint32_t *out, size_t max);

/* The raw JSON text of a slice's/instant's args object ("{...}"), read
 * from its source on request. *out is malloc'd, NUL-terminated; the caller
 * frees it. Returns TREX_OK with *out = NULL, *len = 0 when there are no
 * args. */
enum trex_status trex_index_args_text(const struct trex_index *idx, uint32_t file,
				      trex_args_ref ref, char **out, size_t *len,
				      struct trex_error *err);

/* The file a track belongs to. */
static inline uint32_t trex_index_track_file(const struct trex_index *idx, uint32_t track)
{
	return trex_index_process(idx, trex_index_track(idx, track)->process)->file;
}

static inline const char *trex_index_str(const struct trex_index *idx, uint32_t id)
{
	return trex_strtab_get(trex_index_strings(idx), id, NULL);
}

#endif
