/* The Chakra ET decoder (src/load/chakra_decode.c, chakra_node.c) on
 * files written here with protobuf-c's pack functions, and damaged by
 * hand: framing, legacy files without GlobalMetadata, zero-length
 * records, gzip, every attribute member, the node facts the graph store
 * gets, and the process-group table. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "chakra_internal.h"
#include "trex/analysis/graph_info.h"
#include "trex/core/index.h"
#include "trex/load/chakra_set.h"
#include "trex/load/loader.h"

#define S(lit) ((char *)(uintptr_t)(lit))

typedef ChakraProtoMsg__AttributeProto Attr;
typedef ChakraProtoMsg__Node Node;

/* ---- writing files ---------------------------------------------------------------------- */

struct file {
	unsigned char buf[1 << 16];
	size_t len;
};

static void put_length(struct file *f, uint64_t n)
{
	do {
		f->buf[f->len++] = (unsigned char)((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
		n >>= 7;
	} while (n);
}

static void put_record(struct file *f, const ProtobufCMessage *m)
{
	size_t n = protobuf_c_message_get_packed_size(m);
	put_length(f, n);
	protobuf_c_message_pack(m, f->buf + f->len);
	f->len += n;
}

static void put_metadata(struct file *f, const char *version)
{
	ChakraProtoMsg__GlobalMetadata gm;
	chakra_proto_msg__global_metadata__init(&gm);
	gm.version = S(version);
	put_record(f, &gm.base);
}

static void put_node(struct file *f, uint64_t id, ChakraProtoMsg__NodeType type, Attr **attrs,
                     size_t nattrs)
{
	Node n;
	chakra_proto_msg__node__init(&n);
	uint64_t deps[1] = {id - 1};
	n.id = id;
	n.name = S("node");
	n.type = type;
	if (id) {
		n.data_deps = deps;
		n.n_data_deps = 1;
	}
	n.attr = attrs;
	n.n_attr = nattrs;
	put_record(f, &n.base);
}

/* ---- a sink that keeps what it is given ------------------------------------------------- */

struct seen {
	int metadata;
	char version[32];
	uint64_t ids[64];
	uint64_t offsets[64];
	uint64_t records[64];
	int types[64];
	size_t nodes;
	int damage[3];
	uint64_t damage_bytes;
	uint64_t damage_record, damage_offset;
	char what[200];
};

static enum trex_status on_metadata(void *user, const trex_chakra_metadata *gm,
                                    const struct trex_chakra_where *w, struct trex_error *err)
{
	struct seen *s = user;
	(void)w;
	(void)err;
	s->metadata++;
	snprintf(s->version, sizeof(s->version), "%s", gm->version);
	return TREX_OK;
}

static enum trex_status on_node(void *user, const trex_chakra_node *n,
                                const struct trex_chakra_where *w, struct trex_error *err)
{
	struct seen *s = user;
	(void)err;
	if (s->nodes < 64) {
		s->ids[s->nodes] = n->id;
		s->offsets[s->nodes] = w->offset;
		s->records[s->nodes] = w->record;
		s->types[s->nodes] = n->type;
		s->nodes++;
	}
	return TREX_OK;
}

static void on_damage(void *user, enum trex_chakra_damage kind, const struct trex_chakra_where *w,
                      uint64_t bytes, const char *what)
{
	struct seen *s = user;
	if (!s->damage[0] && !s->damage[1] && !s->damage[2]) {
		s->damage_record = w->record;
		s->damage_offset = w->offset;
		snprintf(s->what, sizeof(s->what), "%s", what);
	}
	s->damage[kind]++;
	s->damage_bytes += bytes;
}

static struct trex_chakra_stats decode(const void *data, size_t len, struct seen *s)
{
	struct trex_chakra_sink sink = {
	    .user = s, .metadata = on_metadata, .node = on_node, .damage = on_damage};
	struct trex_chakra_stats stats;
	struct trex_source *src;
	struct trex_error err;

	memset(s, 0, sizeof(*s));
	cr_assert_eq(trex_source_open_memory("t.0.et", data, len, true, &src, &err), TREX_OK);
	cr_assert_eq(trex_chakra_decode(src, &sink, &stats, &err), TREX_OK, "%s", err.message);
	trex_source_close(src);
	return stats;
}

/* GlobalMetadata, then nodes 1..n (COMP, each depending on the one before). */
static void three_nodes(struct file *f)
{
	memset(f, 0, sizeof(*f));
	put_metadata(f, "0.0.4");
	for (uint64_t id = 1; id <= 3; id++)
		put_node(f, id, CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, NULL, 0);
}

/* ---- framing ---------------------------------------------------------------------------- */

Test(chakra_framing, metadata_then_nodes_with_positions)
{
	struct file f;
	struct seen s;

	three_nodes(&f);
	struct trex_chakra_stats st = decode(f.buf, f.len, &s);
	cr_assert_eq(s.metadata, 1);
	cr_assert_str_eq(s.version, "0.0.4");
	cr_assert_eq(s.nodes, 3);
	cr_assert_eq(s.ids[2], 3);
	cr_assert_eq(s.records[0], 1);
	cr_assert_eq(s.offsets[0], 8, "1 length byte + 7 bytes of metadata");
	cr_assert_eq(st.records, 4);
	cr_assert_eq(st.bytes, f.len);
	cr_assert(!st.legacy && !st.truncated);
	cr_assert_eq(s.damage[0] + s.damage[1] + s.damage[2], 0);
}

Test(chakra_framing, legacy_file_starts_with_a_node)
{
	struct file f = {.len = 0};
	struct seen s;

	for (uint64_t id = 5; id <= 7; id++)
		put_node(&f, id, CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, NULL, 0);
	struct trex_chakra_stats st = decode(f.buf, f.len, &s);
	cr_assert(st.legacy);
	cr_assert_eq(s.metadata, 0);
	cr_assert_eq(s.nodes, 3, "record 0 is a node, not lost");
	cr_assert_eq(s.ids[0], 5);
	cr_assert_eq(s.records[0], 0);
}

Test(chakra_framing, metadata_detection_rule)
{
	/* version + attr: metadata; an id varint or a type field: a node */
	static const unsigned char gm[] = {0x0a, 0x01, 'x', 0x12, 0x00};
	static const unsigned char node_id[] = {0x08, 0x05, 0x12, 0x01, 'n'};
	static const unsigned char name_type[] = {0x12, 0x01, 'n', 0x18, 0x04};
	static const unsigned char cut[] = {0x0a, 0x05, 'x'};

	cr_assert(trex_chakra_is_metadata(gm, sizeof(gm)));
	cr_assert(trex_chakra_is_metadata(gm, 0), "an empty record is an empty metadata");
	cr_assert_not(trex_chakra_is_metadata(node_id, sizeof(node_id)));
	cr_assert_not(trex_chakra_is_metadata(name_type, sizeof(name_type)));
	cr_assert_not(trex_chakra_is_metadata(cut, sizeof(cut)));
}

Test(chakra_framing, zero_length_records_are_empty_messages)
{
	struct file f = {.len = 0};
	struct seen s;

	put_length(&f, 0); /* an empty GlobalMetadata */
	put_node(&f, 1, CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, NULL, 0);
	put_length(&f, 0); /* an empty node: id 0, INVALID_NODE */
	put_node(&f, 2, CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, NULL, 0);
	struct trex_chakra_stats st = decode(f.buf, f.len, &s);
	cr_assert_eq(s.metadata, 1);
	cr_assert_eq(s.nodes, 3);
	cr_assert_eq(s.ids[1], 0);
	cr_assert_eq(s.types[1], CHAKRA_PROTO_MSG__NODE_TYPE__INVALID_NODE);
	cr_assert_eq(s.ids[2], 2, "reading goes on after an empty record");
	cr_assert_eq(st.empty_records, 2);
}

Test(chakra_framing, read_length_limits)
{
	static const unsigned char five[] = {0xff, 0xff, 0xff, 0xff, 0x0f};
	static const unsigned char big[] = {0xff, 0xff, 0xff, 0xff, 0x10};
	static const unsigned char six[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
	size_t pos = 0;
	uint32_t n;

	cr_assert_eq(trex_chakra_read_length(five, 5, &pos, &n), 1);
	cr_assert_eq(n, UINT32_MAX);
	cr_assert_eq(pos, 5);
	pos = 0;
	cr_assert_eq(trex_chakra_read_length(five, 3, &pos, &n), 0, "cut: more bytes needed");
	cr_assert_eq(trex_chakra_read_length(big, 5, &pos, &n), -1, "beyond 32 bits");
	cr_assert_eq(trex_chakra_read_length(six, 6, &pos, &n), -1, "longer than 5 bytes");
}

/* ---- damage ---------------------------------------------------------------------------- */

Test(chakra_damage, cut_at_every_offset_keeps_the_whole_records_before)
{
	struct file f;
	struct seen s;
	size_t ends[5];

	three_nodes(&f);
	/* where each record ends */
	size_t pos = 0;
	for (int r = 0; r < 4; r++) {
		uint32_t n;
		cr_assert_eq(trex_chakra_read_length(f.buf, f.len, &pos, &n), 1);
		pos += n;
		ends[r] = pos;
	}
	for (size_t cut = 1; cut < f.len; cut++) {
		size_t whole = 0;
		while (whole < 4 && ends[whole] <= cut)
			whole++;
		struct trex_chakra_stats st = decode(f.buf, cut, &s);
		size_t nodes = whole ? whole - 1 : 0;
		cr_assert_eq(s.nodes, nodes, "cut at %zu: %zu nodes", cut, s.nodes);
		bool at_boundary = whole && ends[whole - 1] == cut;
		cr_assert_eq(s.damage[TREX_CHAKRA_CUT], !at_boundary, "cut at %zu", cut);
		cr_assert_eq(st.truncated, !at_boundary);
		if (!at_boundary) {
			cr_assert_eq(s.damage_record, whole, "cut at %zu: record %zu", cut, whole);
			cr_assert_eq(s.damage_offset, whole ? ends[whole - 1] : 0);
			cr_assert_eq(s.damage_bytes, cut - (whole ? ends[whole - 1] : 0));
		}
	}
}

Test(chakra_damage, length_past_the_end_says_so)
{
	struct file f;
	struct seen s;

	three_nodes(&f);
	f.buf[f.len++] = 0x7f; /* a record of 127 bytes, 2 there */
	f.buf[f.len++] = 0x08;
	f.buf[f.len++] = 0x01;
	decode(f.buf, f.len, &s);
	cr_assert_eq(s.nodes, 3);
	cr_assert_eq(s.damage[TREX_CHAKRA_CUT], 1);
	cr_assert_str_eq(s.what, "record length 127 runs past the end of the file (2 bytes there; "
	                         "the record is lost)");
	cr_assert_eq(s.damage_record, 4);
}

Test(chakra_damage, a_record_that_does_not_decode_is_skipped)
{
	struct file f;
	struct seen s;

	memset(&f, 0, sizeof(f));
	put_metadata(&f, "1.0.0");
	put_node(&f, 1, CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, NULL, 0);
	size_t bad = f.len;
	f.buf[f.len++] = 3; /* field 1 as wire type 7: no protobuf */
	f.buf[f.len++] = 0x0f;
	f.buf[f.len++] = 0x01;
	f.buf[f.len++] = 0x02;
	put_node(&f, 2, CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, NULL, 0);
	decode(f.buf, f.len, &s);
	cr_assert_eq(s.nodes, 2, "the node after it is read");
	cr_assert_eq(s.ids[1], 2);
	cr_assert_eq(s.damage[TREX_CHAKRA_UNDECODABLE], 1);
	cr_assert_eq(s.damage_record, 2);
	cr_assert_eq(s.damage_offset, bad);
	cr_assert_eq(s.damage_bytes, 3);
}

Test(chakra_damage, a_length_beyond_32_bits_stops_the_framing)
{
	struct file f;
	struct seen s;

	three_nodes(&f);
	size_t at = f.len;
	for (int i = 0; i < 5; i++)
		f.buf[f.len++] = 0xff;
	f.buf[f.len++] = 0x01;
	f.buf[f.len++] = 0x00;
	decode(f.buf, f.len, &s);
	cr_assert_eq(s.nodes, 3);
	cr_assert_eq(s.damage[TREX_CHAKRA_BAD_LENGTH], 1);
	cr_assert_eq(s.damage_offset, at);
	cr_assert_eq(s.damage_bytes, 7);
}

Test(chakra_framing, gzip_file_reads_the_same)
{
	struct file f;
	struct seen s;
	unsigned char gz[1 << 16];
	z_stream z = {0};

	three_nodes(&f);
	cr_assert_eq(deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	z.next_in = f.buf;
	z.avail_in = (uInt)f.len;
	z.next_out = gz;
	z.avail_out = sizeof(gz);
	cr_assert_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
	size_t n = sizeof(gz) - z.avail_out;
	deflateEnd(&z);
	struct trex_chakra_stats st = decode(gz, n, &s);
	cr_assert_eq(s.metadata, 1);
	cr_assert_eq(s.nodes, 3);
	cr_assert_eq(s.offsets[0], 8, "offsets are decoded bytes");
	cr_assert_eq(st.bytes, f.len);
}

/* ---- attributes and facts --------------------------------------------------------------- */

static Attr int_attr(const char *name, ChakraProtoMsg__AttributeProto__ValueCase c, int64_t v)
{
	Attr a;
	chakra_proto_msg__attribute_proto__init(&a);
	a.name = S(name);
	a.value_case = c;
	switch (c) {
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL:
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT32_VAL:
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SFIXED32_VAL:
		a.int32_val = (int32_t)v;
		break;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT32_VAL:
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_FIXED32_VAL:
		a.uint32_val = (uint32_t)v;
		break;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL:
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_FIXED64_VAL:
		a.uint64_val = (uint64_t)v;
		break;
	case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL:
		a.bool_val = v != 0;
		break;
	default:
		a.int64_val = v;
	}
	return a;
}

Test(chakra_attrs, every_integer_member_reads_as_an_integer)
{
	static const ChakraProtoMsg__AttributeProto__ValueCase cases[] = {
	    CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL,
	    CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL,
	    CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT32_VAL,
	    CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL,
	    CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT32_VAL,
	    CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SINT64_VAL,
	    CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_FIXED32_VAL,
	    CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_FIXED64_VAL,
	    CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SFIXED32_VAL,
	    CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_SFIXED64_VAL,
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* through the wire and back: the member survives, so does its value */
		Attr a = int_attr("comm_size", cases[i], 1048576);
		Attr *attrs[] = {&a};
		struct file f = {.len = 0};
		put_node(&f, 1, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE, attrs, 1);
		size_t pos = 0;
		uint32_t n;
		cr_assert_eq(trex_chakra_read_length(f.buf, f.len, &pos, &n), 1);
		Node *node = chakra_proto_msg__node__unpack(NULL, n, f.buf + pos);
		cr_assert_not_null(node);
		cr_assert_eq(node->attr[0]->value_case, cases[i]);
		struct trex_chakra_facts facts;
		trex_chakra_node_facts(node, &facts);
		cr_assert_eq(facts.comm_bytes, 1048576, "member %d", cases[i]);
		chakra_proto_msg__node__free_unpacked(node, NULL);
	}
	Attr b = int_attr("x", CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL, 1);
	Attr s;
	chakra_proto_msg__attribute_proto__init(&s);
	int64_t v = 0;
	s.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
	s.string_val = S("12");
	cr_assert(trex_chakra_attr_int(&b, &v) && v == 1);
	cr_assert_not(trex_chakra_attr_int(&s, &v), "a string is no integer");
	cr_assert_not(trex_chakra_attr_int(NULL, &v));
}

static struct trex_chakra_facts facts_of(ChakraProtoMsg__NodeType type, Attr **attrs, size_t n,
                                         uint64_t dur_us)
{
	Node node;
	chakra_proto_msg__node__init(&node);
	struct trex_chakra_facts f;
	node.type = type;
	node.attr = attrs;
	node.n_attr = n;
	node.duration_micros = dur_us;
	trex_chakra_node_facts(&node, &f);
	return f;
}

Test(chakra_attrs, collective_numbering_is_chakras)
{
	static const enum trex_collective want[] = {
	    TREX_COLLECTIVE_ALL_REDUCE,
	    TREX_COLLECTIVE_REDUCE,
	    TREX_COLLECTIVE_ALL_GATHER,
	    TREX_COLLECTIVE_GATHER,
	    TREX_COLLECTIVE_SCATTER,
	    TREX_COLLECTIVE_BROADCAST,
	    TREX_COLLECTIVE_ALL_TO_ALL,
	    TREX_COLLECTIVE_REDUCE_SCATTER,
	    TREX_COLLECTIVE_REDUCE_SCATTER_BLOCK,
	    TREX_COLLECTIVE_BARRIER,
	};
	for (int64_t v = 0; v < 10; v++) {
		Attr a =
		    int_attr("comm_type", CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL, v);
		Attr *attrs[] = {&a};
		struct trex_chakra_facts f =
		    facts_of(CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE, attrs, 1, 0);
		cr_assert_eq(f.collective, want[v], "comm_type %lld", (long long)v);
		cr_assert_null(f.bad_value);
	}
	Attr bad = int_attr("comm_type", CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL, 10);
	Attr *attrs[] = {&bad};
	struct trex_chakra_facts f =
	    facts_of(CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE, attrs, 1, 0);
	cr_assert_eq(f.collective, TREX_COLLECTIVE_NONE);
	cr_assert_not_null(f.bad_value, "an unknown comm_type is counted");
}

Test(chakra_attrs, send_and_recv_carry_node_type_numbers_in_comm_type)
{
	Attr type = int_attr("comm_type", CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL, 5);
	Attr dst = int_attr("comm_dst", CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL, 3);
	Attr src = int_attr("comm_src", CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL, 7);
	Attr tag = int_attr("comm_tag", CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL, 42);
	Attr *attrs[] = {&type, &dst, &src, &tag};
	struct trex_chakra_facts s =
	    facts_of(CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE, attrs, 4, 0);
	struct trex_chakra_facts r =
	    facts_of(CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE, attrs, 4, 0);

	cr_assert_eq(s.type, TREX_NODE_COMM_SEND);
	cr_assert_eq(s.collective, TREX_COLLECTIVE_NONE, "5 is COMM_SEND_NODE, not BROADCAST");
	cr_assert_null(s.bad_value);
	cr_assert_eq(s.peer, 3);
	cr_assert_eq(r.peer, 7);
	cr_assert_eq(r.tag, 42);
}

Test(chakra_attrs, durations_cpu_and_groups)
{
	Attr cpu = int_attr("is_cpu_op", CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL, 1);
	Attr pg;
	chakra_proto_msg__attribute_proto__init(&pg);
	pg.name = S("pg_name");
	pg.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
	pg.string_val = S("3");
	Attr *attrs[] = {&cpu, &pg};

	struct trex_chakra_facts comp =
	    facts_of(CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, attrs, 1, 7);
	cr_assert_eq(comp.dur, 7000);
	cr_assert(comp.cpu);
	cr_assert_eq(comp.comm_bytes, -1);
	cr_assert_str_eq(comp.group, "");
	struct trex_chakra_facts zero =
	    facts_of(CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, NULL, 0, 0);
	cr_assert_eq(zero.dur, 0, "a compute node of 0 us takes 0 ns");
	cr_assert_not(zero.cpu);
	struct trex_chakra_facts coll =
	    facts_of(CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE, attrs + 1, 1, 0);
	cr_assert_eq(coll.dur, TREX_GRAPH_DUR_UNKNOWN, "a comm node of 0 us is to be estimated");
	cr_assert_str_eq(coll.group, "3");
	struct trex_chakra_facts kept =
	    facts_of(CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE, NULL, 0, 12);
	cr_assert_eq(kept.dur, 12000, "a measured comm duration is kept");
	struct trex_chakra_facts huge =
	    facts_of(CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, NULL, 0, UINT64_MAX / 2);
	cr_assert_eq(huge.dur, INT64_MAX);
	cr_assert_not_null(huge.bad_value);
	struct trex_chakra_facts odd = facts_of((ChakraProtoMsg__NodeType)42, NULL, 0, 0);
	cr_assert_eq(odd.type, TREX_NODE_OTHER);
}

/* ---- the process-group table ----------------------------------------------------------- */

struct groups {
	char names[4][16];
	uint32_t ranks[4][8];
	size_t n[4];
	int count;
};

static int on_group(void *user, const char *name, size_t len, const uint32_t *ranks, size_t n)
{
	struct groups *g = user;
	snprintf(g->names[g->count], sizeof(g->names[0]), "%.*s", (int)len, name);
	memcpy(g->ranks[g->count], ranks, n * sizeof(*ranks));
	g->n[g->count++] = n;
	return 0;
}

Test(chakra_groups, the_pytorch_table)
{
	struct groups g = {.count = 0};
	const char *values =
	    "['[{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", \"backend_config\": "
	    "\"cuda:nccl\", \"pg_size\": 2, \"ranks\": [0, 1]}, {\"pg_name\": \"1\", "
	    "\"ranks\": [], \"group_size\": 2}, {\"ranks\": [1, 3], \"pg_name\": \"2\", "
	    "\"nested\": {\"a\": [1, {\"b\": \"]\"}]}}]']";

	cr_assert_eq(trex_chakra_process_groups(values, on_group, &g), 2);
	cr_assert_str_eq(g.names[0], "0");
	cr_assert_eq(g.n[0], 2);
	cr_assert_eq(g.ranks[0][1], 1);
	cr_assert_str_eq(g.names[1], "2", "empty ranks (every rank) are left to the graph");
	cr_assert_eq(g.ranks[1][1], 3);
	cr_assert_eq(trex_chakra_process_groups("[0, 1]", on_group, &g), -1);
	cr_assert_eq(trex_chakra_process_groups("['[{\"pg_name\": ", on_group, &g), -1);
}

/* ---- the args codec --------------------------------------------------------------------- */

static const char *arg_of(const struct trex_args *a, const char *key)
{
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i].key, key) == 0)
			return a->v[i].value;
	return NULL;
}

/* A node with one attribute of each kind the codec formats differently. */
static size_t node_with_every_kind(struct file *f)
{
	Attr s, b, d, u, l, sl, by;
	ChakraProtoMsg__Int64List list;
	ChakraProtoMsg__StringList strings;
	ChakraProtoMsg__IOInfo in;
	int64_t values[] = {3, -4};
	char *texts[] = {S("a\"b"), S("c")};
	uint8_t bytes[] = {0xde, 0xad};
	Node n;

	memset(f, 0, sizeof(*f));
	put_metadata(f, "1.0.0");
	size_t at = f->len;
	chakra_proto_msg__node__init(&n);
	for (Attr *a = &s; a; a = a == &s    ? &b
	                          : a == &b  ? &d
	                          : a == &d  ? &u
	                          : a == &u  ? &l
	                          : a == &l  ? &sl
	                          : a == &sl ? &by
	                                     : NULL)
		chakra_proto_msg__attribute_proto__init(a);
	chakra_proto_msg__int64_list__init(&list);
	chakra_proto_msg__string_list__init(&strings);
	chakra_proto_msg__ioinfo__init(&in);
	s.name = S("op_schema");
	s.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
	s.string_val = S("aten::mm");
	b = int_attr("is_cpu_op", CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL, 0);
	d.name = S("ratio");
	d.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_DOUBLE_VAL;
	d.double_val = 0.5;
	u = int_attr("rf_id", CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL, -1);
	l.name = S("dims");
	l.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_LIST;
	l.int64_list = &list;
	list.values = values;
	list.n_values = 2;
	sl.name = S("names");
	sl.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_LIST;
	sl.string_list = &strings;
	strings.values = texts;
	strings.n_values = 2;
	by.name = S("blob");
	by.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BYTES_VAL;
	by.bytes_val.data = bytes;
	by.bytes_val.len = 2;
	in.values = S("[[5, 1, 0, 32768, 4, 'cuda:0']]");
	in.types = S("['Tensor(float)']");
	Attr *attrs[] = {&s, &b, &d, &u, &l, &sl, &by};
	uint64_t ctrl[] = {1}, data[] = {2, 3};
	n.id = 9;
	n.name = S("aten::mm");
	n.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE;
	n.ctrl_deps = ctrl;
	n.n_ctrl_deps = 1;
	n.data_deps = data;
	n.n_data_deps = 2;
	n.duration_micros = 12;
	n.inputs = &in;
	n.attr = attrs;
	n.n_attr = 7;
	put_record(f, &n.base);
	return at;
}

Test(chakra_codec, a_node_read_back_by_its_offset)
{
	static struct file f;
	struct trex_chakra_codec codec = {.magic = TREX_CHAKRA_CODEC_MAGIC};
	struct trex_args a;
	struct trex_error err;
	size_t at = node_with_every_kind(&f);

	cr_assert_eq(trex_source_open_memory("t.0.et", f.buf, f.len, true, &codec.src, &err),
	             TREX_OK);
	cr_assert_eq(trex_chakra_args_codec.decode(&codec, at + 1, &a, NULL, &err), TREX_OK, "%s",
	             err.message);
	cr_assert_str_eq(arg_of(&a, "id"), "9");
	cr_assert_str_eq(arg_of(&a, "name"), "aten::mm");
	cr_assert_str_eq(arg_of(&a, "type"), "COMP_NODE");
	cr_assert_str_eq(arg_of(&a, "ctrl_deps"), "[1]");
	cr_assert_str_eq(arg_of(&a, "data_deps"), "[2,3]");
	cr_assert_str_eq(arg_of(&a, "duration_micros"), "12");
	cr_assert_null(arg_of(&a, "start_time_micros"), "0: not shown");
	cr_assert_str_eq(arg_of(&a, "inputs.values"), "[[5, 1, 0, 32768, 4, 'cuda:0']]");
	cr_assert_str_eq(arg_of(&a, "inputs.types"), "['Tensor(float)']");
	cr_assert_null(arg_of(&a, "inputs.shapes"), "empty: not shown");
	cr_assert_str_eq(arg_of(&a, "op_schema"), "aten::mm");
	cr_assert_str_eq(arg_of(&a, "is_cpu_op"), "false", "a false bool is still there");
	cr_assert_str_eq(arg_of(&a, "ratio"), "0.5");
	cr_assert_str_eq(arg_of(&a, "rf_id"), "18446744073709551615");
	cr_assert_str_eq(arg_of(&a, "dims"), "[3,-4]");
	cr_assert_str_eq(arg_of(&a, "names"), "[\"a\\\"b\",\"c\"]");
	cr_assert_str_eq(arg_of(&a, "blob"), "dead");
	trex_args_free(&a);

	char *json = NULL;
	size_t len = 0;
	cr_assert_eq(trex_chakra_args_codec.json(&codec, at + 1, &json, &len, &err), TREX_OK);
	cr_assert_eq(strlen(json), len);
	cr_assert(strstr(json, "\"id\":9,\"name\":\"aten::mm\",\"type\":\"COMP_NODE\""), "%s",
	          json);
	cr_assert(strstr(json, "\"dims\":[3,-4],\"names\":[\"a\\\"b\",\"c\"],\"blob\":\"dead\"}"),
	          "%s", json);
	free(json);

	/* an offset where no node starts */
	cr_assert_neq(trex_chakra_args_codec.decode(&codec, f.len + 1, &a, NULL, &err), TREX_OK);
	trex_args_free(&a);
	cr_assert_eq(trex_chakra_args_codec.decode(&codec, TREX_ARGS_NONE, &a, NULL, &err),
	             TREX_OK);
	cr_assert_eq(a.n, 0);
	trex_source_close(codec.src);
}

Test(chakra_codec, close_takes_a_bare_source_too)
{
	struct trex_source *src;
	struct trex_error err;
	struct trex_chakra_codec *c = calloc(1, sizeof(*c));

	/* a file whose load never ran still has its source as the context */
	cr_assert_eq(trex_source_open_memory("t.0.et", "x", 1, true, &src, &err), TREX_OK);
	trex_chakra_args_codec.close(src);
	c->magic = TREX_CHAKRA_CODEC_MAGIC;
	cr_assert_eq(trex_source_open_memory("t.0.et", "x", 1, true, &c->src, &err), TREX_OK);
	trex_chakra_args_codec.close(c);
}

/* ---- sniffing --------------------------------------------------------------------------- */

Test(chakra_sniff, chakra_files_and_not_others)
{
	const struct trex_format *ck = trex_format_named("chakra-et");
	static struct file f;
	static const char json[] = "{\n  \"traceEvents\": [\n    {\"ph\": \"X\"}]}";
	static const char pretty[] = "[\n{\"name\": \"a\"}]";
	static const unsigned char perfetto[] = {0x0a, 0x05, 0x08, 0x01, 0x10, 0x02, 0x18};

	cr_assert_not_null(ck);
	three_nodes(&f);
	cr_assert_gt(ck->sniff(f.buf, f.len), 0);
	cr_assert_gt(ck->sniff(f.buf, 20), 0, "a head cut inside a record");
	struct file legacy = {.len = 0};
	put_node(&legacy, 5, CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, NULL, 0);
	cr_assert_gt(ck->sniff(legacy.buf, legacy.len), 0, "a legacy file starts with a node");
	cr_assert_eq(ck->sniff((const unsigned char *)json, sizeof(json) - 1), 0);
	cr_assert_eq(ck->sniff((const unsigned char *)pretty, sizeof(pretty) - 1), 0);
	cr_assert_lt(ck->sniff(perfetto, sizeof(perfetto)),
	             trex_format_named("perfetto")->sniff(perfetto, sizeof(perfetto)));
	cr_assert_eq(ck->sniff((const unsigned char *)"\x03\x0f\x01\x02", 4), 0);
}

/* ---- sets of files ---------------------------------------------------------------------- */

Test(chakra_set, rank_from_the_name)
{
	int64_t r;
	size_t p;

	cr_assert(trex_chakra_set_rank("dir/all_reduce.15.et", &r, &p) && r == 15 && p == 14);
	cr_assert(trex_chakra_set_rank("chakra.0.et.gz", &r, &p) && r == 0 && p == 6);
	cr_assert(trex_chakra_set_rank("a.b.3.et", &r, &p) && r == 3 && p == 3);
	cr_assert_not(trex_chakra_set_rank("trace.et", &r, &p));
	cr_assert_not(trex_chakra_set_rank(".3.et", &r, &p), "no prefix");
	cr_assert_not(trex_chakra_set_rank("dir.7/.3.et", &r, &p), "no prefix in the base name");
	cr_assert_not(trex_chakra_set_rank("x.3.json", &r, &p));
	cr_assert_not(trex_chakra_set_rank("x.et.3", &r, &p));
}

static char set_dir[64];

static void touch_file(const char *name)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/%s", set_dir, name);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fclose(f);
}

