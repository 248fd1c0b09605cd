/* The "chakra" args codec: a node's record read back by its offset and
 * given as (key, value) text pairs for the details pane and exports:
 * every field (id, name, type, deps, times, inputs, outputs) and every
 * attribute by its name. Nothing of a node is kept in memory for it. */
#include "config.h"

#include "chakra_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Called per pair; quoted: the value is text, not a JSON literal. */
typedef bool ck_pair_fn(void *user, const char *key, const char *value, bool quoted);

/* ---- attribute values as text -------------------------------------------------------------- */

typedef ChakraProtoMsg__AttributeProto__ValueCase ck_case;

/* Appends the list's items as a compact JSON array. */
#define CK_LIST(t, list, fmt, cast)                                                                \
	do {                                                                                       \
		ok = pf_text_append(t, "[", 1);                                                    \
		for (size_t i_ = 0; ok && list && i_ < list->n_values; i_++)                       \
			ok = pf_text_printf(t, "%s" fmt, i_ ? "," : "", (cast)list->values[i_]);   \
		ok = ok && pf_text_append(t, "]", 1);                                              \
	} while (0)

static bool ck_bytes_text(struct pf_text *t, const ProtobufCBinaryData *b)
{
	bool ok = true;
	for (size_t i = 0; ok && i < b->len; i++)
		ok = pf_text_printf(t, "%02x", b->data[i]);
	return ok;
}

static bool ck_string_list(struct pf_text *t, const ChakraProtoMsg__StringList *l)
{
	bool ok = pf_text_append(t, "[", 1);
	for (size_t i = 0; ok && l && i < l->n_values; i++)
		ok = (!i || pf_text_append(t, ",", 1)) && pf_json_string(t, l->values[i]);
	return ok && pf_text_append(t, "]", 1);
}

static bool ck_bytes_list(struct pf_text *t, const ChakraProtoMsg__BytesList *l)
{
	bool ok = pf_text_append(t, "[", 1);
	for (size_t i = 0; ok && l && i < l->n_values; i++)
		ok = pf_text_append(t, i ? ",\"" : "\"", i ? 2 : 1) &&
		     ck_bytes_text(t, &l->values[i]) && pf_text_append(t, "\"", 1);
	return ok && pf_text_append(t, "]", 1);
}

static bool ck_list_text(struct pf_text *t, const trex_chakra_attr *a)
{
	bool ok;

	switch ((ck_case)a->value_case) {
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_DOUBLE_LIST:
		CK_LIST(t, a->double_list, "%.17g", double);
		return ok;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_FLOAT_LIST:
		CK_LIST(t, a->float_list, "%.9g", double);
		return ok;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_LIST:
		CK_LIST(t, a->int32_list, "%" PRId32, int32_t);
		return ok;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_LIST:
		CK_LIST(t, a->int64_list, "%" PRId64, int64_t);
		return ok;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT32_LIST:
		CK_LIST(t, a->uint32_list, "%" PRIu32, uint32_t);
		return ok;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_LIST:
		CK_LIST(t, a->uint64_list, "%" PRIu64, uint64_t);
		return ok;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT32_LIST:
		CK_LIST(t, a->sint32_list, "%" PRId32, int32_t);
		return ok;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT64_LIST:
		CK_LIST(t, a->sint64_list, "%" PRId64, int64_t);
		return ok;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_FIXED32_LIST:
		CK_LIST(t, a->fixed32_list, "%" PRIu32, uint32_t);
		return ok;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_FIXED64_LIST:
		CK_LIST(t, a->fixed64_list, "%" PRIu64, uint64_t);
		return ok;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SFIXED32_LIST:
		CK_LIST(t, a->sfixed32_list, "%" PRId32, int32_t);
		return ok;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SFIXED64_LIST:
		CK_LIST(t, a->sfixed64_list, "%" PRId64, int64_t);
		return ok;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_LIST:
		ok = pf_text_append(t, "[", 1);
		for (size_t i = 0; ok && a->bool_list && i < a->bool_list->n_values; i++)
			ok = pf_text_printf(t, "%s%s", i ? "," : "",
			                    a->bool_list->values[i] ? "true" : "false");
		return ok && pf_text_append(t, "]", 1);
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_LIST:
		return ck_string_list(t, a->string_list);
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BYTES_LIST:
		return ck_bytes_list(t, a->bytes_list);
	default:
		return pf_text_append(t, "null", 4);
	}
}

