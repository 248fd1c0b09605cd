/* Index files composed from other indexes (index_file.h,
 * trex_index_file_compose): the index file a load of several traces
 * together would write, made from the indexes of each trace alone.
 *
 * A load numbers files by rank, tracks file by file and slices track by
 * track, so everything of one trace is one contiguous run of each array
 * in a load of the set. Composing is therefore concatenation, section by
 * section, with every id a record holds moved by the counts of the parts
 * before it and every string id mapped into one table of all the parts'
 * strings. Only that table and the maps are held in memory: records are
 * streamed through the writer record by record, so a set of any size is
 * composed in a few megabytes besides its page cache. */
#include "config.h"

#include "trex/core/index_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index_file_internal.h"
#include "index_internal.h"
#include "members.h"

/* Where a part's records start in the composed arrays. */
struct bases {
	uint32_t file, proc, track, lane, slice, instant, sample, flow, edge;
	uint64_t launch, op, problems;
};

struct compose {
	const struct trex_index *const *parts;
	size_t n;
	const int64_t *ranks; /* per composed file, NULL: as the parts have them */
	struct trex_strtab *strs;
	uint32_t **smap;    /* per part: its string id -> the composed one */
	struct bases *base; /* per part, and base[n]: the totals */
	struct writer *w;
	const void *identity;
	size_t identity_len;
};

/* ---- ids ------------------------------------------------------------------------------------ */

static inline uint32_t str_of(const struct compose *c, size_t p, uint32_t id)
{
	return c->smap[p][id];
}

static inline uint32_t str_or_none(const struct compose *c, size_t p, uint32_t id)
{
	return id == TREX_NONE ? id : c->smap[p][id];
}

static inline uint32_t moved(uint32_t id, uint32_t by)
{
	return id == TREX_NONE ? id : id + by;
}

/* The first of count records: a build leaves it 0 for an empty range of
 * instants, samples or tracks (lanes and slices keep their running
 * position), so an empty range is not moved. */
static inline uint32_t first_moved(uint32_t first, uint32_t count, uint32_t by)
{
	return count ? first + by : first;
}

static size_t launch_count(const struct trex_index *idx)
{
	size_t n = 0;

	for (uint32_t i = 0; i < idx->nfiles; i++)
		n += idx->links[i].launch_count;
	return n;
}

static size_t op_count(const struct trex_index *idx)
{
	size_t n = 0;

	for (uint32_t i = 0; i < idx->nfiles; i++)
		n += idx->links[i].op_count;
	return n;
}

/* Every count of the composed index must stay below TREX_NONE. */
static bool add_bases(struct bases *next, const struct bases *b, const struct trex_index *idx)
{
	uint64_t v[] = {
	    (uint64_t)b->file + idx->nfiles,     (uint64_t)b->proc + idx->nprocs,
	    (uint64_t)b->track + idx->ntracks,   (uint64_t)b->lane + idx->nlanes,
	    b->slice + idx->slices.count,        b->instant + idx->instants.count,
	    (uint64_t)b->sample + idx->nsamples, b->flow + idx->flows.count,
	    (uint64_t)b->edge + idx->nedges,
	};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (v[i] >= TREX_NONE)
			return false;
	*next = (struct bases){(uint32_t)v[0],        (uint32_t)v[1],
	                       (uint32_t)v[2],        (uint32_t)v[3],
	                       (uint32_t)v[4],        (uint32_t)v[5],
	                       (uint32_t)v[6],        (uint32_t)v[7],
	                       (uint32_t)v[8],        b->launch + launch_count(idx),
	                       b->op + op_count(idx), b->problems};
	for (uint32_t i = 0; i < idx->nfiles; i++)
		next->problems += idx->problems[i].n;
	return true;
}

