/* Kineto's CUPTI range-profiler mode (doc/formats/chrome-trace.md §5): no kernel events, one
 * cuda_profiler_range X event per kernel launch whose args are counter
 * values ("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 9119334400).
 * Each event becomes one metrics instance of one sample, linked to the
 * event itself. The args are read back from the trace (they stay in the
 * file until asked for). */
#include "config.h"

#include "trex/load/metrics_load.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_scan.h"
#include "trex/core/grow.h"
#include "trex/load/json_args.h"

#define RANGE_CAT "cuda_profiler_range"
#define KEY_MAX 4096

/* One event's counters: metric ids and values, and the problems seen. */
struct counters {
	uint32_t *ids;
	double *values;
	size_t n, cap_ids, cap_values;
	const char *bad; /* the first member that is not a number, NULL: none */
	bool broken;     /* the args text does not parse to its end */
};

static bool counters_add(struct counters *c, uint32_t id, double v)
{
	uint32_t *ids = trex_grow(c->ids, &c->cap_ids, c->n + 1, sizeof(*ids), 16);
	double *values;

	if (!ids)
		return false;
	c->ids = ids;
	values = trex_grow(c->values, &c->cap_values, c->n + 1, sizeof(*values), 16);
	if (!values)
		return false;
	c->values = values;
	c->ids[c->n] = id;
	c->values[c->n++] = v;
	return true;
}

/* One member "key": value at p (after ws); returns after it, NULL when the
 * text does not parse (c->broken) or memory ran out (*nomem). */
static const char *read_member(struct trex_metrics *m, const char *p, const char *end,
                               struct counters *c, bool *nomem)
{
	unsigned flags = 0;
	const char *kend, *v, *bad = NULL, *after;
	char key[KEY_MAX * 3 + 1];
	size_t klen;
	bool repaired;
	double d;

	if (p >= end || *p != '"' || !(kend = json_string_end(p + 1, end, &flags)) ||
	    (size_t)(kend - p - 1) > KEY_MAX || !(v = json_skip_colon(kend + 1, end, &bad)))
		return NULL;
	klen = json_decode_string(p + 1, (size_t)(kend - p - 1), key, &repaired);
	if (v < end && (json_number_class[(unsigned char)*v] & 1) &&
	    json_parse_double(v, end, &d, &after) == JSON_OK) {
		uint32_t id = trex_metrics_metric(m, key, klen, "", 0, TREX_METRIC_SUM);

		if (id == TREX_METRICS_NONE || !counters_add(c, id, d))
			*nomem = true;
		return *nomem ? NULL : after;
	}
	if (!c->bad)
		c->bad = p;
	return json_skip_value(v, end, &after) == JSON_OK ? after : NULL;
}

/* The members of the args object text[0..len). */
static bool read_counters(struct trex_metrics *m, const char *text, size_t len, struct counters *c)
{
	const char *p = json_skip_ws(text, text + len), *end = text + len;
	bool nomem = false;

	c->n = 0;
	c->bad = NULL;
	c->broken = false;
	if (p >= end || *p != '{')
		return !(c->broken = true);
	p = json_skip_ws(p + 1, end);
	while (p < end && *p != '}') {
		p = read_member(m, p, end, c, &nomem);
		if (!p) {
			c->broken = !nomem;
			return !nomem;
		}
		p = json_skip_ws(p, end);
		if (p < end && *p == ',')
			p = json_skip_ws(p + 1, end);
	}
	return true;
}

static void range_problem(struct trex_metrics *m, uint32_t source, const char *path, int64_t offset,
                          const char *what, const char *name)
{
	struct trex_error e;

	trex_error_set(&e, TREX_FORMAT, path, offset, "%s of cuda_profiler_range '%.60s'", what,
	               name);
	trex_metrics_problem(m, source, &e);
}

struct ranges_ctx {
	const struct trex_index *idx;
	struct trex_metrics *m;
	uint32_t *sources; /* per file: its source, TREX_METRICS_NONE until its first range */
	struct counters c;
};

static uint32_t file_source(struct ranges_ctx *x, uint32_t file)
{
	if (x->sources[file] == TREX_METRICS_NONE) {
		const struct trex_file *f = trex_index_file(x->idx, file);

		x->sources[file] =
		    trex_metrics_add_source(x->m, trex_index_str(x->idx, f->path), "kineto-ranges");
	}
	return x->sources[file];
}

