/* libFuzzer target: arbitrary bytes as a Perfetto protobuf trace (plain or
 * gzip) through the streaming decoder, every record's strings, flows and
 * args read (so uninitialised or dangling ones would show under ASan);
 * then through the loader into an index, every slice's args read back as
 * JSON through the perfetto args codec.
 * Built and run by tests/fuzz/run.sh (`make fuzz`). */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "perfetto_decode.h"
#include "trex/load/loader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t touch(const char *s)
{
	return s ? strlen(s) : 0;
}

static enum trex_status on_track(void *user, const struct trex_pf_track *t, struct trex_error *err)
{
	(void)err;
	*(size_t *)user += touch(t->name) + touch(t->unit) + (size_t)t->uuid;
	return TREX_OK;
}

static enum trex_status on_event(void *user, const struct trex_pf_event *e, struct trex_error *err)
{
	size_t sum = touch(e->name) + touch(e->category) + (size_t)e->ts;

	(void)err;
	for (size_t i = 0; i < e->n_flow_ids; i++)
		sum += (size_t)e->flow_ids[i];
	for (size_t i = 0; i < e->n_terminating_flow_ids; i++)
		sum += (size_t)e->terminating_flow_ids[i];
	for (size_t i = 0; i < e->n_args; i++)
		sum += touch(e->args[i].key) + touch(e->args[i].value);
	*(size_t *)user += sum;
	return TREX_OK;
}

static enum trex_status on_counter(void *user, const struct trex_pf_counter *c,
                                   struct trex_error *err)
{
	(void)err;
	*(size_t *)user += (size_t)c->int_value + (c->double_value > 0);
	return TREX_OK;
}

static void on_problem(void *user, const struct trex_error *problem)
{
	*(size_t *)user += touch(problem->message);
}

/* The bytes loaded as a Perfetto trace (whatever they start with). */
static size_t load(const uint8_t *data, size_t size)
{
	struct trex_load_opts opts = {.threads = 1, .format = "perfetto"};
	struct trex_source *src = NULL;
	struct trex_index *idx = NULL;
	struct trex_error err;
	size_t sum = 0;

	if (trex_source_open_memory("fuzz.pftrace", data, size, false, &src, &err) != TREX_OK ||
	    trex_load_sources(&src, 1, &opts, &idx, &err) != TREX_OK)
		return 0;
	for (uint32_t i = 0; i < trex_index_slice_count(idx); i++) {
		char *json = NULL;
		size_t len = 0;
		if (trex_index_args_json(idx, 0, trex_index_slice(idx, i)->args, &json, &len,
		                         &err) == TREX_OK)
			sum += len + touch(json);
		free(json);
	}
	trex_index_free(idx);
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t sum = 0;
	struct trex_pf_sink sink = {&sum, on_track, on_event, on_counter, on_problem};
	struct trex_pf_stats stats;
	struct trex_error err;

	trex_pf_decode_buffer("fuzz.pftrace", data, size, &sink, &stats, &err);
	sum += load(data, size);
	return sum == 1 ? 0 : 0; /* sum keeps the reads from being optimised away */
}
