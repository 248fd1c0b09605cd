/* The Chakra ET writer: a loaded trace as a set of Chakra execution-trace
 * files {prefix}.{rank}.et (one per rank, GlobalMetadata first, then one
 * Node per varint-framed record) that Chakra's tools and ASTRA-sim read, or
 * as one JSON document holding every rank ("chakra-json").
 *
 * What is written (doc/formats/chakra.md, "Writing"):
 *  - an index with an execution graph: every node of every rank. A node of
 *    a chakra-et file is its own record again (the same fields and every
 *    attribute, unknown ones included; only the encoding is made canonical:
 *    packed dependencies, fields in number order); a node of another graph
 *    format (ASTRA-sim text workloads) is encoded from what the graph store
 *    knows of it. A file without GlobalMetadata gets one (version 0.0.4).
 *  - an index without a graph (Kineto, unitrace, Perfetto GPU traces): per
 *    file (rank) its device work in start order: kernels, copies and sets
 *    as COMP nodes, communication kernels as COMM_COLL nodes, each
 *    depending on the work before it on its stream and on what the
 *    trace's cross-stream waits and synchronizations order it after.
 *    A collective of a process group that is not the whole set gets the
 *    group's pg_name, and the groups go to {prefix}.comm_groups.json
 *    (ASTRA-sim's --comm-group-configuration; chakra-json: the document's
 *    "comm_groups" member).
 *
 * All files of a set are written beside their targets and renamed over
 * them only once every file is complete (atomic_file.h): an error or a
 * cancellation leaves no file of the set behind. */
#ifndef TREX_EXPORT_CHAKRA_WRITE_H
#define TREX_EXPORT_CHAKRA_WRITE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/index.h"
#include "trex/core/status.h"
#include "trex/export/export_steps.h"
#include "trex/export/pb_wire.h"

/* What the comm-group file of an ET set is called: {prefix} and this. */
#define TREX_CHAKRA_GROUPS_SUFFIX ".comm_groups.json"

enum trex_chakra_out_format {
	TREX_CHAKRA_OUT_ET,   /* {prefix}.{rank}.et per rank */
	TREX_CHAKRA_OUT_JSON, /* one JSON document at prefix itself */
};

struct trex_chakra_host_link; /* chakra_host_link.h */

struct trex_chakra_write_opts {
	const char *prefix; /* ET: files {prefix}.{rank}.et; JSON: the file's path */
	enum trex_chakra_out_format format;
	bool force;                    /* replace existing files */
	volatile sig_atomic_t *cancel; /* non-zero: stop, write nothing; may be NULL */
	/* GPU traces: only the device work launched in these steps
	 * (export_steps.h); NULL: all of it */
	const struct trex_export_steps *steps;
	/* GPU traces: host ops to write as CPU nodes, device work linked to
	 * them (chakra_host_link.h); NULL: none */
	struct trex_chakra_host_link *host_link;
	/* Called every TREX_CHAKRA_PROGRESS_RECORDS records with the records and
	 * bytes written so far; returning true cancels (as cancel does). May
	 * be NULL. */
	bool (*progress)(const void *user, uint64_t records, uint64_t bytes);
	const void *progress_user;
};

#define TREX_CHAKRA_PROGRESS_RECORDS 4096u

/* Chakra NodeType numbers (the schema's, not enum trex_node_type). */
enum trex_chakra_node_type {
	TREX_CHAKRA_INVALID_NODE = 0,
	TREX_CHAKRA_METADATA_NODE = 1,
	TREX_CHAKRA_MEM_LOAD_NODE = 2,
	TREX_CHAKRA_MEM_STORE_NODE = 3,
	TREX_CHAKRA_COMP_NODE = 4,
	TREX_CHAKRA_COMM_SEND_NODE = 5,
	TREX_CHAKRA_COMM_RECV_NODE = 6,
	TREX_CHAKRA_COMM_COLL_NODE = 7,
	TREX_CHAKRA_NODE_TYPES
};

