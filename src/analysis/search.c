#include "config.h"

#include "trex/analysis/search.h"

#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "trex/core/grow.h"

/* Per string id: not looked at yet, matches, does not match. */
enum { NAME_UNKNOWN = 0, NAME_MATCH, NAME_MISS };

struct trex_search {
	const struct trex_index *idx;
	char *pattern;
	uint8_t *name_state; /* per string id */
	uint32_t nstrings;
	uint32_t *ids; /* matching slice ids, ascending */
	uint32_t count;
	uint32_t *lane_begin, *lane_end; /* per lane: positions in ids */
};

/* ---- compiling and matching ---------------------------------------------------------- */

/* Smart case: an upper-case ASCII letter makes the search case-sensitive;
 * the letter after a backslash is an escape (\S, \W, \D), not text. */
static bool has_upper(const char *p)
{
	for (; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
			continue;
		}
		if (*p >= 'A' && *p <= 'Z')
			return true;
	}
	return false;
}

static enum trex_status compile(const char *pattern, pcre2_code **out, struct trex_error *err)
{
	uint32_t opts =
	    PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | (has_upper(pattern) ? 0 : PCRE2_CASELESS);
	int code;
	PCRE2_SIZE off;
	pcre2_code *re =
	    pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, opts, &code, &off, NULL);

	if (!re) {
		PCRE2_UCHAR text[160];

		pcre2_get_error_message(code, text, sizeof(text));
		return trex_error_set(err, TREX_USAGE, NULL, (int64_t)off, "%s at offset %zu",
		                      (const char *)text, (size_t)off);
	}
	/* the JIT is an optimisation only: without it pcre2_match interprets */
	(void)pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
	*out = re;
	return TREX_OK;
}

static bool name_matches(struct trex_search *s, const struct trex_search *within,
                         const pcre2_code *re, pcre2_match_data *md, uint32_t name)
{
	if (name >= s->nstrings)
		return false;
	if (s->name_state[name] == NAME_UNKNOWN) {
		bool ok = !within || trex_search_name_matches(within, name);
		size_t len;
		const char *str =
		    ok ? trex_strtab_get(trex_index_strings(s->idx), name, &len) : NULL;

		if (ok)
			ok = pcre2_match(re, (PCRE2_SPTR)str, len, 0, 0, md, NULL) >= 0;
		s->name_state[name] = ok ? NAME_MATCH : NAME_MISS;
	}
	return s->name_state[name] == NAME_MATCH;
}

/* One pass over the slices; each distinct name is matched once. */
static bool collect(struct trex_search *s, const struct trex_search *within, const pcre2_code *re,
                    pcre2_match_data *md)
{
	uint32_t n = trex_index_slice_count(s->idx);
	size_t cap = 0;

	for (uint32_t i = 0; i < n; i++) {
		if (!name_matches(s, within, re, md, trex_index_slice(s->idx, i)->name))
			continue;
		if (s->count == cap) {
			uint32_t *p =
			    trex_grow(s->ids, &cap, (size_t)s->count + 1, sizeof(*p), 1024);

			if (!p)
				return false;
			s->ids = p;
		}
		s->ids[s->count++] = i;
	}
	return true;
}

