#include "config.h"

#include "export_scope.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "trex/analysis/table_order.h"
#include "trex/core/display.h"

static const struct {
	const char *word, *title;
} scope_names[EXPORT_SCOPE_COUNT] = {
#define EXPORT_SCOPE_DESC(id, word, title) {word, title},
    EXPORT_SCOPE_INFO(EXPORT_SCOPE_DESC)
#undef EXPORT_SCOPE_DESC
};

const char *export_scope_word(enum export_scope_kind k)
{
	return (unsigned)k < EXPORT_SCOPE_COUNT ? scope_names[k].word : "";
}

const char *export_scope_title(enum export_scope_kind k)
{
	return (unsigned)k < EXPORT_SCOPE_COUNT ? scope_names[k].title : "";
}

/* Chakra writes an execution trace whole (chakra_export.c refuses a scope). */
static bool writes_whole(const struct trex_trace_exporter *ex)
{
	return strncmp(ex->name, "chakra", 6) == 0;
}

/* Why st cannot give scope k (the exporter aside), NULL when it can. */
static const char *state_lacks(const struct export_view_state *st, enum export_scope_kind k)
{
	if (k == EXPORT_SCOPE_ALL)
		return NULL;
	if (!st->timeline)
		return "only in the timeline (1)";
	if (k == EXPORT_SCOPE_RANGE && !st->has_range)
		return "no range is marked";
	if (k == EXPORT_SCOPE_VISIBLE && st->shown_count == 0)
		return "no track is shown";
	if (k == EXPORT_SCOPE_FILTER && !st->filter)
		return "no slice filter is set";
	if (k == EXPORT_SCOPE_SELECTION && st->selected_track == TREX_NONE)
		return "nothing is selected: put the cursor on a track";
	return NULL;
}

bool export_scope_available(const struct export_view_state *st,
                            const struct trex_trace_exporter *ex, enum export_scope_kind k,
                            char *why, size_t size)
{
	const char *lack = state_lacks(st, k);

	if (lack && k == EXPORT_SCOPE_RANGE && st->timeline)
		snprintf(why, size, "%s (%s, move, %s marks one)", lack,
		         st->mark_key[0] ? st->mark_key : "mark-range",
		         st->mark_key[0] ? st->mark_key : "mark-range");
	else if (lack)
		snprintf(why, size, "%s", lack);
	else if (k != EXPORT_SCOPE_ALL && writes_whole(ex))
		snprintf(why, size, "%s writes the whole trace", ex->name);
	else
		return true;
	return false;
}

/* t relative to the trace start, as the timeline prints times. */
static const char *rel_time(const struct trex_index *idx, int64_t t, char *buf, size_t size)
{
	return trex_format_duration((double)t - (double)trex_index_start(idx), buf, size);
}

void export_scope_label(const struct trex_index *idx, const struct export_view_state *st,
                        enum export_scope_kind k, char *buf, size_t size)
{
	const char *title = export_scope_title(k);
	char a[32], b[32];

	if (k == EXPORT_SCOPE_ALL)
		snprintf(buf, size, "%s: %" PRIu32 " tracks", title, trex_index_track_count(idx));
	else if (k == EXPORT_SCOPE_RANGE && st->has_range)
		snprintf(buf, size, "%s: %s .. %s", title,
		         rel_time(idx, st->range_start, a, sizeof(a)),
		         rel_time(idx, st->range_end, b, sizeof(b)));
	else if (k == EXPORT_SCOPE_VISIBLE && st->timeline)
		snprintf(buf, size, "%s: %" PRIu32 " of %" PRIu32, title, st->shown_count,
		         trex_index_track_count(idx));
	else if (k == EXPORT_SCOPE_FILTER && st->filter)
		snprintf(buf, size, "%s: /%s/ (%" PRIu32 " %s)", title, st->filter,
		         st->filter_matches, trex_plural(st->filter_matches, "slice", "slices"));
	else if (k == EXPORT_SCOPE_SELECTION && st->selected_track != TREX_NONE)
		snprintf(buf, size, "%s: %s%s", title, st->selected_label,
		         st->selected_slice ? "" : " (the cursor's)");
	else
		snprintf(buf, size, "%s", title);
}

