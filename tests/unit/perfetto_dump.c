/* perfetto_dump FILE: prints what the Perfetto decoder makes of a trace,
 * one record a line, then its counts as "stat NAME VALUE" lines and the
 * error, if any, as "error MESSAGE". tests/e2e/perfetto.sh compares it
 * with tests/e2e/perfetto.py, which decodes the wire format itself.
 *
 *   track UUID kind=K parent=P pid=N tid=N name=NAME unit=U
 *   event B|E|I TS track=UUID seq=N name=NAME cat=CAT flows=A,B term=C args=K=V;K=V
 *   counter TS track=UUID VALUE
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "perfetto_decode.h"

/* Text on one line: backslash, newline, tab and other control bytes as
 * escapes; "-" for none. */
static void put(const char *s)
{
	if (!s) {
		fputs("-", stdout);
		return;
	}
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\\')
			fputs("\\\\", stdout);
		else if (*p == '\n')
			fputs("\\n", stdout);
		else if (*p == '\t')
			fputs("\\t", stdout);
		else if (*p < 0x20 || *p == 0x7f)
			printf("\\x%02x", *p);
		else
			putchar(*p);
	}
}

static void print_ids(const char *label, const uint64_t *v, size_t n)
{
	printf(" %s=", label);
	for (size_t i = 0; i < n; i++)
		printf("%s%" PRIu64, i ? "," : "", v[i]);
}

static enum trex_status on_track(void *user, const struct trex_pf_track *t, struct trex_error *err)
{
	static const char *const kinds[] = {"named", "process", "thread", "counter"};

	(void)user;
	(void)err;
	printf("track %" PRIu64 " kind=%s parent=", t->uuid, kinds[t->kind]);
	if (t->has_parent)
		printf("%" PRIu64, t->parent_uuid);
	else
		printf("-");
	printf(" pid=%d tid=%" PRId64 " name=", t->pid, t->tid);
	put(t->name);
	printf(" unit=");
	put(t->unit);
	printf("\n");
	return TREX_OK;
}

static enum trex_status on_event(void *user, const struct trex_pf_event *e, struct trex_error *err)
{
	static const char types[] = "?BEI";

	(void)user;
	(void)err;
	printf("event %c %" PRId64 " track=%" PRIu64 " seq=%u name=", types[e->type], e->ts,
	       e->track_uuid, e->sequence_id);
	put(e->name);
	printf(" cat=");
	put(e->category);
	print_ids("flows", e->flow_ids, e->n_flow_ids);
	print_ids("term", e->terminating_flow_ids, e->n_terminating_flow_ids);
	printf(" args=");
	for (size_t i = 0; i < e->n_args; i++) {
		printf("%s", i ? ";" : "");
		put(e->args[i].key);
		printf("=");
		put(e->args[i].value);
	}
	printf("\n");
	return TREX_OK;
}

static enum trex_status on_counter(void *user, const struct trex_pf_counter *c,
                                   struct trex_error *err)
{
	(void)user;
	(void)err;
	if (c->is_double)
		printf("counter %" PRId64 " track=%" PRIu64 " %.17g\n", c->ts, c->track_uuid,
		       c->double_value);
	else
		printf("counter %" PRId64 " track=%" PRIu64 " %" PRId64 "\n", c->ts, c->track_uuid,
		       c->int_value);
	return TREX_OK;
}

/* clang-format off */
#define PF_DUMP_STATS(X)                                                                           \
	X(packets) X(bytes) X(track_descriptors) X(track_events) X(slice_begins) X(slice_ends)     \
	X(instants) X(counter_values) X(debug_annotations) X(clock_snapshots) X(interned_entries)  \
	X(unknown_fields) X(packets_with_unknown_fields) X(other_top_level_fields)                 \
	X(corrupt_packets) X(unmatched_slice_ends) X(unfinished_slices) X(truncated)
/* clang-format on */

int main(int argc, char **argv)
{
	struct trex_pf_sink sink = {NULL, on_track, on_event, on_counter, NULL};
	struct trex_pf_stats stats;
	struct trex_source *src = NULL;
	struct trex_error err;
	enum trex_status st;

	if (argc != 2) {
		fprintf(stderr, "usage: perfetto_dump FILE\n");
		return 1;
	}
	st = trex_source_open(argv[1], &src, &err);
	if (st == TREX_OK) {
		st = trex_pf_decode(src, &sink, &stats, &err);
#define PF_DUMP_STAT(name) printf("stat " #name " %" PRIu64 "\n", (uint64_t)stats.name);
		PF_DUMP_STATS(PF_DUMP_STAT)
#undef PF_DUMP_STAT
		trex_source_close(src);
	}
	if (st != TREX_OK) {
		char msg[1024];
		trex_error_format(&err, msg, sizeof(msg));
		printf("error %s\n", msg);
	}
	return st == TREX_OK ? 0 : 2;
}
