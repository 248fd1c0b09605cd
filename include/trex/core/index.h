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

#include "trex/core/args.h"
#include "trex/core/graph.h"
#include "trex/core/kind.h"
#include "trex/core/status.h"
#include "trex/core/strtab.h"

#define TREX_NONE UINT32_MAX /* "no such id" for slice/track/... ids */

/* ---- slices ------------------------------------------------------------ */

enum trex_slice_flag {
	TREX_SLICE_PAIRED = 1u << 0,          /* made of a begin and an end (trex_builder_begin) */
	TREX_SLICE_UNTERMINATED = 1u << 1,    /* begun, never ended: runs to the file's end */
	TREX_SLICE_OVERLAP = 1u << 2,         /* partially overlaps an earlier sibling */
	TREX_SLICE_REVERSED = 1u << 3,        /* ends before it starts: dur clamped to 0 */
	TREX_SLICE_ASYNC = 1u << 4,           /* a keyed slice (trex_builder_keyed_begin) */
	TREX_SLICE_HAS_LAUNCH_LINK = 1u << 5, /* launch_link is valid */
	TREX_SLICE_HAS_OP_LINK = 1u << 6,     /* op_link is valid */
	TREX_SLICE_TS_SATURATED = 1u << 7,    /* ts or dur did not fit int64 ns */
};

/* 40 bytes: the index holds one per slice, so what only some slices have
 * lives beside them, in tables by slice id read through accessors:
 * trex_slice_launch_link, trex_slice_op_link, trex_slice_shape and
 * trex_slice_comm. ts + dur never overflows int64 (durations are clamped
 * and flagged TREX_SLICE_TS_SATURATED instead), so end = ts + dur is safe.
 *
 * Links tie slices of one file together by equal ids:
 *  - launch link: the runtime call that launched device work and that
 *    work (Kineto's correlation id);
 *  - op link: the CPU operator, the runtime calls it made and the device
 *    work they launched (Kineto's External id). */
struct trex_slice {
	int64_t ts;         /* start, ns */
	int64_t dur;        /* >= 0, ns */
	uint32_t name;      /* string id */
	uint32_t cat;       /* string id (category) */
	uint32_t track;     /* track id */
	uint16_t depth;     /* nesting depth within the track, 0 = top */
	uint8_t flags;      /* enum trex_slice_flag (every bit is taken) */
	uint8_t kind;       /* enum trex_kind (kind.h): what its loader says it is */
	trex_args_ref args; /* read back through the file's codec (args.h) */
};

/* ---- instants, counters, flows ----------------------------------------- */

enum trex_instant_scope { TREX_SCOPE_THREAD = 0, TREX_SCOPE_PROCESS, TREX_SCOPE_GLOBAL };

struct trex_instant {
	int64_t ts;
	uint32_t name;
	uint32_t cat;
	uint32_t track;
	uint8_t scope; /* enum trex_instant_scope */
	uint8_t kind;  /* enum trex_kind (kind.h): what its loader says it is */
	uint8_t pad[2];
	trex_args_ref args;
};

/* One sample of a counter series; the series is its track. */
struct trex_counter_sample {
	int64_t ts;
	double value;
};

/* A flow between two slices: one hop of a flow chain, or a flow edge
 * (builder.h). from/to are slice ids, or TREX_NONE when the flow point
 * lies on no slice of its track. */
struct trex_flow {
	uint32_t from_slice;
	uint32_t to_slice;
	uint32_t from_track;
	uint32_t to_track;
	int64_t from_ts;
	int64_t to_ts;
	uint32_t cat;  /* string id */
	uint32_t name; /* string id */
};

/* ---- tracks ------------------------------------------------------------ */

enum trex_track_kind {
	TREX_TRACK_THREAD = 0, /* CPU thread: slices + instants */
	TREX_TRACK_GPU,     /* device queue: holds device work, or a thread of a device process */
	TREX_TRACK_COUNTER, /* one counter series */
	TREX_TRACK_ASYNC,   /* keyed slices of one name in a process (builder.h) */
	TREX_TRACK_NAMED,   /* a track its loader named under a process (builder.h) */
};