/* The composed string table and each part's map into it. */
static enum trex_status map_strings(struct compose *c, struct trex_error *err)
{
	if (!(c->strs = trex_strtab_new()))
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	for (size_t p = 0; p < c->n; p++) {
		const struct trex_strtab *from = c->parts[p]->strs;
		uint32_t count = trex_strtab_count(from);

		if (!(c->smap[p] = malloc((count ? count : 1) * sizeof(uint32_t))))
			return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
		for (uint32_t id = 0; id < count; id++) {
			size_t len;
			const char *s = trex_strtab_get(from, id, &len);

			/* stored strings hold no NUL (C0 80 instead), which intern keeps */
			c->smap[p][id] = trex_strtab_intern(c->strs, s, len);
			if (c->smap[p][id] == TREX_STR_ERROR)
				return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
		}
	}
	return TREX_OK;
}

/* ---- small per-file records ----------------------------------------------------------------- */

static int64_t rank_of(const struct compose *c, uint32_t file, int64_t was)
{
	return c->ranks ? c->ranks[file] : was;
}

static void w_files(struct compose *c, struct section *s)
{
	trex_ixw_begin(c->w, s);
	for (size_t p = 0; p < c->n; p++) {
		const struct trex_index *idx = c->parts[p];

		for (uint32_t i = 0; i < idx->nfiles; i++) {
			struct trex_file f = idx->files[i];

			f.codec = NULL;
			f.codec_ctx = NULL;
			f.path = str_of(c, p, f.path);
			f.format = str_of(c, p, f.format);
			f.dialect = str_of(c, p, f.dialect);
			f.rank = rank_of(c, c->base[p].file + i, f.rank);
			for (uint32_t k = 0; k < f.event_type_count && k < TREX_EVENT_TYPES_MAX;
			     k++) {
				f.event_types[k].label = str_of(c, p, f.event_types[k].label);
				f.event_types[k].name = str_of(c, p, f.event_types[k].name);
			}
			trex_ixw_put_record(c->w, &f, sizeof(f));
		}
	}
	trex_ixw_end(c->w);
}

static void w_links(struct compose *c, struct section *s)
{
	trex_ixw_begin(c->w, s);
	for (size_t p = 0; p < c->n; p++) {
		const struct bases *b = &c->base[p];

		for (uint32_t i = 0; i < c->parts[p]->nfiles; i++) {
			struct trex_file_links l = c->parts[p]->links[i];

			l.first_slice = first_moved(l.first_slice, l.track_count, b->slice);
			l.first_track = first_moved(l.first_track, l.track_count, b->track);
			l.launch_first += b->launch;
			l.op_first += b->op;
			trex_ixw_put_record(c->w, &l, sizeof(l));
		}
	}
	trex_ixw_end(c->w);
}

/* A process without a rank of its own takes its file's, which the set
 * may have renumbered. */
static void w_procs(struct compose *c, struct section *s)
{
	trex_ixw_begin(c->w, s);
	for (size_t p = 0; p < c->n; p++) {
		const struct bases *b = &c->base[p];

		for (uint32_t i = 0; i < c->parts[p]->nprocs; i++) {
			struct trex_process r = c->parts[p]->procs[i];

			r.file += b->file;
			r.pid = str_of(c, p, r.pid);
			r.name = str_of(c, p, r.name);
			r.labels = str_of(c, p, r.labels);
			r.first_track = first_moved(r.first_track, r.track_count, b->track);
			if (!r.has_rank)
				r.rank = rank_of(c, r.file, r.rank);
			trex_ixw_put_record(c->w, &r, sizeof(r));
		}
	}
	trex_ixw_end(c->w);
}

static void w_tracks(struct compose *c, struct section *s)
{
	trex_ixw_begin(c->w, s);
	for (size_t p = 0; p < c->n; p++) {
		const struct bases *b = &c->base[p];

		for (uint32_t i = 0; i < c->parts[p]->ntracks; i++) {
			struct trex_track t = c->parts[p]->tracks[i];

			t.process += b->proc;
			t.tid = str_of(c, p, t.tid);
			t.name = str_of(c, p, t.name);
			t.first_lane += b->lane;
			t.first_slice += b->slice;
			t.first_instant = first_moved(t.first_instant, t.instant_count, b->instant);
			t.first_sample = first_moved(t.first_sample, t.sample_count, b->sample);
			t.parent = moved(t.parent, b->track);
			trex_ixw_put_record(c->w, &t, sizeof(t));
		}
	}
	trex_ixw_end(c->w);
}

