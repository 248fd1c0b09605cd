/* The ASTRA-sim simulator timeline: the issue and callback lines the
 * simulator logs for every node it runs (with "trace-enabled": 1 in its
 * system configuration), the input of Chakra's timeline visualizer. An
 * issue opens a node on an NPU at a cycle, the callback of the same
 * (NPU, node id) closes it: one slice, on a track per NPU and kind of
 * node (compute, communication, memory: from the node->type column, else
 * from the node's name as the visualizer guesses it). Cycles become ns
 * by the NPU clock (trex_load_opts.npu_frequency_ghz). Lines that are
 * neither (the simulator's other log lines) are counted and skipped;
 * an issue without its callback is kept to the end of the log and a
 * callback without its issue ignored, both reported at their line.
 *
 * Args are read back from the issue line itself (the "astrasim-log"
 * codec): a reference is its offset and length in the decoded file. */
#include "config.h"

#include "formats.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "astrasim_log.h"
#include "text_lines.h"
#include "trex/core/grow.h"
#include "trex/core/kind.h"
#include "trex/export/json_write.h"
#include "trex/load/json_args.h"

#define TL_MAX_NPUS (1u << 20) /* NPU ids beyond this are refused: tracks are an array */
#define TL_PROGRESS_LINES 65536

/* ---- the args codec: the issue line read again ------------------------------------------- */

static trex_args_ref tl_ref(uint64_t offset, size_t len)
{
	/* the JSON codec's packing: 40 bits of offset, 24 of length */
	return trex_json_args_ref(offset, len);
}

static enum trex_status tl_read_line(struct trex_source *src, trex_args_ref ref, char **line,
                                     size_t *len, struct trex_error *err)
{
	size_t n = trex_json_args_len(ref), got = 0;
	char *buf = malloc(n + 1);

	if (!buf)
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	enum trex_status s = trex_source_read(src, trex_json_args_offset(ref), n, buf, &got, err);
	if (s == TREX_OK && got != n)
		s = trex_error_set(err, TREX_FORMAT, trex_source_path(src),
		                   (int64_t)trex_json_args_offset(ref),
		                   "the log line runs past the end of input");
	if (s != TREX_OK) {
		free(buf);
		return s;
	}
	buf[n] = '\0';
	*line = buf;
	*len = n;
	return TREX_OK;
}

enum { TL_ARGS = 5 };

/* The issue line's columns as (key, value) pairs, in out->buf. */
static enum trex_status tl_args_of(const char *line, size_t len, struct trex_args *out,
                                   struct trex_error *err)
{
	static const char *const keys[TL_ARGS] = {"npu", "node id", "node type", "issue cycle",
	                                          "log"};
	struct asl_record r;
	const char *why;
	size_t col, at = 0, cap = len + 128;

	memset(out, 0, sizeof(*out));
	out->buf = malloc(cap);
	out->v = calloc(TL_ARGS, sizeof(*out->v));
	if (!out->buf || !out->v) {
		trex_args_free(out);
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	if (!asl_parse_line(line, len, &r, &why, &col) || r.kind != ASL_ISSUE)
		r.node_type = -2; /* only the line itself */
	for (int k = 0; k < TL_ARGS; k++) {
		char *v = out->buf + at;
		int n;
		if (r.node_type == -2 && k < TL_ARGS - 1)
			continue;
		if (k == 2 && r.node_type < 0)
			continue;
		n = k == 0   ? snprintf(v, cap - at, "%" PRIu32, r.npu)
		    : k == 1 ? snprintf(v, cap - at, "%" PRIu64, r.node_id)
		    : k == 2 ? snprintf(v, cap - at, "%d", r.node_type)
		    : k == 3 ? snprintf(v, cap - at, "%" PRIu64, r.tick)
		             : snprintf(v, cap - at, "%.*s", (int)(len - r.at), line + r.at);
		out->v[out->n].key = keys[k];
		out->v[out->n++].value = v;
		at += (size_t)n + 1;
	}
	return TREX_OK;
}

static enum trex_status tl_decode(void *ctx, trex_args_ref ref, struct trex_args *out,
                                  bool *truncated, struct trex_error *err)
{
	char *line = NULL;
	size_t len = 0;

	memset(out, 0, sizeof(*out));
	if (truncated)
		*truncated = false;
	if (ref == TREX_ARGS_NONE)
		return TREX_OK;
	enum trex_status s = tl_read_line(ctx, ref, &line, &len, err);
	if (s == TREX_OK)
		s = tl_args_of(line, len, out, err);
	free(line);
	return s;
}

static enum trex_status tl_json(void *ctx, trex_args_ref ref, char **out, size_t *len,
                                struct trex_error *err)
{
	struct trex_args a;
	FILE *f;