/* ---- building ------------------------------------------------------------------------------ */

static enum trex_status one_track(const struct trex_index *idx, uint32_t track,
                                  struct export_scope_built *out, struct trex_error *err)
{
	out->tracks = calloc(trex_index_track_count(idx) + 1, 1);
	if (!out->tracks)
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	out->tracks[track] = 1;
	out->scope.track_set = out->tracks;
	return TREX_OK;
}

static enum trex_status shown_tracks(const struct trex_index *idx,
                                     const struct export_view_state *st,
                                     struct export_scope_built *out, struct trex_error *err)
{
	size_t n = trex_index_track_count(idx);

	out->tracks = malloc(n + 1);
	if (!out->tracks)
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	memcpy(out->tracks, st->tracks_shown, n);
	out->scope.track_set = out->tracks;
	return TREX_OK;
}

enum trex_status export_scope_build(const struct trex_index *idx,
                                    const struct export_view_state *st, enum export_scope_kind k,
                                    struct export_scope_built *out, struct trex_error *err)
{
	enum trex_status st_ = TREX_OK;

	memset(out, 0, sizeof(*out));
	if (state_lacks(st, k))
		return trex_error_set(err, TREX_USAGE, NULL, -1, "%s", state_lacks(st, k));
	switch (k) {
	case EXPORT_SCOPE_RANGE:
		out->scope.has_range = true;
		out->scope.start = st->range_start;
		out->scope.end = st->range_end;
		break;
	case EXPORT_SCOPE_VISIBLE:
		st_ = shown_tracks(idx, st, out, err);
		break;
	case EXPORT_SCOPE_FILTER:
		/* the filter's rules are trex_regex's: PCRE2, UTF-8, smart case */
		st_ = trex_regex_compile(st->filter, &out->names, err);
		out->scope.names = out->names;
		break;
	case EXPORT_SCOPE_SELECTION:
		st_ = one_track(idx, st->selected_track, out, err);
		break;
	default:
		break;
	}
	if (st_ != TREX_OK)
		export_scope_release(out);
	return st_;
}

void export_scope_release(struct export_scope_built *b)
{
	trex_regex_free(b->names);
	free(b->tracks);
	memset(b, 0, sizeof(*b));
}

/* ---- progress ------------------------------------------------------------------------------ */

/* Slices of lane touching [lo, hi]. */
static uint64_t lane_in_range(const struct trex_index *idx, const struct trex_lane *lane,
                              int64_t lo, int64_t hi)
{
	uint32_t a = trex_lane_find_end_at_or_after(idx, lane, lo);
	uint32_t b = trex_lane_find_start_after(idx, lane, hi);

	return b > a ? b - a : 0;
}

static int64_t event_ts(const struct trex_index *idx, bool samples, uint32_t i)
{
	return samples ? trex_index_sample(idx, i)->ts : trex_index_instant(idx, i)->ts;
}

/* The first of the count instants (or samples) from first, in time
 * order, at t or later. */
static uint32_t first_at(const struct trex_index *idx, bool samples, uint32_t first, uint32_t count,
                         int64_t t)
{
	uint32_t lo = first, hi = first + count;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (event_ts(idx, samples, mid) < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Instants (or samples) in [lo, hi]: those at lo or later, less those past hi. */
static uint64_t timed_in_range(const struct trex_index *idx, bool samples, uint32_t first,
                               uint32_t count, int64_t lo, int64_t hi)
{
	uint32_t a = first_at(idx, samples, first, count, lo);
	uint32_t b = hi == INT64_MAX ? first + count : first_at(idx, samples, first, count, hi + 1);

	return b > a ? b - a : 0;
}

static uint64_t track_events(const struct trex_index *idx, const struct trex_export_scope *s,
                             uint32_t track)
{
	const struct trex_track *t = trex_index_track(idx, track);
	uint64_t n = 0;

	if (!s->has_range)
		return (uint64_t)t->slice_count + t->instant_count + t->sample_count;
	for (uint32_t l = 0; l < t->lane_count; l++)
		n += lane_in_range(idx, trex_index_lane(idx, t->first_lane + l), s->start, s->end);
	n += timed_in_range(idx, false, t->first_instant, t->instant_count, s->start, s->end);
	n += timed_in_range(idx, true, t->first_sample, t->sample_count, s->start, s->end);
	return n;
}

uint64_t export_scope_estimate(const struct trex_index *idx, const struct trex_export_scope *s,
                               uint32_t filter_matches)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < trex_index_track_count(idx); i++)
		if (trex_export_track_in(idx, s, i))
			n += track_events(idx, s, i);
	if (s->names && n > filter_matches)
		n = filter_matches;
	return n ? n : 1;
}