/* "GPU <pid>" (the device index is the pid of Kineto's GPU rows), else
 * the pid's text. */
static void range_device(const struct trex_index *idx, uint32_t track, char *buf, size_t size)
{
	const struct trex_process *p =
	    trex_index_process(idx, trex_index_track(idx, track)->process);
	const char *pid = trex_index_str(idx, p->pid);

	if (pid[0] >= '0' && pid[0] <= '9')
		snprintf(buf, size, "GPU %s", pid);
	else
		snprintf(buf, size, "%s", pid);
}

/* One range event: its counters as an instance linked to slice id. */
static enum trex_status add_range(struct ranges_ctx *x, uint32_t id, struct trex_error *err)
{
	const struct trex_slice *sl = trex_index_slice(x->idx, id);
	uint32_t file = trex_index_track_file(x->idx, sl->track);
	uint32_t source = file_source(x, file), layout = TREX_METRICS_NONE, inst;
	const char *name = trex_index_str(x->idx, sl->name);
	const char *path = trex_index_str(x->idx, trex_index_file(x->idx, file)->path);
	int64_t at = (int64_t)trex_json_args_offset(sl->args);
	char *text = NULL, device[64];
	size_t len = 0;
	enum trex_status s;
	double *row;

	if (source == TREX_METRICS_NONE)
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	s = trex_index_args_json(x->idx, file, sl->args, &text, &len, err);
	if (s != TREX_OK)
		return s;
	if (!read_counters(x->m, text ? text : "", len, &x->c)) {
		free(text);
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	}
	if (x->c.bad)
		range_problem(x->m, source, path, at + (x->c.bad - text),
		              "an arg that is not a number", name);
	if (x->c.broken)
		range_problem(x->m, source, path, at,
		              "args that do not parse (counters after the "
		              "damage not read)",
		              name);
	free(text);
	if (!x->c.n) {
		range_problem(x->m, source, path, at, "no counter", name);
		return TREX_OK;
	}
	range_device(x->idx, sl->track, device, sizeof(device));
	layout = trex_metrics_layout(x->m, x->c.ids, (uint32_t)x->c.n);
	inst = layout == TREX_METRICS_NONE
	           ? TREX_METRICS_NONE
	           : trex_metrics_instance_begin(x->m, &(struct trex_metrics_instance_spec){
	                                                   .source = source,
	                                                   .device = device,
	                                                   .device_len = strlen(device),
	                                                   .kernel = name,
	                                                   .kernel_len = strlen(name),
	                                                   .layout = layout,
	                                                   .offset = at,
	                                               });
	if (inst == TREX_METRICS_NONE || !(row = trex_metrics_sample(x->m)))
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	memcpy(row, x->c.values, x->c.n * sizeof(*row));
	trex_metrics_set_link(x->m, inst, id, TREX_MLINK_IN_TRACE);
	return TREX_OK;
}

enum trex_status trex_metrics_add_profiler_ranges(const struct trex_index *idx,
                                                  struct trex_metrics *m, struct trex_error *err)
{
	uint32_t cat = trex_strtab_find(trex_index_strings(idx), RANGE_CAT, strlen(RANGE_CAT));
	struct ranges_ctx x = {idx, m, NULL, {0}};
	enum trex_status s = TREX_OK;
	uint32_t nfiles = trex_index_file_count(idx);

	if (cat == TREX_STR_ERROR)
		return TREX_OK;
	if (!(x.sources = malloc((nfiles ? nfiles : 1) * sizeof(*x.sources))))
		return trex_error_set(err, TREX_NOMEM, NULL, -1, "out of memory");
	for (uint32_t f = 0; f < nfiles; f++)
		x.sources[f] = TREX_METRICS_NONE;
	for (uint32_t i = 0; i < trex_index_slice_count(idx) && s == TREX_OK; i++) {
		if (trex_index_slice(idx, i)->cat == cat)
			s = add_range(&x, i, err);
	}
	free(x.sources);
	free(x.c.ids);
	free(x.c.values);
	return s;
}
