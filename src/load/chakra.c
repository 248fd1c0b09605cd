/* The Chakra execution-trace format ("chakra-et"): each node of a .et
 * file becomes a node of the file's graph (core/graph.h) with its data and
 * control dependencies; the loader pipeline joins the files' graphs,
 * schedules them and draws the timeline. One file is one rank (the rank
 * its name {prefix}.{rank}.et says). doc/formats/chakra.md describes the
 * mapping. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra_internal.h"
#include "formats.h"
#include "trex/load/chakra_set.h"

struct ck_load {
	struct trex_load_job *job;
	struct trex_graph *g;
	struct trex_chakra_codec *codec;
	/* the file's integrity examples: a part of its own beside the one the
	 * loader draws the graph into (made on the first problem) */
	struct trex_builder *problems;
	bool oom;
	uint32_t rank;
	uint64_t types[TREX_NODE_TYPE_COUNT];
};

/* ---- problems --------------------------------------------------------------------------- */

/* Counts nothing (the caller does): the example "record R: what" at the
 * record's offset, and the file's first problem. */
static void ck_problem(struct ck_load *l, enum trex_integrity_counter c, uint64_t record,
                       uint64_t offset, uint64_t length, uint64_t lost, const char *what)
{
	struct trex_build_file *f = l->job->file;
	struct trex_problem p = {
	    .offset = (int64_t)offset,
	    .disk_offset = -1,
	    .length = length,
	    .events_lost = lost,
	    .track = TREX_NONE,
	    .slice = TREX_NONE,
	    .name = TREX_NONE,
	    .counter = (uint8_t)c,
	};

	snprintf(p.what, sizeof(p.what), "record %" PRIu64 ": %s", record, what);
	if (!l->problems)
		l->problems = trex_builder_new(l->job->file_id);
	if (!l->problems || trex_builder_problem(l->problems, &p) < 0)
		l->oom = true;
	if (f->first_problem.status == TREX_OK)
		trex_error_set(&f->first_problem, TREX_FORMAT, f->path, (int64_t)offset,
		               "record %" PRIu64 ": %s", record, what);
}

static void ck_on_damage(void *user, enum trex_chakra_damage kind,
                         const struct trex_chakra_where *w, uint64_t bytes, const char *what)
{
	struct ck_load *l = user;
	struct trex_integrity *in = &l->job->file->integrity;

	switch (kind) {
	case TREX_CHAKRA_UNDECODABLE:
		trex_integrity_count(in, TREX_INTEG_syntax_errors, 1);
		trex_integrity_count(in, TREX_INTEG_bytes_skipped, bytes);
		trex_integrity_count(in, TREX_INTEG_events_lost, 1);
		ck_problem(l, TREX_INTEG_syntax_errors, w->record, w->offset, bytes, 1, what);
		break;
	case TREX_CHAKRA_BAD_LENGTH:
		trex_integrity_count(in, TREX_INTEG_syntax_errors, 1);
		/* the rest of the file is lost as with a cut */
		__attribute__((fallthrough));
	case TREX_CHAKRA_CUT:
		trex_integrity_count(in, TREX_INTEG_bytes_ignored, bytes);
		trex_integrity_count(in, TREX_INTEG_events_lost, bytes ? 1 : 0);
		l->job->file->truncated = true;
		ck_problem(l, TREX_INTEG_bytes_ignored, w->record, w->offset, bytes, bytes ? 1 : 0,
		           what);
		break;
	}
}

/* ---- records ---------------------------------------------------------------------------- */

static void ck_dialect(struct ck_load *l, const trex_chakra_metadata *gm)
{
	const char *schema = NULL;

	for (size_t i = 0; i < gm->n_attr; i++)
		if (strcmp(gm->attr[i]->name, "schema") == 0 &&
		    gm->attr[i]->value_case == CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL)
			schema = gm->attr[i]->string_val;
	if (gm->version[0])
		snprintf(l->codec->dialect, sizeof(l->codec->dialect), "%s", gm->version);
	else if (schema && schema[0])
		snprintf(l->codec->dialect, sizeof(l->codec->dialect), "%s", schema);
	else
		snprintf(l->codec->dialect, sizeof(l->codec->dialect), "unversioned");
}

static enum trex_status ck_on_metadata(void *user, const trex_chakra_metadata *gm,
                                       const struct trex_chakra_where *w, struct trex_error *err)
{
	(void)w;
	(void)err;
	ck_dialect(user, gm);
	return TREX_OK;
}

static enum trex_status ck_nomem(struct ck_load *l, const struct trex_chakra_where *w,
                                 struct trex_error *err)
{
	return trex_error_set(err, TREX_NOMEM, l->job->file->path, (int64_t)w->offset,
	                      "out of memory at record %" PRIu64, w->record);
}

