/* chakra_write_tool [--json] [--force] OUT INPUT...: loads the inputs as
 * trex does (a Chakra set's prefix, file or directory stands for the set)
 * and writes them with trex_chakra_write (ET: OUT.{rank}.et; --json: the
 * document OUT), then prints what was written:
 *
 *   ranks R nodes N copied C
 *   type COMP_NODE N            (one line per Chakra node type written)
 *   comm_size_unknown N
 *   p2p_as_comp N
 *   order same|differs [NOTE]
 *
 * Errors: one line "chakra_write_tool: MESSAGE" on stderr, exit 2 (1 for
 * usage). Used by tests/e2e/chakra_write.sh until `trex export` calls the
 * writer. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "trex/export/chakra_write.h"
#include "trex/load/chakra_set.h"
#include "trex/load/loader.h"

static const char *const type_names[TREX_CHAKRA_NODE_TYPES] = {
    "INVALID_NODE", "METADATA_NODE",  "MEM_LOAD_NODE",  "MEM_STORE_NODE",
    "COMP_NODE",    "COMM_SEND_NODE", "COMM_RECV_NODE", "COMM_COLL_NODE",
};

static int fail(const struct trex_error *err)
{
	char msg[600];
	trex_error_format(err, msg, sizeof(msg));
	fprintf(stderr, "chakra_write_tool: %s\n", msg);
	return 2;
}

static void report(const struct trex_chakra_write_result *r)
{
	printf("ranks %" PRIu32 " nodes %" PRIu64 " copied %" PRIu64 "\n", r->ranks, r->nodes,
	       r->copied);
	for (int t = 0; t < TREX_CHAKRA_NODE_TYPES; t++)
		if (r->by_type[t])
			printf("type %s %" PRIu64 "\n", type_names[t], r->by_type[t]);
	printf("comm_size_unknown %" PRIu64 "\np2p_as_comp %" PRIu64 "\n", r->comm_size_unknown,
	       r->p2p_as_comp);
	printf("order %s%s%s\n", r->order_differs ? "differs" : "same", r->note[0] ? " " : "",
	       r->note);
}

int main(int argc, char **argv)
{
	struct trex_chakra_write_opts o = {.format = TREX_CHAKRA_OUT_ET};
	struct trex_load_opts lo = {.threads = 1};
	struct trex_chakra_expansion ex;
	struct trex_chakra_write_result r;
	struct trex_error err = {0};
	struct trex_index *idx = NULL;
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--json") == 0)
			o.format = TREX_CHAKRA_OUT_JSON;
		else if (strcmp(argv[i], "--force") == 0)
			o.force = true;
		else
			break;
	}
	if (argc - i < 2) {
		fprintf(stderr, "usage: chakra_write_tool [--json] [--force] OUT INPUT...\n");
		return 1;
	}
	o.prefix = argv[i++];
	if (trex_chakra_expand((const char *const *)argv + i, (size_t)(argc - i), &ex, &err) !=
	    TREX_OK)
		return fail(&err);
	enum trex_status st =
	    trex_load_paths((const char *const *)ex.paths, ex.count, &lo, &idx, &err);
	trex_chakra_expansion_free(&ex);
	if (st == TREX_OK)
		st = trex_chakra_write(idx, &o, &r, &err);
	trex_index_free(idx);
	if (st != TREX_OK)
		return fail(&err);
	report(&r);
	return 0;
}