static void make_set_dir(void)
{
	snprintf(set_dir, sizeof(set_dir), "/tmp/trex-chakra-set.XXXXXX");
	cr_assert_not_null(mkdtemp(set_dir));
	/* written out of order; rank 10 sorts after 9 */
	for (int r = 10; r >= 0; r--) {
		char name[32];
		snprintf(name, sizeof(name), "trace.%d.et", r);
		if (r != 7)
			touch_file(name);
	}
	touch_file("notes.txt");
}

static void remove_set_dir(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", set_dir);
	cr_assert_eq(system(cmd), 0);
}

/* The expansion of set_dir followed by tail ("" for the directory itself). */
static struct trex_chakra_expansion expand1(const char *tail)
{
	char in[160];
	const char *inputs[] = {in};
	struct trex_chakra_expansion x;
	struct trex_error err;

	snprintf(in, sizeof(in), "%s%s", set_dir, tail);
	cr_assert_eq(trex_chakra_expand(inputs, 1, &x, &err), TREX_OK, "%s", err.message);
	return x;
}

Test(chakra_set, prefix_member_and_directory_give_the_set_in_rank_order, .init = make_set_dir,
     .fini = remove_set_dir)
{
	const char *forms[] = {"/trace", "/trace.3.et", "", "/"};
	char want[160];

	for (int i = 0; i < 4; i++) {
		struct trex_chakra_expansion x = expand1(forms[i]);
		cr_assert_eq(x.count, 10, "'%s': 0-6, 8-10", forms[i]);
		snprintf(want, sizeof(want), "%s/trace.0.et", set_dir);
		cr_assert_str_eq(x.paths[0], want);
		snprintf(want, sizeof(want), "%s/trace.10.et", set_dir);
		cr_assert_str_eq(x.paths[9], want);
		cr_assert_eq(x.note_count, 2);
		cr_assert_not(x.notes[0].warning);
		cr_assert(strstr(x.notes[0].text, ": 10 Chakra files (ranks 0-6, 8-10)"), "%s",
		          x.notes[0].text);
		cr_assert(x.notes[1].warning);
		cr_assert(strstr(x.notes[1].text, ": no file for rank 7 ("), "%s", x.notes[1].text);
		trex_chakra_expansion_free(&x);
	}
}

