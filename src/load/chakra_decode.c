/* The Chakra ET framing and record decoding (chakra_decode.h). */
#include "config.h"

#include "chakra_decode.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Decoded bytes per stream window; a longer record is carried into a
 * window that grows to hold it. */
#define CK_WINDOW (4u << 20)
/* Decoded bytes between progress reports. */
#define CK_PROGRESS_BYTES (1u << 20)

/* ---- per-record memory -------------------------------------------------------------------
 * protobuf-c allocates each string, list and attribute of a record; one
 * record lives at a time, so allocations come from one buffer that is
 * rewound per record (free is a no-op). A record that needs more than the
 * buffer spills into malloc'd blocks, and the buffer grows to fit it next
 * time. */

struct ck_spill {
	struct ck_spill *next;
	max_align_t data[];
};

struct ck_memory {
	unsigned char *buf;
	size_t cap, used;
	size_t spilled; /* bytes the last record needed beyond cap */
	struct ck_spill *spills;
};

static size_t ck_align(size_t size)
{
	return (size + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
}

static void *ck_alloc(void *ctx, size_t size)
{
	struct ck_memory *m = ctx;

	if (size > SIZE_MAX / 2)
		return NULL;
	size = ck_align(size);
	if (m->cap - m->used >= size) {
		void *p = m->buf + m->used;
		m->used += size;
		return p;
	}
	struct ck_spill *s = malloc(sizeof(*s) + size);
	if (!s)
		return NULL;
	s->next = m->spills;
	m->spills = s;
	m->spilled += size;
	return s->data;
}

static void ck_free(void *ctx, void *p)
{
	(void)ctx;
	(void)p;
}

/* Forgets the last record; grows the buffer when it spilled. */
static void ck_rewind(struct ck_memory *m)
{
	for (struct ck_spill *s = m->spills, *next; s; s = next) {
		next = s->next;
		free(s);
	}
	m->spills = NULL;
	if (m->spilled) {
		size_t cap = ck_align(m->cap + m->spilled + 4096);
		unsigned char *buf = malloc(cap);
		if (buf) { /* else keep the old one: spilling still works */
			free(m->buf);
			m->buf = buf;
			m->cap = cap;
		}
	}
	m->spilled = 0;
	m->used = 0;
}

static void ck_memory_free(struct ck_memory *m)
{
	ck_rewind(m);
	free(m->buf);
	m->buf = NULL;
}

/* ---- framing -------------------------------------------------------------------------------- */

int trex_chakra_read_length(const unsigned char *p, size_t len, size_t *pos, uint32_t *out)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < 5; i++) {
		if (*pos + i >= len)
			return 0;
		v |= (uint64_t)(p[*pos + i] & 0x7f) << (7 * i);
		if (!(p[*pos + i] & 0x80)) {
			if (v > UINT32_MAX)
				return -1;
			*pos += i + 1;
			*out = (uint32_t)v;
			return 1;
		}
	}
	return -1;
}

/* A protobuf varint (up to 10 bytes) at p[*pos..len); false when bad or cut. */
static bool ck_varint(const unsigned char *p, size_t len, size_t *pos, uint64_t *out)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < 10 && *pos + i < len; i++) {
		v |= (uint64_t)(p[*pos + i] & 0x7f) << (7 * i);
		if (!(p[*pos + i] & 0x80)) {
			*pos += i + 1;
			*out = v;
			return true;
		}
	}
	return false;
}

bool trex_chakra_is_metadata(const unsigned char *p, size_t len)
{
	size_t pos = 0;

	while (pos < len) {
		uint64_t tag, n;
		if (!ck_varint(p, len, &pos, &tag) || (tag != 0x0a && tag != 0x12))
			return false;
		if (!ck_varint(p, len, &pos, &n) || n > len - pos)
			return false;
		pos += (size_t)n;
	}
	return true;
}

/* ---- decoding ------------------------------------------------------------------------------ */

struct ck_decoder {
	const struct trex_chakra_sink *sink;
	struct trex_chakra_stats *stats;
	struct ck_memory mem;
	const char *path;
	uint64_t reported_bytes, reported_disk, reported_nodes;
	struct trex_stream *stream;
};

static void ck_damage(struct ck_decoder *d, enum trex_chakra_damage kind,
                      const struct trex_chakra_where *w, uint64_t bytes, const char *what)
{
	if (d->sink->damage)
		d->sink->damage(d->sink->user, kind, w, bytes, what);
}

static enum trex_status ck_metadata(struct ck_decoder *d, const unsigned char *p,
                                    const struct trex_chakra_where *w, struct trex_error *err)
{
	ProtobufCAllocator alloc = {ck_alloc, ck_free, &d->mem};
	trex_chakra_metadata *gm =
	    chakra_proto_msg__global_metadata__unpack(&alloc, (size_t)w->length, p);
	enum trex_status st = TREX_OK;

	if (!gm)
		ck_damage(d, TREX_CHAKRA_UNDECODABLE, w, w->length,
		          "does not decode as a GlobalMetadata (skipped)");
	else if (d->sink->metadata)
		st = d->sink->metadata(d->sink->user, gm, w, err);
	ck_rewind(&d->mem);
	return st;
}

static enum trex_status ck_node(struct ck_decoder *d, const unsigned char *p,
                                const struct trex_chakra_where *w, struct trex_error *err)
{
	ProtobufCAllocator alloc = {ck_alloc, ck_free, &d->mem};
	trex_chakra_node *n = chakra_proto_msg__node__unpack(&alloc, (size_t)w->length, p);
	enum trex_status st = TREX_OK;

	if (!n) {
		ck_damage(d, TREX_CHAKRA_UNDECODABLE, w, w->length,
		          "does not decode as a Node (skipped)");
	} else {
		d->stats->nodes++;
		if (d->sink->node)
			st = d->sink->node(d->sink->user, n, w, err);
	}
	ck_rewind(&d->mem);
	return st;
}