static void w_lanes(struct compose *c, struct section *s)
{
	trex_ixw_begin(c->w, s);
	for (size_t p = 0; p < c->n; p++) {
		for (uint32_t i = 0; i < c->parts[p]->nlanes; i++) {
			struct trex_lane l = c->parts[p]->lanes[i];

			l.track += c->base[p].track;
			l.first += c->base[p].slice;
			trex_ixw_put_record(c->w, &l, sizeof(l));
		}
	}
	trex_ixw_end(c->w);
}

/* ---- events --------------------------------------------------------------------------------- */

static void w_slices(struct compose *c, struct section *s)
{
	trex_ixw_begin(c->w, s);
	for (size_t p = 0; p < c->n; p++) {
		const struct trex_index *idx = c->parts[p];

		for (uint32_t i = 0; i < idx->slices.count; i++) {
			struct trex_slice o = *trex_idx_slice(idx, i);

			o.name = str_of(c, p, o.name);
			o.cat = str_of(c, p, o.cat);
			o.track += c->base[p].track;
			trex_ixw_put_record(c->w, &o, sizeof(o));
		}
	}
	trex_ixw_end(c->w);
}

static void w_instants(struct compose *c, struct section *s)
{
	trex_ixw_begin(c->w, s);
	for (size_t p = 0; p < c->n; p++) {
		const struct trex_index *idx = c->parts[p];

		for (uint32_t i = 0; i < idx->instants.count; i++) {
			struct trex_instant o =
			    *TREX_VEC_AT(&idx->instants, const struct trex_instant, i);

			o.name = str_of(c, p, o.name);
			o.cat = str_of(c, p, o.cat);
			o.track += c->base[p].track;
			trex_ixw_put_record(c->w, &o, sizeof(o));
		}
	}
	trex_ixw_end(c->w);
}

static void w_flows(struct compose *c, struct section *s)
{
	trex_ixw_begin(c->w, s);
	for (size_t p = 0; p < c->n; p++) {
		const struct bases *b = &c->base[p];

		for (uint32_t i = 0; i < c->parts[p]->flows.count; i++) {
			struct trex_flow f = *trex_idx_flow(c->parts[p], i);

			f.from_slice = moved(f.from_slice, b->slice);
			f.to_slice = moved(f.to_slice, b->slice);
			f.from_track = moved(f.from_track, b->track);
			f.to_track = moved(f.to_track, b->track);
			f.cat = str_of(c, p, f.cat);
			f.name = str_of(c, p, f.name);
			trex_ixw_put_record(c->w, &f, sizeof(f));
		}
	}
	trex_ixw_end(c->w);
}

static void w_samples(struct compose *c, struct section *s)
{
	trex_ixw_begin(c->w, s);
	for (size_t p = 0; p < c->n; p++)
		trex_ixw_put(c->w, c->parts[p]->samples,
		             c->parts[p]->nsamples * sizeof(*c->parts[p]->samples));
	trex_ixw_end(c->w);
}

/* The id arrays concatenated with each id moved past the parts before. */
enum id_array { IDS_LAUNCH, IDS_OP, IDS_EDGES_IN };

static const uint32_t *ids_of(const struct compose *c, size_t p, enum id_array which, size_t *count,
                              uint32_t *add)
{
	const struct trex_index *idx = c->parts[p];

	*add = which == IDS_EDGES_IN ? c->base[p].edge : c->base[p].slice;
	*count = which == IDS_LAUNCH ? launch_count(idx)
	         : which == IDS_OP   ? op_count(idx)
	                             : idx->nedges;
	return which == IDS_LAUNCH ? idx->launch_ids
	       : which == IDS_OP   ? idx->op_ids
	                           : idx->edges_in;
}

static void w_ids(struct compose *c, struct section *s, enum id_array which)
{
	trex_ixw_begin(c->w, s);
	for (size_t p = 0; p < c->n; p++) {
		size_t count;
		uint32_t add;
		const uint32_t *ids = ids_of(c, p, which, &count, &add);

		for (size_t i = 0; i < count; i++) {
			uint32_t id = ids[i] + add;

			trex_ixw_put_record(c->w, &id, sizeof(id));
		}
	}
	trex_ixw_end(c->w);
}

