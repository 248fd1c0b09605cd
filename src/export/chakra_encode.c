/* The Chakra ET wire encoding by hand (chakra_write.h): what protobuf's own
 * serializer emits for a Node and a GlobalMetadata, so a written record is
 * byte for byte what Chakra's Python tools would write for it. */
#include "config.h"

#include "trex/export/chakra_write.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Wire types and the field tags the writer uses ((number << 3) | wire). */
enum { CK_VARINT = 0, CK_LEN = 2 };
#define CK_TAG(field, wire) ((uint64_t)(field) << 3 | (wire))

void trex_chakra_put_record(struct trex_pb_buf *b, const unsigned char *payload, size_t len)
{
	trex_pb_put_varint(b, len);
	trex_pb_put_bytes(b, payload, len);
}

static void ck_put_string(struct trex_pb_buf *b, unsigned field, const char *s)
{
	size_t n = strlen(s);

	trex_pb_put_varint(b, CK_TAG(field, CK_LEN));
	trex_pb_put_varint(b, n);
	trex_pb_put_bytes(b, s, n);
}

static void ck_put_packed(struct trex_pb_buf *b, unsigned field, const uint64_t *v, size_t n)
{
	size_t bytes = 0;

	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		bytes += trex_pb_varint_size(v[i]);
	trex_pb_put_varint(b, CK_TAG(field, CK_LEN));
	trex_pb_put_varint(b, bytes);
	for (size_t i = 0; i < n; i++)
		trex_pb_put_varint(b, v[i]);
}

/* AttributeProto{name = 1, one value member}: its size, then its bytes. */
static size_t ck_attr_size(const struct trex_chakra_attr_out *a, size_t *name_len)
{
	size_t n = strlen(a->name), size = 1 + trex_pb_varint_size(n) + n;

	*name_len = n;
	switch (a->kind) {
	case TREX_CHAKRA_ATTR_BOOL:
		return size + 2 + 1; /* tag d8 01 */
	case TREX_CHAKRA_ATTR_INT64:
	case TREX_CHAKRA_ATTR_INT32:
		/* negatives are 10-byte varints in both, as protobuf writes them */
		return size + 1 + trex_pb_varint_size((uint64_t)a->i);
	case TREX_CHAKRA_ATTR_STRING:
	default: {
		size_t s = strlen(a->s ? a->s : "");
		return size + 2 + trex_pb_varint_size(s) + s; /* tag ea 01 */
	}
	}
}

static void ck_put_attr(struct trex_pb_buf *b, const struct trex_chakra_attr_out *a)
{
	size_t name_len, size = ck_attr_size(a, &name_len);

	trex_pb_put_varint(b, CK_TAG(10, CK_LEN));
	trex_pb_put_varint(b, size);
	trex_pb_put_varint(b, CK_TAG(1, CK_LEN));
	trex_pb_put_varint(b, name_len);
	trex_pb_put_bytes(b, a->name, name_len);
	switch (a->kind) {
	case TREX_CHAKRA_ATTR_BOOL:
		trex_pb_put_varint(b, CK_TAG(27, CK_VARINT));
		trex_pb_put_varint(b, a->i != 0);
		break;
	case TREX_CHAKRA_ATTR_INT64:
		trex_pb_put_varint(b, CK_TAG(9, CK_VARINT));
		trex_pb_put_varint(b, (uint64_t)a->i);
		break;
	case TREX_CHAKRA_ATTR_INT32:
		trex_pb_put_varint(b, CK_TAG(7, CK_VARINT));
		trex_pb_put_varint(b, (uint64_t)a->i);
		break;
	case TREX_CHAKRA_ATTR_STRING:
		ck_put_string(b, 29, a->s ? a->s : "");
		break;
	}
}

void trex_chakra_encode_node(struct trex_pb_buf *b, const struct trex_chakra_node_out *n)
{
	size_t start = b->len;

	if (n->id)
		trex_pb_put_varint(b, CK_TAG(1, CK_VARINT)), trex_pb_put_varint(b, n->id);
	if (n->name && n->name[0])
		ck_put_string(b, 2, n->name);
	if (n->type != TREX_CHAKRA_INVALID_NODE)
		trex_pb_put_varint(b, CK_TAG(3, CK_VARINT)), trex_pb_put_varint(b, n->type);
	ck_put_packed(b, 4, n->ctrl_deps, n->n_ctrl_deps);
	ck_put_packed(b, 5, n->data_deps, n->n_data_deps);
	if (n->duration_micros)
		trex_pb_put_varint(b, CK_TAG(7, CK_VARINT)),
		    trex_pb_put_varint(b, n->duration_micros);
	for (size_t i = 0; i < n->n_attrs; i++)
		ck_put_attr(b, &n->attrs[i]);
	if (b->len == start) /* all defaults: an explicit id 0 keeps the record non-empty */
		trex_pb_put_varint(b, CK_TAG(1, CK_VARINT)), trex_pb_put_varint(b, 0);
}

void trex_chakra_encode_metadata(struct trex_pb_buf *b, const char *version)
{
	ck_put_string(b, 1, version && version[0] ? version : "0.0.4");
}

/* ---- names ---------------------------------------------------------------------------------- */

/* name lower-cased without '_', '-' and spaces, cut to size. */
static void ck_squash(const char *name, char *out, size_t size)
{
	size_t n = 0;

	for (; *name && n + 1 < size; name++)
		if (*name != '_' && *name != '-' && *name != ' ')
			out[n++] = (char)tolower((unsigned char)*name);
	out[n] = '\0';
}

int trex_chakra_comm_type_of(const char *name)
{
	/* longest first: "allreduce" holds "reduce", "reducescatter" "scatter" */
	static const struct {
		const char *word;
		int type;
	} words[] = {
	    {"allreduce", 0},     {"alltoall", 6},  {"allgather", 2},
	    {"reducescatter", 7}, {"broadcast", 5}, {"barrier", 9},
	    {"gather", 3},        {"scatter", 4},   {"reduce", 1},
	};
	char s[256];

	ck_squash(name ? name : "", s, sizeof(s));
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strstr(s, words[i].word))
			return words[i].type;
	return -1;
}

unsigned trex_chakra_dtype_size(const char *dtype)
{
	static const struct {
		const char *name;
		unsigned size;
	} types[] = {
	    {"float", 4}, {"float32", 4}, {"double", 8},       {"float64", 8},
	    {"half", 2},  {"float16", 2}, {"bfloat16", 2},     {"long", 8},
	    {"int64", 8}, {"int", 4},     {"int32", 4},        {"short", 2},
	    {"int16", 2}, {"char", 1},    {"int8", 1},         {"byte", 1},
	    {"uint8", 1}, {"bool", 1},    {"complexfloat", 8}, {"complexdouble", 16},
	};
	char s[64];

	if (!dtype)
		return 0;
	if (strncmp(dtype, "c10::", 5) == 0)
		dtype += 5;
	ck_squash(dtype, s, sizeof(s));
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strcmp(s, types[i].name) == 0)
			return types[i].size;
	return 0;
}