static enum trex_status ck_record(struct ck_decoder *d, const unsigned char *p,
                                  const struct trex_chakra_where *w, struct trex_error *err)
{
	d->stats->records++;
	d->stats->empty_records += w->length == 0;
	if (w->record == 0 && trex_chakra_is_metadata(p, (size_t)w->length))
		return ck_metadata(d, p, w, err);
	if (w->record == 0)
		d->stats->legacy = true;
	return ck_node(d, p, w, err);
}

static bool ck_progress(struct ck_decoder *d, uint64_t bytes)
{
	if (!d->sink->progress)
		return false;
	uint64_t disk = trex_stream_disk_position(d->stream);
	bool cancel =
	    d->sink->progress(d->sink->user, bytes - d->reported_bytes, disk - d->reported_disk,
	                      d->stats->nodes - d->reported_nodes);
	d->reported_bytes = bytes;
	d->reported_disk = disk;
	d->reported_nodes = d->stats->nodes;
	return cancel;
}

/* The records of one window p[0..len) at decoded offset base: *consumed
 * bytes framed whole; *stop when the framing is lost (the rest is lost). */
static enum trex_status ck_window(struct ck_decoder *d, const unsigned char *p, size_t len,
                                  uint64_t base, size_t *consumed, bool *stop,
                                  struct trex_error *err)
{
	size_t pos = 0;

	while (pos < len) {
		struct trex_chakra_where w = {.record = d->stats->records, .offset = base + pos};
		size_t body = pos;
		uint32_t n;
		int r = trex_chakra_read_length(p, len, &body, &n);
		if (r < 0) {
			ck_damage(d, TREX_CHAKRA_BAD_LENGTH, &w, len - pos,
			          "a record length longer than 32 bits (the rest is lost)");
			d->stats->records++;
			*stop = true;
			pos = len;
			break;
		}
		if (r == 0 || n > len - body)
			break;
		w.length = n;
		enum trex_status st = ck_record(d, p + body, &w, err);
		if (st != TREX_OK)
			return st;
		pos = body + n;
		if (base + pos - d->reported_bytes >= CK_PROGRESS_BYTES &&
		    ck_progress(d, base + pos))
			return trex_error_set(err, TREX_CANCELLED, d->path, -1, "cancelled");
	}
	*consumed = pos;
	return TREX_OK;
}

/* The input ended with rest bytes of an unfinished record at offset. */
static void ck_cut(struct ck_decoder *d, const unsigned char *p, size_t rest, uint64_t offset)
{
	struct trex_chakra_where w = {.record = d->stats->records, .offset = offset};
	size_t body = 0;
	uint32_t n = 0;
	char what[160];

	if (trex_chakra_read_length(p, rest, &body, &n) <= 0)
		snprintf(what, sizeof(what), "the file ends inside a record length (%zu %s lost)",
		         rest, rest == 1 ? "byte" : "bytes");
	else
		snprintf(what, sizeof(what),
		         "record length %" PRIu32 " runs past the end of the file (%zu %s there; "
		         "the record is lost)",
		         n, rest - body, rest - body == 1 ? "byte" : "bytes");
	w.length = n;
	d->stats->records++;
	d->stats->truncated = true;
	ck_damage(d, TREX_CHAKRA_CUT, &w, rest, what);
}

/* A gzip stream that ends early between two records. */
static void ck_gzip_cut(struct ck_decoder *d, uint64_t offset)
{
	struct trex_chakra_where w = {.record = d->stats->records, .offset = offset};

	ck_damage(d, TREX_CHAKRA_CUT, &w, 0,
	          "the gzip stream ends early (what followed this record is lost)");
}

static enum trex_status ck_stream(struct ck_decoder *d, struct trex_error *err)
{
	size_t carry = 0, consumed = 0;
	bool stop = false;

	for (;;) {
		const char *data;
		size_t len;
		uint64_t offset;
		bool truncated = false;
		enum trex_status st =
		    trex_stream_next(d->stream, carry, &data, &len, &offset, &truncated, err);
		if (st != TREX_OK)
			return st;
		const unsigned char *p = (const unsigned char *)data;
		d->stats->truncated = d->stats->truncated || truncated;
		if (len == carry) {
			d->stats->bytes = offset + len;
			if (carry)
				ck_cut(d, p, carry, offset);
			else if (d->stats->truncated)
				ck_gzip_cut(d, offset);
			ck_progress(d, offset + len);
			return TREX_OK;
		}
		st = ck_window(d, p, len, offset, &consumed, &stop, err);
		if (st != TREX_OK || stop) {
			d->stats->bytes = offset + len;
			return st;
		}
		carry = len - consumed;
	}
}

enum trex_status trex_chakra_decode(struct trex_source *src, const struct trex_chakra_sink *sink,
                                    struct trex_chakra_stats *stats, struct trex_error *err)
{
	struct ck_decoder d = {.sink = sink, .stats = stats, .path = trex_source_path(src)};
	enum trex_status st;

	memset(stats, 0, sizeof(*stats));
	trex_error_clear(err);
	st = trex_stream_open(src, CK_WINDOW, TREX_STREAM_INLINE, &d.stream, err);
	if (st == TREX_OK)
		st = ck_stream(&d, err);
	trex_stream_close(d.stream);
	ck_memory_free(&d.mem);
	return st;
}
