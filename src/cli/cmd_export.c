/* trex export: the loaded trace, or a scope of it, written by one of the
 * exporters (export/trace_export.h) to -o OUT, with a progress line on a
 * terminal and Ctrl-C removing what was written. */
#include "config.h"

#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "trex/analysis/table_order.h"
#include "trex/core/display.h"
#include "trex/export/export_steps.h"
#include "trex/ui/timespec.h"

#define usage(err, ...) trex_error_set(err, TREX_USAGE, NULL, -1, __VA_ARGS__)
#define EXPORT_PROGRESS_NS 100000000LL

/* ---- options -------------------------------------------------------------------------------- */

static bool parse_rank(const char *s, const char **end, int64_t *v)
{
	char *q;

	errno = 0;
	if (*s < '0' || *s > '9')
		return false;
	*v = strtoll(s, &q, 10);
	*end = q;
	return errno == 0;
}

/* "0,2-3": numbers and ranges of numbers (--ranks, --steps) into out[*n]. */
static enum trex_status parse_number_list(const char *option, const char *example,
                                          struct trex_rank_range *out, size_t *n, const char *arg,
                                          struct trex_error *err)
{
	const char *p = arg;

	*n = 0;
	while (*p) {
		struct trex_rank_range r;

		if (*n == CLI_LIST_MAX || !parse_rank(p, &p, &r.lo))
			break;
		r.hi = r.lo;
		if (*p == '-' && !parse_rank(p + 1, &p, &r.hi))
			break;
		if (r.hi < r.lo || (*p && *p != ','))
			break;
		out[(*n)++] = r;
		if (*p == ',' && !*++p)
			break;
		if (!*p)
			return TREX_OK;
	}
	return usage(err, "%s: expected %s (at most %d items), not '%s'", option, example,
	             CLI_LIST_MAX, arg);
}