struct trex_lane {
	uint32_t track;
	uint32_t depth;
	uint32_t first; /* first slice id */
	uint32_t count; /* slices in the lane */
};

struct trex_track {
	uint32_t process;   /* process id */
	uint32_t tid;       /* string id of the tid text ("7", "stream 7", async/counter key) */
	int64_t tid_num;    /* numeric tid when tid is an integer, else 0 */
	uint32_t name;      /* display name: thread_name M event, or a derived one */
	int64_t sort_index; /* thread_sort_index, else tid_num */
	uint8_t kind;       /* enum trex_track_kind */
	uint8_t has_sort_index;
	uint16_t max_depth; /* deepest lane + 1 (0 if no slices) */
	uint32_t first_lane, lane_count;
	uint32_t first_slice, slice_count;     /* all lanes together */
	uint32_t first_instant, instant_count; /* instants ordered by (track, ts) */
	uint32_t first_sample, sample_count;   /* counter samples, by (track, ts) */
	uint32_t parent; /* the track it nests under (it follows it), TREX_NONE if none */
};

struct trex_process {
	uint32_t file;      /* file id (== rank slot) */
	uint32_t pid;       /* string id of the pid text */
	int64_t pid_num;    /* numeric pid when pid is an integer, else 0 */
	uint32_t name;      /* process_name M event, or "" */
	uint32_t labels;    /* process_labels M event, or "" */
	int64_t sort_index; /* process_sort_index, else pid_num */
	int64_t rank;       /* the rank its work belongs to: its own, else its file's */
	uint8_t has_sort_index;
	uint8_t is_gpu;   /* holds device queues (TREX_TRACK_GPU) */
	uint8_t has_rank; /* the rank is the process's own (trex_builder_process_rank) */
	uint8_t pad[5];
	uint32_t first_track, track_count; /* tracks of a process are contiguous and sorted */
};

/* ---- files and load statistics ------------------------------------------ */

/* The kinds of events a file's loader counted ("X" complete events,
 * "B" begins, ... for Chrome traces), in the loader's order, for `trex
 * info`: label and name are string ids. */
#define TREX_EVENT_TYPES_MAX 16
struct trex_event_type {
	uint32_t label;
	uint32_t name;
	uint64_t events;
};

/* Integrity counters: nothing is dropped silently, everything odd is counted.
 * X(field, "label"); the label says what happened to the data (kept,
 * dropped, clamped, ...). Counts are per file (trex_file.integrity).
 *
 * Two kinds (trex_integrity_is_damage):
 *  - structure notes (overlaps ... unsupported_phase, unknown_keys): what
 *    valid traces also contain; shown by `trex info`, never a warning;
 *  - damage (missing_fields ... bytes_ignored): input that was lost, or a
 *    value that could not be taken as written. Any of them makes trex warn
 *    (file, byte offset, line:col of the first example) and, with --strict,
 *    refuse the input.
 *
 * Which side counts what: the loader counts the notes unknown_keys and
 * unsupported_phase and every damage counter except the two *_out_of_range
 * of time outliers, which the index build decides (they need the file's
 * span); the build counts the other structure notes.
 *
 * The value rules (man trex, INTEGRITY AND SALVAGE):
 *  - ts not a number (string, null, object, ...): event dropped (bad_ts);
 *    quoted numbers ("12.5") are numbers; metadata (M), which needs no
 *    time, is kept with any ts problem counted;
 *  - ts beyond int64 ns, or further before the start / after the end of
 *    the file's other events than 1000 times their span (at least 1000 s):
 *    dropped (ts_out_of_range);
 *  - X dur missing or not a number: kept with duration 0 (bad_dur);
 *  - X dur beyond int64 ns or longer than 1000 times the file's span (at
 *    least 1000 s): dropped (dur_out_of_range); negative: kept, clamped to
 *    0 and flagged REVERSED (reversed);
 *  - pid/tid neither a string nor an integer of at most 64 bits (null,
 *    1.5, an object, 2^70): kept on the track its text names (bad_ids);
 *  - ts + dur beyond int64 ns: kept, the end clamped, flagged
 *    TS_SATURATED (saturated_numbers).
 * Damaged JSON: the loader skips from the damaged byte to the next place
 * where a complete event parses (or a top-level key, or the end of the
 * trace), at any depth; each such span counts one syntax error, its bytes
 * and the events it held (estimated from the event boundaries in it). */
