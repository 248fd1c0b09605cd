/* The records of a loaded Chakra ET file, read back as bytes: what the
 * Chakra writer (export/chakra_write.h) copies when it writes a node that
 * came from a .et file, so nothing of the node (unknown attributes
 * included) is lost or re-typed on the way. */
#ifndef TREX_LOAD_CHAKRA_RECORDS_H
#define TREX_LOAD_CHAKRA_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trex/core/index.h"
#include "trex/core/status.h"

/* Whether file f of an index was read by the chakra-et loader (its nodes'
 * offsets are record offsets of its decoded bytes). */
bool trex_chakra_file_is_et(const struct trex_file *f);

/* The payload of the record whose length prefix starts at decoded offset
 * of f (a graph node's offset), into *buf (grown with realloc; *cap its
 * size), *len bytes. */
enum trex_status trex_chakra_file_record(const struct trex_file *f, uint64_t offset,
                                         unsigned char **buf, size_t *cap, size_t *len,
                                         struct trex_error *err);

/* Record 0 of f when it is a GlobalMetadata (*len bytes, maybe 0), else
 * *len = SIZE_MAX (a legacy file that starts with a node). */
enum trex_status trex_chakra_file_metadata(const struct trex_file *f, unsigned char **buf,
                                           size_t *cap, size_t *len, struct trex_error *err);

/* A record payload (a Node) re-encoded canonically: fields in number
 * order, dependencies packed, never empty. Copies it as it is when it
 * already is (every file Chakra's tools write); *copied says which. The
 * result is appended to out (no length prefix). Returns false when the
 * payload does not decode or memory runs out. */
struct trex_pb_buf;
bool trex_chakra_canonical_node(const unsigned char *p, size_t len, struct trex_pb_buf *out,
                                bool *copied);

/* A Node or GlobalMetadata payload as one JSON object in the proto3 JSON
 * mapping (lowerCamelCase keys, 64-bit integers as strings, enums by
 * name, defaults omitted, a set oneof member always), appended to out
 * without a NUL. Returns false when it does not decode or memory runs
 * out. */
bool trex_chakra_record_json(const unsigned char *p, size_t len, bool metadata,
                             struct trex_pb_buf *out);

#endif