static int ck_add_group(void *user, const char *name, size_t len, const uint32_t *ranks, size_t n)
{
	struct ck_load *l = user;
	uint32_t group = trex_graph_intern(l->g, name, len);

	if (group == TREX_GRAPH_NONE)
		return -1;
	return trex_graph_set_group_ranks(l->g, group, ranks, n);
}

/* The PyTorch process-group table, when n is it. */
static enum trex_status ck_groups(struct ck_load *l, const trex_chakra_node *n,
                                  const struct trex_chakra_where *w, struct trex_error *err)
{
	if (n->type != CHAKRA_PROTO_MSG__NODE_TYPE__METADATA_NODE || !n->inputs ||
	    strcmp(n->name, TREX_CHAKRA_PG_INIT_NAME) != 0)
		return TREX_OK;
	int found = trex_chakra_process_groups(n->inputs->values, ck_add_group, l);
	if (found < 0) {
		trex_integrity_count(&l->job->file->integrity, TREX_INTEG_bad_values, 1);
		ck_problem(l, TREX_INTEG_bad_values, w->record, w->offset, 0, 0,
		           "the process-group table does not read (groups taken from the nodes)");
	}
	(void)err;
	return TREX_OK;
}

static enum trex_status ck_deps(struct ck_load *l, uint32_t node, const trex_chakra_node *n,
                                const struct trex_chakra_where *w, struct trex_error *err)
{
	for (size_t i = 0; i < n->n_data_deps; i++)
		if (trex_graph_add_dep(l->g, node, n->data_deps[i], TREX_DEP_DATA) < 0)
			return ck_nomem(l, w, err);
	for (size_t i = 0; i < n->n_ctrl_deps; i++)
		if (trex_graph_add_dep(l->g, node, n->ctrl_deps[i], TREX_DEP_CTRL) < 0)
			return ck_nomem(l, w, err);
	return TREX_OK;
}

static enum trex_status ck_on_node(void *user, const trex_chakra_node *n,
                                   const struct trex_chakra_where *w, struct trex_error *err)
{
	struct ck_load *l = user;
	struct trex_chakra_facts f;

	trex_chakra_node_facts(n, &f);
	struct trex_graph_node node = {
	    .id = n->id,
	    .dur = f.dur,
	    .comm_bytes = f.comm_bytes,
	    .attrs = (trex_args_ref)w->offset + 1,
	    .offset = (int64_t)w->offset,
	    .record = w->record > UINT32_MAX ? UINT32_MAX : (uint32_t)w->record,
	    .file = l->job->file_id,
	    .rank = l->rank,
	    .name = trex_graph_intern(l->g, n->name, strlen(n->name)),
	    .group = f.group[0] ? trex_graph_intern(l->g, f.group, strlen(f.group)) : 0,
	    .peer = f.peer,
	    .tag = f.tag,
	    .type = (uint8_t)f.type,
	    .collective = (uint8_t)f.collective,
	    .flags = f.cpu ? TREX_NODE_CPU : 0,
	};
	if (node.name == TREX_GRAPH_NONE || node.group == TREX_GRAPH_NONE)
		return ck_nomem(l, w, err);
	uint32_t id = trex_graph_add_node(l->g, &node);
	if (id == TREX_GRAPH_NONE)
		return ck_nomem(l, w, err);
	l->types[f.type]++;
	if (f.bad_value) {
		trex_integrity_count(&l->job->file->integrity, TREX_INTEG_bad_values, 1);
		ck_problem(l, TREX_INTEG_bad_values, w->record, w->offset, 0, 0, f.bad_value);
	}
	enum trex_status st = ck_deps(l, id, n, w, err);
	return st == TREX_OK ? ck_groups(l, n, w, err) : st;
}

static bool ck_on_progress(void *user, uint64_t bytes, uint64_t disk, uint64_t nodes)
{
	struct ck_load *l = user;
	return trex_load_job_progress(l->job, bytes, disk, nodes);
}

/* ---- the file --------------------------------------------------------------------------- */

static const char *const ck_type_keys[TREX_NODE_TYPE_COUNT] = {
    "INVALID_NODE", "METADATA_NODE",  "MEM_LOAD_NODE",  "MEM_STORE_NODE",
    "COMP_NODE",    "COMM_SEND_NODE", "COMM_RECV_NODE", "COMM_COLL_NODE",
};

/* Node counts by type as the file's event types ("COMP_NODE", "compute"). */
static void ck_event_types(struct ck_load *l)
{
	struct trex_build_file *f = l->job->file;

	f->event_type_count = 0;
	for (int t = 0; t < TREX_NODE_TYPE_COUNT && t < TREX_EVENT_TYPES_MAX; t++) {
		if (!l->types[t])
			continue;
		f->event_types[f->event_type_count].label = ck_type_keys[t];
		f->event_types[f->event_type_count].name =
		    trex_node_type_label((enum trex_node_type)t);
		f->event_types[f->event_type_count++].events = l->types[t];
	}
}