/* Flow ids by (from_slice, id) (by (to_slice, id) when entering): a
 * flow whose point lies on no slice (TREX_NONE) sorts after every
 * slice, so each part's such flows follow all the parts' others. */
static void w_flow_order(struct compose *c, struct section *s, bool entering)
{
	trex_ixw_begin(c->w, s);
	for (int unbound = 0; unbound < 2; unbound++)
		for (size_t p = 0; p < c->n; p++) {
			const struct trex_index *idx = c->parts[p];
			const uint32_t *ids = entering ? idx->flows_in : idx->flows_out;

			for (uint32_t i = 0; i < idx->flows.count; i++) {
				const struct trex_flow *f = trex_idx_flow(idx, ids[i]);
				uint32_t at = entering ? f->to_slice : f->from_slice;
				uint32_t id = ids[i] + c->base[p].flow;

				if ((at == TREX_NONE) == (unbound != 0))
					trex_ixw_put_record(c->w, &id, sizeof(id));
			}
		}
	trex_ixw_end(c->w);
}

static void w_edges(struct compose *c, struct section *s)
{
	trex_ixw_begin(c->w, s);
	for (size_t p = 0; p < c->n; p++)
		for (uint32_t i = 0; i < c->parts[p]->nedges; i++) {
			struct trex_edge e = c->parts[p]->edges[i];

			e.from += c->base[p].slice;
			e.to += c->base[p].slice;
			trex_ixw_put_record(c->w, &e, sizeof(e));
		}
	trex_ixw_end(c->w);
}

static void w_launch_keys(struct compose *c, struct section *s)
{
	trex_ixw_begin(c->w, s);
	for (size_t p = 0; p < c->n; p++)
		trex_ixw_put(c->w, c->parts[p]->launch_keys,
		             launch_count(c->parts[p]) * sizeof(uint64_t));
	trex_ixw_end(c->w);
}

/* Flow ids: none written when no part kept any; a part without them
 * reads as having none (kind NONE) beside the others'. */
static void w_flow_ids(struct compose *c, struct section *val, struct section *how)
{
	bool any = false;

	for (size_t p = 0; p < c->n; p++)
		any |= c->parts[p]->flow_id_how != NULL && c->parts[p]->flows.count;
	trex_ixw_begin(c->w, val);
	for (size_t p = 0; any && p < c->n; p++)
		for (uint32_t i = 0; i < c->parts[p]->flows.count; i++) {
			const struct trex_index *idx = c->parts[p];
			uint64_t v = idx->flow_id_how ? idx->flow_id_val[i] : 0;

			if (idx->flow_id_how &&
			    (idx->flow_id_how[i] & FLOW_ID_KIND_MASK) == TREX_FLOW_ID_STR)
				v = str_of(c, p, (uint32_t)v);
			trex_ixw_put_record(c->w, &v, sizeof(v));
		}
	trex_ixw_end(c->w);
	trex_ixw_begin(c->w, how);
	for (size_t p = 0; any && p < c->n; p++)
		for (uint32_t i = 0; i < c->parts[p]->flows.count; i++) {
			uint8_t h = c->parts[p]->flow_id_how ? c->parts[p]->flow_id_how[i] : 0;

			trex_ixw_put_record(c->w, &h, 1);
		}
	trex_ixw_end(c->w);
}

/* ---- side tables: bit sets concatenated at any slice offset -------------------------------- */

/* Appends the bits of the composed table word by word: a part's bits
 * start at its slice base, which need not be a multiple of 64. */
struct bit_out {
	struct compose *c;
	uint64_t word;  /* bits of the composed word being filled */
	unsigned fill;  /* how many of them */
	uint32_t count; /* values before the word being filled */
	bool counts;    /* write the counts before each word instead of the words */
};

static void bit_word_done(struct bit_out *o)
{
	if (o->counts)
		trex_ixw_put_record(o->c->w, &o->count, sizeof(o->count));
	else
		trex_ixw_put_record(o->c->w, &o->word, sizeof(o->word));
	o->count += trex_popcount64(o->word);
	o->word = 0;
	o->fill = 0;
}