/* The value of a as text (NUL-terminated in t); *quoted for text. */
static bool ck_attr_text(struct pf_text *t, const trex_chakra_attr *a, bool *quoted)
{
	int64_t v;

	*quoted = false;
	t->len = 0;
	switch ((ck_case)a->value_case) {
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_DOUBLE_VAL:
		return pf_text_printf(t, "%.17g", a->double_val);
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_FLOAT_VAL:
		return pf_text_printf(t, "%.9g", (double)a->float_val);
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL:
		return pf_text_printf(t, "%s", a->bool_val ? "true" : "false");
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL:
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_FIXED64_VAL:
		return pf_text_printf(t, "%" PRIu64, a->uint64_val);
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL:
		*quoted = true;
		return pf_text_printf(t, "%s", a->string_val);
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BYTES_VAL:
		*quoted = true;
		return ck_bytes_text(t, &a->bytes_val) && pf_text_append(t, "", 1);
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE__NOT_SET:
		return pf_text_printf(t, "null");
	default:
		if (trex_chakra_attr_int(a, &v))
			return pf_text_printf(t, "%" PRId64, v);
		return ck_list_text(t, a) && pf_text_append(t, "", 1);
	}
}

/* ---- a node's pairs ------------------------------------------------------------------------ */

static const char *const ck_type_names[] = {
    "INVALID_NODE", "METADATA_NODE",  "MEM_LOAD_NODE",  "MEM_STORE_NODE",
    "COMP_NODE",    "COMM_SEND_NODE", "COMM_RECV_NODE", "COMM_COLL_NODE",
};

static bool ck_deps_text(struct pf_text *t, const uint64_t *ids, size_t n)
{
	bool ok = true;
	t->len = 0;
	ok = pf_text_append(t, "[", 1);
	for (size_t i = 0; ok && i < n; i++)
		ok = pf_text_printf(t, "%s%" PRIu64, i ? "," : "", ids[i]);
	return ok && pf_text_append(t, "]", 2);
}

static bool ck_io_pairs(const ChakraProtoMsg__IOInfo *io, const char *side, ck_pair_fn *fn,
                        void *user)
{
	char key[32];
	const char *parts[3][2] = {{"values", io ? io->values : NULL},
	                           {"shapes", io ? io->shapes : NULL},
	                           {"types", io ? io->types : NULL}};

	for (int i = 0; i < 3; i++) {
		if (!parts[i][1] || !parts[i][1][0])
			continue;
		snprintf(key, sizeof(key), "%s.%s", side, parts[i][0]);
		if (!fn(user, key, parts[i][1], true))
			return false;
	}
	return true;
}

static bool ck_field_pairs(const trex_chakra_node *n, struct pf_text *t, ck_pair_fn *fn, void *user)
{
	char num[32], type[24];

	snprintf(num, sizeof(num), "%" PRIu64, n->id);
	if ((unsigned)n->type < sizeof(ck_type_names) / sizeof(ck_type_names[0]))
		snprintf(type, sizeof(type), "%s", ck_type_names[n->type]);
	else
		snprintf(type, sizeof(type), "%d", (int)n->type);
	if (!fn(user, "id", num, false) || !fn(user, "name", n->name, true) ||
	    !fn(user, "type", type, true))
		return false;
	if (n->n_ctrl_deps && (!ck_deps_text(t, n->ctrl_deps, n->n_ctrl_deps) ||
	                       !fn(user, "ctrl_deps", t->buf, false)))
		return false;
	if (n->n_data_deps && (!ck_deps_text(t, n->data_deps, n->n_data_deps) ||
	                       !fn(user, "data_deps", t->buf, false)))
		return false;
	snprintf(num, sizeof(num), "%" PRIu64, n->start_time_micros);
	if (n->start_time_micros && !fn(user, "start_time_micros", num, false))
		return false;
	snprintf(num, sizeof(num), "%" PRIu64, n->duration_micros);
	if (!fn(user, "duration_micros", num, false))
		return false;
	return ck_io_pairs(n->inputs, "inputs", fn, user) &&
	       ck_io_pairs(n->outputs, "outputs", fn, user);
}

/* Every pair of n, fields first, then attributes in file order. */
static bool ck_node_pairs(const trex_chakra_node *n, ck_pair_fn *fn, void *user)
{
	struct pf_text t = {0};
	bool ok = ck_field_pairs(n, &t, fn, user);

	for (size_t i = 0; ok && i < n->n_attr; i++) {
		bool quoted;
		ok = ck_attr_text(&t, n->attr[i], &quoted) &&
		     fn(user, n->attr[i]->name, t.buf, quoted);
		if (ok && n->attr[i]->doc_string && n->attr[i]->doc_string[0]) {
			char key[160];
			snprintf(key, sizeof(key), "%s (doc)", n->attr[i]->name);
			ok = fn(user, key, n->attr[i]->doc_string, true);
		}
	}
	pf_text_free(&t);
	return ok;
}

/* ---- reading a record back ------------------------------------------------------------------ */