/* One end of --range: empty (the trace's edge) or a time. */
static bool range_end_ok(const char *s, size_t n)
{
	struct trex_timespec_target t;
	char buf[128];

	if (n == 0)
		return true;
	if (n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return trex_timespec_locate(buf, 0, 0, 0, &t);
}

static enum trex_status check_range(const char *arg, struct trex_error *err)
{
	const char *colon = strchr(arg, ':');

	if (!colon || !range_end_ok(arg, (size_t)(colon - arg)) ||
	    !range_end_ok(colon + 1, strlen(colon + 1)))
		return usage(err,
		             "--range: expected A:B, times like 1.5ms:2ms or absolute ns "
		             "(A: and :B leave an end open), not '%s'",
		             arg);
	return TREX_OK;
}

enum trex_status cli_apply_export_value(struct cli_opts *o, enum cli_option id, const char *arg,
                                        bool *handled, struct trex_error *err)
{
	char names[128];

	*handled = true;
	switch (id) {
	case CLI_OPT_TO:
		o->export_to = arg;
		if (trex_trace_exporter_named(arg))
			return TREX_OK;
		trex_trace_exporter_names(names, sizeof(names));
		return usage(err, "--to: expected one of %s, not '%s'", names, arg);
	case CLI_OPT_RANGE:
		o->range = arg;
		return check_range(arg, err);
	case CLI_OPT_TRACKS:
		o->tracks = arg;
		return cli_check_pattern("--tracks", arg, err);
	case CLI_OPT_FILTER:
		o->filter = arg;
		return cli_check_pattern("--filter", arg, err);
	case CLI_OPT_RANKS:
		return parse_number_list("--ranks", "ranks like 0,2-3", o->ranks, &o->nranks, arg,
		                         err);
	case CLI_OPT_STEPS:
		return parse_number_list("--steps", "step numbers like 12, 10-12 or 10,12",
		                         o->steps, &o->nsteps, arg, err);
	case CLI_OPT_HOST_ET:
		o->host_et = arg;
		return *arg ? TREX_OK : usage(err, "--host-et: expected host trace files");
	default:
		*handled = false;
		return TREX_OK;
	}
}

/* The exporter --to names, else the one -o's name asks for. */
static enum trex_status pick_exporter(const struct cli_opts *o,
                                      const struct trex_trace_exporter **out,
                                      struct trex_error *err)
{
	if (!o->output)
		return usage(err, "export: -o OUT says where the trace goes");
	if (o->given & (1ull << CLI_OPT_FORMAT))
		return usage(err, "export: --to FORMAT names the trace format, not --format");
	*out = o->export_to ? trex_trace_exporter_named(o->export_to)
	                    : trex_trace_exporter_for_path(o->output);
	if (!*out)
		return usage(err,
		             "export: -o %s does not say which format: add --to chrome, perfetto, "
		             "csv, chakra or chakra-json (or name it .json, .json.gz, .pftrace, "
		             ".csv)",
		             o->output);
	if (o->host_et && strncmp((*out)->name, "chakra", 6) != 0)
		return usage(err, "--host-et applies to --to chakra and chakra-json, not %s",
		             (*out)->name);
	return TREX_OK;
}

enum trex_status cmd_export_check(const struct cli_opts *o, struct trex_error *err)
{
	const struct trex_trace_exporter *ex;
	enum trex_status st = pick_exporter(o, &ex, err);

	return st == TREX_OK ? trex_trace_export_check(o->output, o->force, err) : st;
}

/* ---- the scope --------------------------------------------------------------------------------
 */

/* An end of --range against the loaded trace. */
static int64_t range_end(const char *s, size_t n, int64_t start, int64_t end, int64_t open)
{
	struct trex_timespec_target t;
	char buf[128];

	if (n == 0 || n >= sizeof(buf))
		return open;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return trex_timespec_locate(buf, start, end, start, &t) ? t.t : open;
}

static enum trex_status scope_range(const struct cli_opts *o, const struct trex_index *idx,
                                    struct trex_export_scope *s, struct trex_error *err)
{
	const char *colon;
	int64_t start = trex_index_start(idx), end = trex_index_end(idx);

	if (!o->range)
		return TREX_OK;
	colon = strchr(o->range, ':');
	s->has_range = true;
	s->start = range_end(o->range, (size_t)(colon - o->range), start, end, start);
	s->end = range_end(colon + 1, strlen(colon + 1), start, end, end);
	if (s->end < s->start)
		return usage(err,
		             "--range %s: ends (%" PRId64 " ns) before it starts (%" PRId64 " ns)",
		             o->range, s->end, s->start);
	return TREX_OK;
}

struct scope_regexes {
	struct trex_regex *tracks, *names;
};

static enum trex_status make_scope(const struct cli_opts *o, const struct trex_index *idx,
                                   struct trex_export_scope *s, struct scope_regexes *re,
                                   struct trex_error *err)
{
	enum trex_status st = scope_range(o, idx, s, err);

	if (st == TREX_OK && o->tracks)
		st = trex_regex_compile(o->tracks, &re->tracks, err);
	if (st == TREX_OK && o->filter)
		st = trex_regex_compile(o->filter, &re->names, err);
	s->tracks = re->tracks;
	s->names = re->names;
	s->ranks = o->ranks;
	s->nranks = o->nranks;
	return st;
}

/* --steps: the chakra exporters keep the steps' work themselves; the
 * others keep the time range the steps cover. */
static enum trex_status scope_steps(const struct cli_opts *o, const struct trex_trace_exporter *ex,
                                    const struct trex_index *idx, struct trex_export_opts *eo,
                                    struct trex_error *err)
{
	struct trex_export_steps *steps;
	enum trex_status st;

	if (strncmp(ex->name, "chakra", 6) == 0) {
		eo->steps = o->steps;
		eo->nsteps = o->nsteps;
		return TREX_OK;
	}
	if (o->range)
		return usage(err, "--steps and --range both say which time to keep: give one");
	st = trex_export_steps_find(idx, o->steps, o->nsteps, &steps, err);
	if (st == TREX_OK)
		st = trex_export_steps_range(steps, &eo->scope.start, &eo->scope.end, err);
	eo->scope.has_range = st == TREX_OK;
	trex_export_steps_free(steps);
	return st;
}

/* ---- progress and Ctrl-C --------------------------------------------------------------------- */

struct export_progress {
	const volatile sig_atomic_t *interrupted;
	struct timespec start;
	int64_t last_ns;
	bool show, shown;
};

static int64_t since_ns(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)(now.tv_sec - t0->tv_sec) * 1000000000LL + (now.tv_nsec - t0->tv_nsec);
}

