#include "config.h"

#include "trex/export/pb_wire.h"

#include <stdlib.h>
#include <string.h>

void trex_pb_buf_free(struct trex_pb_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

bool trex_pb_reserve(struct trex_pb_buf *b, size_t more)
{
	if (b->oom)
		return false;
	if (b->len + more <= b->cap)
		return true;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + more)
		cap *= 2;
	unsigned char *p = realloc(b->p, cap);
	if (!p) {
		b->oom = true;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

bool trex_pb_put_bytes(struct trex_pb_buf *b, const void *p, size_t n)
{
	if (!trex_pb_reserve(b, n))
		return false;
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
	return true;
}

size_t trex_pb_varint_size(uint64_t v)
{
	size_t n = 1;

	while (v > 0x7f) {
		v >>= 7;
		n++;
	}
	return n;
}

size_t trex_pb_put_varint(struct trex_pb_buf *b, uint64_t v)
{
	size_t n = 0;

	if (!trex_pb_reserve(b, 10))
		return 0;
	do {
		b->p[b->len + n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	b->len += n;
	return n;
}