/* The node whose record starts at decoded offset ref - 1 (malloc'd by
 * protobuf-c; chakra_proto_msg__node__free_unpacked frees it). */
static enum trex_status ck_read_node(struct trex_chakra_codec *c, trex_args_ref ref,
                                     trex_chakra_node **out, struct trex_error *err)
{
	const char *path = trex_source_path(c->src);
	unsigned char head[5];
	size_t got = 0, pos = 0;
	uint32_t len = 0;
	uint64_t at = ref - 1;
	enum trex_status st = trex_source_read(c->src, at, sizeof(head), (char *)head, &got, err);

	*out = NULL;
	if (st != TREX_OK)
		return st;
	if (trex_chakra_read_length(head, got, &pos, &len) != 1)
		return trex_error_set(err, TREX_FORMAT, path, (int64_t)at,
		                      "no Chakra record at this offset");
	unsigned char *body = malloc(len ? len : 1);
	if (!body)
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	st = trex_source_read(c->src, at + pos, len, (char *)body, &got, err);
	if (st == TREX_OK && got == len)
		*out = chakra_proto_msg__node__unpack(NULL, len, body);
	free(body);
	if (st == TREX_OK && !*out)
		st = trex_error_set(err, TREX_FORMAT, path, (int64_t)at,
		                    "the node record here no longer decodes");
	return st;
}

struct ck_args_build {
	struct pf_text text; /* key\0value\0 per pair */
	size_t n;
};

static bool ck_collect(void *user, const char *key, const char *value, bool quoted)
{
	struct ck_args_build *b = user;
	(void)quoted;
	b->n++;
	return pf_text_append(&b->text, key, strlen(key) + 1) &&
	       pf_text_append(&b->text, value, strlen(value) + 1);
}

static enum trex_status ck_decode(void *ctx, trex_args_ref ref, struct trex_args *out,
                                  bool *truncated, struct trex_error *err)
{
	struct ck_args_build b = {{0}, 0};
	trex_chakra_node *n;

	memset(out, 0, sizeof(*out));
	if (truncated)
		*truncated = false;
	if (ref == TREX_ARGS_NONE)
		return TREX_OK;
	enum trex_status st = ck_read_node(ctx, ref, &n, err);
	if (st != TREX_OK)
		return st;
	bool ok = ck_node_pairs(n, ck_collect, &b);
	chakra_proto_msg__node__free_unpacked(n, NULL);
	out->v = ok ? calloc(b.n ? b.n : 1, sizeof(*out->v)) : NULL;
	if (!out->v) {
		pf_text_free(&b.text);
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	out->buf = b.text.buf;
	const char *p = out->buf;
	for (size_t i = 0; i < b.n; i++) {
		out->v[i].key = p;
		p += strlen(p) + 1;
		out->v[i].value = p;
		p += strlen(p) + 1;
	}
	out->n = b.n;
	return TREX_OK;
}

static bool ck_json_pair(void *user, const char *key, const char *value, bool quoted)
{
	struct pf_text *t = user;
	return pf_text_append(t, t->len > 1 ? "," : "", t->len > 1) && pf_json_string(t, key) &&
	       pf_text_append(t, ":", 1) &&
	       (quoted ? pf_json_string(t, value) : pf_text_append(t, value, strlen(value)));
}

static enum trex_status ck_json(void *ctx, trex_args_ref ref, char **out, size_t *len,
                                struct trex_error *err)
{
	struct pf_text t = {0};
	trex_chakra_node *n;

	*out = NULL;
	*len = 0;
	if (ref == TREX_ARGS_NONE)
		return TREX_OK;
	enum trex_status st = ck_read_node(ctx, ref, &n, err);
	if (st != TREX_OK)
		return st;
	bool ok = pf_text_append(&t, "{", 1) && ck_node_pairs(n, ck_json_pair, &t) &&
	          pf_text_append(&t, "}", 2);
	chakra_proto_msg__node__free_unpacked(n, NULL);
	if (!ok) {
		pf_text_free(&t);
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	*out = t.buf;
	*len = t.len - 1;
	return TREX_OK;
}

static size_t ck_memory(const void *ctx)
{
	const struct trex_chakra_codec *c = ctx;
	return sizeof(*c) + trex_source_memory(c->src);
}

static void ck_close(void *ctx)
{
	struct trex_chakra_codec *c = ctx;

	if (!c)
		return;
	if (c->magic != TREX_CHAKRA_CODEC_MAGIC) {
		trex_source_close(ctx);
		return;
	}
	trex_source_close(c->src);
	free(c);
}

/* No positions: a binary file has no lines. */
const struct trex_args_codec trex_chakra_args_codec = {
    .name = "chakra",
    .decode = ck_decode,
    .json = ck_json,
    .memory = ck_memory,
    .close = ck_close,
};