#define TREX_INTEGRITY_INFO(X)                                                                     \
	X(overlaps, "slices partially overlapping a sibling (kept, nested deeper)")                \
	X(zero_duration, "zero-duration slices (kept)")                                            \
	X(reversed, "slices with negative duration (kept, clamped to 0)")                          \
	X(unmatched_begin, "B without E (kept, run to end of file)")                               \
	X(unmatched_end, "E without B (ignored)")                                                  \
	X(orphan_flow_start, "flow starts without an end")                                         \
	X(orphan_flow_end, "flow ends/steps without a start")                                      \
	X(unbound_flow_points, "flow points on no slice")                                          \
	X(unsupported_phase, "events of a phase trex does not show (P, O, N, D, ...; ignored)")    \
	X(unknown_keys, "unknown event keys (ignored)")                                            \
	X(missing_fields, "events without ph, or timed events without ts (dropped)")               \
	X(unknown_phase, "events whose ph is no trace-event phase (dropped)")                      \
	X(bad_values, "other values of the wrong type (args, ...: ignored)")                       \
	X(bad_ts, "events whose ts is not a number (dropped; metadata kept)")                      \
	X(bad_dur, "X events whose dur is missing or not a number (kept, duration 0)")             \
	X(bad_ids, "events whose pid or tid is not a string or 64-bit integer (kept)")             \
	X(ts_out_of_range, "ts beyond int64 ns or far outside the file's span (dropped; M kept)")  \
	X(dur_out_of_range, "X dur beyond int64 ns or 1000x the file's span (dropped)")            \
	X(saturated_numbers, "ends beyond int64 ns (kept, clamped)")                               \
	X(invalid_utf8, "strings with invalid UTF-8 (replaced by U+FFFD)")                         \
	X(syntax_errors, "damaged spots skipped")                                                  \
	X(bytes_skipped, "bytes skipped at damaged spots")                                         \
	X(events_lost, "events lost in damaged spots and cut input (estimated)")                   \
	X(bytes_ignored, "bytes ignored after truncation")

struct trex_integrity {
#define TREX_INTEGRITY_FIELD(field, label) uint64_t field;
	TREX_INTEGRITY_INFO(TREX_INTEGRITY_FIELD)
#undef TREX_INTEGRITY_FIELD
};

/* One id per counter, in TREX_INTEGRITY_INFO order: TREX_INTEG_overlaps ... */
enum trex_integrity_counter {
#define TREX_INTEGRITY_ENUM(field, label) TREX_INTEG_##field,
	TREX_INTEGRITY_INFO(TREX_INTEGRITY_ENUM)
#undef TREX_INTEGRITY_ENUM
	    TREX_INTEG_COUNT
};

/* Adds every counter of b to a. */
void trex_integrity_add(struct trex_integrity *a, const struct trex_integrity *b);
/* The counter's field name ("bytes_skipped") and label; NULL/"" out of range. */
const char *trex_integrity_name(enum trex_integrity_counter c);
const char *trex_integrity_label(enum trex_integrity_counter c);
uint64_t trex_integrity_get(const struct trex_integrity *in, enum trex_integrity_counter c);
/* Adds n to counter c of in. */
void trex_integrity_count(struct trex_integrity *in, enum trex_integrity_counter c, uint64_t n);
/* Whether the counter means damage (data lost or a value not taken as
 * written) rather than a structure note; see above. */
bool trex_integrity_is_damage(enum trex_integrity_counter c);
/* Whether any damage counter of in is non-zero. */
bool trex_integrity_damaged(const struct trex_integrity *in);

