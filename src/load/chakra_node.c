/* What a Chakra node means to the graph store (chakra_decode.h): its type,
 * collective, duration, sizes and peers, read as ASTRA-sim reads them
 * (attributes by name, any integer member for an integer). */
#include "config.h"

#include "chakra_decode.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef ChakraProtoMsg__AttributeProto__ValueCase ck_case;

bool trex_chakra_attr_int(const trex_chakra_attr *a, int64_t *out)
{
	if (!a)
		return false;
	switch ((ck_case)a->value_case) {
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL:
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT32_VAL:
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SFIXED32_VAL:
		*out = a->int32_val;
		return true;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL:
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT64_VAL:
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SFIXED64_VAL:
		*out = a->int64_val;
		return true;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT32_VAL:
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_FIXED32_VAL:
		*out = a->uint32_val;
		return true;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL:
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_FIXED64_VAL:
		/* beyond int64: as ASTRA-sim's conversion, it wraps; say so */
		*out = a->uint64_val > INT64_MAX ? -1 : (int64_t)a->uint64_val;
		return true;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL:
		*out = a->bool_val != 0;
		return true;
	default:
		return false;
	}
}

static enum trex_node_type ck_type(ChakraProtoMsg__NodeType t)
{
	switch (t) {
	case CHAKRA_PROTO_MSG__NODE_TYPE__METADATA_NODE:
		return TREX_NODE_METADATA;
	case CHAKRA_PROTO_MSG__NODE_TYPE__MEM_LOAD_NODE:
		return TREX_NODE_MEM_LOAD;
	case CHAKRA_PROTO_MSG__NODE_TYPE__MEM_STORE_NODE:
		return TREX_NODE_MEM_STORE;
	case CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE:
		return TREX_NODE_COMP;
	case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE:
		return TREX_NODE_COMM_SEND;
	case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE:
		return TREX_NODE_COMM_RECV;
	case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE:
		return TREX_NODE_COMM_COLL;
	default: /* INVALID_NODE and numbers the schema does not have */
		return TREX_NODE_OTHER;
	}
}

static bool ck_is_comm(enum trex_node_type t)
{
	return t == TREX_NODE_COMM_SEND || t == TREX_NODE_COMM_RECV || t == TREX_NODE_COMM_COLL;
}

/* The attributes the facts come from (the first of each name), found in
 * one pass: PyTorch nodes carry a dozen attributes each. */
struct ck_known {
	const trex_chakra_attr *is_cpu_op, *comm_type, *comm_size, *pg_name;
	const trex_chakra_attr *comm_src, *comm_dst, *comm_tag;
};

static void ck_keep(const trex_chakra_attr **slot, const trex_chakra_attr *a, const char *name,
                    const char *want)
{
	if (!*slot && strcmp(name, want) == 0)
		*slot = a;
}

static void ck_find_known(const trex_chakra_node *n, struct ck_known *k)
{
	memset(k, 0, sizeof(*k));
	for (size_t i = 0; i < n->n_attr; i++) {
		const trex_chakra_attr *a = n->attr[i];
		const char *name = a->name ? a->name : "";
		if (name[0] == 'i') {
			ck_keep(&k->is_cpu_op, a, name, "is_cpu_op");
		} else if (name[0] == 'p') {
			ck_keep(&k->pg_name, a, name, "pg_name");
		} else if (strncmp(name, "comm_", 5) == 0) {
			ck_keep(&k->comm_type, a, name + 5, "type");
			ck_keep(&k->comm_size, a, name + 5, "size");
			ck_keep(&k->comm_src, a, name + 5, "src");
			ck_keep(&k->comm_dst, a, name + 5, "dst");
			ck_keep(&k->comm_tag, a, name + 5, "tag");
		}
	}
}

/* Chakra's CollectiveCommType numbers 0..9 in the order of
 * TREX_COLLECTIVE_INFO after NONE. Only a collective's comm_type is one:
 * send/recv writers put their NodeType number there. */
static void ck_collective(const struct ck_known *k, struct trex_chakra_facts *f)
{
	int64_t v;

	if (f->type != TREX_NODE_COMM_COLL || !trex_chakra_attr_int(k->comm_type, &v))
		return;
	if (v >= 0 && v < TREX_COLLECTIVE_COUNT - 1)
		f->collective = (enum trex_collective)(v + 1);
	else
		f->bad_value = "comm_type is no collective (kept as none)";
}

/* duration_micros in ns. Proto3 cannot tell 0 from absent: a comm node's
 * 0 is "to be simulated" (ASTRA-sim times it from comm_size), any other
 * node's 0 is 0 (ASTRA-sim's 1 ns is a simulator artefact). */
static void ck_duration(const trex_chakra_node *n, struct trex_chakra_facts *f)
{
	if (n->duration_micros == 0) {
		f->dur = ck_is_comm(f->type) ? TREX_GRAPH_DUR_UNKNOWN : 0;
	} else if (n->duration_micros > (uint64_t)INT64_MAX / 1000) {
		f->dur = INT64_MAX;
		f->bad_value = "duration_micros is beyond int64 ns (clamped)";
	} else {
		f->dur = (int64_t)n->duration_micros * 1000;
	}
}

static int32_t ck_int32_attr(const trex_chakra_attr *a, int32_t none)
{
	int64_t v;

	if (!trex_chakra_attr_int(a, &v) || v < INT32_MIN || v > INT32_MAX)
		return none;
	return (int32_t)v;
}

