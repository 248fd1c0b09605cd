/* The Chakra writer (chakra_write.h) as trace exporters: `trex export --to
 * chakra -o PREFIX` (one PREFIX.RANK.et per rank) and `--to chakra-json -o
 * FILE` (the set as one JSON document). */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "trex/export/chakra_write.h"
#include "trex/export/trace_export.h"

static bool scoped(const struct trex_export_scope *s)
{
	return s->has_range || s->tracks || s->names || s->nranks || s->track_set;
}

/* What the writer approximated, for the command to say. */
static void chakra_note(const struct trex_chakra_write_result *r, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	if (r->comm_size_unknown)
		n += (size_t)snprintf(buf + n, size - n,
		                      "%" PRIu64 " collective%s written with comm_size 0 (no size "
		                      "in the trace); ",
		                      r->comm_size_unknown, r->comm_size_unknown == 1 ? "" : "s");
	if (r->p2p_as_comp && n < size)
		n += (size_t)snprintf(buf + n, size - n,
		                      "%" PRIu64 " send/recv kernel%s of no known collective "
		                      "written as compute; ",
		                      r->p2p_as_comp, r->p2p_as_comp == 1 ? "" : "s");
	if (r->order_differs && n < size)
		n += (size_t)snprintf(buf + n, size - n, "%s; ", r->note);
	if (n >= 2 && n < size)
		buf[n - 2] = '\0';
}

static enum trex_status chakra_export(const struct trex_index *idx, const char *path,
                                      const struct trex_export_opts *opts,
                                      struct trex_export_progress *done,
                                      enum trex_chakra_out_format format, struct trex_error *err)
{
	struct trex_chakra_write_opts wo = {path, format, opts->force, NULL};
	struct trex_chakra_write_result res;
	struct trex_export_progress p = {0, 0, ""};
	enum trex_status st;

	if (strcmp(path, "-") == 0)
		return trex_error_set(
		    err, TREX_USAGE, NULL, -1,
		    "chakra: -o names the files to write (a prefix), not standard "
		    "output");
	if (scoped(&opts->scope))
		return trex_error_set(
		    err, TREX_USAGE, NULL, -1,
		    "chakra: --range, --tracks, --filter and --ranks do not apply: "
		    "an execution trace is written whole, every rank");
	if (opts->progress && opts->progress(opts->progress_user, &p))
		return trex_error_set(err, TREX_CANCELLED, path, -1, "export cancelled");
	memset(&res, 0, sizeof(res));
	st = trex_chakra_write(idx, &wo, &res, err);
	if (st != TREX_OK)
		return st;
	p.events = res.nodes;
	chakra_note(&res, p.note, sizeof(p.note));
	if (done)
		*done = p;
	return TREX_OK;
}

enum trex_status trex_chakra_export(const struct trex_index *idx, const char *path,
                                    const struct trex_export_opts *opts,
                                    struct trex_export_progress *done, struct trex_error *err)
{
	return chakra_export(idx, path, opts, done, TREX_CHAKRA_OUT_ET, err);
}

enum trex_status trex_chakra_json_export(const struct trex_index *idx, const char *path,
                                         const struct trex_export_opts *opts,
                                         struct trex_export_progress *done, struct trex_error *err)
{
	return chakra_export(idx, path, opts, done, TREX_CHAKRA_OUT_JSON, err);
}
