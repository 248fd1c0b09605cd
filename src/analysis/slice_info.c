#include "config.h"

#include "trex/analysis/slice_info.h"

#include <stdlib.h>
#include <string.h>

#include "trex/core/grow.h"
#include "trex/core/kind.h"

#define STEP_PREFIX "ProfilerStep#"
#define LINK_BATCH TREX_SLICE_INFO_LINKS

static const char *const link_labels[] = {
#define TREX_LINK_LABEL(id, label) label,
    TREX_LINK_INFO(TREX_LINK_LABEL)
#undef TREX_LINK_LABEL
};

const char *trex_link_label(enum trex_link_kind kind)
{
	return (unsigned)kind < TREX_LINK_COUNT ? link_labels[kind] : "";
}

static enum trex_kind kind_of(const struct trex_index *idx, const struct trex_slice *s)
{
	(void)idx;
	return (enum trex_kind)s->kind;
}

/* ---- children and self time ------------------------------------------------------------- */

static int64_t end_of(const struct trex_slice *s)
{
	return s->ts + s->dur;
}

uint32_t trex_slice_children(const struct trex_index *idx, uint32_t id, uint32_t *out, size_t max,
                             int64_t *busy)
{
	const struct trex_slice *s = trex_index_slice(idx, id);
	const struct trex_track *t = trex_index_track(idx, s->track);
	const struct trex_lane *lane;
	uint32_t first, last, n = 0;
	int64_t covered = 0, upto = s->ts, end = end_of(s);

	if (busy)
		*busy = 0;
	if ((uint32_t)s->depth + 1 >= t->lane_count)
		return 0;
	lane = trex_index_lane(idx, t->first_lane + s->depth + 1);
	/* children start in [ts, end) (at ts for a zero-length slice): a later
	 * start belongs to a later slice of this lane, which cannot overlap it */
	first = s->ts == INT64_MIN ? lane->first : trex_lane_find_start_after(idx, lane, s->ts - 1);
	last = trex_lane_find_start_after(idx, lane, s->dur > 0 ? end - 1 : s->ts);
	for (uint32_t c = first; c < last; c++, n++) {
		const struct trex_slice *k = trex_index_slice(idx, c);
		int64_t kb = k->ts > upto ? k->ts : upto;
		int64_t ke = end_of(k) < end ? end_of(k) : end;

		if (n < max)
			out[n] = c;
		if (ke > kb) {
			covered += ke - kb;
			upto = ke;
		}
	}
	if (busy)
		*busy = covered;
	return n;
}

/* ---- step and annotation ---------------------------------------------------------------- */

static bool is_step(const struct trex_index *idx, const struct trex_slice *s)
{
	const char *name = trex_index_str(idx, s->name);

	return name && strncmp(name, STEP_PREFIX, strlen(STEP_PREFIX)) == 0;
}

static bool is_annotation(const struct trex_index *idx, const struct trex_slice *s)
{
	enum trex_kind k = kind_of(idx, s);

	return k == TREX_KIND_ANNOTATION || k == TREX_KIND_GPU_ANNOTATION;
}

/* Walks from slice p up through its ancestors (p included), filling the
 * step and annotation not found yet. */
static void enclosing(const struct trex_index *idx, uint32_t p, struct trex_slice_info *info)
{
	for (; p != TREX_NONE; p = trex_index_parent(idx, p)) {
		const struct trex_slice *s = trex_index_slice(idx, p);

		if (info->step == TREX_NONE && is_step(idx, s))
			info->step = p;
		if (info->annotation == TREX_NONE && is_annotation(idx, s))
			info->annotation = p;
		if (info->step != TREX_NONE && info->annotation != TREX_NONE)
			return;
	}
}

/* ---- links ------------------------------------------------------------------------------ */

static void add_link(struct trex_slice_info *info, enum trex_link_kind kind, uint32_t slice)
{
	if (slice == TREX_NONE || slice == info->slice)
		return;
	for (size_t i = 0; i < info->link_count; i++)
		if (info->links[i].slice == slice)
			return;
	if (info->link_count == TREX_SLICE_INFO_LINKS) {
		info->links_dropped++;
		return;
	}
	info->links[info->link_count++] = (struct trex_link){kind, slice};
}

static void add_launched(const struct trex_index *idx, struct trex_slice_info *info)
{
	uint32_t ids[LINK_BATCH];
	size_t n = trex_index_same_launch_link(idx, info->slice, ids, LINK_BATCH);

	for (size_t i = 0; i < n && i < LINK_BATCH; i++)
		if (trex_kind_is_gpu(kind_of(idx, trex_index_slice(idx, ids[i]))))
			add_link(info, TREX_LINK_LAUNCHED, ids[i]);
	if (n > LINK_BATCH)
		info->links_dropped += n - LINK_BATCH;
}