/* Appends nbits (<= 64) bits, the low ones of v. */
static void bit_put(struct bit_out *o, uint64_t v, unsigned nbits)
{
	unsigned room = 64 - o->fill, now = nbits < room ? nbits : room;

	if (now)
		o->word |= (now == 64 ? v : v & ((UINT64_C(1) << now) - 1)) << o->fill;
	o->fill += now;
	if (o->fill == 64)
		bit_word_done(o);
	if (now < nbits) {
		o->word = v >> now;
		o->fill = nbits - now;
	}
}

static void side_bits(struct compose *c, enum trex_side_field field, bool counts)
{
	struct bit_out o = {.c = c, .counts = counts};

	for (size_t p = 0; p < c->n; p++) {
		const struct trex_side_table *t = &c->parts[p]->side[field];
		size_t nslices = c->parts[p]->slices.count;

		for (size_t at = 0; at < nslices; at += 64) {
			unsigned nbits = nslices - at < 64 ? (unsigned)(nslices - at) : 64;

			bit_put(&o, t->words ? t->bits[at / 64] : 0, nbits);
		}
	}
	if (o.fill)
		bit_word_done(&o);
}

static void w_side(struct compose *c, struct section *s, enum trex_side_field field)
{
	bool any = false;

	for (size_t p = 0; p < c->n; p++)
		any |= c->parts[p]->side[field].n != 0;
	trex_ixw_begin(c->w, s);
	if (any) {
		side_bits(c, field, false);
		side_bits(c, field, true);
		for (size_t p = 0; p < c->n; p++) {
			const struct trex_side_table *t = &c->parts[p]->side[field];

			for (size_t i = 0; i < t->n; i++) {
				uint32_t v = field == TREX_SIDE_SHAPE ? str_of(c, p, t->values[i])
				                                      : t->values[i];

				trex_ixw_put_record(c->w, &v, sizeof(v));
			}
		}
	}
	trex_ixw_end(c->w);
}

/* ---- integrity examples, members, codecs ----------------------------------------------------- */

static struct trex_problem problem_moved(const struct compose *c, size_t p,
                                         const struct trex_problem *in)
{
	struct trex_problem q = *in;

	q.track = moved(q.track, c->base[p].track);
	q.slice = moved(q.slice, c->base[p].slice);
	q.name = str_or_none(c, p, q.name);
	return q;
}

static void w_problems(struct compose *c, struct section *sec)
{
	trex_ixw_begin(c->w, &sec[SEC_PROBLEM_HEADS]);
	for (size_t p = 0; p < c->n; p++)
		for (uint32_t i = 0; i < c->parts[p]->nfiles; i++) {
			struct trex_problem_list l = c->parts[p]->problems[i];

			l.v = NULL;
			l.cap = 0;
			if (l.has_largest)
				l.largest = problem_moved(c, p, &l.largest);
			trex_ixw_put_record(c->w, &l, sizeof(l));
		}
	trex_ixw_end(c->w);
	trex_ixw_begin(c->w, &sec[SEC_PROBLEMS]);
	for (size_t p = 0; p < c->n; p++)
		for (uint32_t i = 0; i < c->parts[p]->nfiles; i++)
			for (uint32_t k = 0; k < c->parts[p]->problems[i].n; k++) {
				struct trex_problem q =
				    problem_moved(c, p, &c->parts[p]->problems[i].v[k]);

				trex_ixw_put_record(c->w, &q, sizeof(q));
			}
	trex_ixw_end(c->w);
}

static void w_members(struct compose *c, struct section *s)
{
	trex_ixw_begin(c->w, s);
	for (size_t p = 0; p < c->n; p++)
		trex_ixw_members_of(c->w, c->parts[p]);
	trex_ixw_end(c->w);
}

/* A part opened from an index file keeps its codecs' bytes as saved
 * there: they are copied as they are, so a part need not reopen its
 * codecs (nor hold its trace open) to be composed. NULL for a part that
 * was built, or a file that saved none. */
