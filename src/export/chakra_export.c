/* The Chakra writer (chakra_write.h) as trace exporters: `trex export --to
 * chakra -o PREFIX` (one PREFIX.RANK.et per rank) and `--to chakra-json -o
 * FILE` (the set as one JSON document). */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "trex/export/chakra_host_link.h"
#include "trex/export/chakra_write.h"
#include "trex/export/trace_export.h"

static bool scoped(const struct trex_export_scope *s)
{
	return s->has_range || s->tracks || s->names || s->nranks;
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

/* What --host-et linked, first in the note (it is what was asked for). */
static size_t host_link_note(const struct trex_chakra_host_link *l, char *buf, size_t size)
{
	const struct trex_chakra_host_link_stats *s = trex_chakra_host_link_stats(l);
	int n = snprintf(buf, size,
	                 "host ETs: %" PRIu64 " host ops as CPU nodes (%" PRIu64
	                 " linked by record-function id, %" PRIu64 " by name, %" PRIu64
	                 " unmatched), %" PRIu64 " device ops after their launching op, %" PRIu64
	                 " with none; ",
	                 s->host_ops, s->matched_rf_id, s->matched_by_name, s->unmatched_ops,
	                 s->work_linked, s->work_unlinked);
	if (n >= 0 && (size_t)n < size && s->host_skipped)
		n += snprintf(buf + n, size - (size_t)n,
		              "%" PRIu64 " host ET device or duplicate nodes left out; ",
		              s->host_skipped);
	if (n >= 0 && (size_t)n < size && s->damaged_host_ets)
		n += snprintf(buf + n, size - (size_t)n,
		              "%" PRIu64 " host ET%s damaged: `trex integrity` on %s says what was "
		              "lost; ",
		              s->damaged_host_ets, s->damaged_host_ets == 1 ? "" : "s",
		              s->damaged_host_ets == 1 ? "it" : "them");
	return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

static enum trex_status chakra_export(const struct trex_index *idx, const char *path,
                                      const struct trex_export_opts *opts,
                                      struct trex_export_progress *done,
                                      enum trex_chakra_out_format format, struct trex_error *err)
{
	struct trex_chakra_write_opts wo = {path, format, opts->force, NULL, NULL};
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
	if (opts->host_et) {
		st = trex_chakra_host_link_open(idx, opts->host_et, NULL, &wo.host_link, err);
		if (st != TREX_OK)
			return st;
	}
	st = trex_chakra_write(idx, &wo, &res, err);
	size_t linked = st == TREX_OK && wo.host_link
	                    ? host_link_note(wo.host_link, p.note, sizeof(p.note))
	                    : 0;
	trex_chakra_host_link_free(wo.host_link);
	if (st != TREX_OK)
		return st;
	p.events = res.nodes;
	chakra_note(&res, p.note + linked, sizeof(p.note) - linked);
	if (linked && !p.note[linked])
		p.note[linked - 2] = '\0'; /* the host note's "; " when nothing follows */
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