static void add_flows(const struct trex_index *idx, struct trex_slice_info *info)
{
	uint32_t ids[LINK_BATCH];
	size_t n = trex_index_flows_of(idx, info->slice, ids, LINK_BATCH);

	for (size_t i = 0; i < n && i < LINK_BATCH; i++) {
		const struct trex_flow *f = trex_index_flow(idx, ids[i]);

		if (f->from_slice == info->slice)
			add_link(info, TREX_LINK_FLOW_OUT, f->to_slice);
		else
			add_link(info, TREX_LINK_FLOW_IN, f->from_slice);
	}
	if (n > LINK_BATCH)
		info->links_dropped += n - LINK_BATCH;
}

/* The dependencies of the slice (the slices it waits for) or its
 * dependents, latest end first, then by id. */
static void add_deps(const struct trex_index *idx, struct trex_slice_info *info, bool incoming)
{
	uint32_t ids[LINK_BATCH], other[LINK_BATCH];
	size_t n = trex_index_edges_of(idx, info->slice, incoming, ids, LINK_BATCH);
	size_t kept = n < LINK_BATCH ? n : LINK_BATCH;

	for (size_t i = 0; i < kept; i++) {
		const struct trex_edge *e = trex_index_edge(idx, ids[i]);
		uint32_t o = incoming ? e->from : e->to;
		size_t j = i;

		for (; j > 0; j--) { /* insertion: latest end first */
			int64_t a = end_of(trex_index_slice(idx, other[j - 1]));
			int64_t b = end_of(trex_index_slice(idx, o));

			if (a > b || (a == b && other[j - 1] < o))
				break;
			other[j] = other[j - 1];
		}
		other[j] = o;
	}
	for (size_t i = 0; i < kept; i++)
		add_link(info, incoming ? TREX_LINK_WAITS_FOR : TREX_LINK_NEEDED_BY, other[i]);
	if (n > LINK_BATCH)
		info->links_dropped += n - LINK_BATCH;
}

static void add_ext_id(const struct trex_index *idx, struct trex_slice_info *info)
{
	uint32_t ids[LINK_BATCH];
	size_t n = trex_index_same_op_link(idx, info->slice, ids, LINK_BATCH);

	for (size_t i = 0; i < n && i < LINK_BATCH; i++)
		add_link(info, TREX_LINK_EXT_ID, ids[i]);
	if (n > LINK_BATCH)
		info->links_dropped += n - LINK_BATCH;
}

void trex_slice_info_compute(const struct trex_index *idx, uint32_t id,
                             struct trex_slice_info *info)
{
	const struct trex_slice *s = trex_index_slice(idx, id);
	enum trex_kind kind = kind_of(idx, s);
	uint32_t shown;

	memset(info, 0, sizeof(*info));
	info->slice = id;
	info->step = info->annotation = info->launch = TREX_NONE;
	info->parent = trex_index_parent(idx, id);
	info->child_count =
	    trex_slice_children(idx, id, info->children, TREX_SLICE_INFO_CHILDREN, &info->self_ns);
	info->self_ns = s->dur - info->self_ns;
	if (trex_kind_is_gpu(kind))
		info->launch = trex_index_launch_of(idx, id);
	enclosing(idx, info->parent, info);
	if (info->launch != TREX_NONE)
		enclosing(idx, info->launch, info);
	add_link(info, TREX_LINK_LAUNCH, info->launch);
	if (kind == TREX_KIND_RUNTIME)
		add_launched(idx, info);
	add_flows(idx, info);
	add_deps(idx, info, true);
	add_deps(idx, info, false);
	add_ext_id(idx, info);
	add_link(info, TREX_LINK_ANNOTATION, info->annotation);
	add_link(info, TREX_LINK_STEP, info->step);
	add_link(info, TREX_LINK_PARENT, info->parent);
	shown = info->child_count < TREX_SLICE_INFO_CHILDREN ? info->child_count
	                                                     : TREX_SLICE_INFO_CHILDREN;
	for (uint32_t i = 0; i < shown; i++)
		add_link(info, TREX_LINK_CHILD, info->children[i]);
}

/* ---- args ------------------------------------------------------------------------------- */

enum trex_status trex_slice_args(const struct trex_index *idx, uint32_t id, struct trex_args *out,
                                 struct trex_error *err)
{
	const struct trex_slice *s = trex_index_slice(idx, id);

	return trex_index_args(idx, trex_index_track_file(idx, s->track), s->args, out, NULL, err);
}