static void ck_group(const trex_chakra_attr *a, struct trex_chakra_facts *f)
{
	int64_t v;

	f->group = "";
	if (a && a->value_case == CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL) {
		f->group = a->string_val;
	} else if (trex_chakra_attr_int(a, &v)) {
		snprintf(f->group_buf, sizeof(f->group_buf), "%" PRId64, v);
		f->group = f->group_buf;
	}
}

void trex_chakra_node_facts(const trex_chakra_node *n, struct trex_chakra_facts *f)
{
	struct ck_known k;
	int64_t v;

	memset(f, 0, sizeof(*f));
	ck_find_known(n, &k);
	f->type = ck_type(n->type);
	f->collective = TREX_COLLECTIVE_NONE;
	f->cpu = trex_chakra_attr_int(k.is_cpu_op, &v) && v != 0;
	ck_duration(n, f);
	f->comm_bytes = -1;
	if (trex_chakra_attr_int(k.comm_size, &v)) {
		if (v >= 0)
			f->comm_bytes = v;
		else
			f->bad_value = "comm_size is negative or beyond int64 (kept as none)";
	}
	ck_collective(&k, f);
	ck_group(k.pg_name, f);
	f->peer = -1;
	if (f->type == TREX_NODE_COMM_SEND)
		f->peer = ck_int32_attr(k.comm_dst, -1);
	else if (f->type == TREX_NODE_COMM_RECV)
		f->peer = ck_int32_attr(k.comm_src, -1);
	f->tag = ck_int32_attr(k.comm_tag, 0);
}

/* ---- the process-group table ---------------------------------------------------------------
 * Not a general JSON reader: the table is a list of flat objects whose
 * "pg_name" is a string and "ranks" a list of integers; other members are
 * skipped by bracket depth. */

struct ck_pg_scan {
	const char *p;
	uint32_t *ranks;
	size_t n, cap;
};

static const char *ck_skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

/* A JSON string at p (no escapes expected; they are kept as written):
 * its body and length, the position after it; NULL if not one. */
static const char *ck_string(const char *p, const char **s, size_t *len)
{
	if (*p != '"')
		return NULL;
	const char *q = ++p;
	while (*q && *q != '"')
		q += q[0] == '\\' && q[1] ? 2 : 1;
	if (*q != '"')
		return NULL;
	*s = p;
	*len = (size_t)(q - p);
	return q + 1;
}

static const char *ck_ranks(struct ck_pg_scan *sc, const char *p)
{
	sc->n = 0;
	p = ck_skip_ws(p + 1);
	while (*p && *p != ']') {
		char *end;
		unsigned long long r = strtoull(p, &end, 10);
		if (end == p || r > UINT32_MAX)
			return NULL;
		if (sc->n == sc->cap) {
			size_t cap = sc->cap ? 2 * sc->cap : 16;
			uint32_t *v = realloc(sc->ranks, cap * sizeof(*v));
			if (!v)
				return NULL;
			sc->ranks = v;
			sc->cap = cap;
		}
		sc->ranks[sc->n++] = (uint32_t)r;
		p = ck_skip_ws(end);
		if (*p == ',')
			p = ck_skip_ws(p + 1);
	}
	return *p == ']' ? p + 1 : NULL;
}

/* Skips one value that is not a string (numbers, literals, nested lists). */
static const char *ck_skip_value(const char *p)
{
	int depth = 0;
	const char *s;
	size_t len;

	while (*p) {
		if (*p == '"') {
			p = ck_string(p, &s, &len);
			if (!p)
				return NULL;
			continue;
		}
		if (*p == '[' || *p == '{')
			depth++;
		else if ((*p == ']' || *p == '}') && depth-- == 0)
			return p;
		else if (*p == ',' && depth == 0)
			return p;
		p++;
	}
	return NULL;
}

/* One object at p ('{'): its name and ranks; the position after it. */
static const char *ck_group_object(struct ck_pg_scan *sc, const char *p, const char **name,
                                   size_t *name_len, bool *has_ranks)
{
	*name = NULL;
	*has_ranks = false;
	p = ck_skip_ws(p + 1);
	while (p && *p && *p != '}') {
		const char *key;
		size_t key_len;
		p = ck_string(p, &key, &key_len);
		if (!p || *(p = ck_skip_ws(p)) != ':')
			return NULL;
		p = ck_skip_ws(p + 1);
		if (key_len == 7 && memcmp(key, "pg_name", 7) == 0 && *p == '"') {
			p = ck_string(p, name, name_len);
		} else if (key_len == 5 && memcmp(key, "ranks", 5) == 0 && *p == '[') {
			p = ck_ranks(sc, p);
			*has_ranks = p != NULL;
		} else {
			p = ck_skip_value(p);
		}
		if (p && *(p = ck_skip_ws(p)) == ',')
			p = ck_skip_ws(p + 1);
	}
	return p && *p == '}' ? p + 1 : NULL;
}

int trex_chakra_process_groups(const char *values, trex_chakra_group_fn *fn, void *user)
{
	struct ck_pg_scan sc = {0};
	const char *p = strchr(values, '{');
	int found = 0;

	if (!p || !strchr(values, '['))
		return -1;
	while (p && *p == '{') {
		const char *name = NULL;
		size_t name_len = 0;
		bool has_ranks = false;
		p = ck_group_object(&sc, p, &name, &name_len, &has_ranks);
		if (!p)
			break;
		/* empty ranks: every rank, which the graph finds itself */
		if (name && has_ranks && sc.n) {
			if (fn(user, name, name_len, sc.ranks, sc.n) < 0) {
				found = -1;
				break;
			}
			found++;
		}
		p = ck_skip_ws(p);
		if (*p == ',')
			p = ck_skip_ws(p + 1);
	}
	free(sc.ranks);
	return p || found ? found : -1;
}
