/* The Chakra execution-trace decoder: the framing of a .et file (each
 * record a varint32 length and that many bytes; record 0 a GlobalMetadata
 * unless the file is a legacy one that starts with a Node; zero-length
 * records are empty messages), each record decoded by protobuf-c with the
 * schema in src/load/proto/chakra_et.proto, and what a node means (type,
 * collective, sizes, peers) read from its fields and attributes. It knows
 * nothing of the graph store or the index: the loader (chakra.c) turns
 * records into graph nodes, the codec reads one back for the details pane.
 *
 * Messages handed to a sink are valid only during the call. */
#ifndef TREX_LOAD_CHAKRA_DECODE_H
#define TREX_LOAD_CHAKRA_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "chakra_et.pb-c.h"
#include "trex/core/graph.h"
#include "trex/core/status.h"
#include "trex/load/source.h"

typedef ChakraProtoMsg__Node trex_chakra_node;
typedef ChakraProtoMsg__GlobalMetadata trex_chakra_metadata;
typedef ChakraProtoMsg__AttributeProto trex_chakra_attr;

/* Where a record is: its 0-based index among the file's records, the
 * decoded offset of its length prefix and its payload's length. */
struct trex_chakra_where {
	uint64_t record;
	uint64_t offset;
	uint64_t length;
};

enum trex_chakra_damage {
	TREX_CHAKRA_UNDECODABLE, /* a record that does not decode: skipped, the next one read */
	TREX_CHAKRA_CUT,         /* the input ends inside a record or its length: the rest lost */
	TREX_CHAKRA_BAD_LENGTH,  /* a length prefix longer than 32 bits: the framing is lost */
};

struct trex_chakra_sink {
	void *user;
	/* record 0 when it is a GlobalMetadata (never called for a legacy file) */
	enum trex_status (*metadata)(void *user, const trex_chakra_metadata *gm,
	                             const struct trex_chakra_where *w, struct trex_error *err);
	enum trex_status (*node)(void *user, const trex_chakra_node *n,
	                         const struct trex_chakra_where *w, struct trex_error *err);
	/* damage: bytes lost with it (the record skipped, or the rest of the
	 * file), and a one-line description (without file or position) */
	void (*damage)(void *user, enum trex_chakra_damage kind, const struct trex_chakra_where *w,
	               uint64_t bytes, const char *what);
	/* progress: decoded bytes since the last call; returns true to cancel */
	bool (*progress)(void *user, uint64_t bytes, uint64_t disk_bytes, uint64_t nodes);
};

struct trex_chakra_stats {
	uint64_t records;       /* framed, the damaged ones included */
	uint64_t nodes;         /* decoded nodes handed to the sink */
	uint64_t empty_records; /* zero-length records (empty messages) */
	uint64_t bytes;         /* decoded bytes read */
	bool legacy;            /* record 0 was a node: no GlobalMetadata */
	bool truncated;         /* the input ended inside a record (or a gzip stream early) */
};

/* Decodes src record by record into sink. Damage is reported to the sink
 * and never fails the call; a sink callback's error, a read error, OOM or
 * cancellation does. */
enum trex_status trex_chakra_decode(struct trex_source *src, const struct trex_chakra_sink *sink,
                                    struct trex_chakra_stats *stats, struct trex_error *err);

/* Whether a record's payload is a GlobalMetadata rather than a Node: every
 * top-level field is field 1 or 2, length-delimited (an empty record is). */
bool trex_chakra_is_metadata(const unsigned char *p, size_t len);

/* Reads a varint32 record length at p[*pos..len): 1 read, 0 the bytes end
 * inside it, -1 it is longer than 5 bytes or 32 bits. */
int trex_chakra_read_length(const unsigned char *p, size_t len, size_t *pos, uint32_t *out);

/* ---- what a node means --------------------------------------------------------------- */

/* An attribute's value as an integer, whichever scalar integer or bool
 * member holds it; false for lists, strings, floats and none. */
bool trex_chakra_attr_int(const trex_chakra_attr *a, int64_t *out);

struct trex_chakra_facts {
	enum trex_node_type type;
	enum trex_collective collective; /* COMM_COLL with a known comm_type, else NONE */
	bool cpu;                        /* is_cpu_op */
	int64_t dur;                     /* ns; TREX_GRAPH_DUR_UNKNOWN: a comm node without one */
	int64_t comm_bytes;              /* comm_size, -1 when none */
	const char *group;               /* pg_name text ("" when none) */
	int32_t peer;                    /* send: comm_dst, recv: comm_src; -1 when none */
	int32_t tag;                     /* comm_tag, 0 when none */
	/* values that could not be taken as written (a comm_type no collective
	 * has, a negative comm_size, a duration beyond int64 ns), or NULL */
	const char *bad_value;
	char group_buf[24]; /* an integer pg_name as text */
};

/* The graph-store facts of n (see doc/formats/chakra.md for the mapping). */
void trex_chakra_node_facts(const trex_chakra_node *n, struct trex_chakra_facts *f);

/* The process-group table of a "## process_group:init ##" metadata node
 * (its inputs.values: ['[{"pg_name": "0", "ranks": [0, 1], ...}, ...]']):
 * fn is called per group that lists its ranks. Returns the groups found,
 * or -1 when the text is not such a table or fn fails. */
typedef int trex_chakra_group_fn(void *user, const char *name, size_t name_len,
                                 const uint32_t *ranks, size_t n);
int trex_chakra_process_groups(const char *values, trex_chakra_group_fn *fn, void *user);

#define TREX_CHAKRA_PG_INIT_NAME "## process_group:init ##"

#endif