static const struct codec_entry *saved_codec(const struct trex_index *idx, uint32_t file)
{
	const struct trex_index_file *f = idx->mapped;
	const struct codec_entry *e;

	if (!f || f->sec[SEC_CODECS].length < ((uint64_t)file + 1) * sizeof(*e))
		return NULL;
	e = (const struct codec_entry *)(f->data + f->sec[SEC_CODECS].offset) + file;
	return e->name[0] ? e : NULL;
}

/* The bytes e names (range checked when the part was opened). */
static const void *codec_bytes(const struct trex_index *idx, const struct codec_entry *e)
{
	return idx->mapped->data + idx->mapped->sec[SEC_CODEC_DATA].offset + e->offset;
}

static enum trex_status w_codecs(struct compose *c, struct section *sec, struct trex_error *err)
{
	uint32_t nfiles = c->base[c->n].file;
	struct codec_entry *e = calloc(nfiles ? nfiles : 1, sizeof(*e));
	enum trex_status st = e ? TREX_OK : TREX_NOMEM;
	struct writer *w = c->w;

	trex_ixw_begin(w, &sec[SEC_CODEC_DATA]);
	for (size_t p = 0; st == TREX_OK && p < c->n; p++)
		for (uint32_t i = 0; st == TREX_OK && i < c->parts[p]->nfiles; i++) {
			const struct trex_file *f = &c->parts[p]->files[i];
			struct codec_entry *to = &e[c->base[p].file + i];

			const struct codec_entry *raw = saved_codec(c->parts[p], i);

			if (!raw && (!f->codec || !f->codec_ctx))
				continue;
			trex_ixw_pad(w, 8);
			to->offset = w->pos + w->used - sec[SEC_CODEC_DATA].offset;
			if (raw) {
				memcpy(to->name, raw->name, sizeof(to->name));
				trex_ixw_put(w, codec_bytes(c->parts[p], raw), (size_t)raw->length);
			} else {
				snprintf(to->name, sizeof(to->name), "%s", f->codec->name);
				st = f->codec->save(f->codec_ctx, trex_ixw_put, w, err);
			}
			to->length = w->pos + w->used - sec[SEC_CODEC_DATA].offset - to->offset;
		}
	trex_ixw_end(w);
	if (st == TREX_OK)
		trex_ixw_section(w, &sec[SEC_CODECS], e, nfiles * sizeof(*e));
	free(e);
	if (st == TREX_NOMEM && err->status == TREX_OK)
		trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	return st;
}

/* ---- the file ------------------------------------------------------------------------------- */

static void w_strings(struct compose *c, struct file_header *head, struct section *sec)
{
	struct trex_strtab_raw raw;

	trex_strtab_raw(c->strs, &raw);
	head->str_count = raw.count;
	head->str_slots = raw.nslots;
	head->str_arena = raw.arena_len;
	trex_ixw_section(c->w, &sec[SEC_STR_ARENA], raw.arena, raw.arena_len);
	trex_ixw_section(c->w, &sec[SEC_STR_OFFS], raw.offs,
	                 ((size_t)raw.count + 1) * sizeof(uint32_t));
	trex_ixw_section(c->w, &sec[SEC_STR_SLOTS], raw.slots, (size_t)raw.nslots * 8);
}

/* Counts and span: the earliest start and latest end of the parts that
 * hold events (an empty one says 0, 0). */
static void head_counts(const struct compose *c, struct file_header *h)
{
	const struct bases *t = &c->base[c->n];
	bool any = false;

	h->nfiles = t->file;
	h->nprocs = t->proc;
	h->ntracks = t->track;
	h->nlanes = t->lane;
	h->nsamples = t->sample;
	h->nedges = t->edge;
	h->nslices = t->slice;
	h->ninstants = t->instant;
	h->nflows = t->flow;
	h->nlaunch = t->launch;
	h->nop = t->op;
	h->nproblems = t->problems;
	for (size_t p = 0; p < c->n; p++) {
		const struct trex_index *idx = c->parts[p];

		if (!idx->slices.count && !idx->instants.count && !idx->nsamples &&
		    !idx->flows.count)
			continue;
		h->start = !any || idx->start < h->start ? idx->start : h->start;
		h->end = !any || idx->end > h->end ? idx->end : h->end;
		any = true;
	}
}