/* ---- integrity examples ---------------------------------------------------
 * For each file and counter the index keeps the first TREX_PROBLEM_EXAMPLES
 * problems: those the loader found in file order, those the build found in
 * time order (the earliest). A damaged span (syntax_errors, and with it
 * bytes_skipped and events_lost; bytes_ignored for a cut tail) is one
 * example with its length. The file's first and largest damaged spans are
 * kept apart (trex_index_damage). Examples are read with trex_index_problem. */
#define TREX_PROBLEM_EXAMPLES 8
#define TREX_PROBLEM_WHAT_MAX 112

struct trex_problem {
	int64_t offset;       /* decoded byte offset in the file; -1 when not known */
	int64_t disk_offset;  /* gzip: compressed byte inflated at offset; else -1 */
	int64_t line, col;    /* 1-based, of offset; 0 when not known */
	uint64_t length;      /* damaged spans: bytes skipped or ignored; else 0 */
	uint64_t events_lost; /* damaged spans: events estimated lost in them */
	int64_t ts;           /* ns on the index clock, when has_ts */
	uint32_t track;       /* track of the event it concerns, TREX_NONE if none */
	uint32_t slice;       /* the slice, when the event was kept as one; else TREX_NONE */
	uint32_t name;        /* string id of the event's name, TREX_NONE if none */
	uint8_t counter;      /* enum trex_integrity_counter */
	bool has_ts;
	char what[TREX_PROBLEM_WHAT_MAX]; /* "ts is a string", "dur 1e308 us is beyond int64 ns" */
};

struct trex_file {
	uint32_t path;    /* string id */
	uint32_t format;  /* string id: "chrome-json" */
	uint32_t dialect; /* string id: "kineto", "kineto-2021", "unitrace", "acelyzer-flex", ... */
	int64_t rank;     /* the file's rank (distributedInfo.rank), else the lowest rank
	                   * >= 0 no file claims (files without one in command-line order) */
	uint8_t has_rank; /* rank came from the file */
	uint8_t gzip;
	uint8_t truncated; /* input ended inside the trace */
	uint8_t pad[5];
	int64_t base_time_ns; /* added to every time of the file (baseTimeNanoseconds), 0 if none */
	uint64_t bytes_on_disk;
	uint64_t bytes_decoded; /* bytes of the format seen (after gunzip) */
	uint64_t events;        /* trace events seen, all types */
	uint32_t event_type_count;
	struct trex_event_type event_types[TREX_EVENT_TYPES_MAX];
	struct trex_integrity integrity;
	struct trex_error first_problem; /* first warning with position, status OK if none */
	/* how its args are read back (args.h); the index owns codec_ctx */
	const struct trex_args_codec *codec;
	void *codec_ctx;
};

/* A member of a file's top level that is no event, as its loader kept it
 * (trex_builder_file_member): for Chrome JSON every top-level member but
 * traceEvents (schemaVersion, deviceProperties, distributedInfo,
 * displayTimeUnit, baseTimeNanoseconds, traceName, ...). Format-neutral
 * text: the key as written between its quotes (escapes kept) and the
 * value's JSON text, byte for byte; after_events: it followed the file's
 * events. Kept for exporters; no analysis reads them. */
struct trex_file_member {
	const char *key;
	size_t key_len;
	const char *value;
	size_t value_len;
	bool after_events;
};

/* ---- flow ids --------------------------------------------------------------
 * The id a flow had in its file (Chrome's "id", Perfetto's flow id), kept
 * beside the flows rather than in them (trex_index_flow_id): a number or a
 * string id, scoped by the flow's category (trex_flow.cat) and its file.
 * Flows a loader made from edges have none. chained: the hop is one of
 * several of one chain (a step point at either end), whose points share
 * the id. */
enum trex_flow_id_kind {
	TREX_FLOW_ID_NONE = 0,
	TREX_FLOW_ID_NUM, /* a signed number (Chrome JSON) */
	TREX_FLOW_ID_STR,
	TREX_FLOW_ID_U64, /* an unsigned 64-bit number (Perfetto): num holds its bits */
};