static bool on_export_progress(void *user, const struct trex_export_progress *p)
{
	struct export_progress *pr = user;
	int64_t ns;

	if (*pr->interrupted)
		return true;
	if (!pr->show)
		return false;
	ns = since_ns(&pr->start);
	if (pr->shown && ns - pr->last_ns < EXPORT_PROGRESS_NS)
		return false;
	pr->last_ns = ns;
	pr->shown = true;
	fprintf(stderr, "\rtrex: exporting %.1f MB, %" PRIu64 " %s, %.1f MB/s\033[K",
	        (double)p->bytes / 1e6, p->events, trex_plural(p->events, "event", "events"),
	        ns > 0 ? (double)p->bytes / 1e3 / ((double)ns / 1e6) : 0.0);
	return false;
}

enum trex_status cmd_export(const struct cli_opts *o, const struct cli_model *m, FILE *out,
                            struct trex_error *err)
{
	const struct trex_trace_exporter *ex = NULL; /* set when pick_exporter succeeds */
	struct scope_regexes re = {NULL, NULL};
	struct trex_export_opts eo = {.force = o->force};
	struct export_progress pr = {.show = !o->quiet && isatty(STDERR_FILENO)};
	struct trex_export_progress done = {0, 0, "", ""};
	struct sigaction old;
	enum trex_status st = pick_exporter(o, &ex, err);

	(void)out;
	if (st == TREX_OK)
		st = make_scope(o, m->idx, &eo.scope, &re, err);
	if (st == TREX_OK && o->nsteps)
		st = scope_steps(o, ex, m->idx, &eo, err);
	eo.host_et = o->host_et;
	if (st == TREX_OK) {
		eo.progress = on_export_progress;
		eo.progress_user = &pr;
		clock_gettime(CLOCK_MONOTONIC, &pr.start);
		pr.interrupted = cli_interrupt_begin(&old);
		st = ex->write(m->idx, o->output, &eo, &done, err);
		cli_interrupt_end(&old);
		if (pr.shown)
			fputs("\r\033[K", stderr);
	}
	if (st == TREX_CANCELLED)
		trex_error_set(err, TREX_CANCELLED, NULL, -1, "interrupted: %s not written",
		               o->output);
	else if (st == TREX_OK && !o->quiet && strcmp(o->output, "-") != 0 && done.bytes)
		fprintf(stderr, "trex: wrote %s (%s): %" PRIu64 " %s, %.1f MB\n", o->output,
		        ex->name, done.events, trex_plural(done.events, "event", "events"),
		        (double)done.bytes / 1e6);
	else if (st == TREX_OK && !o->quiet)
		fprintf(stderr, "trex: wrote %s (%s): %" PRIu64 " %s\n", o->output, ex->name,
		        done.events, trex_plural(done.events, "node", "nodes"));
	if (st == TREX_OK && done.note[0])
		fprintf(stderr, "trex: %s: %s\n", o->output, done.note);
	for (const char *l = done.also; st == TREX_OK && !o->quiet && *l;) {
		size_t n = strcspn(l, "\n");
		fprintf(stderr, "trex: %.*s\n", (int)n, l);
		l += n + (l[n] == '\n');
	}
	trex_regex_free(re.tracks);
	trex_regex_free(re.names);
	return st;
}
