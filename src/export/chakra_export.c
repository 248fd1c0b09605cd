/* The Chakra writer (chakra_write.h) as trace exporters: `trex export --to
 * chakra -o PREFIX` (one PREFIX.RANK.et per rank) and `--to chakra-json -o
 * FILE` (the set as one JSON document). */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "trex/export/chakra_host_link.h"
#include "trex/export/chakra_write.h"
#include "trex/export/trace_export.h"

static bool scoped(const struct trex_export_scope *s)
{
	return s->has_range || s->tracks || s->names || s->nranks || s->track_set;
}

/* Appends printf-style text to buf (size bytes, *n used), never past its end. */
static void say(char *buf, size_t size, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void say(char *buf, size_t size, size_t *n, const char *fmt, ...)
{
	va_list ap;

	if (*n >= size)
		return;
	va_start(ap, fmt);
	int k = vsnprintf(buf + *n, size - *n, fmt, ap);
	va_end(ap);
	*n = k < 0 ? *n : *n + (size_t)k < size ? *n + (size_t)k : size;
}

static const char *plural(uint64_t n, const char *one, const char *more)
{
	return n == 1 ? one : more;
}

/* The writer's progress as the export's (opts: the export's options). */
static bool chakra_progress(const void *user, uint64_t records, uint64_t bytes)
{
	const struct trex_export_opts *opts = user;
	struct trex_export_progress p = {bytes, records, "", ""};

	return opts->progress && opts->progress(opts->progress_user, &p);
}

/* What --host-et linked (first in the note: it is what was asked for). */
static void host_link_note(const struct trex_chakra_host_link *l, char *buf, size_t size, size_t *n)
{
	const struct trex_chakra_host_link_stats *s = trex_chakra_host_link_stats(l);

	say(buf, size, n,
	    "host ETs: %" PRIu64 " host ops as CPU nodes (%" PRIu64
	    " linked by record-function id, %" PRIu64 " by name, %" PRIu64 " unmatched), %" PRIu64
	    " device ops after their launching op, %" PRIu64 " with none; ",
	    s->host_ops, s->matched_rf_id, s->matched_by_name, s->unmatched_ops, s->work_linked,
	    s->work_unlinked);
	if (s->host_skipped)
		say(buf, size, n, "%" PRIu64 " host ET device or duplicate nodes left out; ",
		    s->host_skipped);
	if (s->damaged_host_ets)
		say(buf, size, n,
		    "%" PRIu64 " host ET%s damaged: `trex integrity` on %s says what was lost; ",
		    s->damaged_host_ets, plural(s->damaged_host_ets, "", "s"),
		    plural(s->damaged_host_ets, "it", "them"));
}

/* What the writer linked (--host-et) and approximated, for the command to say. */
static void chakra_note(const struct trex_chakra_write_result *r,
                        const struct trex_chakra_host_link *host_link, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	if (host_link)
		host_link_note(host_link, buf, size, &n);
	if (r->comm_size_unknown)
		say(buf, size, &n,
		    "%" PRIu64 " collective%s written with comm_size 0 (no size in the trace); ",
		    r->comm_size_unknown, plural(r->comm_size_unknown, "", "s"));
	if (r->p2p_as_comp)
		say(buf, size, &n,
		    "%" PRIu64 " send/recv kernel%s of no known collective written as compute; ",
		    r->p2p_as_comp, plural(r->p2p_as_comp, "", "s"));
	if (r->comm_helpers)
		say(buf, size, &n,
		    "%" PRIu64 " kernel%s launched inside a collective's call beside its "
		    "communication kernel written as compute (copies, not the collective); ",
		    r->comm_helpers, plural(r->comm_helpers, "", "s"));
	if (r->order_differs)
		say(buf, size, &n, "%s; ", r->note);
	if (r->syncs_unmatched)
		say(buf, size, &n, "%" PRIu64 " %s named no earlier work (no dependency); ",
		    r->syncs_unmatched,
		    plural(r->syncs_unmatched, "wait or sync", "waits or syncs"));
	if (n >= 2 && n < size)
		buf[n - 2] = '\0';
}

/* What the groups are and where they went, for the command to say. */
static void chakra_groups_said(const struct trex_chakra_write_result *r, const char *path,
                               enum trex_chakra_out_format format, char *buf, size_t size,
                               size_t *n)
{
	if (!r->groups)
		return;
	if (format == TREX_CHAKRA_OUT_JSON) {
		say(buf, size, n,
		    "%" PRIu64 " process group%s (%" PRIu64 " collectives with a pg_name) in the "
		    "document's \"comm_groups\"\n",
		    r->groups, plural(r->groups, "", "s"), r->pg_tagged);
		return;
	}
	say(buf, size, n,
	    "wrote %s%s: %" PRIu64 " process group%s (%" PRIu64 " collectives with a pg_name)\n",
	    path, TREX_CHAKRA_GROUPS_SUFFIX, r->groups, plural(r->groups, "", "s"), r->pg_tagged);
	if (r->groups_by_use)
		say(buf, size, n,
		    "%" PRIu64 " group%s without ranks in the trace: ranks are those whose "
		    "collectives name %s\n",
		    r->groups_by_use, plural(r->groups_by_use, "", "s"),
		    plural(r->groups_by_use, "it", "them"));
	if (r->groups_outside)
		say(buf, size, n,
		    "%" PRIu64 " group%s ranks that are not in the set: only the ranks present are "
		    "in the file\n",
		    r->groups_outside, plural(r->groups_outside, " lists", "s list"));
	if (r->groups_conflicts)
		say(buf, size, n,
		    "%" PRIu64 " time%s a group's ranks disagreed across the set: the file has the "
		    "first list plus every rank using it\n",
		    r->groups_conflicts, plural(r->groups_conflicts, "", "s"));
	say(buf, size, n,
	    "ASTRA-sim: AstraSim_Analytical_Congestion_Unaware --workload-configuration=%s "
	    "--comm-group-configuration=%s%s --system-configuration=SYSTEM.json "
	    "--network-configuration=NETWORK.yml --remote-memory-configuration=MEMORY.json\n",
	    path, path, TREX_CHAKRA_GROUPS_SUFFIX);
}

/* The groups, and the dependencies waits and syncs added, for the command to say. */
static void chakra_also(const struct trex_chakra_write_result *r, const char *path,
                        enum trex_chakra_out_format format, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	chakra_groups_said(r, path, format, buf, size, &n);
	if (r->stream_waits || r->host_syncs)
		say(buf, size, &n,
		    "%" PRIu64 " dependenc%s from %" PRIu64 " stream wait%s and %" PRIu64
		    " synchronization%s\n",
		    r->sync_deps, plural(r->sync_deps, "y", "ies"), r->stream_waits,
		    plural(r->stream_waits, "", "s"), r->host_syncs,
		    plural(r->host_syncs, "", "s"));
	if (n && n < size && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
}

static enum trex_status chakra_export(const struct trex_index *idx, const char *path,
                                      const struct trex_export_opts *opts,
                                      struct trex_export_progress *done,
                                      enum trex_chakra_out_format format, struct trex_error *err)
{
	struct trex_chakra_write_opts wo = {.prefix = path,
	                                    .format = format,
	                                    .force = opts->force,
	                                    .progress = chakra_progress,
	                                    .progress_user = opts};
	struct trex_chakra_write_result res;
	struct trex_export_progress p = {0, 0, "", ""};
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
	if (opts->nsteps && trex_index_graph(idx))
		return trex_error_set(err, TREX_USAGE, NULL, -1,
		                      "chakra: --steps keeps ProfilerSteps of GPU traces; an "
		                      "execution graph is written whole");
	if (opts->progress && opts->progress(opts->progress_user, &p))
		return trex_error_set(err, TREX_CANCELLED, path, -1, "export cancelled");
	struct trex_export_steps *steps = NULL;
	st = opts->nsteps ? trex_export_steps_find(idx, opts->steps, opts->nsteps, &steps, err)
	                  : TREX_OK;
	wo.steps = steps;
	memset(&res, 0, sizeof(res));
	if (st == TREX_OK && opts->host_et)
		st = trex_chakra_host_link_open(idx, opts->host_et, NULL, &wo.host_link, err);
	if (st == TREX_OK)
		st = trex_chakra_write(idx, &wo, &res, err);
	trex_export_steps_free(steps);
	if (st == TREX_OK) {
		p.events = res.nodes;
		chakra_note(&res, wo.host_link, p.note, sizeof(p.note));
	}
	trex_chakra_host_link_free(wo.host_link);
	if (st != TREX_OK)
		return st;
	chakra_also(&res, path, format, p.also, sizeof(p.also));
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
