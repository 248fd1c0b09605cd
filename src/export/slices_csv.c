/* The slices CSV exporter (trace_export.h): one row per slice in scope,
 *   rank,process,track,ts_ns,dur_ns,depth,kind,category,name,clipped
 * times in ns on the index clock (cut to the range, clipped saying which
 * ends were cut), text as the CLI's CSV tables write it (escaped as the
 * text tables show it, quoted when it holds a comma or a quote), for
 * pandas and spreadsheets. */
#include "config.h"

#include <string.h>

#include "export_internal.h"
#include "trex/analysis/labels.h"
#include "trex/core/display.h"
#include "trex/export/trace_export.h"

static bool csv_field(struct trex_wbuf *w, const char *s)
{
	size_t len = strlen(s);
	bool quote = strpbrk(s, ",\"") != NULL;

	if (quote && !trex_wbuf_put(w, "\"", 1))
		return false;
	for (size_t i = 0; i < len;) {
		char esc[TREX_ESCAPE_MAX + 1];
		size_t n = trex_escape_char(s + i, len - i, TREX_ESCAPE_TEXT, esc);
		bool ok = esc[0]        ? trex_wbuf_put(w, esc, strlen(esc))
		          : s[i] == '"' ? trex_wbuf_put(w, "\"\"", 2)
		                        : trex_wbuf_put(w, s + i, n);

		if (!ok)
			return false;
		i += n;
	}
	return !quote || trex_wbuf_put(w, "\"", 1);
}

static bool csv_num(struct trex_wbuf *w, int64_t v, char sep)
{
	if (!trex_wbuf_room(w, 24))
		return false;
	w->p = trex_fmt_i64(w->p, v);
	*w->p++ = sep;
	return true;
}

/* rank,process,track, of a track: the same for each of its rows. */
static bool csv_track_cells(struct trex_wbuf *w, const struct trex_index *idx, uint32_t track)
{
	const struct trex_track *t = trex_index_track(idx, track);
	const struct trex_process *p = trex_index_process(idx, t->process);
	char buf[256];

	return csv_num(w, p->rank, ',') &&
	       csv_field(w, trex_device_name(idx, t->process, buf, sizeof(buf))) &&
	       trex_wbuf_put(w, ",", 1) &&
	       csv_field(w, trex_index_str(idx, t->name ? t->name : t->tid)) &&
	       trex_wbuf_put(w, ",", 1);
}

static bool csv_slice(struct trex_wbuf *w, const struct trex_index *idx,
                      const struct trex_export_scope *s, uint32_t id)
{
	const struct trex_slice *sl = trex_index_slice(idx, id);
	int64_t ts, dur;
	enum trex_clip clip;

	if (!xscope_slice(idx, s, id, &ts, &dur, &clip))
		return true;
	w->events++;
	return csv_track_cells(w, idx, sl->track) && csv_num(w, ts, ',') && csv_num(w, dur, ',') &&
	       csv_num(w, sl->depth, ',') &&
	       csv_field(w, trex_kind_label((enum trex_kind)sl->kind)) &&
	       trex_wbuf_put(w, ",", 1) && csv_field(w, trex_index_str(idx, sl->cat)) &&
	       trex_wbuf_put(w, ",", 1) && csv_field(w, trex_index_str(idx, sl->name)) &&
	       trex_wbuf_put(w, ",", 1) && csv_field(w, trex_clip_name(clip)) &&
	       trex_wbuf_put(w, "\n", 1);
}

static enum trex_status csv_body(struct trex_wbuf *w, const struct trex_index *idx,
                                 const struct trex_export_opts *opts, struct trex_error *err)
{
	static const char header[] =
	    "rank,process,track,ts_ns,dur_ns,depth,kind,category,name,clipped\n";
	bool ok = trex_wbuf_put(w, header, sizeof(header) - 1);

	for (uint32_t i = 0; ok && i < trex_index_track_count(idx); i++) {
		const struct trex_track *t = trex_index_track(idx, i);

		if (!trex_export_track_in(idx, &opts->scope, i))
			continue;
		for (uint32_t k = 0; ok && k < t->slice_count; k++)
			ok = csv_slice(w, idx, &opts->scope, t->first_slice + k);
	}
	return ok ? TREX_OK : trex_wbuf_status(w, err);
}

enum trex_status trex_slices_csv_export(const struct trex_index *idx, const char *path,
                                        const struct trex_export_opts *opts,
                                        struct trex_export_progress *done, struct trex_error *err)
{
	return trex_export_to_path(idx, path, false, opts, csv_body, done, err);
}