	*out = NULL;
	*len = 0;
	if (ref == TREX_ARGS_NONE)
		return TREX_OK;
	enum trex_status s = tl_decode(ctx, ref, &a, NULL, err);
	if (s != TREX_OK)
		return s;
	if (!(f = open_memstream(out, len))) {
		trex_args_free(&a);
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	fputc('{', f);
	for (size_t i = 0; i < a.n; i++) {
		fputs(i ? "," : "", f);
		trex_json_write_string(f, a.v[i].key);
		fputc(':', f);
		trex_json_write_string(f, a.v[i].value);
	}
	fputc('}', f);
	trex_args_free(&a);
	if (fclose(f) != 0) {
		free(*out);
		*out = NULL;
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	return TREX_OK;
}

static enum trex_status tl_positions(void *ctx, const uint64_t *offsets, size_t n, int64_t *line,
                                     int64_t *col, int64_t *disk, struct trex_error *err)
{
	return trex_source_positions(ctx, offsets, n, line, col, disk, err);
}

static size_t tl_memory(const void *ctx)
{
	return trex_source_memory(ctx);
}

static void tl_close(void *ctx)
{
	trex_source_close(ctx);
}

static const struct trex_args_codec tl_codec = {
    .name = "astrasim-log",
    .decode = tl_decode,
    .json = tl_json,
    .positions = tl_positions,
    .memory = tl_memory,
    .close = tl_close,
    .save = trex_source_codec_save,
    .reopen = trex_source_codec_reopen,
};

/* ---- what a node is: its track ------------------------------------------------------------ */

/* X(NAME, "track label", kind) in the order the tracks of an NPU show. */
#define TL_CLASS_INFO(X)                                                                           \
	X(COMPUTE, "compute", TREX_KIND_KERNEL)                                                    \
	X(COMM, "communication", TREX_KIND_KERNEL)                                                 \
	X(LOCAL_MEMORY, "local memory", TREX_KIND_MEMCPY)                                          \
	X(REMOTE_MEMORY, "remote memory", TREX_KIND_MEMCPY)                                        \
	X(OTHER, "other", TREX_KIND_GPU_OTHER)

enum tl_class {
#define TL_CLASS_ENUM(name, label, kind) TL_##name,
	TL_CLASS_INFO(TL_CLASS_ENUM)
#undef TL_CLASS_ENUM
	    TL_CLASSES
};

static const char *const tl_class_labels[] = {
#define TL_CLASS_LABEL(name, label, kind) label,
    TL_CLASS_INFO(TL_CLASS_LABEL)
#undef TL_CLASS_LABEL
};

static const uint8_t tl_class_kinds[] = {
#define TL_CLASS_KIND(name, label, kind) kind,
    TL_CLASS_INFO(TL_CLASS_KIND)
#undef TL_CLASS_KIND
};

static bool name_has(const struct asl_record *r, const char *word)
{
	return memmem(r->name, r->name_len, word, strlen(word)) != NULL;
}

static enum tl_class memory_class(const struct asl_record *r)
{
	return name_has(r, "LOCAL_MEMORY") ? TL_LOCAL_MEMORY : TL_REMOTE_MEMORY;
}

/* The Chakra node type the line says; else the visualizer's guess from
 * generator and text-converter names. */
static enum tl_class class_of(const struct asl_record *r)
{
	if (r->node_type == 2 || r->node_type == 3)
		return memory_class(r);
	if (r->node_type == 4)
		return TL_COMPUTE;
	if (r->node_type >= 5 && r->node_type <= 7)
		return TL_COMM;
	if (r->node_type >= 0)
		return TL_OTHER;
	if (name_has(r, "MEM_LOAD_NODE") || name_has(r, "MEM_STORE_NODE"))
		return memory_class(r);
	if (name_has(r, "COMP_NODE"))
		return TL_COMPUTE;
	if (name_has(r, "COMM_SEND_NODE") || name_has(r, "COMM_RECV_NODE") ||
	    name_has(r, "COMM_COLL_NODE"))
		return TL_COMM;
	return TL_OTHER;
}

/* ---- issued nodes waiting for their callback ------------------------------------------------
 * Open addressing, linear probing, deletion by backward shift. */

struct tl_pending {
	uint64_t node_id;
	uint64_t tick;
	uint64_t offset; /* of the issue line */
	uint32_t npu;
	uint32_t line_len;
	uint32_t name; /* builder string id */
	uint8_t cls;
	bool used;
};

struct tl_map {
	struct tl_pending *v;
	size_t cap, n; /* cap: a power of two */
};

static size_t tl_hash(uint32_t npu, uint64_t id)
{
	uint64_t h = (id ^ ((uint64_t)npu << 40)) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h ^ (h >> 29));
}

static struct tl_pending *tl_find(struct tl_map *m, uint32_t npu, uint64_t id)
{
	if (!m->cap)
		return NULL;
	for (size_t i = tl_hash(npu, id) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (!m->v[i].used)
			return NULL;
		if (m->v[i].npu == npu && m->v[i].node_id == id)
			return &m->v[i];
	}
}

static bool tl_put(struct tl_map *m, const struct tl_pending *p);

static bool tl_rehash(struct tl_map *m)
{
	struct tl_map bigger = {calloc(m->cap ? 2 * m->cap : 256, sizeof(*m->v)),
	                        m->cap ? 2 * m->cap : 256, 0};

	if (!bigger.v)
		return false;
	for (size_t i = 0; i < m->cap; i++)
		if (m->v[i].used)
			tl_put(&bigger, &m->v[i]);
	free(m->v);
	*m = bigger;
	return true;
}

/* Adds p (its key not in the map). */
static bool tl_put(struct tl_map *m, const struct tl_pending *p)
{
	if (2 * (m->n + 1) > m->cap && !tl_rehash(m))
		return false;
	size_t i = tl_hash(p->npu, p->node_id) & (m->cap - 1);
	while (m->v[i].used)
		i = (i + 1) & (m->cap - 1);
	m->v[i] = *p;
	m->v[i].used = true;
	m->n++;
	return true;
}

static void tl_remove(struct tl_map *m, struct tl_pending *p)
{
	size_t hole = (size_t)(p - m->v), mask = m->cap - 1;

	m->v[hole].used = false;
	m->n--;
	for (size_t i = (hole + 1) & mask; m->v[i].used; i = (i + 1) & mask) {
		size_t home = tl_hash(m->v[i].npu, m->v[i].node_id) & mask;
		/* moves back unless its home lies cyclically in (hole, i] */
		if (((i - home) & mask) >= ((i - hole) & mask)) {
			m->v[hole] = m->v[i];
			m->v[i].used = false;
			hole = i;
		}
	}
}

/* ---- the loader ---------------------------------------------------------------------------- */

enum tl_type { TL_ISSUE, TL_CALLBACK, TL_OTHER_LINES, TL_TYPES };
static const char *const tl_type_labels[TL_TYPES][2] = {
    {"issue", "issue lines"},
    {"callback", "callback lines"},
    {"other", "other log lines (skipped)"},
};

struct tl_loader {
	struct trex_load_job *job;
	struct trex_builder *b;
	const char *path;
	struct tl_map pending;
	uint32_t *tracks; /* per npu * TL_CLASSES: builder track, TREX_NONE until made */
	size_t tracks_cap;
	uint64_t khz;       /* the NPU clock */
	uint64_t last_tick; /* the log's last cycle: where unmatched issues end */
	uint64_t types[TL_TYPES];
	uint32_t cat[TL_CLASSES];
	bool prefixed, oom;
};

/* A cycle count in ns at the NPU clock, rounded; false beyond int64. */
static bool tl_cycles_ns(const struct tl_loader *l, uint64_t cycles, int64_t *ns)
{
	unsigned __int128 v = ((unsigned __int128)cycles * 1000000u + l->khz / 2) / l->khz;

	if (v > INT64_MAX)
		return false;
	*ns = (int64_t)v;
	return true;
}

static uint32_t tl_intern(struct tl_loader *l, const char *s, size_t len)
{
	uint32_t id = trex_builder_intern(l->b, s, len);
	if (id == TREX_STR_ERROR)
		l->oom = true;
	return id;
}

static void tl_note(struct tl_loader *l, enum trex_integrity_counter c, uint64_t offset,
                    uint64_t length, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* A problem at a line: counted and kept as an example. */
static void tl_note(struct tl_loader *l, enum trex_integrity_counter c, uint64_t offset,
                    uint64_t length, const char *fmt, ...)
{
	struct trex_build_file *f = l->job->file;
	struct trex_problem p = {.offset = (int64_t)offset,
	                         .disk_offset = -1,
	                         .length = length,
	                         .events_lost = length ? 1 : 0,
	                         .track = TREX_NONE,
	                         .slice = TREX_NONE,
	                         .name = TREX_NONE,
	                         .counter = (uint8_t)c};
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p.what, sizeof(p.what), fmt, ap);
	va_end(ap);
	trex_integrity_count(&f->integrity, c, 1);
	if (length) {
		trex_integrity_count(&f->integrity, TREX_INTEG_bytes_skipped, length);
		trex_integrity_count(&f->integrity, TREX_INTEG_events_lost, 1);
	}
	/* the file's first problem is its first damage (what --strict refuses) */
	if (trex_integrity_is_damage(c) &&
	    (f->first_problem.status == TREX_OK || f->first_problem.offset > (int64_t)offset))
		trex_error_set(&f->first_problem, TREX_FORMAT, l->path, (int64_t)offset, "%s",
		               p.what);
	if (trex_builder_problem(l->b, &p) < 0)
		l->oom = true;
}

/* The track of (npu, class), made on first use: thread "compute" (...) of
 * process "NPU n", a device of rank n. */
static uint32_t tl_track(struct tl_loader *l, uint32_t npu, enum tl_class cls)
{
	size_t at = (size_t)npu * TL_CLASSES + cls, old = l->tracks_cap;
	uint32_t *t = trex_grow(l->tracks, &l->tracks_cap, at + 1, sizeof(*t), 64);
	char text[32];

	if (!t) {
		l->oom = true;
		return TREX_NONE;
	}
	l->tracks = t;
	for (size_t i = old; i < l->tracks_cap; i++)
		t[i] = TREX_NONE;
	if (t[at] != TREX_NONE)
		return t[at];
	uint32_t pid = tl_intern(l, text, (size_t)snprintf(text, sizeof(text), "%" PRIu32, npu));
	uint32_t pname =
	    tl_intern(l, text, (size_t)snprintf(text, sizeof(text), "NPU %" PRIu32, npu));
	/* a thread of a device: a device queue, as the kernels and GPU-time views expect */
	t[at] = trex_builder_track(l->b, pid, l->cat[cls]);
	if (l->oom || t[at] == TREX_NONE || trex_builder_process_name(l->b, pid, pname) < 0 ||
	    trex_builder_process_rank(l->b, pid, npu) < 0 ||
	    trex_builder_process_device(l->b, pid, true) < 0 ||
	    trex_builder_process_sort_index(l->b, pid, npu) < 0 ||
	    trex_builder_thread_sort_index(l->b, t[at], cls) < 0) {
		l->oom = true;
		return TREX_NONE;
	}
	return t[at];
}

/* One node from its issue to end (ns), a slice on its track. */
static void tl_slice(struct tl_loader *l, const struct tl_pending *p, int64_t end)
{
	int64_t start = 0;
	uint32_t track = tl_track(l, p->npu, (enum tl_class)p->cls);

	tl_cycles_ns(l, p->tick, &start);
	struct trex_ev ev = {.ts = start,
	                     .dur = end - start,
	                     .name = p->name,
	                     .cat = l->cat[p->cls],
	                     .args = tl_ref(p->offset, p->line_len),
	                     .kind = tl_class_kinds[p->cls]};
	if (track == TREX_NONE)
		return;
	trex_builder_at(l->b, (int64_t)p->offset);
	if (trex_builder_complete(l->b, track, &ev) == TREX_HANDLE_NONE)
		l->oom = true;
	l->job->file->events++;
}

static void tl_issue(struct tl_loader *l, const struct text_line *line, const struct asl_record *r)
{
	struct tl_pending p = {.node_id = r->node_id,
	                       .tick = r->tick,
	                       .offset = line->offset,
	                       .npu = r->npu,
	                       .line_len = line->len < TREX_JSON_ARGS_LEN_MAX
	                                       ? (uint32_t)line->len
	                                       : TREX_JSON_ARGS_LEN_MAX - 1,
	                       .name = tl_intern(l, r->name, r->name_len),
	                       .cls = (uint8_t)class_of(r)};
	struct tl_pending *old = tl_find(&l->pending, r->npu, r->node_id);
	int64_t ns;

	if (old) {
		tl_note(l, TREX_INTEG_unmatched_begin, old->offset, 0,
		        "node %" PRIu64 " of NPU %" PRIu32 " issued again before its callback",
		        old->node_id, old->npu);
		if (tl_cycles_ns(l, r->tick, &ns))
			tl_slice(l, old, ns);
		tl_remove(&l->pending, old);
	}
	if (!tl_put(&l->pending, &p))
		l->oom = true;
}

static void tl_callback(struct tl_loader *l, const struct text_line *line,
                        const struct asl_record *r)
{
	struct tl_pending *p = tl_find(&l->pending, r->npu, r->node_id);
	int64_t end;

	if (!p) {
		tl_note(l, TREX_INTEG_unmatched_end, line->offset, 0,
		        "callback of node %" PRIu64 " of NPU %" PRIu32 " without its issue",
		        r->node_id, r->npu);
		return;
	}
	tl_cycles_ns(l, r->tick, &end);
	tl_slice(l, p, end);
	tl_remove(&l->pending, p);
}

static void tl_line(struct tl_loader *l, const struct text_line *line)
{
	struct asl_record r;
	const char *why = NULL;
	size_t col = 0;
	int64_t ns;

	if (!asl_parse_line(line->p, line->len, &r, &why, &col)) {
		tl_note(l, TREX_INTEG_syntax_errors, line->offset + col, line->len + line->newline,
		        "%s: the line is skipped", why);
		return;
	}
	if (r.kind == ASL_NONE) {
		l->types[TL_OTHER_LINES]++;
		return;
	}
	l->prefixed |= r.at > 0;
	if (r.npu >= TL_MAX_NPUS) {
		tl_note(l, TREX_INTEG_bad_ids, line->offset, 0,
		        "NPU %" PRIu32 " is beyond the %u NPUs trex shows (line dropped)", r.npu,
		        TL_MAX_NPUS);
		return;
	}
	if (!tl_cycles_ns(l, r.tick, &ns)) {
		tl_note(l, TREX_INTEG_ts_out_of_range, line->offset, 0,
		        "cycle %" PRIu64 " is beyond int64 ns (line dropped)", r.tick);
		return;
	}
	if (r.tick > l->last_tick)
		l->last_tick = r.tick;
	l->types[r.kind == ASL_ISSUE ? TL_ISSUE : TL_CALLBACK]++;
	if (r.kind == ASL_ISSUE)
		tl_issue(l, line, &r);
	else
		tl_callback(l, line, &r);
}

static int cmp_offset(const void *a, const void *b)
{
	const struct tl_pending *x = a, *y = b;
	return (x->offset > y->offset) - (x->offset < y->offset);
}

/* Issues the log never called back: kept, running to its last cycle. */
static void tl_unmatched(struct tl_loader *l)
{
	struct tl_pending *v = l->pending.v;
	size_t n = 0;
	int64_t end = 0;

	if (!l->pending.n)
		return;
	for (size_t i = 0; i < l->pending.cap; i++)
		if (v[i].used)
			v[n++] = v[i];
	qsort(v, n, sizeof(*v), cmp_offset);
	tl_cycles_ns(l, l->last_tick, &end);
	for (size_t i = 0; i < n && !l->oom; i++) {
		tl_note(l, TREX_INTEG_unmatched_begin, v[i].offset, 0,
		        "issue of node %" PRIu64 " of NPU %" PRIu32
		        " without its callback (kept to the end of the log)",
		        v[i].node_id, v[i].npu);
		tl_slice(l, &v[i], end);
	}
	l->pending.n = 0;
	memset(v, 0, l->pending.cap * sizeof(*v));
}

static void tl_fill_file(struct tl_loader *l, const struct text_lines *tl)
{
	struct trex_build_file *f = l->job->file;

	for (int i = 0; i < TL_TYPES; i++) {
		f->event_types[i].label = tl_type_labels[i][0];
		f->event_types[i].name = tl_type_labels[i][1];
		f->event_types[i].events = l->types[i];
	}
	f->event_type_count = TL_TYPES;
	f->bytes_decoded = text_lines_position(tl);
	f->dialect = l->prefixed ? "astra-sim log" : "visualizer csv";
	if (tl->corrupt.status != TREX_OK || tl->truncated) {
		f->truncated = true;
		if (f->first_problem.status == TREX_OK)
			f->first_problem = tl->corrupt;
	}
}

static enum trex_status tl_read(struct tl_loader *l, struct text_lines *tl, struct trex_error *err)
{
	struct text_line line;
	uint64_t n = 0, done = 0, disk = 0, events = 0;