/* First position in ids[lo, hi) holding an id >= id. */
static uint32_t lower_id(const uint32_t *ids, uint32_t lo, uint32_t hi, uint32_t id)
{
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool index_lanes(struct trex_search *s)
{
	uint32_t nl = trex_index_lane_count(s->idx);

	s->lane_begin = malloc(sizeof(uint32_t) * ((size_t)nl + 1));
	s->lane_end = malloc(sizeof(uint32_t) * ((size_t)nl + 1));
	if (!s->lane_begin || !s->lane_end)
		return false;
	for (uint32_t l = 0; l < nl; l++) {
		const struct trex_lane *lane = trex_index_lane(s->idx, l);

		s->lane_begin[l] = lower_id(s->ids, 0, s->count, lane->first);
		s->lane_end[l] =
		    lower_id(s->ids, s->lane_begin[l], s->count, lane->first + lane->count);
	}
	return true;
}

enum trex_status trex_search_new(const struct trex_index *idx, const char *pattern,
                                 const struct trex_search *within, struct trex_search **out,
                                 struct trex_error *err)
{
	struct trex_search *s = calloc(1, sizeof(*s));
	pcre2_code *re = NULL;
	pcre2_match_data *md = NULL;
	enum trex_status st;

	*out = NULL;
	if (!s)
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	s->idx = idx;
	st = compile(pattern, &re, err);
	if (st != TREX_OK) {
		trex_search_free(s);
		return st;
	}
	s->nstrings = trex_strtab_count(trex_index_strings(idx));
	s->pattern = strdup(pattern);
	s->name_state = calloc((size_t)s->nstrings + 1, 1);
	md = pcre2_match_data_create_from_pattern(re, NULL);
	if (!s->pattern || !s->name_state || !md || !collect(s, within, re, md) ||
	    !index_lanes(s)) {
		pcre2_match_data_free(md);
		pcre2_code_free(re);
		trex_search_free(s);
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	*out = s;
	return TREX_OK;
}

void trex_search_free(struct trex_search *s)
{
	if (!s)
		return;
	free(s->pattern);
	free(s->name_state);
	free(s->ids);
	free(s->lane_begin);
	free(s->lane_end);
	free(s);
}

/* ---- queries --------------------------------------------------------------------------- */

const char *trex_search_pattern(const struct trex_search *s)
{
	return s->pattern;
}

uint32_t trex_search_count(const struct trex_search *s)
{
	return s->count;
}

bool trex_search_name_matches(const struct trex_search *s, uint32_t name)
{
	return name < s->nstrings && s->name_state[name] == NAME_MATCH;
}

bool trex_search_slice_matches(const struct trex_search *s, uint32_t slice)
{
	return slice < trex_index_slice_count(s->idx) &&
	       trex_search_name_matches(s, trex_index_slice(s->idx, slice)->name);
}

const uint32_t *trex_search_lane(const struct trex_search *s, uint32_t lane, uint32_t *n)
{
	if (lane >= trex_index_lane_count(s->idx)) {
		*n = 0;
		return s->ids;
	}
	*n = s->lane_end[lane] - s->lane_begin[lane];
	return *n ? s->ids + s->lane_begin[lane] : s->ids; /* ids is NULL without matches */
}

static int64_t slice_end(const struct trex_slice *sl)
{
	return sl->ts + sl->dur;
}

void trex_search_lane_range(const struct trex_search *s, uint32_t lane, int64_t lo, int64_t hi,
                            uint32_t *begin, uint32_t *end)
{
	uint32_t n, a = 0, b;
	const uint32_t *ids = trex_search_lane(s, lane, &n);

	/* first whose end > lo, or which starts at/after lo (zero-length at lo) */
	b = n;
	while (a < b) {
		uint32_t mid = a + (b - a) / 2;
		const struct trex_slice *sl = trex_index_slice(s->idx, ids[mid]);

		if (slice_end(sl) > lo || sl->ts >= lo)
			b = mid;
		else
			a = mid + 1;
	}
	*begin = a;
	/* first that starts at/after hi */
	b = n;
	while (a < b) {
		uint32_t mid = a + (b - a) / 2;

		if (trex_index_slice(s->idx, ids[mid])->ts < hi)
			a = mid + 1;
		else
			b = mid;
	}
	*end = a;
}

bool trex_search_track_has_match(const struct trex_search *s, uint32_t track)
{
	const struct trex_track *t;

	if (track >= trex_index_track_count(s->idx))
		return false;
	t = trex_index_track(s->idx, track);
	for (uint32_t l = 0; l < t->lane_count; l++)
		if (s->lane_end[t->first_lane + l] > s->lane_begin[t->first_lane + l])
			return true;
	return false;
}

/* ---- walking in time order ------------------------------------------------------------- */

struct trex_search_pos trex_search_pos_of(const struct trex_index *idx, uint32_t slice)
{
	const struct trex_slice *sl = trex_index_slice(idx, slice);

	return (struct trex_search_pos){sl->ts, sl->track, sl->depth, slice};
}

static int cmp_u32(uint32_t a, uint32_t b)
{
	return a < b ? -1 : a > b;
}

/* <0, 0, >0 as slice id sorts before, at or after pos. */
static int key_cmp(const struct trex_search *s, uint32_t id, const struct trex_search_pos *pos)
{
	const struct trex_slice *sl = trex_index_slice(s->idx, id);
	int c;

	if (sl->ts != pos->ts)
		return sl->ts < pos->ts ? -1 : 1;
	if ((c = cmp_u32(sl->track, pos->track)) != 0)
		return c;
	if ((c = cmp_u32(sl->depth, pos->depth)) != 0)
		return c;
	return cmp_u32(id, pos->slice);
}

/* Matches of lane sorting before pos (a lane's keys rise with its ids). */
static uint32_t lane_before(const struct trex_search *s, uint32_t lane,
                            const struct trex_search_pos *pos, bool or_equal)
{
	uint32_t n, a = 0;
	const uint32_t *ids = trex_search_lane(s, lane, &n);

	while (a < n) {
		uint32_t mid = a + (n - a) / 2;
		int c = key_cmp(s, ids[mid], pos);

		if (c < 0 || (or_equal && c == 0))
			a = mid + 1;
		else
			n = mid;
	}
	return a;
}

static bool better(const struct trex_search *s, uint32_t cand, uint32_t best, int dir)
{
	struct trex_search_pos p;

	if (best == TREX_NONE)
		return true;
	p = trex_search_pos_of(s->idx, best);
	return dir > 0 ? key_cmp(s, cand, &p) < 0 : key_cmp(s, cand, &p) > 0;
}

static uint32_t step(const struct trex_search *s, const struct trex_search_pos *pos, int dir,
                     const uint8_t *lanes)
{
	uint32_t nl = trex_index_lane_count(s->idx), best = TREX_NONE;

	for (uint32_t l = 0; l < nl; l++) {
		uint32_t n, k;
		const uint32_t *ids = trex_search_lane(s, l, &n);

		if (n == 0 || (lanes && !lanes[l]))
			continue;
		k = lane_before(s, l, pos, dir > 0);
		if (dir > 0 && k < n && better(s, ids[k], best, dir))
			best = ids[k];
		else if (dir < 0 && k > 0 && better(s, ids[k - 1], best, dir))
			best = ids[k - 1];
	}
	return best;
}

uint32_t trex_search_next(const struct trex_search *s, const struct trex_search_pos *pos)
{
	return step(s, pos, 1, NULL);
}

uint32_t trex_search_prev(const struct trex_search *s, const struct trex_search_pos *pos)
{
	return step(s, pos, -1, NULL);
}

uint32_t trex_search_rank(const struct trex_search *s, const struct trex_search_pos *pos)
{
	return trex_search_rank_in(s, pos, NULL);
}

uint32_t trex_search_next_in(const struct trex_search *s, const struct trex_search_pos *pos,
                             const uint8_t *lanes)
{
	return step(s, pos, 1, lanes);
}

uint32_t trex_search_prev_in(const struct trex_search *s, const struct trex_search_pos *pos,
                             const uint8_t *lanes)
{
	return step(s, pos, -1, lanes);
}

uint32_t trex_search_rank_in(const struct trex_search *s, const struct trex_search_pos *pos,
                             const uint8_t *lanes)
{
	uint32_t nl = trex_index_lane_count(s->idx), r = 0;

	for (uint32_t l = 0; l < nl; l++)
		if (s->lane_end[l] > s->lane_begin[l] && (!lanes || lanes[l]))
			r += lane_before(s, l, pos, false);
	return r;
}

uint32_t trex_search_count_in(const struct trex_search *s, const uint8_t *lanes)
{
	uint32_t nl = trex_index_lane_count(s->idx), n = 0;

	if (!lanes)
		return s->count;
	for (uint32_t l = 0; l < nl; l++)
		if (lanes[l])
			n += s->lane_end[l] - s->lane_begin[l];
	return n;
}

/* ---- patterns over other texts ------------------------------------------------------------ */

struct trex_pattern {
	char *text;
	pcre2_code *re;
	pcre2_match_data *md;
};

enum trex_status trex_pattern_new(const char *pattern, struct trex_pattern **out,
                                  struct trex_error *err)
{
	struct trex_pattern *p = calloc(1, sizeof(*p));
	enum trex_status st;

	*out = NULL;
	if (!p)
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	st = compile(pattern, &p->re, err);
	if (st != TREX_OK) {
		free(p);
		return st;
	}
	p->text = strdup(pattern);
	p->md = pcre2_match_data_create_from_pattern(p->re, NULL);
	if (!p->text || !p->md) {
		trex_pattern_free(p);
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	*out = p;
	return TREX_OK;
}

void trex_pattern_free(struct trex_pattern *p)
{
	if (!p)
		return;
	pcre2_match_data_free(p->md);
	pcre2_code_free(p->re);
	free(p->text);
	free(p);
}

const char *trex_pattern_text(const struct trex_pattern *p)
{
	return p->text;
}

bool trex_pattern_match(struct trex_pattern *p, const char *text)
{
	return pcre2_match(p->re, (PCRE2_SPTR)text, PCRE2_ZERO_TERMINATED, 0, 0, p->md, NULL) >= 0;
}
