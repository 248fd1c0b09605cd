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
	return trex_kind_of(trex_index_str(idx, s->cat), trex_index_str(idx, s->name));
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
	size_t n = trex_index_correlated(idx, info->slice, ids, LINK_BATCH);

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

static void add_ext_id(const struct trex_index *idx, struct trex_slice_info *info)
{
	uint32_t ids[LINK_BATCH];
	size_t n = trex_index_same_ext_id(idx, info->slice, ids, LINK_BATCH);

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

/* A cursor over the JSON text and the output buffer, which is big enough
 * for everything: unescaping and compacting never grow the text beyond
 * one NUL per key and value. */
struct scan {
	const char *p, *end;
	char *o;
};

static void skip_ws(struct scan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
		s->p++;
}

static int hex4(const char *p, const char *end)
{
	int v = 0;

	if (end - p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		int d = c >= '0' && c <= '9'   ? c - '0'
		        : c >= 'a' && c <= 'f' ? c - 'a' + 10
		        : c >= 'A' && c <= 'F' ? c - 'A' + 10
		                               : -1;

		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

static void put_utf8(struct scan *s, unsigned cp)
{
	if (cp < 0x80) {
		*s->o++ = (char)cp;
	} else if (cp < 0x800) {
		*s->o++ = (char)(0xc0 | cp >> 6);
		*s->o++ = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		*s->o++ = (char)(0xe0 | cp >> 12);
		*s->o++ = (char)(0x80 | (cp >> 6 & 0x3f));
		*s->o++ = (char)(0x80 | (cp & 0x3f));
	} else {
		*s->o++ = (char)(0xf0 | cp >> 18);
		*s->o++ = (char)(0x80 | (cp >> 12 & 0x3f));
		*s->o++ = (char)(0x80 | (cp >> 6 & 0x3f));
		*s->o++ = (char)(0x80 | (cp & 0x3f));
	}
}

/* \uXXXX (s->p after the 'u'), surrogate pairs joined; U+FFFD for a lone
 * surrogate; NUL as C0 80, as the string table keeps it (strtab.h), so the
 * value stays one C string that is shown with its \0. The output (<= 4
 * bytes) never outgrows the 6 or 12 input bytes. */
static bool unescape_u(struct scan *s)
{
	int hi = hex4(s->p, s->end), lo;

	if (hi < 0)
		return false;
	s->p += 4;
	if (hi >= 0xd800 && hi < 0xdc00 && s->end - s->p >= 6 && s->p[0] == '\\' &&
	    s->p[1] == 'u' && (lo = hex4(s->p + 2, s->end)) >= 0xdc00 && lo < 0xe000) {
		s->p += 6;
		put_utf8(s, 0x10000 + ((unsigned)(hi - 0xd800) << 10) + (unsigned)(lo - 0xdc00));
		return true;
	}
	if (hi == 0) {
		*s->o++ = (char)0xc0;
		*s->o++ = (char)0x80;
		return true;
	}
	put_utf8(s, hi >= 0xd800 && hi < 0xe000 ? 0xfffd : (unsigned)hi);
	return true;
}

static bool unescape(struct scan *s)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *k;

	if (s->p >= s->end)
		return false;
	if (*s->p == 'u') {
		s->p++;
		return unescape_u(s);
	}
	k = strchr(from, *s->p);
	if (!k || !*s->p)
		return false;
	*s->o++ = to[k - from];
	s->p++;
	return true;
}

/* A string (s->p on its opening quote), unescaped and NUL-terminated. */
static const char *scan_string(struct scan *s)
{
	char *start = s->o;

	s->p++;
	while (s->p < s->end && *s->p != '"') {
		if (*s->p == '\\') {
			s->p++;
			if (!unescape(s))
				return NULL;
		} else {
			*s->o++ = *s->p++;
		}
	}
	if (s->p >= s->end)
		return NULL;
	s->p++;
	*s->o++ = '\0';
	return start;
}

/* An object or array copied without the blanks between tokens. */
static const char *scan_compact(struct scan *s)
{
	char *start = s->o;
	int depth = 0;
	bool in_str = false;

	for (; s->p < s->end; s->p++) {
		char c = *s->p;

		if (in_str) {
			*s->o++ = c;
			if (c == '\\' && s->p + 1 < s->end)
				*s->o++ = *++s->p;
			else if (c == '"')
				in_str = false;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
			continue;
		*s->o++ = c;
		if (c == '"')
			in_str = true;
		else if (c == '{' || c == '[')
			depth++;
		else if ((c == '}' || c == ']') && --depth == 0) {
			s->p++;
			*s->o++ = '\0';
			return start;
		}
	}
	return NULL;
}

/* A number, true, false or null: the bytes up to the next delimiter. */
static const char *scan_scalar(struct scan *s)
{
	char *start = s->o;

	while (s->p < s->end && !strchr(",}] \t\r\n", *s->p))
		*s->o++ = *s->p++;
	if (s->o == start)
		return NULL;
	*s->o++ = '\0';
	return start;
}

static const char *scan_value(struct scan *s)
{
	skip_ws(s);
	if (s->p >= s->end)
		return NULL;
	if (*s->p == '"')
		return scan_string(s);
	if (*s->p == '{' || *s->p == '[')
		return scan_compact(s);
	return scan_scalar(s);
}

/* One "key": value member; false when it does not parse. */
static bool scan_member(struct scan *s, struct trex_arg *a)
{
	skip_ws(s);
	if (s->p >= s->end || *s->p != '"' || !(a->key = scan_string(s)))
		return false;
	skip_ws(s);
	if (s->p >= s->end || *s->p != ':')
		return false;
	s->p++;
	return (a->value = scan_value(s)) != NULL;
}

static enum trex_status push_arg(struct trex_args *out, size_t *cap, const struct trex_arg *a,
                                 struct trex_error *err)
{
	struct trex_arg *v = trex_grow(out->v, cap, out->n + 1, sizeof(*v), 8);

	if (!v)
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	out->v = v;
	out->v[out->n++] = *a;
	return TREX_OK;
}

/* After a member: true with s->p past a ',', false at the closing '}'
 * (*done) or at junk. */
static bool next_member(struct scan *s, bool *done)
{
	skip_ws(s);
	*done = s->p < s->end && *s->p == '}';
	if (s->p < s->end && *s->p == ',') {
		s->p++;
		return true;
	}
	return false;
}

static enum trex_status decode_members(struct scan *s, struct trex_args *out, bool *complete,
                                       struct trex_error *err)
{
	size_t cap = 0;
	struct trex_arg a;

	skip_ws(s);
	if (s->p < s->end && *s->p == '}') {
		*complete = true;
		return TREX_OK;
	}
	for (;;) {
		enum trex_status st;
		bool more;

		if (!scan_member(s, &a))
			return TREX_OK;
		if ((st = push_arg(out, &cap, &a, err)) != TREX_OK)
			return st;
		more = next_member(s, complete);
		if (!more)
			return TREX_OK;
	}
}

enum trex_status trex_args_decode(const char *json, size_t len, struct trex_args *out,
                                  bool *truncated, struct trex_error *err)
{
	struct scan s = {json, json + len, NULL};
	bool complete = false;
	enum trex_status st;

	memset(out, 0, sizeof(*out));
	if (truncated)
		*truncated = false;
	if (!(out->buf = malloc(len + len + 2)))
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	s.o = out->buf;
	skip_ws(&s);
	if (s.p < s.end && *s.p == '{') {
		s.p++;
		st = decode_members(&s, out, &complete, err);
		if (st != TREX_OK) {
			trex_args_free(out);
			return st;
		}
	}
	if (truncated)
		*truncated = !complete;
	return TREX_OK;
}

enum trex_status trex_slice_args(const struct trex_index *idx, uint32_t id, struct trex_args *out,
                                 struct trex_error *err)
{
	const struct trex_slice *s = trex_index_slice(idx, id);
	char *text = NULL;
	size_t len = 0;
	enum trex_status st;

	memset(out, 0, sizeof(*out));
	st = trex_index_args_text(idx, trex_index_track_file(idx, s->track), s->args, &text, &len,
	                          err);
	if (st == TREX_OK && text)
		st = trex_args_decode(text, len, out, NULL, err);
	free(text);
	return st;
}

void trex_args_free(struct trex_args *a)
{
	free(a->v);
	free(a->buf);
	memset(a, 0, sizeof(*a));
}
