/* The builder: the sink every loader streams events into (the write side
 * of the index), whatever the format. A loader makes one builder per
 * (file, part) it parses, in parallel if it likes; trex_index_build()
 * merges them in order, remaps their strings and tracks, pairs begins with
 * ends, sorts, nests, links, and freezes the result.
 *
 * What an event is (its kind: kernel, memcpy, runtime call, ...) is the
 * loader's to say (trex_ev.kind); the build stores it. Slices get handles
 * (trex_handle) so that other records can name them: edges between slices
 * (dependencies, flows, launches), flow points that sit on a slice. Tracks
 * are threads (a pid and tid), named tracks a loader makes under a process
 * (nested under another track if it likes), counter series and groups of
 * keyed slices; a process may say its rank, so one file can hold several
 * ranks.
 *
 * A builder is used by one thread at a time. Ids it returns (strings,
 * tracks, handles) are local to it. Event functions return 0 (or a handle),
 * or -1 (TREX_HANDLE_NONE) when out of memory or misused (the builder is
 * then unusable and the build fails). */
#ifndef TREX_CORE_BUILDER_H
#define TREX_CORE_BUILDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/args.h"
#include "trex/core/graph.h"
#include "trex/core/index.h"
#include "trex/core/status.h"

struct trex_builder;

/* A slice of one builder: its place among the builder's slices (0, 1, ...
 * in the order they were recorded). */
typedef uint32_t trex_handle;
#define TREX_HANDLE_NONE UINT32_MAX