void export_progress_text(uint64_t events, uint64_t bytes, uint64_t estimate, bool done, int bar_w,
                          char *buf, size_t size)
{
	unsigned pct = done ? 100 : estimate ? (unsigned)(events * 100 / estimate) : 0;
	char bar[128];
	int fill;

	if (!done && pct > 99)
		pct = 99;
	if (bar_w > (int)sizeof(bar) - 3)
		bar_w = (int)sizeof(bar) - 3;
	if (bar_w < 0)
		bar_w = 0;
	fill = (int)(pct * (unsigned)bar_w / 100);
	bar[0] = '[';
	for (int i = 0; i < bar_w; i++)
		bar[1 + i] = i < fill ? '#' : '.';
	bar[bar_w + 1] = ']';
	bar[bar_w + 2] = '\0';
	snprintf(buf, size, "%s %3u%%  %" PRIu64 " %s  %.1f MB", bar, pct, events,
	         trex_plural(events, "event", "events"), (double)bytes / 1e6);
}

/* ---- the output name ----------------------------------------------------------------------- */

static const char *const trace_exts[] = {".gz", ".json", ".pftrace", ".perfetto-trace", ".pb",
                                         ".et", ".csv",  ".txt",     ".trace"};

/* Strips trailing trace extensions from name (in place). */
static void strip_exts(char *name)
{
	bool again = true;

	while (again) {
		size_t n = strlen(name);

		again = false;
		for (size_t i = 0; i < sizeof(trace_exts) / sizeof(trace_exts[0]); i++) {
			size_t m = strlen(trace_exts[i]);

			if (n > m && strcasecmp(name + n - m, trace_exts[i]) == 0) {
				name[n - m] = '\0';
				again = true;
				break;
			}
		}
	}
}

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '-' || c == '_' || (c & 0x80);
}

/* The first file's name without directory and extensions, characters a
 * shell would need quoted dropped at the ends and made '_' inside
 * ("(demo)" is "demo"); "trace" if nothing is left. */
static void trace_stem(const struct trex_index *idx, char *buf, size_t size)
{
	const char *path = "", *slash;
	size_t n, start = 0;

	if (trex_index_file_count(idx) > 0)
		path = trex_index_str(idx, trex_index_file(idx, 0)->path);
	slash = strrchr(path, '/');
	snprintf(buf, size, "%s", slash ? slash + 1 : path);
	strip_exts(buf);
	n = strlen(buf);
	while (n && !name_char(buf[n - 1]))
		buf[--n] = '\0';
	while (start < n && (!name_char(buf[start]) || buf[start] == '.' || buf[start] == '-'))
		start++;
	memmove(buf, buf + start, n - start + 1);
	for (char *p = buf; *p; p++)
		*p = name_char(*p) ? *p : '_';
	if (!buf[0])
		snprintf(buf, size, "trace");
}

void export_default_path(const struct trex_index *idx, const struct trex_trace_exporter *ex,
                         enum export_scope_kind k, char *buf, size_t size)
{
	char stem[256];
	/* the format's first extension; chakra's is a prefix, chakra-json's JSON */
	int ext_len = (int)strcspn(ex->extensions, " ");
	bool chakra_json = strcmp(ex->name, "chakra-json") == 0;

	trace_stem(idx, stem, sizeof(stem));
	snprintf(buf, size, "%s.%s%.*s", stem, export_scope_word(k), chakra_json ? 12 : ext_len,
	         chakra_json ? ".chakra.json" : ex->extensions);
}

void export_expand_home(const char *path, const char *home, char *buf, size_t size)
{
	if (home && home[0] && path[0] == '~' && path[1] == '/')
		snprintf(buf, size, "%s%s", home, path + 1);
	else
		snprintf(buf, size, "%s", path);
}