static enum trex_status ck_load_file(struct trex_load_job *job, struct trex_error *err)
{
	struct trex_chakra_codec *codec = calloc(1, sizeof(*codec));
	struct ck_load l = {.job = job, .g = job->graph, .codec = codec};
	struct trex_chakra_sink sink = {.user = &l,
	                                .metadata = ck_on_metadata,
	                                .node = ck_on_node,
	                                .damage = ck_on_damage,
	                                .progress = ck_on_progress};
	struct trex_chakra_stats stats;
	struct trex_build_file *f = job->file;
	int64_t rank;

	if (!job->graph || !codec) {
		free(codec);
		return job->graph ? trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory")
		                  : trex_error_set(err, TREX_USAGE, f->path, -1,
		                                   "a Chakra trace needs the graph store");
	}
	codec->magic = TREX_CHAKRA_CODEC_MAGIC;
	codec->src = job->source;
	f->codec_ctx = codec; /* owns the source from here on */
	f->format = "chakra-et";
	f->has_rank = trex_chakra_set_rank(f->path, &rank, NULL);
	f->rank = f->has_rank ? rank : 0;
	l.rank = f->has_rank && rank <= UINT32_MAX ? (uint32_t)rank : 0;
	memset(&f->integrity, 0, sizeof(f->integrity));
	trex_error_clear(&f->first_problem);
	enum trex_status st = trex_chakra_decode(job->source, &sink, &stats, err);
	if (st == TREX_OK && l.oom)
		st = trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	if (st == TREX_OK && l.problems)
		st = trex_load_job_add_part(job, 1, l.problems, err); /* after the drawn part (0) */
	else
		trex_builder_free(l.problems);
	if (stats.legacy)
		snprintf(codec->dialect, sizeof(codec->dialect), "legacy (no GlobalMetadata)");
	f->dialect = codec->dialect;
	f->bytes_decoded = stats.bytes;
	f->events = stats.nodes;
	ck_event_types(&l);
	if (st == TREX_OK && job->opts->strict && f->first_problem.status != TREX_OK)
		return (*err = f->first_problem, TREX_FORMAT);
	return st;
}

/* ---- sniffing ----------------------------------------------------------------------------
 * No magic: the first record must frame and hold only the fields a
 * GlobalMetadata (1, 2 as strings) or a Node (1..10 with their wire types)
 * has, starting as writers start them; an ASCII-looking head is refused so
 * that text formats keep their files. */

static bool ck_node_field(uint64_t tag)
{
	static const unsigned char wire[11] = {9, 0, 2, 0, 2, 2, 0, 0, 2, 2, 2};
	uint64_t field = tag >> 3;

	if (field < 1 || field > 10)
		return false;
	/* deps may be unpacked: one varint per element */
	return (tag & 7) == wire[field] || ((field == 4 || field == 5) && (tag & 7) == 0);
}

/* Fields of head[pos..end) (end may be past len: the head is cut there). */
static bool ck_sniff_fields(const unsigned char *head, size_t len, size_t pos, size_t end)
{
	int fields = 0;

	while (pos < end && pos < len) {
		uint64_t tag, v;
		size_t at = pos;
		unsigned i = 0;
		for (tag = 0; i < 10 && at < len; i++, at++) {
			tag |= (uint64_t)(head[at] & 0x7f) << (7 * i);
			if (!(head[at] & 0x80))
				break;
		}
		if (at >= len)
			return fields > 0;
		if (!ck_node_field(tag) && tag != 0x0a && tag != 0x12)
			return false;
		pos = at + 1;
		for (v = 0, i = 0; i < 10 && pos < len; i++, pos++) {
			v |= (uint64_t)(head[pos] & 0x7f) << (7 * i);
			if (!(head[pos] & 0x80))
				break;
		}
		pos++;
		if ((tag & 7) == 2)
			pos += v;
		fields++;
	}
	return pos == end || (end > len && fields > 0);
}

static int ck_sniff(const unsigned char *head, size_t len)
{
	size_t pos = 0;
	uint32_t n;
	bool text = true;

	if (len < 2 || trex_chakra_read_length(head, len, &pos, &n) != 1 || n == 0)
		return 0;
	/* writers start a record with the id, the name or the type (a node) or
	 * the version or an attribute (a metadata) */
	if (head[pos] != 0x08 && head[pos] != 0x0a && head[pos] != 0x12 && head[pos] != 0x18)
		return 0;
	for (size_t i = 0; i < len && text; i++)
		text = (head[i] >= 0x20 && head[i] < 0x7f) || head[i] == '\n' || head[i] == '\r' ||
		       head[i] == '\t';
	if (text || !ck_sniff_fields(head, len, pos, pos + n))
		return 0;
	return 20;
}

const struct trex_format trex_format_chakra_et = {
    .name = "chakra-et",
    .sniff = ck_sniff,
    .load = ck_load_file,
    .codec = &trex_chakra_args_codec,
    .graph = true,
};
