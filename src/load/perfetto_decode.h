/* The Perfetto protobuf decoder: streams a trace (a Trace message, i.e.
 * `0A varint(len) TracePacket`... until EOF, plain or gzip) packet by
 * packet and hands format-neutral records to a sink: tracks, slice
 * begins/ends, instants and counter values, with names and categories
 * resolved (inline or interned), timestamps on one clock (ns), flows and
 * debug annotations as key/value text. It keeps the per-sequence state the
 * format needs (interning tables, incremental-state resets, packet
 * defaults, incremental and sequence-scoped clocks) and knows nothing of
 * the index: a loader turns the records into builder calls.
 *
 * Every record is valid only during the sink call (strings included). */
#ifndef TREX_LOAD_PERFETTO_DECODE_H
#define TREX_LOAD_PERFETTO_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/status.h"
#include "trex/load/source.h"

/* Where a record came from: the packet's first byte (its 0x0A tag) in the
 * decoded input, and its 0-based index among the file's packets. Packets
 * unpacked from compressed_packets report the outer packet's position. */
struct trex_pf_where {
	uint64_t packet_offset;
	uint64_t packet_index;
};

enum trex_pf_track_kind {
	TREX_PF_TRACK_NAMED = 0, /* a custom track (async, GPU stream...) */
	TREX_PF_TRACK_PROCESS,
	TREX_PF_TRACK_THREAD,
	TREX_PF_TRACK_COUNTER,
};

/* A TrackDescriptor. The same uuid may come again (after an incremental
 * state reset, for one); the sink decides whether that is an update. */
struct trex_pf_track {
	struct trex_pf_where where;
	uint64_t uuid;
	uint64_t parent_uuid; /* valid when has_parent */
	bool has_parent;
	enum trex_pf_track_kind kind;
	int32_t pid;      /* process and thread tracks (0 when absent) */
	int64_t tid;      /* thread tracks */
	const char *name; /* the track's, thread's or process's name; NULL if none */
	/* counter tracks: unit name ("ns", "count", "bytes" or the writer's),
	 * NULL when unspecified; values are already multiplied and summed */
	const char *unit;
};

enum trex_pf_event_type {
	TREX_PF_SLICE_BEGIN = 1,
	TREX_PF_SLICE_END = 2,
	TREX_PF_INSTANT = 3,
};

struct trex_pf_arg {
	const char *key;
	/* strings as their text, numbers and true/false as written, pointers
	 * as 0x hex, nested dicts and arrays as compact JSON */
	const char *value;
	/* value is text, not a JSON literal (a string, a pointer, NaN...):
	 * quoted when the args are written as JSON */
	bool quoted;
};

/* A TrackEvent that is a slice begin, a slice end or an instant. */
struct trex_pf_event {
	struct trex_pf_where where;
	enum trex_pf_event_type type;
	uint64_t track_uuid; /* explicit, else the sequence's default, else 0 */
	int64_t ts;          /* ns on the trace clock */
	uint32_t sequence_id;
	const char *name;     /* NULL when the event has none (ends usually) */
	const char *category; /* categories joined by ","; NULL when none */
	/* flow_ids (and the deprecated flow_ids_old) then terminating ones */
	const uint64_t *flow_ids;
	size_t n_flow_ids;
	const uint64_t *terminating_flow_ids;
	size_t n_terminating_flow_ids;
	const struct trex_pf_arg *args;
	size_t n_args;
	/* The TrackEvent's bytes in the decoded input, for reading its
	 * annotations again later; length 0 when they are not in the file
	 * as such (a compressed packet). Decoding them again gives the same
	 * args only when !args_interned (no interned name or string). */
	uint64_t event_offset;
	uint32_t event_length;
	bool args_interned;
};

/* One counter value: a COUNTER event's own value or one of its extra
 * values, on the trace clock, scaled by the track's unit multiplier and,
 * for incremental counter tracks, summed. */
struct trex_pf_counter {
	struct trex_pf_where where;
	uint64_t track_uuid;
	int64_t ts;
	bool is_double;
	int64_t int_value;
	double double_value;
};