struct trex_flow_id {
	int64_t num;  /* TREX_FLOW_ID_NUM, TREX_FLOW_ID_U64 */
	uint32_t str; /* TREX_FLOW_ID_STR: string id */
	uint8_t kind; /* enum trex_flow_id_kind */
	bool chained;
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

/* The id flow had in its file; kind TREX_FLOW_ID_NONE when it had none
 * or id is out of range. */
struct trex_flow_id trex_index_flow_id(const struct trex_index *idx, uint32_t flow);

/* The file's top-level members (trex_file_member) in file order: how many,
 * and the i-th (false when out of range). */
uint32_t trex_index_file_member_count(const struct trex_index *idx, uint32_t file);
bool trex_index_file_member(const struct trex_index *idx, uint32_t file, uint32_t i,
                            struct trex_file_member *out);
/* The last member of file whose key text is key; false when none. */
bool trex_index_file_member_find(const struct trex_index *idx, uint32_t file, const char *key,
                                 struct trex_file_member *out);

/* Earliest start and latest end over all events; both 0 for an empty index. */
int64_t trex_index_start(const struct trex_index *idx);
int64_t trex_index_end(const struct trex_index *idx);

/* Sum of every file's integrity counters. */
struct trex_integrity trex_index_integrity(const struct trex_index *idx);

/* Integrity examples of file for counter c: how many are kept (at most
 * TREX_PROBLEM_EXAMPLES; the count itself is in trex_file.integrity), and
 * the i-th (NULL when out of range). */
uint32_t trex_index_problem_count(const struct trex_index *idx, uint32_t file,
                                  enum trex_integrity_counter c);
const struct trex_problem *trex_index_problem(const struct trex_index *idx, uint32_t file,
                                              enum trex_integrity_counter c, uint32_t i);
/* The file's first (in file order) or largest (ties: the first) damaged
 * span: a skipped damaged spot or the ignored tail of cut input; NULL when
 * the file has none. */
const struct trex_problem *trex_index_damage(const struct trex_index *idx, uint32_t file,
                                             bool largest);
/* One line, no newline, naming the file and where:
 *   "PATH:LINE:COL: (byte N[, compressed byte C]) WHAT"
 * then, when known, " [track T, ts NS ns, NAME]" and for a span
 * " (L bytes, E events)"; "PATH: WHAT ..." without a position. Returns what
 * snprintf returns. */
int trex_problem_format(const struct trex_index *idx, uint32_t file, const struct trex_problem *p,
                        char *buf, size_t size);

/* Bytes held by the index (slices, tables, strings), for bytes/event stats. */
size_t trex_index_memory(const struct trex_index *idx);

/* The dependency graph the index's execution-graph files hold
 * (trex_build_input.graph, graph.h), bound to the slices that show its
 * nodes; NULL when no input was a graph. */
const struct trex_graph *trex_index_graph(const struct trex_index *idx);

void trex_index_free(struct trex_index *idx);

/* ---- queries -------------------------------------------------------------- */

/* First slice id in lane whose end >= t (end = ts + dur), or lane->first +
 * lane->count if none. Zero-length slices at t count as touching t. */
uint32_t trex_lane_find_end_at_or_after(const struct trex_index *idx, const struct trex_lane *lane,
                                        int64_t t);
/* First slice id in lane whose ts > t, or lane end if none. */
uint32_t trex_lane_find_start_after(const struct trex_index *idx, const struct trex_lane *lane,
                                    int64_t t);

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
/* The same for the slices of tracks [first_track, end_track) only (a
 * track's slices are ids first_slice.. of it): disjoint ranges of tracks
 * may be filled by several threads at once. */
void trex_index_parents_of(const struct trex_index *idx, uint32_t first_track, uint32_t end_track,
                           uint32_t *parent);

/* What only some slices have, by slice id (trex_slice); a search in a
 * table of the slices that have it. The launch link (op link) with
 * TREX_SLICE_HAS_LAUNCH_LINK (TREX_SLICE_HAS_OP_LINK), else 0; the shape
 * as a string id ("grid=[x,y,z] block=[x,y,z] smem=N"), 0 if none; the
 * communication rule the slice matched (kind.h), TREX_COMM_NONE if none.
 * Ids out of range read as having none. */
uint32_t trex_slice_launch_link(const struct trex_index *idx, uint32_t slice);
uint32_t trex_slice_op_link(const struct trex_index *idx, uint32_t slice);
uint32_t trex_slice_shape(const struct trex_index *idx, uint32_t slice);
unsigned trex_slice_comm(const struct trex_index *idx, uint32_t slice);

/* Slices linked to slice (same file only; trex_slice): other slices with
 * the same launch link (a runtime call <-> the device work it launched),
 * or with the same op link (a CPU op <-> its runtime calls <-> their
 * device work). Both write at most max ids into out and return how many
 * exist in total. */
size_t trex_index_same_launch_link(const struct trex_index *idx, uint32_t slice, uint32_t *out,
                                   size_t max);
size_t trex_index_same_op_link(const struct trex_index *idx, uint32_t slice, uint32_t *out,
                               size_t max);

/* The runtime call (kind TREX_KIND_RUNTIME: cudaLaunchKernel,
 * hipLaunchKernel, cudaMemcpyAsync, ...) that launched a device slice,
 * found through its launch link; TREX_NONE if none. */
uint32_t trex_index_launch_of(const struct trex_index *idx, uint32_t slice);

/* Flows leaving or entering a slice: writes flow ids, returns the total. */
size_t trex_index_flows_of(const struct trex_index *idx, uint32_t slice, uint32_t *out, size_t max);

/* Dependencies (trex_builder_edge, TREX_EDGE_DEPENDENCY): `to` may start
 * only once `from` has ended. */
struct trex_edge {
	uint32_t from, to; /* slice ids */
};
uint32_t trex_index_edge_count(const struct trex_index *idx);
const struct trex_edge *trex_index_edge(const struct trex_index *idx, uint32_t id);
/* The dependencies of slice (incoming: the slices it waits for) or its
 * dependents (the slices waiting for it): writes edge ids, returns the
 * total. */
size_t trex_index_edges_of(const struct trex_index *idx, uint32_t slice, bool incoming,
                           uint32_t *out, size_t max);

/* A slice's or instant's args (ref) of file, read back through the
 * file's codec (args.h): decoded into (key, value) pairs, or as one JSON
 * object text (*out malloc'd, NUL-terminated, the caller frees it).
 * No args: n = 0, or *out NULL and *len 0. *truncated (may be NULL):
 * the args ended before they were complete. */
enum trex_status trex_index_args(const struct trex_index *idx, uint32_t file, trex_args_ref ref,
                                 struct trex_args *out, bool *truncated, struct trex_error *err);
enum trex_status trex_index_args_json(const struct trex_index *idx, uint32_t file,
                                      trex_args_ref ref, char **out, size_t *len,
                                      struct trex_error *err);
/* Decodes many args of file at once (refs[0..n), none TREX_ARGS_NONE), in
 * whatever order reads the file fastest, reporting each to fn with its
 * index in refs. */
enum trex_status trex_index_args_each(const struct trex_index *idx, uint32_t file,
                                      const trex_args_ref *refs, size_t n, trex_args_each_fn *fn,
                                      void *user, struct trex_error *err);

/* trex_index_args_json of many args of file at once (refs[0..n), none
 * TREX_ARGS_NONE), in whatever order reads the file fastest, each
 * reported to fn with its index in refs (the text is valid during the
 * call only). */
enum trex_status trex_index_args_json_each(const struct trex_index *idx, uint32_t file,
                                           const trex_args_ref *refs, size_t n,
                                           trex_args_json_fn *fn, void *user,
                                           struct trex_error *err);

/* The events of type label ("X", ...; trex_event_type) file's loader
 * counted, 0 if it counted none. */
uint64_t trex_file_events_of_type(const struct trex_index *idx, uint32_t file, const char *label);

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
