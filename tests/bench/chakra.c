/* Chakra ET reading speed (`make bench`, tests/bench/run.sh):
 *
 *   tests/bench/chakra DIR RANKS NODES RUNS
 *
 * Writes the set DIR/bench.{0..RANKS-1}.et once (kept while the files are
 * there): per rank NODES nodes as Chakra's generator writes them, one
 * all-reduce (comm_type, comm_size) every 8 nodes and compute nodes
 * (duration_micros, is_cpu_op false) between, each depending on the one
 * before (data_deps) and every third also on the one before that. Then
 * times, on one thread, RUNS times each: the decoder alone (every record
 * decoded and its facts read), and trex_load_paths of the whole set
 * (-j1): until its progress reports every byte read (the files decoded
 * into the graph store: the reader), and to the end (then the graph's
 * finish, schedule, timeline and the index build). Prints nodes/s of the
 * medians, by wall and by CPU time. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench_time.h"
#include "chakra_decode.h"
#include "trex/load/loader.h"

#define S(lit) ((char *)(uintptr_t)(lit))

/* CPU time of this process, ms: what "per core" means on a shared machine
 * where the wall time also counts the waits for a core. */
static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void put_record(FILE *f, const ProtobufCMessage *m, unsigned char *buf)
{
	size_t n = protobuf_c_message_get_packed_size(m), k = 0;
	unsigned char len[5];

	for (size_t v = n; k == 0 || v; v >>= 7)
		len[k++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
	protobuf_c_message_pack(m, buf);
	fwrite(len, 1, k, f);
	fwrite(buf, 1, n, f);
}

static int write_rank(const char *path, uint64_t first_id, uint64_t nodes)
{
	FILE *f = fopen(path, "wb");
	unsigned char buf[512];
	char name[64];
	ChakraProtoMsg__GlobalMetadata gm;
	ChakraProtoMsg__AttributeProto cpu, type, size;
	ChakraProtoMsg__AttributeProto *comp_attrs[] = {&cpu}, *comm_attrs[] = {&cpu, &type, &size};

	if (!f)
		return -1;
	chakra_proto_msg__global_metadata__init(&gm);
	gm.version = S("0.0.4");
	put_record(f, &gm.base, buf);
	chakra_proto_msg__attribute_proto__init(&cpu);
	chakra_proto_msg__attribute_proto__init(&type);
	chakra_proto_msg__attribute_proto__init(&size);
	cpu.name = S("is_cpu_op");
	cpu.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL;
	type.name = S("comm_type");
	type.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
	size.name = S("comm_size");
	size.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
	size.int64_val = 1 << 20;
	for (uint64_t i = 0; i < nodes; i++) {
		ChakraProtoMsg__Node n;
		uint64_t id = first_id + i, deps[2] = {id - 1, id - 2};
		bool comm = i % 8 == 7;
		chakra_proto_msg__node__init(&n);
		snprintf(name, sizeof(name), "%s_%" PRIu64, comm ? "ALL_REDUCE" : "COMP_NODE", i);
		n.id = id;
		n.name = name;
		n.type = comm ? CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE
		              : CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE;
		n.data_deps = deps;
		n.n_data_deps = i == 0 ? 0 : i % 3 == 0 && i > 1 ? 2 : 1;
		n.duration_micros = comm ? 0 : 10 + i % 50;
		n.attr = comm ? comm_attrs : comp_attrs;
		n.n_attr = comm ? 3 : 1;
		put_record(f, &n.base, buf);
	}
	return fclose(f);
}

static enum trex_status on_node(void *user, const trex_chakra_node *n,
                                const struct trex_chakra_where *w, struct trex_error *err)
{
	struct trex_chakra_facts f;

	(void)w;
	(void)err;
	trex_chakra_node_facts(n, &f);
	*(uint64_t *)user += (uint64_t)f.dur + n->n_data_deps;
	return TREX_OK;
}

static double decode_all(char **paths, int ranks, uint64_t *nodes, double *cpu)
{
	uint64_t sum = 0;
	struct trex_chakra_sink sink = {.user = &sum, .node = on_node};
	double t0 = now_ms(), c0 = cpu_ms();

	*nodes = 0;
	for (int r = 0; r < ranks; r++) {
		struct trex_source *src;
		struct trex_chakra_stats st;
		struct trex_error err;
		if (trex_source_open(paths[r], &src, &err) != TREX_OK ||
		    trex_chakra_decode(src, &sink, &st, &err) != TREX_OK) {
			fprintf(stderr, "chakra bench: %s: %s\n", paths[r], err.message);
			exit(1);
		}
		trex_source_close(src);
		*nodes += st.nodes;
	}
	*cpu = cpu_ms() - c0;
	return now_ms() - t0;
}

/* When the loader's progress reached every byte: the files are read into
 * the graph store; what follows is the graph's finish, schedule, drawing
 * and the index build. */
struct read_mark {
	double wall, cpu;
};

static void on_progress(const struct trex_load_progress *p, void *user)
{
	struct read_mark *m = user;

	if (p->bytes_done >= p->bytes_total && m->wall == 0) {
		m->wall = now_ms();
		m->cpu = cpu_ms();
	}
}

static double load_all(char **paths, int ranks, bool *ok, char *why, size_t why_size, double *cpu,
                       double *read_wall, double *read_cpu)
{
	struct read_mark mark = {0, 0};
	struct trex_load_opts opts = {
	    .threads = 1, .progress = on_progress, .progress_user = &mark};
	struct trex_index *idx = NULL;
	struct trex_error err;
	double t0 = now_ms(), c0 = cpu_ms();

	*ok = trex_load_paths((const char *const *)paths, (size_t)ranks, &opts, &idx, &err) ==
	      TREX_OK;
	double ms = now_ms() - t0;
	*cpu = cpu_ms() - c0;
	*read_wall = mark.wall - t0;
	*read_cpu = mark.cpu - c0;
	if (!*ok)
		snprintf(why, why_size, "%s", err.message);
	trex_index_free(idx);
	return ms;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: chakra DIR RANKS NODES RUNS\n");
		return 2;
	}
	const char *dir = argv[1];
	int ranks = atoi(argv[2]), runs = atoi(argv[4]);
	uint64_t per_rank = strtoull(argv[3], NULL, 10), nodes = 0;
	char **paths = calloc((size_t)ranks, sizeof(*paths));
	double dec[32], load[32], dec_cpu[32], load_cpu[32], read[32], read_cpu[32];
	char why[256] = "";
	bool ok = true;

	if (ranks < 1 || runs < 1 || runs > 32 || !paths)
		return 2;
	mkdir(dir, 0777);
	for (int r = 0; r < ranks; r++) {
		struct stat sb;
		paths[r] = malloc(strlen(dir) + 32);
		sprintf(paths[r], "%s/bench.%d.et", dir, r);
		if (stat(paths[r], &sb) != 0 &&
		    write_rank(paths[r], (uint64_t)r * per_rank, per_rank)) {
			fprintf(stderr, "chakra bench: cannot write %s\n", paths[r]);
			return 1;
		}
	}
	for (int i = 0; i < runs; i++)
		dec[i] = decode_all(paths, ranks, &nodes, &dec_cpu[i]);
	for (int i = 0; i < runs && ok; i++)
		load[i] = load_all(paths, ranks, &ok, why, sizeof(why), &load_cpu[i], &read[i],
		                   &read_cpu[i]);
	double d = median(dec, runs), dc = median(dec_cpu, runs);
	printf("chakra: %d ranks x %" PRIu64 " nodes = %" PRIu64 " nodes\n", ranks, per_rank,
	       nodes);
	printf("chakra: decode -j1: %.0f ms wall (%.2f M nodes/s), %.0f ms CPU (%.2f M nodes/s)\n",
	       d, (double)nodes / d / 1e3, dc, (double)nodes / dc / 1e3);
	if (ok) {
		double r = median(read, runs), rc = median(read_cpu, runs);
		printf(
		    "chakra: read into the graph store -j1: %.0f ms wall (%.2f M nodes/s), %.0f ms "
		    "CPU (%.2f M nodes/s)\n",
		    r, (double)nodes / r / 1e3, rc, (double)nodes / rc / 1e3);
		double l = median(load, runs), lc = median(load_cpu, runs);
		printf("chakra: trex_load_paths -j1: %.0f ms wall (%.2f M nodes/s), %.0f ms CPU "
		       "(%.2f M nodes/s)\n",
		       l, (double)nodes / l / 1e3, lc, (double)nodes / lc / 1e3);
	} else {
		printf("chakra: trex_load_paths -j1: failed: %s\n", why);
	}
	for (int r = 0; r < ranks; r++)
		free(paths[r]);
	free(paths);
	return ok ? 0 : 1;
}