/* What a write did. */
struct trex_chakra_write_result {
	uint32_t ranks;                           /* files (ET) or ranks (JSON) written */
	uint64_t nodes;                           /* nodes written, all ranks */
	uint64_t by_type[TREX_CHAKRA_NODE_TYPES]; /* nodes by Chakra NodeType */
	uint64_t copied;                          /* nodes whose record was kept as read */
	uint64_t comm_size_unknown;               /* collectives written with comm_size 0 */
	uint64_t p2p_as_comp;                     /* send/recv kernels written as COMP */
	uint64_t comm_helpers; /* work under a collective's call written as COMP */
	bool order_differs;    /* collectives differ in order across ranks */
	char note[200];        /* the first such difference, or "" */
	/* GPU traces: process groups (their pg_name on collectives) */
	uint64_t groups;           /* groups written */
	bool groups_file;          /* ET: {prefix}.comm_groups.json written */
	uint64_t pg_tagged;        /* collectives written with a pg_name */
	uint64_t groups_by_use;    /* groups the trace names without ranks: ranks from use */
	uint64_t groups_outside;   /* groups listing ranks that are not in the set */
	uint64_t groups_conflicts; /* a name listed with two rank lists, or used by a non-member */
	uint64_t groups_named;     /* groups with ranks but no name: named 1000000, 1000001, ... */
	/* GPU traces: waits and synchronizations turned into dependencies */
	uint64_t stream_waits, host_syncs; /* that added dependencies */
	uint64_t sync_deps;                /* dependencies they added */
	uint64_t syncs_unmatched;          /* that named no earlier work */
};

/* Writes idx as opts says. Fails with TREX_EXISTS (a target exists and
 * !force; nothing written), TREX_USAGE (nothing to write: no graph and no
 * device work), TREX_IO, TREX_NOMEM or TREX_CANCELLED. */
enum trex_status trex_chakra_write(const struct trex_index *idx,
                                   const struct trex_chakra_write_opts *opts,
                                   struct trex_chakra_write_result *res, struct trex_error *err);

/* ---- encoding (exposed for tests) ------------------------------------------------------ */

/* Appends one record: varint32(len) then the payload. */
void trex_chakra_put_record(struct trex_pb_buf *b, const unsigned char *payload, size_t len);

/* One attribute as the writer emits it (the member ASTRA-sim reads). */
enum trex_chakra_attr_kind {
	TREX_CHAKRA_ATTR_BOOL,   /* bool_val (field 27) */
	TREX_CHAKRA_ATTR_INT64,  /* int64_val (field 9) */
	TREX_CHAKRA_ATTR_INT32,  /* int32_val (field 7) */
	TREX_CHAKRA_ATTR_STRING, /* string_val (field 29) */
};
struct trex_chakra_attr_out {
	const char *name;
	enum trex_chakra_attr_kind kind;
	int64_t i;     /* BOOL, INT64, INT32 */
	const char *s; /* STRING */
};

struct trex_chakra_node_out {
	uint64_t id;
	const char *name;
	enum trex_chakra_node_type type;
	const uint64_t *ctrl_deps, *data_deps;
	size_t n_ctrl_deps, n_data_deps;
	uint64_t duration_micros;
	const struct trex_chakra_attr_out *attrs;
	size_t n_attrs;
};

/* Appends n's serialization (no length prefix): fields in number order,
 * proto3 defaults omitted, dependencies packed, every attribute's member
 * written even when 0. A node that would serialize to nothing is written
 * as an explicit id 0 (08 00), so its record is never empty. */
void trex_chakra_encode_node(struct trex_pb_buf *b, const struct trex_chakra_node_out *n);
/* GlobalMetadata{version} (no attributes). */
void trex_chakra_encode_metadata(struct trex_pb_buf *b, const char *version);

/* The Chakra CollectiveCommType number a collective's name says
 * ("ncclDevKernel_AllReduce_Sum_f32", "all_gather", "nccl:all_to_all"):
 * case, '_' and '-' ignored; -1 when it names none. */
int trex_chakra_comm_type_of(const char *name);

/* Bytes per element of a PyTorch/Kineto dtype name ("Float", "c10::Half",
 * "bfloat16", "Long", ...); 0 when unknown. */
unsigned trex_chakra_dtype_size(const char *dtype);

#endif
