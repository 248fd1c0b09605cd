/* chakra_dump FILE...: what the Chakra ET decoder makes of each file, as
 * tests/e2e/chakra.py (which decodes the wire format itself) prints it:
 *
 *   file PATH
 *   metadata yes|legacy
 *   nodes N
 *   type NODE_TYPE COUNT        (one line per type, sorted by name)
 *   damage KIND record R offset O bytes B   (cut, undecodable, bad-length)
 *   what MESSAGE                (the decoder's words for each damage)
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chakra_decode.h"

/* NodeType names in alphabetical order, with their numbers. */
static const struct {
	const char *name;
	int type;
} type_names[] = {
    {"COMM_COLL_NODE", 7}, {"COMM_RECV_NODE", 6}, {"COMM_SEND_NODE", 5}, {"COMP_NODE", 4},
    {"INVALID_NODE", 0},   {"MEM_LOAD_NODE", 2},  {"MEM_STORE_NODE", 3}, {"METADATA_NODE", 1},
};

struct dump {
	uint64_t types[9]; /* [8]: numbers the schema does not have */
	char damage[16][200];
	char what[16][200];
	size_t ndamage;
};

static enum trex_status on_node(void *user, const trex_chakra_node *n,
                                const struct trex_chakra_where *w, struct trex_error *err)
{
	struct dump *d = user;
	(void)w;
	(void)err;
	d->types[(unsigned)n->type < 8 ? n->type : 8]++;
	return TREX_OK;
}

static void on_damage(void *user, enum trex_chakra_damage kind, const struct trex_chakra_where *w,
                      uint64_t bytes, const char *what)
{
	static const char *const kinds[] = {"undecodable", "cut", "bad-length"};
	struct dump *d = user;

	if (d->ndamage == 16)
		return;
	snprintf(d->damage[d->ndamage], sizeof(d->damage[0]),
	         "damage %s record %" PRIu64 " offset %" PRIu64 " bytes %" PRIu64, kinds[kind],
	         w->record, w->offset, bytes);
	snprintf(d->what[d->ndamage++], sizeof(d->what[0]), "%s", what);
}

static int dump(const char *path)
{
	struct dump d;
	struct trex_chakra_sink sink = {.user = &d, .node = on_node, .damage = on_damage};
	struct trex_chakra_stats stats;
	struct trex_source *src;
	struct trex_error err;

	memset(&d, 0, sizeof(d));
	if (trex_source_open(path, &src, &err) != TREX_OK ||
	    trex_chakra_decode(src, &sink, &stats, &err) != TREX_OK) {
		fprintf(stderr, "chakra_dump: %s: %s\n", path, err.message);
		return 1;
	}
	trex_source_close(src);
	printf("file %s\nmetadata %s\nnodes %" PRIu64 "\n", path, stats.legacy ? "legacy" : "yes",
	       stats.nodes);
	for (size_t i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
		if (d.types[type_names[i].type])
			printf("type %s %" PRIu64 "\n", type_names[i].name,
			       d.types[type_names[i].type]);
	if (d.types[8])
		printf("type OTHER %" PRIu64 "\n", d.types[8]);
	for (size_t i = 0; i < d.ndamage; i++)
		printf("%s\nwhat %s\n", d.damage[i], d.what[i]);
	return 0;
}

int main(int argc, char **argv)
{
	int rc = 0;

	for (int i = 1; i < argc; i++)
		rc |= dump(argv[i]);
	return rc;
}
