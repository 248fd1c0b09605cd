/* Private to the Perfetto decoder (src/load/perfetto_*.c): the maps, the
 * per-sequence state (interning, defaults, clocks) and the text arena the
 * records' strings live in. */
#ifndef TREX_LOAD_PERFETTO_INTERNAL_H
#define TREX_LOAD_PERFETTO_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#include "perfetto_decode.h"
#include "perfetto_trace.pb-c.h"

#define PF_CLOCK_BOOTTIME 6u
/* Clock ids 64..127 are custom clocks scoped to one packet sequence. */
#define PF_CLOCK_SEQ_FIRST 64u
#define PF_CLOCK_SEQ_LAST 127u
/* Clocks remembered per snapshot (the service writes about eight). */
#define PF_SNAPSHOT_CLOCKS 16
/* compressed_packets inside compressed_packets: a well-formed trace has
 * one level; this bounds a hostile one. */
#define PF_MAX_NESTING 4
/* TracePacket.sequence_flags */
#define PF_SEQ_INCREMENTAL_STATE_CLEARED 1u
#define PF_SEQ_NEEDS_INCREMENTAL_STATE 2u

/* uint64 key -> uint32 value, open addressing; 0 entries until first put. */
struct pf_map {
	uint64_t *keys;
	uint32_t *vals; /* PF_MAP_EMPTY marks a free slot */
	size_t cap, n;
};
#define PF_MAP_EMPTY UINT32_MAX

bool pf_map_put(struct pf_map *m, uint64_t key, uint32_t val);
/* The value for key, or PF_MAP_EMPTY. */
uint32_t pf_map_get(const struct pf_map *m, uint64_t key);
void pf_map_clear(struct pf_map *m);
void pf_map_free(struct pf_map *m);

/* Growing bytes; text is appended and referred to by offset, since the
 * buffer moves when it grows. */
struct pf_text {
	char *buf;
	size_t len, cap;
};

bool pf_text_reserve(struct pf_text *t, size_t more);
bool pf_text_append(struct pf_text *t, const char *s, size_t n);
bool pf_text_printf(struct pf_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pf_text_free(struct pf_text *t);

/* One interning dictionary: iid -> NUL-terminated string. */
struct pf_dict {
	struct pf_map index; /* iid -> offset in pool */
	struct pf_text pool;
};

bool pf_dict_put(struct pf_dict *d, uint64_t iid, const char *s, size_t n);
/* The string for iid, or NULL when it was never defined. */
const char *pf_dict_get(const struct pf_dict *d, uint64_t iid);
void pf_dict_clear(struct pf_dict *d);
void pf_dict_free(struct pf_dict *d);

/* A clock snapshot reduced to (clock id, time in ns) pairs. */
struct pf_snapshot {
	size_t n;
	uint32_t id[PF_SNAPSHOT_CLOCKS];
	int64_t ns[PF_SNAPSHOT_CLOCKS];
};

/* A clock a sequence's snapshot declared: incremental ones keep a running
 * value; every one has a unit. */
struct pf_seq_clock {
	uint32_t id;
	bool incremental;
	uint64_t unit_ns;
	uint64_t value; /* incremental: the running value, in units */
};

/* The state of one packet sequence (trusted_packet_sequence_id). */
struct pf_seq {
	uint32_t id;
	bool state_valid; /* a CLEARED packet came and nothing was lost since */
	struct pf_dict names, categories, annotation_names, annotation_strings;
	bool has_clock_default;
	uint32_t clock_default;
	bool has_track_default;
	uint64_t track_default;
	uint64_t *extra_counter_uuids, *extra_double_counter_uuids;
	size_t n_extra_counter_uuids, n_extra_double_counter_uuids;
	bool has_snapshot;
	struct pf_snapshot snapshot; /* the last one on this sequence */
	struct pf_seq_clock clocks[PF_SNAPSHOT_CLOCKS];
	size_t n_clocks;
};

/* What a track needs to be remembered for: counter scaling and sums, and
 * slices left open on it. */
struct pf_track_state {
	bool counter;
	bool incremental;
	int64_t multiplier;
	int64_t int_sum;
	double double_sum;
	uint64_t open;
};

struct pf_block;

/* The fields of one message type that hold messages (perfetto_args.c). */
struct pf_msg_fields {
	const ProtobufCMessageDescriptor *desc;
	const ProtobufCFieldDescriptor **fields;
	size_t n;
};

/* The decoder. */
struct pf_decoder {
	const struct trex_pf_sink *sink;
	struct trex_pf_stats *stats;
	const char *path;
	struct pf_map seq_index; /* sequence id -> index in seqs */
	struct pf_seq *seqs;
	size_t n_seqs, cap_seqs;
	struct pf_map track_index; /* uuid -> index in tracks */
	struct pf_track_state *tracks;
	size_t n_tracks, cap_tracks;
	bool has_global_snapshot;
	struct pf_snapshot global_snapshot; /* the last one's global clocks */
	struct pf_text scratch;             /* a record's strings, rebuilt per record */
	uint64_t *flows;                    /* a record's flow ids, rebuilt per record */
	size_t cap_flows;
	struct trex_pf_arg *args;
	size_t cap_args;
	struct pf_msg_fields *msg_fields; /* per message type seen */
	size_t n_msg_fields, cap_msg_fields;
	int depth; /* compressed_packets nesting */
	/* the packet being decoded at each depth (perfetto_decode.c) */
	struct pf_block *blocks[PF_MAX_NESTING + 1];
};

/* ---- perfetto_seq.c -------------------------------------------------------------- */

/* The sequence's state, made on first use; NULL when out of memory. */
struct pf_seq *pf_seq_get(struct pf_decoder *d, uint32_t id);
/* Forgets the sequence's interned entries and packet defaults. */
void pf_seq_clear(struct pf_seq *s);
/* Merges a packet's interned_data; returns the entries added, or -1
 * when out of memory. */
int64_t pf_seq_intern(struct pf_seq *s, const Perfetto__Protos__InternedData *in);
bool pf_seq_set_defaults(struct pf_seq *s, const Perfetto__Protos__TracePacketDefaults *def);
/* Records a clock snapshot seen on sequence s. */
void pf_clock_snapshot(struct pf_decoder *d, struct pf_seq *s,
                       const Perfetto__Protos__ClockSnapshot *snap);
/* A packet's timestamp on the trace clock, in ns. *converted is false
 * when no snapshot relates the packet's clock to the trace clock (the
 * raw value is returned then). */
int64_t pf_clock_to_trace(struct pf_decoder *d, struct pf_seq *s, uint32_t clock_id, uint64_t ts,
                          bool *converted);
void pf_seqs_free(struct pf_decoder *d);

/* ---- perfetto_args.c -------------------------------------------------------------- */

/* Appends the event's debug annotations to d->args (keys and values in
 * d->scratch, as offsets until pf_args_finish); *interned is set when an
 * interned name or string was used. Returns the count, -1 out of memory. */
int64_t pf_args_collect(struct pf_decoder *d, struct pf_seq *s,
                        Perfetto__Protos__DebugAnnotation *const *anns, size_t n, bool *interned);
/* s as a JSON string literal, appended to t. */
bool pf_json_string(struct pf_text *t, const char *s);
/* Turns the offsets of n collected args into pointers into d->scratch. */
void pf_args_finish(struct pf_decoder *d, size_t n);
/* Fields of m and of every message inside it that this reader does not
 * know (the fields that hold messages are listed once per type in d). */
uint64_t pf_unknown_fields(struct pf_decoder *d, const ProtobufCMessage *m);
void pf_msg_fields_free(struct pf_decoder *d);

#endif