	for (int c = 0; c < TL_CLASSES; c++)
		l->cat[c] = tl_intern(l, tl_class_labels[c], strlen(tl_class_labels[c]));
	while (!l->oom && text_lines_next(tl, &line, err)) {
		tl_line(l, &line);
		if (++n % TL_PROGRESS_LINES)
			continue;
		uint64_t at = text_lines_position(tl), at_disk = text_lines_disk_position(tl);
		if (trex_load_job_progress(l->job, at - done, at_disk - disk,
		                           l->job->file->events - events))
			return trex_error_set(err, TREX_CANCELLED, l->path, -1,
			                      "loading cancelled");
		done = at;
		disk = at_disk;
		events = l->job->file->events;
	}
	if (err->status != TREX_OK)
		return err->status;
	if (!l->oom)
		tl_unmatched(l);
	tl_fill_file(l, tl);
	if (l->oom)
		return trex_error_set(err, TREX_NOMEM, l->path, -1, "out of memory while loading");
	if (l->types[TL_ISSUE] + l->types[TL_CALLBACK] == 0 && l->job->file->events == 0)
		return trex_error_set(err, TREX_FORMAT, l->path, 0,
		                      "expected ASTRA-sim issue or callback lines (the simulator "
		                      "writes them with \"trace-enabled\": 1 in its system "
		                      "configuration), found none");
	return TREX_OK;
}

/* The NPU clock in kHz (exact for any frequency given to 6 decimals). */
static enum trex_status tl_clock(const struct trex_load_opts *o, uint64_t *khz,
                                 struct trex_error *err)
{
	double ghz = o ? o->npu_frequency_ghz : 0;