Test(chakra_set, a_set_named_twice_comes_once_and_other_inputs_stay, .init = make_set_dir,
     .fini = remove_set_dir)
{
	char a[160], b[160];
	const char *inputs[] = {a, b, "other.json", a};
	struct trex_chakra_expansion x;
	struct trex_error err;

	snprintf(a, sizeof(a), "%s/trace.1.et", set_dir);
	snprintf(b, sizeof(b), "%s/trace", set_dir);
	cr_assert_eq(trex_chakra_expand(inputs, 4, &x, &err), TREX_OK);
	cr_assert_eq(x.count, 11);
	cr_assert_str_eq(x.paths[10], "other.json");
	trex_chakra_expansion_free(&x);
}

Test(chakra_set, a_directory_with_several_sets_is_refused, .init = make_set_dir,
     .fini = remove_set_dir)
{
	const char *inputs[] = {set_dir};
	struct trex_chakra_expansion x;
	struct trex_error err;

	touch_file("all_reduce.0.et");
	touch_file("all_reduce.1.et.gz");
	cr_assert_eq(trex_chakra_expand(inputs, 1, &x, &err), TREX_USAGE);
	cr_assert_str_eq(err.message,
	                 "the directory holds several Chakra sets (all_reduce, trace): name one");
	cr_assert_eq(x.count, 0);
	/* naming one still works, .et.gz members included */
	x = expand1("/all_reduce");
	cr_assert_eq(x.count, 2);
	cr_assert(strstr(x.paths[1], "all_reduce.1.et.gz"));
	trex_chakra_expansion_free(&x);
}

