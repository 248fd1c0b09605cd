/* Records of loaded Chakra ET files read back as bytes, made canonical, or
 * rendered as proto3 JSON (chakra_records.h). The JSON walks protobuf-c's
 * descriptors, so every field the schema has is rendered the same way. */
#include "config.h"

#include "trex/load/chakra_records.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra_internal.h"
#include "trex/export/chakra_write.h"

bool trex_chakra_file_is_et(const struct trex_file *f)
{
	const struct trex_chakra_codec *c = f ? f->codec_ctx : NULL;
	return f && f->codec == &trex_chakra_args_codec && c && c->magic == TREX_CHAKRA_CODEC_MAGIC;
}

static enum trex_status ck_read_at(struct trex_source *src, uint64_t at, unsigned char **buf,
                                   size_t *cap, size_t *len, struct trex_error *err)
{
	unsigned char head[5];
	size_t got = 0, pos = 0;
	uint32_t n = 0;
	enum trex_status st = trex_source_read(src, at, sizeof(head), (char *)head, &got, err);

	if (st != TREX_OK)
		return st;
	if (trex_chakra_read_length(head, got, &pos, &n) != 1)
		return trex_error_set(err, TREX_FORMAT, trex_source_path(src), (int64_t)at,
		                      "no Chakra record at this offset");
	if (n > *cap) {
		unsigned char *p = realloc(*buf, n);
		if (!p)
			return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
		*buf = p;
		*cap = n;
	}
	st = trex_source_read(src, at + pos, n, (char *)*buf, &got, err);
	if (st == TREX_OK && got != n)
		return trex_error_set(err, TREX_FORMAT, trex_source_path(src), (int64_t)at,
		                      "the record here is cut short");
	*len = n;
	return st;
}

enum trex_status trex_chakra_file_record(const struct trex_file *f, uint64_t offset,
                                         unsigned char **buf, size_t *cap, size_t *len,
                                         struct trex_error *err)
{
	const struct trex_chakra_codec *c = f->codec_ctx;
	return ck_read_at(c->src, offset, buf, cap, len, err);
}

enum trex_status trex_chakra_file_metadata(const struct trex_file *f, unsigned char **buf,
                                           size_t *cap, size_t *len, struct trex_error *err)
{
	const struct trex_chakra_codec *c = f->codec_ctx;
	enum trex_status st = ck_read_at(c->src, 0, buf, cap, len, err);

	if (st == TREX_OK && !trex_chakra_is_metadata(*buf, *len))
		*len = SIZE_MAX;
	return st;
}

/* ---- canonical nodes ------------------------------------------------------------------------ */

static bool ck_varint(const unsigned char *p, size_t len, size_t *pos, uint64_t *out)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < 10 && *pos < len; i++) {
		unsigned char b = p[(*pos)++];
		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			*out = v;
			return true;
		}
	}
	return false;
}

/* Whether the fields of a Node payload come in number order (attributes
 * may repeat), each once, deps packed: then it is what protobuf writes. */
static bool ck_is_canonical(const unsigned char *p, size_t len)
{
	static const unsigned char wire[11] = {9, 0, 2, 0, 2, 2, 0, 0, 2, 2, 2};
	uint64_t last = 0;
	size_t pos = 0;

	if (len == 0)
		return false;
	while (pos < len) {
		uint64_t tag, v;
		if (!ck_varint(p, len, &pos, &tag))
			return false;
		uint64_t field = tag >> 3;
		if (field < 1 || field > 10 || (tag & 7) != wire[field])
			return false;
		if (field < last || (field == last && field != 10))
			return false;
		last = field;
		if (!ck_varint(p, len, &pos, &v))
			return false;
		if ((tag & 7) == 2) {
			if (v > len - pos)
				return false;
			pos += v;
		}
	}
	return true;
}

static bool ck_append(struct trex_pb_buf *b, const void *p, size_t n)
{
	return trex_pb_put_bytes(b, p, n);
}

bool trex_chakra_canonical_node(const unsigned char *p, size_t len, struct trex_pb_buf *out,
                                bool *copied)
{
	*copied = ck_is_canonical(p, len);
	if (*copied)
		return ck_append(out, p, len);
	trex_chakra_node *n = chakra_proto_msg__node__unpack(NULL, len, p);
	if (!n)
		return false;
	size_t size = chakra_proto_msg__node__get_packed_size(n);
	bool ok;
	if (size == 0) {
		ok = ck_append(out, "\x08\x00", 2);
	} else {
		unsigned char *tmp = malloc(size);
		ok = tmp && ck_append(out, tmp, chakra_proto_msg__node__pack(n, tmp));
		free(tmp);
	}
	chakra_proto_msg__node__free_unpacked(n, NULL);
	return ok;
}