	if (ghz == 0) {
		*khz = 1000000;
		return TREX_OK;
	}
	if (!(ghz > 0) || ghz > 1e6 || llround(ghz * 1e6) < 1)
		return trex_error_set(err, TREX_USAGE, NULL, -1,
		                      "--npu-frequency: expected GHz between 0.000001 and 1000000, "
		                      "got %g",
		                      ghz);
	*khz = (uint64_t)llround(ghz * 1e6);
	return TREX_OK;
}

static enum trex_status tl_load(struct trex_load_job *job, struct trex_error *err)
{
	struct tl_loader l = {.job = job, .path = trex_source_path(job->source)};
	struct text_lines tl;

	job->file->format = "astrasim-timeline";
	enum trex_status s = tl_clock(job->opts, &l.khz, err);
	if (s != TREX_OK)
		return s;
	if (!(l.b = trex_builder_new(job->file_id)))
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	s = text_lines_open(&tl, job->source, job->opts ? job->opts->stream_window : 0, err);
	if (s == TREX_OK) {
		trex_error_clear(err);
		s = tl_read(&l, &tl, err);
		if (s == TREX_OK)
			trex_load_job_progress(job, 0, 0, 0);
		text_lines_close(&tl);
	}
	free(l.pending.v);
	free(l.tracks);
	if (s == TREX_OK)
		return trex_load_job_add_part(job, 0, l.b, err);
	trex_builder_free(l.b);
	return s;
}

/* A line that starts with an issue or callback column, or with the
 * simulator's log prefix: "[2026-01-02 03:04:05.678] [" or "[2026-01-02T03:04:05". */
static int tl_sniff(const unsigned char *head, size_t len)
{
	static const char digits[] = "0000-00-00?00:00:00";
	const char *p = (const char *)head;
	size_t i = 0;

	if ((len >= 6 && memcmp(p, "issue,", 6) == 0) ||
	    (len >= 9 && memcmp(p, "callback,", 9) == 0))
		return 60;
	if (len < 1 + sizeof(digits) || p[0] != '[')
		return 0;
	for (i = 0; i + 1 < sizeof(digits); i++) {
		char c = p[1 + i], want = digits[i];
		bool fits = want == '0'   ? c >= '0' && c <= '9'
		            : want == '?' ? c == ' ' || c == 'T'
		                          : c == want;
		if (!fits)
			return 0;
	}
	return 70; /* above a JSON array's 60: "[2026-" is no JSON */
}

const struct trex_format trex_format_astrasim_timeline = {
    .name = "astrasim-timeline",
    .sniff = tl_sniff,
    .load = tl_load,
    .codec = &tl_codec,
};
