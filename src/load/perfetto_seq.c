/* Perfetto decoder: the per-sequence state (interning tables, packet
 * defaults, clocks) and the small containers it is built from. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfetto_internal.h"
#include "trex/core/grow.h"

/* ---- uint64 -> uint32 map ------------------------------------------------------------ */

static size_t map_slot(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

static bool map_grow(struct pf_map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 16;
	uint64_t *keys = malloc(cap * sizeof(*keys));
	uint32_t *vals = malloc(cap * sizeof(*vals));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return false;
	}
	memset(vals, 0xff, cap * sizeof(*vals));
	for (size_t i = 0; i < m->cap; i++) {
		if (m->vals[i] == PF_MAP_EMPTY)
			continue;
		size_t j = map_slot(m->keys[i], cap);
		while (vals[j] != PF_MAP_EMPTY)
			j = (j + 1) & (cap - 1);
		keys[j] = m->keys[i];
		vals[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return true;
}

bool pf_map_put(struct pf_map *m, uint64_t key, uint32_t val)
{
	if ((m->n + 1) * 4 > m->cap * 3 && !map_grow(m))
		return false;
	size_t i = map_slot(key, m->cap);
	while (m->vals[i] != PF_MAP_EMPTY && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	if (m->vals[i] == PF_MAP_EMPTY)
		m->n++;
	m->keys[i] = key;
	m->vals[i] = val;
	return true;
}

uint32_t pf_map_get(const struct pf_map *m, uint64_t key)
{
	if (!m->cap)
		return PF_MAP_EMPTY;
	size_t i = map_slot(key, m->cap);
	while (m->vals[i] != PF_MAP_EMPTY) {
		if (m->keys[i] == key)
			return m->vals[i];
		i = (i + 1) & (m->cap - 1);
	}
	return PF_MAP_EMPTY;
}

void pf_map_clear(struct pf_map *m)
{
	if (m->cap)
		memset(m->vals, 0xff, m->cap * sizeof(*m->vals));
	m->n = 0;
}

void pf_map_free(struct pf_map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* ---- text ------------------------------------------------------------------------ */

/* Room for more bytes and a NUL. */
bool pf_text_reserve(struct pf_text *t, size_t more)
{
	if (more >= SIZE_MAX - t->len)
		return false;
	char *buf = trex_grow(t->buf, &t->cap, t->len + more + 1, 1, 256);
	if (buf)
		t->buf = buf;
	return buf != NULL;
}

/* Always leaves a NUL after the text (not counted in len). */
bool pf_text_append(struct pf_text *t, const char *s, size_t n)
{
	if (!pf_text_reserve(t, n))
		return false;
	if (n)
		memcpy(t->buf + t->len, s, n);
	t->len += n;
	t->buf[t->len] = '\0';
	return true;
}

bool pf_text_printf(struct pf_text *t, const char *fmt, ...)
{
	char small[64];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return false;
	if ((size_t)n < sizeof(small))
		return pf_text_append(t, small, (size_t)n);
	if (!pf_text_reserve(t, (size_t)n))
		return false;
	va_start(ap, fmt);
	vsnprintf(t->buf + t->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	t->len += (size_t)n;
	return true;
}

void pf_text_free(struct pf_text *t)
{
	free(t->buf);
	memset(t, 0, sizeof(*t));
}

/* ---- interning dictionaries -------------------------------------------------------- */

bool pf_dict_put(struct pf_dict *d, uint64_t iid, const char *s, size_t n)
{
	size_t off = d->pool.len;

	if (off >= PF_MAP_EMPTY || !pf_text_append(&d->pool, s, n))
		return false;
	d->pool.len++; /* keep the NUL: the next entry starts after it */
	return pf_map_put(&d->index, iid, (uint32_t)off);
}

const char *pf_dict_get(const struct pf_dict *d, uint64_t iid)
{
	uint32_t off = pf_map_get(&d->index, iid);
	return off == PF_MAP_EMPTY ? NULL : d->pool.buf + off;
}

void pf_dict_clear(struct pf_dict *d)
{
	pf_map_clear(&d->index);
	d->pool.len = 0;
}

void pf_dict_free(struct pf_dict *d)
{
	pf_map_free(&d->index);
	pf_text_free(&d->pool);
}

/* ---- sequences --------------------------------------------------------------------- */

struct pf_seq *pf_seq_get(struct pf_decoder *d, uint32_t id)
{
	uint32_t i = pf_map_get(&d->seq_index, id);
	if (i != PF_MAP_EMPTY)
		return &d->seqs[i];
	struct pf_seq *seqs = trex_grow(d->seqs, &d->cap_seqs, d->n_seqs + 1, sizeof(*seqs), 8);
	if (!seqs)
		return NULL;
	d->seqs = seqs;
	if (!pf_map_put(&d->seq_index, id, (uint32_t)d->n_seqs))
		return NULL;
	struct pf_seq *s = &d->seqs[d->n_seqs++];
	memset(s, 0, sizeof(*s));
	s->id = id;
	return s;
}

void pf_seq_clear(struct pf_seq *s)
{
	pf_dict_clear(&s->names);
	pf_dict_clear(&s->categories);
	pf_dict_clear(&s->annotation_names);
	pf_dict_clear(&s->annotation_strings);
	s->has_clock_default = false;
	s->has_track_default = false;
	s->n_extra_counter_uuids = 0;
	s->n_extra_double_counter_uuids = 0;
}

/* EventName, EventCategory and DebugAnnotationName share one layout in
 * the generated code but are distinct types: each is read by its fields. */
#define PF_INTERN_NAMES(dict, entries, count)                                                      \
	for (size_t k = 0; k < (count); k++) {                                                     \
		const char *str = (entries)[k]->name ? (entries)[k]->name : "";                    \
		if (!pf_dict_put((dict), (entries)[k]->iid, str, strlen(str)))                     \
			return -1;                                                                 \
		added++;                                                                           \
	}

int64_t pf_seq_intern(struct pf_seq *s, const Perfetto__Protos__InternedData *in)
{
	int64_t added = 0;

	PF_INTERN_NAMES(&s->names, in->event_names, in->n_event_names);
	PF_INTERN_NAMES(&s->categories, in->event_categories, in->n_event_categories);
	PF_INTERN_NAMES(&s->annotation_names, in->debug_annotation_names,
	                in->n_debug_annotation_names);
	for (size_t k = 0; k < in->n_debug_annotation_string_values; k++) {
		const Perfetto__Protos__InternedString *e = in->debug_annotation_string_values[k];
		/* bytes: a NUL inside ends the text, as any C string would */
		size_t n = e->has_str ? strnlen((const char *)e->str.data, e->str.len) : 0;
		if (!pf_dict_put(&s->annotation_strings, e->iid, (const char *)e->str.data, n))
			return -1;
		added++;
	}
	return added;
}

static bool copy_uuids(uint64_t **dst, size_t *n_dst, const uint64_t *src, size_t n)
{
	uint64_t *v = NULL;

	if (n) {
		v = realloc(*dst, n * sizeof(*v));
		if (!v)
			return false;
		memcpy(v, src, n * sizeof(*v));
		*dst = v;
	}
	*n_dst = n;
	return true;
}

bool pf_seq_set_defaults(struct pf_seq *s, const Perfetto__Protos__TracePacketDefaults *def)
{
	const Perfetto__Protos__TrackEventDefaults *te = def->track_event_defaults;

	s->has_clock_default = def->has_timestamp_clock_id;
	s->clock_default = def->timestamp_clock_id;
	s->has_track_default = te && te->has_track_uuid;
	s->track_default = te ? te->track_uuid : 0;
	return copy_uuids(&s->extra_counter_uuids, &s->n_extra_counter_uuids,
	                  te ? te->extra_counter_track_uuids : NULL,
	                  te ? te->n_extra_counter_track_uuids : 0) &&
	       copy_uuids(&s->extra_double_counter_uuids, &s->n_extra_double_counter_uuids,
	                  te ? te->extra_double_counter_track_uuids : NULL,
	                  te ? te->n_extra_double_counter_track_uuids : 0);
}

void pf_seqs_free(struct pf_decoder *d)
{
	for (size_t i = 0; i < d->n_seqs; i++) {
		struct pf_seq *s = &d->seqs[i];
		pf_dict_free(&s->names);
		pf_dict_free(&s->categories);
		pf_dict_free(&s->annotation_names);
		pf_dict_free(&s->annotation_strings);
		free(s->extra_counter_uuids);
		free(s->extra_double_counter_uuids);
	}
	free(d->seqs);
	pf_map_free(&d->seq_index);
	d->seqs = NULL;
	d->n_seqs = d->cap_seqs = 0;
}

/* ---- clocks -------------------------------------------------------------------------- */

static bool clock_is_sequence_scoped(uint32_t id)
{
	return id >= PF_CLOCK_SEQ_FIRST && id <= PF_CLOCK_SEQ_LAST;
}

static struct pf_seq_clock *seq_clock(struct pf_seq *s, uint32_t id)
{
	for (size_t i = 0; i < s->n_clocks; i++)
		if (s->clocks[i].id == id)
			return &s->clocks[i];
	return NULL;
}

static void snapshot_add(struct pf_snapshot *snap, uint32_t id, int64_t ns)
{
	if (snap->n < PF_SNAPSHOT_CLOCKS) {
		snap->id[snap->n] = id;
		snap->ns[snap->n++] = ns;
	}
}

static bool snapshot_find(const struct pf_snapshot *snap, uint32_t id, int64_t *ns)
{
	for (size_t i = 0; i < snap->n; i++)
		if (snap->id[i] == id) {
			*ns = snap->ns[i];
			return true;
		}
	return false;
}

/* A snapshot's clocks in ns; sequence-scoped and incremental ones also
 * become the sequence's clocks (an incremental clock restarts from the
 * snapshot's value). Global clocks replace the trace's global snapshot. */
void pf_clock_snapshot(struct pf_decoder *d, struct pf_seq *s,
                       const Perfetto__Protos__ClockSnapshot *snap)
{
	struct pf_snapshot global = {0}, mine = {0};

	d->stats->clock_snapshots++;
	if (snap->has_primary_trace_clock && snap->primary_trace_clock != 0)
		d->stats->trace_clock = (uint32_t)snap->primary_trace_clock;
	for (size_t i = 0; i < snap->n_clocks; i++) {
		const Perfetto__Protos__ClockSnapshot__Clock *c = snap->clocks[i];
		uint64_t unit =
		    c->has_unit_multiplier_ns && c->unit_multiplier_ns ? c->unit_multiplier_ns : 1;
		int64_t ns = (int64_t)(c->timestamp * unit);
		snapshot_add(&mine, c->clock_id, ns);
		if (!clock_is_sequence_scoped(c->clock_id))
			snapshot_add(&global, c->clock_id, ns);
		if (!clock_is_sequence_scoped(c->clock_id) && !c->is_incremental && unit == 1)
			continue;
		struct pf_seq_clock *sc = seq_clock(s, c->clock_id);
		if (!sc && s->n_clocks < PF_SNAPSHOT_CLOCKS)
			sc = &s->clocks[s->n_clocks++];
		if (sc)
			*sc = (struct pf_seq_clock){c->clock_id, c->is_incremental, unit,
			                            c->timestamp};
	}
	s->has_snapshot = true;
	s->snapshot = mine;
	if (global.n >= 2) {
		d->has_global_snapshot = true;
		d->global_snapshot = global;
	}
}

/* ns on clock `from` to clock `to` through one snapshot that has both. */
static bool snapshot_convert(const struct pf_snapshot *snap, uint32_t from, uint32_t to, int64_t ns,
                             int64_t *out)
{
	int64_t at_from, at_to;

	if (!snapshot_find(snap, from, &at_from) || !snapshot_find(snap, to, &at_to))
		return false;
	*out = at_to + (ns - at_from);
	return true;
}

/* Through the sequence's snapshot to some clock the global one knows. */
static bool convert_via(struct pf_decoder *d, struct pf_seq *s, uint32_t from, int64_t ns,
                        int64_t *out)
{
	uint32_t trace = d->stats->trace_clock;

	if (s->has_snapshot && snapshot_convert(&s->snapshot, from, trace, ns, out))
		return true;
	if (d->has_global_snapshot && snapshot_convert(&d->global_snapshot, from, trace, ns, out))
		return true;
	if (!s->has_snapshot || !d->has_global_snapshot)
		return false;
	for (size_t i = 0; i < s->snapshot.n; i++) {
		int64_t mid;
		uint32_t via = s->snapshot.id[i];
		if (via != from && snapshot_convert(&s->snapshot, from, via, ns, &mid) &&
		    snapshot_convert(&d->global_snapshot, via, trace, mid, out))
			return true;
	}
	return false;
}

int64_t pf_clock_to_trace(struct pf_decoder *d, struct pf_seq *s, uint32_t clock_id, uint64_t ts,
                          bool *converted)
{
	struct pf_seq_clock *sc = seq_clock(s, clock_id);
	int64_t ns = (int64_t)ts, out;

	if (sc) {
		if (sc->incremental) {
			sc->value += ts;
			ts = sc->value;
		}
		ns = (int64_t)(ts * sc->unit_ns);
	}
	*converted = true;
	if (clock_id == d->stats->trace_clock)
		return ns;
	if (convert_via(d, s, clock_id, ns, &out))
		return out;
	*converted = false;
	return ns;
}