/* The sink. Any callback may be NULL. A status other than TREX_OK stops
 * decoding and is returned (with the sink's err). problem reports damage
 * that decoding continued past (a corrupt packet skipped, an iid that was
 * never defined...); each kind is also counted in trex_pf_stats. */
struct trex_pf_sink {
	void *user;
	enum trex_status (*track)(void *user, const struct trex_pf_track *track,
	                          struct trex_error *err);
	enum trex_status (*event)(void *user, const struct trex_pf_event *event,
	                          struct trex_error *err);
	enum trex_status (*counter)(void *user, const struct trex_pf_counter *counter,
	                            struct trex_error *err);
	void (*problem)(void *user, const struct trex_error *problem);
};

struct trex_pf_stats {
	uint64_t packets;     /* TracePackets read (inner ones included) */
	uint64_t bytes;       /* decoded bytes consumed */
	uint64_t input_bytes; /* decoded bytes of input seen (past a cut too) */
	uint64_t track_descriptors;
	uint64_t track_events; /* TrackEvents of any type */
	uint64_t slice_begins, slice_ends, instants;
	uint64_t counter_values;    /* counter records (extra values included) */
	uint64_t debug_annotations; /* top-level annotations of emitted events */
	uint64_t clock_snapshots;
	uint64_t interned_entries;
	uint64_t compressed_packets; /* compressed_packets fields expanded */
	uint64_t unknown_fields;     /* fields this reader does not know, at any depth */
	uint64_t packets_with_unknown_fields;
	uint64_t other_top_level_fields; /* Trace fields other than packet (skipped) */
	uint64_t corrupt_packets;        /* packets that did not decode, compressed_packets
	                                  * that did not inflate whole (skipped) */
	uint64_t dropped_no_state;       /* SEQ_NEEDS_INCREMENTAL_STATE without valid state */
	uint64_t loss_reports;           /* packets saying the writer lost data before them */
	uint64_t unresolved_iids;        /* interned ids that were never defined */
	uint64_t unconverted_timestamps; /* on a clock no snapshot relates to the trace clock */
	uint64_t unmatched_slice_ends;   /* an END with no open slice on its track */
	uint64_t unfinished_slices;      /* BEGINs still open at the end */
	uint64_t zstd_packets;           /* zstd_compressed_packets: not readable, skipped */
	uint64_t skipped_events;         /* track events of a type not read (legacy, state) */
	uint64_t dropped_counter_values; /* extra counter values without a track */
	uint64_t truncated;              /* 1 when the input ends inside a packet */
	uint32_t trace_clock; /* the clock ts is on (6 BOOTTIME unless a snapshot says) */
};

/* Decodes the whole source into the sink. On bad framing (a length past
 * the end: truncated; a malformed varint or tag) returns TREX_FORMAT with
 * err at the broken packet (path, byte offset, packet index, what was
 * expected), after every complete packet before it was delivered; stats
 * then hold what was read. stats may not be NULL. */
enum trex_status trex_pf_decode(struct trex_source *src, const struct trex_pf_sink *sink,
                                struct trex_pf_stats *stats, struct trex_error *err);

/* The same over a buffer that is already in memory (tests, the fuzzer);
 * name is used in errors. */
enum trex_status trex_pf_decode_buffer(const char *name, const void *data, size_t len,
                                       const struct trex_pf_sink *sink, struct trex_pf_stats *stats,
                                       struct trex_error *err);

/* The debug annotations of one TrackEvent again, from the bytes an event
 * record pointed at (event_offset, event_length), for an args codec that
 * reads them lazily: fn gets the same (key, value) text the record had,
 * as long as the record's args_interned was false (interned names and
 * strings are per-sequence state that is gone by then: they come back
 * empty). Bytes that are not a TrackEvent are TREX_FORMAT; name and
 * offset position the error. */
typedef enum trex_status trex_pf_args_fn(void *user, const struct trex_pf_arg *args, size_t n,
                                         struct trex_error *err);
enum trex_status trex_pf_event_args(const char *name, uint64_t offset, const void *bytes,
                                    size_t len, trex_pf_args_fn *fn, void *user,
                                    struct trex_error *err);

#endif