Test(chakra_set, a_directory_without_a_set_and_a_missing_prefix_stay, .init = make_set_dir,
     .fini = remove_set_dir)
{
	const char *inputs[] = {"/nonexistent/prefix", "/"};
	struct trex_chakra_expansion x;
	struct trex_error err;

	cr_assert_eq(trex_chakra_expand(inputs, 2, &x, &err), TREX_OK);
	cr_assert_eq(x.count, 2, "the loader says what is wrong with them");
	cr_assert_str_eq(x.paths[0], "/nonexistent/prefix");
	cr_assert_eq(x.note_count, 0);
	trex_chakra_expansion_free(&x);
}

/* ---- the loader: nodes into the graph store, then trex info's tables --------------------- */

static struct trex_index *load_file(const char *name, const struct file *f, bool strict,
                                    enum trex_status want, struct trex_error *err)
{
	struct trex_load_opts opts = {.threads = 1, .strict = strict};
	struct trex_source *src;
	struct trex_index *idx = NULL;

	cr_assert_eq(trex_source_open_memory(name, f->buf, f->len, true, &src, err), TREX_OK);
	cr_assert_eq(trex_load_sources(&src, 1, &opts, &idx, err), want, "%s", err->message);
	return idx;
}

/* Metadata, compute 1, an all-reduce 2 (1 MiB in uint64, pg_name "7") on 1,
 * a send 3 (comm_type 5, a NodeType number) on 2 and 99 (missing). */
