/* Protobuf's wire format written by hand (the Perfetto and Chakra trace
 * writers): a growing byte buffer and the base-128 varint, as protobuf's
 * own serializers emit them. A failed append sets oom and every later one
 * does nothing, so a writer checks once, at the end. */
#ifndef TREX_EXPORT_PB_WIRE_H
#define TREX_EXPORT_PB_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct trex_pb_buf {
	unsigned char *p;
	size_t len, cap;
	bool oom; /* an append failed: the contents are incomplete */
};

void trex_pb_buf_free(struct trex_pb_buf *b);
/* Room for more bytes after len; false (and oom) when memory runs out. */
bool trex_pb_reserve(struct trex_pb_buf *b, size_t more);
/* Appends n bytes; false (and b->oom) when memory runs out. */
bool trex_pb_put_bytes(struct trex_pb_buf *b, const void *p, size_t n);
/* The bytes of v as a minimal varint. */
size_t trex_pb_varint_size(uint64_t v);
/* Appends v as a minimal varint; returns its size (0 when out of memory). */
size_t trex_pb_put_varint(struct trex_pb_buf *b, uint64_t v);

#endif
