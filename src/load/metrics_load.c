/* Telling metrics inputs from traces, and loading both (metrics_load.h). */
#include "config.h"

#include "trex/load/metrics_load.h"

#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "trex/load/index_cache.h"

/* The best score among a registry's sniffers, and who gave it. */
static int best_trace_score(const unsigned char *head, size_t n)
{
	const struct trex_format *const *f = trex_formats();
	int best = 0;

	for (size_t i = 0; f[i]; i++) {
		int s = f[i]->sniff(head, n);

		best = s > best ? s : best;
	}
	return best;
}

const struct trex_metrics_format *trex_metrics_format_of(struct trex_source *src,
                                                         struct trex_error *err)
{
	const struct trex_metrics_format *const *f = trex_metrics_formats();
	const struct trex_metrics_format *best = NULL;
	unsigned char head[4096]; /* room for a program's output before a report */
	size_t n;
	int best_score = 0, trace;

	trex_error_clear(err);
	n = trex_source_peek(src, head, sizeof(head), err);
	if (err->status != TREX_OK)
		return NULL;
	for (size_t i = 0; f[i]; i++) {
		int s = f[i]->sniff(head, n);

		if (s > best_score) {
			best = f[i];
			best_score = s;
		}
	}
	trace = best_trace_score(head, n);
	return best_score > trace ? best : NULL;
}

bool trex_metrics_damaged(const struct trex_metrics *m)
{
	for (uint32_t i = 0; m && i < trex_metrics_source_count(m); i++) {
		if (trex_metrics_source(m, i)->problems)
			return true;
	}
	return false;
}

/* --strict: a problem of source is the error. */
static enum trex_status strict_check(const struct trex_metrics *m, uint32_t source,
                                     struct trex_error *err)
{
	const struct trex_metrics_source *s = trex_metrics_source(m, source);

	if (!s || !s->problems)
		return TREX_OK;
	*err = s->problem[0];
	return TREX_FORMAT;
}

static enum trex_status load_metrics_source(struct trex_source *src,
                                            const struct trex_metrics_format *f,
                                            const struct trex_load_opts *opts,
                                            struct trex_metrics **metrics, struct trex_error *err)
{
	enum trex_status s;

	if (!*metrics && !(*metrics = trex_metrics_new()))
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	s = f->load(src, *metrics, opts, err);
	if (s == TREX_OK && opts && opts->strict)
		s = strict_check(*metrics, trex_metrics_source_count(*metrics) - 1, err);
	return s;
}

/* Opens every path; metrics inputs are read (and closed) at once, the
 * traces kept in traces[0..*ntraces). */
static enum trex_status split_inputs(const char *const *paths, size_t count,
                                     const struct trex_load_opts *opts, struct trex_source **traces,
                                     size_t *ntraces, struct trex_metrics **metrics,
                                     struct trex_error *err)
{
	enum trex_status s = TREX_OK;

	*ntraces = 0;
	for (size_t i = 0; i < count && s == TREX_OK; i++) {
		struct trex_source *src;
		const struct trex_metrics_format *f;

		s = trex_source_open_cancellable(paths[i], opts ? opts->cancel : NULL, &src, err);
		if (s != TREX_OK)
			break;
		f = trex_metrics_format_of(src, err);
		if (err->status != TREX_OK) {
			s = err->status;
			trex_source_close(src);
		} else if (f) {
			s = load_metrics_source(src, f, opts, metrics, err);
			trex_source_close(src);
		} else {
			traces[(*ntraces)++] = src;
		}
	}
	return s;
}

enum trex_status trex_load_inputs(const char *const *paths, size_t count,
                                  const struct trex_load_opts *opts, struct trex_index **idx,
                                  struct trex_metrics **metrics, struct trex_error *err)
{
	struct trex_source **traces = calloc(count ? count : 1, sizeof(*traces));
	size_t ntraces = 0;
	enum trex_status s;

	trex_error_clear(err);
	*idx = NULL;
	*metrics = NULL;
	if (!traces)
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	s = split_inputs(paths, count, opts, traces, &ntraces, metrics, err);
	if (s == TREX_OK && ntraces) {
		s = trex_cache_load(traces, ntraces, opts,
		                    opts ? (enum trex_cache_mode)opts->cache : TREX_CACHE_OFF,
		                    opts ? opts->cache_report : NULL, idx, err);
		ntraces = 0; /* the index owns them now, also on failure */
	}
	for (size_t i = 0; i < ntraces; i++)
		trex_source_close(traces[i]);
	free(traces);
	if (s == TREX_OK && *idx) {
		if (!*metrics && !(*metrics = trex_metrics_new()))
			s = trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
		else
			s = trex_metrics_add_profiler_ranges(*idx, *metrics, err);
	}
	if (s == TREX_OK && *metrics && !trex_metrics_source_count(*metrics)) {
		trex_metrics_free(*metrics);
		*metrics = NULL;
	}
	if (s != TREX_OK) {
		trex_index_free(*idx);
		trex_metrics_free(*metrics);
		*idx = NULL;
		*metrics = NULL;
	}
	return s;
}