static void small_graph(struct file *f)
{
	Attr type = int_attr("comm_type", CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL, 0);
	Attr size =
	    int_attr("comm_size", CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL, 1 << 20);
	Attr pg;
	Attr send_type =
	    int_attr("comm_type", CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL, 5);
	Attr dst = int_attr("comm_dst", CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL, 1);
	Attr *coll[] = {&type, &size, &pg}, *send[] = {&send_type, &dst, &size};
	Node n;
	uint64_t deps[] = {2, 99};

	chakra_proto_msg__attribute_proto__init(&pg);
	pg.name = S("pg_name");
	pg.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
	pg.string_val = S("7");
	memset(f, 0, sizeof(*f));
	put_metadata(f, "0.0.4");
	put_node(f, 1, CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, NULL, 0);
	put_node(f, 2, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE, coll, 3);
	chakra_proto_msg__node__init(&n);
	n.id = 3;
	n.name = S("send");
	n.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE;
	n.data_deps = deps;
	n.n_data_deps = 2;
	n.attr = send;
	n.n_attr = 3;
	put_record(f, &n.base);
}

Test(chakra_load, nodes_facts_and_deps_in_the_graph)
{
	static struct file f;
	struct trex_error err;

	small_graph(&f);
	struct trex_index *idx = load_file("run/t.3.et", &f, false, TREX_OK, &err);
	const struct trex_graph *g = trex_index_graph(idx);
	cr_assert_not_null(g);
	cr_assert_eq(trex_graph_node_count(g), 3);
	const struct trex_graph_node *comp = trex_graph_node(g, 0), *coll = trex_graph_node(g, 1),
	                             *send = trex_graph_node(g, 2);
	cr_assert_eq(comp->rank, 3, "the rank of the file's name");
	cr_assert_eq(trex_index_file(idx, 0)->rank, 3);
	cr_assert_str_eq(trex_index_str(idx, trex_index_file(idx, 0)->dialect), "0.0.4");
	cr_assert_eq(trex_index_file(idx, 0)->events, 3);
	cr_assert_eq(comp->type, TREX_NODE_COMP);
	cr_assert_eq(comp->dur, 0);
	cr_assert_eq(coll->type, TREX_NODE_COMM_COLL);
	cr_assert_eq(coll->collective, TREX_COLLECTIVE_ALL_REDUCE);
	cr_assert_eq(coll->comm_bytes, 1 << 20);
	cr_assert_eq(coll->dur, TREX_GRAPH_DUR_UNKNOWN);
	cr_assert_str_eq(trex_graph_str(g, coll->group), "7");
	cr_assert_eq(coll->record, 2);
	cr_assert_eq(send->type, TREX_NODE_COMM_SEND);
	cr_assert_eq(send->collective, TREX_COLLECTIVE_NONE);
	cr_assert_eq(send->peer, 1);
	/* put_node makes node 1 depend on id 0, which is not there either */
	cr_assert_eq(trex_graph_problem_count(g, 0, TREX_GRAPH_DANGLING_DEP), 2);
	uint32_t in;
	trex_graph_edges_of(g, 2, true, &in);
	cr_assert_eq(in, 1, "2 -> 3 resolved, 99 dangling");

	/* the codec reads a node back through the index */
	struct trex_args a;
	cr_assert_eq(trex_index_args(idx, 0, send->attrs, &a, NULL, &err), TREX_OK, "%s",
	             err.message);
	cr_assert_str_eq(arg_of(&a, "name"), "send");
	cr_assert_str_eq(arg_of(&a, "comm_dst"), "1");
	trex_args_free(&a);

	struct trex_graph_info info;
	cr_assert_eq(trex_graph_info_compute(idx, trex_graph_schedule(g), &info, &err), TREX_OK);
	cr_assert_eq(info.ranks.nrows, 1);
	cr_assert_eq(trex_table_cell(&info.ranks, 0, 0)->count, 3);
	cr_assert_eq(trex_table_cell(&info.ranks, 0, 1)->count, 3);
	cr_assert_eq(trex_table_cell(&info.ranks, 0, 2)->count, 1, "compute");
	cr_assert_eq(trex_table_cell(&info.ranks, 0, 3)->count, 1, "collective");
	cr_assert_eq(trex_table_cell(&info.ranks, 0, 4)->count, 1, "send");
	cr_assert_eq(info.comm.nrows, 2);
	cr_assert_str_eq(trex_table_cell(&info.comm, 0, 0)->text, "all-reduce");
	cr_assert_eq(trex_table_cell(&info.comm, 0, 3)->count, 1 << 20);
	cr_assert_str_eq(trex_table_cell(&info.comm, 1, 0)->text, "send");
	cr_assert_eq(info.dangling, 2);
	cr_assert_eq(info.problems.nrows, 2, "dangling deps, and the send nobody receives");
	cr_assert_str_eq(trex_table_cell(&info.problems, 1, 1)->text,
	                 "unmatched communication nodes");
	cr_assert_eq(info.unmatched, 1);
	cr_assert_eq(trex_table_cell(&info.problems, 0, 2)->count, 2);
	cr_assert(strstr(trex_table_cell(&info.problems, 0, 3)->text,
	                 "node 1 (node, record 1, byte 8) depends on id 0, which the file lacks"),
	          "%s", trex_table_cell(&info.problems, 0, 3)->text);
	cr_assert_gt(info.makespan_ns, 0);
	trex_graph_info_free(&info);
	trex_index_free(idx);
}

Test(chakra_load, damage_is_kept_counted_and_refused_when_strict)
{
	static struct file f;
	struct trex_error err;

	small_graph(&f);
	f.len -= 5; /* the send is cut */
	struct trex_index *idx = load_file("t.0.et", &f, false, TREX_OK, &err);
	const struct trex_file *tf = trex_index_file(idx, 0);
	cr_assert_eq(trex_graph_node_count(trex_index_graph(idx)), 2);
	cr_assert(tf->truncated);
	cr_assert_eq(tf->integrity.events_lost, 1);
	cr_assert_gt(tf->integrity.bytes_ignored, 0);
	cr_assert(strstr(tf->first_problem.message, "record 3: record length "), "%s",
	          tf->first_problem.message);
	const struct trex_problem *p = trex_index_problem(idx, 0, TREX_INTEG_bytes_ignored, 0);
	cr_assert_not_null(p, "an integrity example with its position");
	cr_assert_eq(p->offset, tf->first_problem.offset);
	trex_index_free(idx);

	idx = load_file("t.0.et", &f, true, TREX_FORMAT, &err);
	cr_assert_null(idx);
	cr_assert_str_eq(err.path, "t.0.et");
	cr_assert(strstr(err.message, "record 3: record length "), "%s", err.message);
}