static void w_arrays(struct compose *c, struct section *sec)
{
	w_links(c, &sec[SEC_LINKS]);
	w_procs(c, &sec[SEC_PROCS]);
	w_tracks(c, &sec[SEC_TRACKS]);
	w_lanes(c, &sec[SEC_LANES]);
	w_slices(c, &sec[SEC_SLICES]);
	w_instants(c, &sec[SEC_INSTANTS]);
	w_flows(c, &sec[SEC_FLOWS]);
	w_samples(c, &sec[SEC_SAMPLES]);
	w_ids(c, &sec[SEC_LAUNCH_IDS], IDS_LAUNCH);
	w_ids(c, &sec[SEC_OP_IDS], IDS_OP);
	w_flow_order(c, &sec[SEC_FLOWS_OUT], false);
	w_flow_order(c, &sec[SEC_FLOWS_IN], true);
	w_edges(c, &sec[SEC_EDGES]);
	w_ids(c, &sec[SEC_EDGES_IN], IDS_EDGES_IN);
	w_launch_keys(c, &sec[SEC_LAUNCH_KEYS]);
	w_flow_ids(c, &sec[SEC_FLOW_ID_VAL], &sec[SEC_FLOW_ID_HOW]);
	for (int f = 0; f < TREX_SIDE_COUNT; f++)
		w_side(c, &sec[SEC_SIDE_FIRST + f], (enum trex_side_field)f);
}

static enum trex_status w_composed(struct writer *w, void *user, struct trex_error *err)
{
	struct compose *c = user;
	struct file_header head;
	struct section sec[SEC_COUNT];
	enum trex_status st;

	c->w = w;
	memset(&head, 0, sizeof(head));
	trex_ixw_start(w, &head, sec);
	head_counts(c, &head);
	trex_ixw_section(w, &sec[SEC_IDENTITY], c->identity, c->identity_len);
	w_strings(c, &head, sec);
	w_files(c, &sec[SEC_FILES]);
	w_arrays(c, sec);
	w_problems(c, sec);
	w_members(c, &sec[SEC_MEMBERS]);
	if ((st = w_codecs(c, sec, err)) != TREX_OK)
		return st;
	/* no kernel summary: a set's is read from each trace's own file */
	trex_ixw_section(w, &sec[SEC_KERNEL_SUMMARY], NULL, 0);
	trex_ixw_finish(w, &head, sec);
	return TREX_OK;
}

static void compose_free(struct compose *c)
{
	for (size_t p = 0; c->smap && p < c->n; p++)
		free(c->smap[p]);
	free(c->smap);
	free(c->base);
	trex_strtab_free(c->strs);
}

enum trex_status trex_index_file_compose(const struct trex_index *const *parts, size_t n,
                                         const int64_t *ranks, const char *path,
                                         const void *identity, size_t identity_len,
                                         struct trex_error *err)
{
	struct compose c = {.parts = parts,
	                    .n = n,
	                    .ranks = ranks,
	                    .identity = identity,
	                    .identity_len = identity_len};
	enum trex_status st = TREX_OK;
	const char *why;

	for (size_t p = 0; p < n; p++)
		if (!trex_index_file_supported(parts[p], &why))
			return trex_error_set(err, TREX_USAGE, path, -1, "not written: %s", why);
	c.smap = calloc(n ? n : 1, sizeof(*c.smap));
	c.base = calloc(n + 1, sizeof(*c.base));
	if (!c.smap || !c.base)
		st = trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	for (size_t p = 0; st == TREX_OK && p < n; p++)
		if (!add_bases(&c.base[p + 1], &c.base[p], parts[p]))
			st = trex_error_set(err, TREX_USAGE, path, -1,
			                    "not written: the traces hold more than 2^32 - 1 "
			                    "records of one kind together");
	if (st == TREX_OK)
		st = map_strings(&c, err);
	if (st == TREX_OK)
		st = trex_ixw_atomic(path, w_composed, &c, err);
	compose_free(&c);
	return st;
}