/* One event as a loader sees it. Unused fields are 0. */
struct trex_ev {
	int64_t ts;         /* ns on the file's clock (base time is added at build) */
	int64_t dur;        /* ns; complete slices only; may be negative (then flagged REVERSED) */
	uint32_t name;      /* local string id */
	uint32_t cat;       /* local string id */
	trex_args_ref args; /* the file's args codec reads it back; TREX_ARGS_NONE: none */
	uint32_t launch_link; /* with TREX_SLICE_HAS_LAUNCH_LINK */
	uint32_t op_link;     /* with TREX_SLICE_HAS_OP_LINK */
	uint32_t shape;       /* local string id, 0 if none */
	uint16_t flags;       /* TREX_SLICE_HAS_LAUNCH_LINK | HAS_OP_LINK | TS_SATURATED */
	uint8_t kind;         /* enum trex_kind: what the event is */
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
/* The string of a local id (NULL for none), as trex_strtab_get gives it. */
const char *trex_builder_str(const struct trex_builder *b, uint32_t id);

/* ---- tracks ------------------------------------------------------------------------------ */

/* The thread track for (pid text, tid text) of this builder's file,
 * created on first use. pid/tid are local string ids of their textual
 * form (integers printed in decimal, strings as written). A thread of a
 * device process (trex_builder_process_device), or one that holds device
 * work (trex_kind_is_gpu), is a device queue (TREX_TRACK_GPU). TREX_NONE
 * on OOM. */
uint32_t trex_builder_track(struct trex_builder *b, uint32_t pid, uint32_t tid);

/* A track of slices the loader makes under process pid (TREX_TRACK_NAMED,
 * or TREX_TRACK_GPU once it holds device work, trex_kind_is_gpu):
 * key (a local string id) tells it apart from the process's other named
 * tracks and names it unless trex_builder_track_name says otherwise;
 * parent is another track of the same process (local id) it nests under,
 * or TREX_NONE. The same (pid, key) is the same track. TREX_NONE on OOM
 * or a bad parent. */
uint32_t trex_builder_named_track(struct trex_builder *b, uint32_t pid, uint32_t key,
                                  uint32_t parent);

/* ---- slices, instants and counters ------------------------------------------------------ */

/* A slice with its duration. ts order is not required. */
trex_handle trex_builder_complete(struct trex_builder *b, uint32_t track, const struct trex_ev *ev);
/* A slice that an end closes: trex_builder_end on its track closes the
 * most recent one still open (stack order, in the order of the calls;
 * across the builders of a file in file order). One no end closes runs to
 * the end of its file (UNTERMINATED). */
trex_handle trex_builder_begin(struct trex_builder *b, uint32_t track, const struct trex_ev *ev);
/* Closes the track's open slice at ev->ts; ev->name only names an end
 * that closes nothing in the file's integrity examples. */
int trex_builder_end(struct trex_builder *b, uint32_t track, const struct trex_ev *ev);
int trex_builder_instant(struct trex_builder *b, uint32_t track, const struct trex_ev *ev,
                         enum trex_instant_scope scope);

/* One counter sample: series is the local string id of the series name;
 * the series becomes a TREX_TRACK_COUNTER track of process pid. */
int trex_builder_counter(struct trex_builder *b, uint32_t pid, uint32_t series, int64_t ts,
                         double value);

/* ---- keyed slices ------------------------------------------------------------------------
 * Slices of process pid that a key, not a track, pairs: a begin opens a
 * slice on the key's stack, an end closes the most recent open one of the
 * same key (in file order), an instant marks a point. They go on the
 * process's TREX_TRACK_ASYNC track named after the key's outermost open
 * slice (the one its first begin opened), flagged ASYNC. */

/* A key: a namespace (local string id, e.g. a category) and an id that is
 * a number (str 0) or a string (str: its local string id). */
struct trex_key {
	uint32_t space;
	uint32_t str;
	uint64_t num;
};

trex_handle trex_builder_keyed_begin(struct trex_builder *b, uint32_t pid,
                                     const struct trex_key *key, const struct trex_ev *ev);
int trex_builder_keyed_end(struct trex_builder *b, uint32_t pid, const struct trex_key *key,
                           const struct trex_ev *ev);
int trex_builder_keyed_instant(struct trex_builder *b, uint32_t pid, const struct trex_key *key,
                               const struct trex_ev *ev);

/* ---- flows and edges ---------------------------------------------------------------------
 * A flow is a chain of points with one key (per file): a START begins a
 * chain, each STEP and the END add one hop (an index flow, trex_flow) from
 * the point before. The points of a key are chained in time order (ties:
 * start, step, end, then file order), whichever builder they are in; a
 * START on a chain that got no hop yet, and a STEP or END without a
 * chain, are orphans (integrity). A point sits on a slice: the one its
 * handle names, or, found once the slices are sorted, the deepest slice
 * of its track that encloses its time (BIND_ENCLOSING) or the first that
 * starts at or after it (BIND_NEXT). */
enum trex_flow_role { TREX_FLOW_START, TREX_FLOW_STEP, TREX_FLOW_END };
enum trex_flow_bind { TREX_BIND_ENCLOSING, TREX_BIND_NEXT };

struct trex_flow_point {
	struct trex_key key; /* key.space is also the flow's category */
	uint32_t name;       /* local string id */
	enum trex_flow_role role;
	/* where it sits: a slice of this builder, or a time on a track */
	trex_handle slice; /* TREX_HANDLE_NONE: track, ts and bind say */
	uint32_t track;
	int64_t ts;
	enum trex_flow_bind bind;
	/* key.num is an unsigned 64-bit id (Perfetto's), not a signed one
	 * (Chrome JSON's): how trex_index_flow_id gives it back */
	bool id_unsigned;
};

int trex_builder_flow(struct trex_builder *b, const struct trex_flow_point *p);

/* An edge between two slices of this builder, whatever their times:
 *  - TREX_EDGE_DEPENDENCY: to may start only after from (trex_index_edges);
 *  - TREX_EDGE_FLOW: one flow hop from -> to (trex_flow, as a flow chain's);
 *  - TREX_EDGE_LAUNCH: from (a runtime call) launched to (device work):
 *    both get one launch link (from's, or a new one of its file), so
 *    trex_index_launch_of(to) is from. */
enum trex_edge_kind { TREX_EDGE_DEPENDENCY, TREX_EDGE_FLOW, TREX_EDGE_LAUNCH };

int trex_builder_edge(struct trex_builder *b, trex_handle from, trex_handle to,
                      enum trex_edge_kind kind);

/* Says that slice shows node of the build's graph (trex_build_input.graph,
 * graph.h): the build binds them (trex_graph_node.slice and
 * trex_graph_node_of_slice). Returns 0, or -1 (OOM, bad handle). */
int trex_builder_graph_node(struct trex_builder *b, trex_handle slice, uint32_t node);

/* ---- metadata: later calls win (file order across builders) ------------------------------ */

int trex_builder_process_name(struct trex_builder *b, uint32_t pid, uint32_t name);
int trex_builder_process_labels(struct trex_builder *b, uint32_t pid, uint32_t labels);
int trex_builder_process_sort_index(struct trex_builder *b, uint32_t pid, int64_t index);
/* The rank of the process's work (trex_process.rank); without one, a
 * process has its file's rank. */
int trex_builder_process_rank(struct trex_builder *b, uint32_t pid, int64_t rank);
/* Whether the process is a device (a GPU, an accelerator): its thread
 * tracks are then device queues (TREX_TRACK_GPU). */
int trex_builder_process_device(struct trex_builder *b, uint32_t pid, bool device);
/* A thread's or named track's display name and sort index. */
int trex_builder_thread_name(struct trex_builder *b, uint32_t track, uint32_t name);
int trex_builder_thread_sort_index(struct trex_builder *b, uint32_t track, int64_t index);

/* A top-level member of the file that is no event (index.h,
 * trex_file_member), copied: members keep the order of the calls (file
 * order across builders). A loader keeps none longer than
 * TREX_FILE_MEMBER_MAX bytes (key and value): it counts such a member as
 * bad_values instead (exports lack it). Returns 0, or -1 when out of
 * memory (the builder is then unusable). */
#define TREX_FILE_MEMBER_MAX ((size_t)16 << 20)
int trex_builder_file_member(struct trex_builder *b, const struct trex_file_member *m);

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

/* The build's last stage, supplied by the loader: what the build cannot
 * decide alone, from the complete index (every slice placed, nested and
 * linked). kind[i] holds slice i's kind as its loader said and may be
 * refined (an unknown event on a device queue is a kernel); comm[i]
 * (TREX_COMM_NONE on entry) receives the communication rule it matched.
 * It may use up to threads threads (task.h); its result must not depend
 * on how many. */
struct trex_build_classifier {
	enum trex_status (*classify)(void *user, const struct trex_index *idx, unsigned threads,
	                             uint8_t *kind, uint8_t *comm, struct trex_error *err);
	void *user;
};

struct trex_build_input {
	/* files[i] describes global file id i. The loader fills path, format,
	 * dialect (as strings, below), rank, flags, byte and phase counts and
	 * its integrity counters; the build adds its own (overlaps, unmatched,
	 * orphans, ...). Codec contexts move into the index (closed by the
	 * build on failure); files[i].codec_ctx is set to NULL either way. */
	struct trex_build_file *files;
	size_t file_count;
	/* Builders in file order, and within a file in byte order. Consumed
	 * (freed, parts[i] set to NULL) by the build, also on failure. */
	struct trex_builder **parts;
	size_t part_count;
	unsigned threads; /* worker threads for merging, sorting, placing and linking; 0 or 1 = this
	                     thread */
	const struct trex_build_classifier *classifier; /* NULL: kinds as given, no communication */
	/* A finished dependency graph (graph.h) whose nodes the parts' slices
	 * show (trex_builder_graph_node), or NULL. The index owns it from the
	 * call on (freed by the build on failure). */
	struct trex_graph *graph;
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
	uint64_t events;
	/* the kinds of events counted (trex_event_type), in the loader's order */
	struct trex_build_event_type {
		const char *label, *name;
		uint64_t events;
	} event_types[TREX_EVENT_TYPES_MAX];
	uint32_t event_type_count;
	struct trex_integrity integrity;
	struct trex_error first_problem;
	/* how the index reads the file's args (and positions) back later */
	const struct trex_args_codec *codec;
	void *codec_ctx;
};

enum trex_status trex_index_build(const struct trex_build_input *in, struct trex_index **out,
                                  struct trex_error *err);

#endif