/* ---- proto3 JSON ---------------------------------------------------------------------------- */

static bool ck_puts(struct trex_pb_buf *b, const char *s)
{
	return ck_append(b, s, strlen(s));
}

static bool ck_printf(struct trex_pb_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static bool ck_printf(struct trex_pb_buf *b, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < sizeof(tmp) && ck_append(b, tmp, (size_t)n);
}

/* Length of the valid UTF-8 sequence at s (1..4), 0 when it is not one. */
static size_t ck_utf8(const unsigned char *s, size_t left)
{
	size_t n = s[0] < 0xc2 ? 0 : s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : s[0] < 0xf5 ? 4 : 0;

	if (n == 0 || n > left)
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* A JSON string; bytes that are not UTF-8 become U+FFFD so the document
 * stays valid. */
static bool ck_json_string(struct trex_pb_buf *b, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	bool ok = ck_append(b, "\"", 1);

	for (size_t i = 0; ok && i < len;) {
		size_t n;
		if (p[i] == '"' || p[i] == '\\') {
			ok = ck_append(b, "\\", 1) && ck_append(b, &p[i], 1);
			i++;
		} else if (p[i] < 0x20) {
			ok = ck_printf(b, "\\u%04x", p[i]);
			i++;
		} else if (p[i] < 0x80) {
			ok = ck_append(b, &p[i], 1);
			i++;
		} else if ((n = ck_utf8(p + i, len - i)) != 0) {
			ok = ck_append(b, &p[i], n);
			i += n;
		} else {
			ok = ck_puts(b, "\\ufffd");
			i++;
		}
	}
	return ok && ck_append(b, "\"", 1);
}

static bool ck_base64(struct trex_pb_buf *b, const ProtobufCBinaryData *d)
{
	static const char abc[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	bool ok = ck_append(b, "\"", 1);

	for (size_t i = 0; ok && i < d->len; i += 3) {
		uint32_t v = (uint32_t)d->data[i] << 16;
		size_t n = d->len - i < 3 ? d->len - i : 3;
		if (n > 1)
			v |= (uint32_t)d->data[i + 1] << 8;
		if (n > 2)
			v |= d->data[i + 2];
		char q[4] = {abc[v >> 18 & 63], abc[v >> 12 & 63], n > 1 ? abc[v >> 6 & 63] : '=',
		             n > 2 ? abc[v & 63] : '='};
		ok = ck_append(b, q, 4);
	}
	return ok && ck_append(b, "\"", 1);
}

/* snake_case as lowerCamelCase, the proto3 JSON name. */
static bool ck_json_key(struct trex_pb_buf *b, const char *name)
{
	char key[64];
	size_t n = 0;
	bool up = false;

	for (; *name && n + 1 < sizeof(key); name++) {
		if (*name == '_') {
			up = true;
			continue;
		}
		key[n++] = up && *name >= 'a' && *name <= 'z' ? (char)(*name - 'a' + 'A') : *name;
		up = false;
	}
	return ck_json_string(b, key, n) && ck_append(b, ":", 1);
}

static bool ck_json_double(struct trex_pb_buf *b, double v)
{
	if (isnan(v))
		return ck_puts(b, "\"NaN\"");
	if (isinf(v))
		return ck_puts(b, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
	return ck_printf(b, "%.17g", v);
}

static bool ck_json_message(struct trex_pb_buf *b, const ProtobufCMessage *m);

/* One value of field f at p. */
static bool ck_json_value(struct trex_pb_buf *b, const ProtobufCFieldDescriptor *f, const void *p)
{
	switch (f->type) {
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_SFIXED32:
		return ck_printf(b, "%" PRId32, *(const int32_t *)p);
	case PROTOBUF_C_TYPE_UINT32:
	case PROTOBUF_C_TYPE_FIXED32:
		return ck_printf(b, "%" PRIu32, *(const uint32_t *)p);
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
		return ck_printf(b, "\"%" PRId64 "\"", *(const int64_t *)p);
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64:
		return ck_printf(b, "\"%" PRIu64 "\"", *(const uint64_t *)p);
	case PROTOBUF_C_TYPE_FLOAT:
		return ck_json_double(b, (double)*(const float *)p);
	case PROTOBUF_C_TYPE_DOUBLE:
		return ck_json_double(b, *(const double *)p);
	case PROTOBUF_C_TYPE_BOOL:
		return ck_puts(b, *(const protobuf_c_boolean *)p ? "true" : "false");
	case PROTOBUF_C_TYPE_ENUM: {
		int v = *(const int *)p;
		const ProtobufCEnumValue *e =
		    protobuf_c_enum_descriptor_get_value(f->descriptor, v);
		return e ? ck_json_string(b, e->name, strlen(e->name)) : ck_printf(b, "%d", v);
	}
	case PROTOBUF_C_TYPE_STRING: {
		const char *s = *(char *const *)p;
		return ck_json_string(b, s ? s : "", s ? strlen(s) : 0);
	}
	case PROTOBUF_C_TYPE_BYTES:
		return ck_base64(b, p);
	case PROTOBUF_C_TYPE_MESSAGE:
	default:
		return ck_json_message(b, *(const ProtobufCMessage *const *)p);
	}
}

static size_t ck_value_size(ProtobufCType t)
{
	switch (t) {
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64:
		return 8;
	case PROTOBUF_C_TYPE_DOUBLE:
		return sizeof(double);
	case PROTOBUF_C_TYPE_BOOL:
		return sizeof(protobuf_c_boolean);
	case PROTOBUF_C_TYPE_ENUM:
		return sizeof(int);
	case PROTOBUF_C_TYPE_STRING:
	case PROTOBUF_C_TYPE_MESSAGE:
		return sizeof(void *);
	case PROTOBUF_C_TYPE_BYTES:
		return sizeof(ProtobufCBinaryData);
	default:
		return 4;
	}
}

/* Whether a singular proto3 field holds its default (and is omitted). */
static bool ck_is_default(const ProtobufCFieldDescriptor *f, const void *p)
{
	switch (f->type) {
	case PROTOBUF_C_TYPE_STRING: {
		const char *s = *(char *const *)p;
		return !s || !s[0];
	}
	case PROTOBUF_C_TYPE_MESSAGE:
		return *(void *const *)p == NULL;
	case PROTOBUF_C_TYPE_BYTES:
		return ((const ProtobufCBinaryData *)p)->len == 0;
	case PROTOBUF_C_TYPE_DOUBLE:
		return *(const double *)p == 0 && !signbit(*(const double *)p);
	case PROTOBUF_C_TYPE_FLOAT:
		return *(const float *)p == 0 && !signbit(*(const float *)p);
	default: {
		static const unsigned char zero[8];
		return memcmp(p, zero, ck_value_size(f->type)) == 0;
	}
	}
}

static bool ck_json_field(struct trex_pb_buf *b, const ProtobufCFieldDescriptor *f,
                          const ProtobufCMessage *m, bool *first)
{
	const char *base = (const char *)m;
	const void *p = base + f->offset;

	if (f->label == PROTOBUF_C_LABEL_REPEATED) {
		size_t n = *(const size_t *)(base + f->quantifier_offset);
		const char *v = *(const char *const *)p;
		if (n == 0)
			return true;
		bool ok = (*first || ck_append(b, ",", 1)) && ck_json_key(b, f->name) &&
		          ck_append(b, "[", 1);
		for (size_t i = 0; ok && i < n; i++)
			ok = (!i || ck_append(b, ",", 1)) &&
			     ck_json_value(b, f, v + i * ck_value_size(f->type));
		*first = false;
		return ok && ck_append(b, "]", 1);
	}
	if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
		if (*(const uint32_t *)(base + f->quantifier_offset) != f->id)
			return true;
	} else if (ck_is_default(f, p)) {
		return true;
	}
	bool ok =
	    (*first || ck_append(b, ",", 1)) && ck_json_key(b, f->name) && ck_json_value(b, f, p);
	*first = false;
	return ok;
}

static bool ck_json_message(struct trex_pb_buf *b, const ProtobufCMessage *m)
{
	bool first = true, ok;

	if (!m)
		return ck_puts(b, "{}");
	ok = ck_append(b, "{", 1);
	for (unsigned i = 0; ok && i < m->descriptor->n_fields; i++)
		ok = ck_json_field(b, &m->descriptor->fields[i], m, &first);
	return ok && ck_append(b, "}", 1);
}

bool trex_chakra_record_json(const unsigned char *p, size_t len, bool metadata,
                             struct trex_pb_buf *out)
{
	const ProtobufCMessageDescriptor *d = metadata
	                                          ? &chakra_proto_msg__global_metadata__descriptor
	                                          : &chakra_proto_msg__node__descriptor;
	ProtobufCMessage *m = protobuf_c_message_unpack(d, NULL, len, p);

	if (!m)
		return false;
	bool ok = ck_json_message(out, m);
	protobuf_c_message_free_unpacked(m, NULL);
	return ok;
}
