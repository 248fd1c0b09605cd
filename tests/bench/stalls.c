/* The stall view of a big kernel (issue 14 target: a kernel with 100k
 * sampled instructions opens in <= 100 ms).
 *
 *   stalls DIR [--generate N] [--runs R]
 *
 * With --generate, first writes into DIR a unitrace --stall-sampling CSV
 * (DIR/stalls.csv) of one kernel, bench_kernel, with N sampled
 * instructions, and its IGC shader dump (an .asm file in DIR/dumps): N
 * instructions 16 bytes apart with [ADDR] prefixes, a `// Line L:` annotation every
 * 8 instructions of DIR/src/bench.cpp (written too, recorded as
 * /bench/src/bench.cpp), a basic block every 64, and an SBID token pair
 * every 4 (a load setting $t, two instructions later one waiting on
 * $t.dst), so that the token walk has work. Then, R times (default 5)
 * each: loads the CSV with the dump into a profile store (what trex does
 * before any view), and builds what the views open with on the kernel:
 * the stall report (the view 3 / Enter opens) and the source pane at its
 * hottest line (5 / Enter) and at the hottest instruction's line with its
 * assembly (Enter on a report row), the source file read through a
 * --source-map. Prints the median and best wall time of each and its
 * median CPU time (what a busy machine does not distort). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../../src/ui/stalls_view.h"
#include "bench_time.h"
#include "trex/analysis/stalls.h"
#include "trex/core/profile.h"
#include "trex/load/profile_load.h"
#include "trex/load/source_files.h"
#include "trex/ui/view.h"

#define RUNS_MAX 64
#define INSNS_PER_LINE 8
#define INSNS_PER_BLOCK 64

/* DIR/sub made (sub NULL: DIR itself); 1 (said) when it cannot be. */
static int make_dir(const char *dir, const char *sub)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s%s%s", dir, sub ? "/" : "", sub ? sub : "");
	if (mkdir(path, 0777) != 0 && errno != EEXIST)
		return perror(path), 1;
	return 0;
}

/* DIR/name opened for writing, NULL (said) when it cannot be. */
static FILE *create(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!(f = fopen(path, "w")))
		perror(path);
	return f;
}

/* The samples of instruction i per column (Active, Control, Pipe, Send,
 * Dist, Sbid, Sync, InstrFetch, Other): a few hot spots, every
 * instruction sampled at least once. */
static void samples_of(unsigned long i, unsigned long c[9])
{
	unsigned long h = i * 2654435761u % 1000;

	memset(c, 0, 9 * sizeof(*c));
	c[0] = 1 + h % 7;
	c[2] = h % 3;
	c[4] = h % 5 == 0;
	if (i % 4 == 2) /* the instruction waiting on the token */
		c[5] = h % 97 == 0 ? 400 + h : 3 + h % 40;
	if (i % 4 == 0)
		c[3] = h % 11;
	c[8] = h % 13 == 0;
}

static int write_csv(const char *dir, unsigned long n)
{
	FILE *f = create(dir, "stalls.csv");
	unsigned long c[9];

	if (!f)
		return 1;
	fprintf(f, "\n=== Device #0 Metrics ===\n\n"
	           "        Kernel, IP[Address], Active[Events], ControlStall[Events], "
	           "PipeStall[Events], SendStall[Events], DistStall[Events], SbidStall[Events], "
	           "SyncStall[Events], InstrFetchStall[Events], OtherStall[Events]\n");
	for (unsigned long i = 0; i < n; i++) {
		samples_of(i, c);
		fprintf(f,
		        "\"bench_kernel\", %11lx, %14lu, %20lu, %17lu, %17lu, %17lu, %17lu, %17lu, "
		        "%23lu, %16lu\n",
		        i * 16, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8]);
	}
	return fclose(f) != 0;
}

/* Instruction i of the dump: a load setting token $t every 4, the one 2
 * later waiting on it, ALU work between. */
static void write_insn(FILE *f, unsigned long i)
{
	unsigned t = (unsigned)(i / 4 % 16);

	fprintf(f, "/* [%08lX] */ ", i * 16);
	if (i % 4 == 0)
		fprintf(f,
		        "        load.ugm.d32x1t.a64 (16|M0)  r%lu:1      [r10:2]            "
		        "{A@1,$%u} // ex_desc:0x0; desc:0x8200580 // $%lu\n",
		        12 + i % 64, t, i);
	else if (i % 4 == 2)
		fprintf(f,
		        "        mad (16|M0)              r24.0<1>:f    r24.0<1;0>:f      "
		        "r%lu.0<1;0>:f      r12.0<1;0>:f     {$%u.dst} //  ALU pipe: float; $%lu\n",
		        12 + (i - 2) % 64, t, i);
	else
		fprintf(f,
		        "        add (16|M0)              r26.0<1>:q    r8.0<1;1,0>:q     "
		        "r5.2<0;1,0>:q    {I@1} //  ALU pipe: long; $%lu\n",
		        i);
}

static int write_dump(const char *dir, unsigned long n)
{
	FILE *f = make_dir(dir, "dumps")
	              ? NULL
	              : create(dir, "dumps/OCL_asm0000bench_simd16_entry_0001.asm");
	unsigned long nblocks = (n + INSNS_PER_BLOCK - 1) / INSNS_PER_BLOCK;

	if (!f)
		return 1;
	fprintf(f, "//.kernel bench_kernel\n//.platform XE_HPC\n//.instCount %lu\n\n", n);
	for (unsigned long i = 0; i < n; i++) {
		unsigned long b = i / INSNS_PER_BLOCK;

		if (i % INSNS_PER_BLOCK == 0) {
			fprintf(f, "// B%03lu: Preds:{", b);
			if (b)
				fprintf(f, "B%03lu", b - 1);
			fprintf(f, "},  Succs:{");
			if (b + 1 < nblocks)
				fprintf(f, "B%03lu", b + 1);
			fprintf(f, "}\n_0_%lu:\n", b);
			if (b == 0)
				fprintf(f, "// File: /bench/src/bench.cpp\n");
		}
		if (i % INSNS_PER_LINE == 0)
			fprintf(f, "\n// Line %lu:  acc += step(%lu);\n", 1 + i / INSNS_PER_LINE,
			        i / INSNS_PER_LINE);
		write_insn(f, i);
	}
	return fclose(f) != 0;
}

static int write_source(const char *dir, unsigned long n)
{
	FILE *f = make_dir(dir, "src") ? NULL : create(dir, "src/bench.cpp");

	if (!f)
		return 1;
	for (unsigned long l = 0; l < n / INSNS_PER_LINE + 1; l++)
		fprintf(f, "    acc += step(%lu);\n", l);
	return fclose(f) != 0;
}

static int generate(const char *dir, unsigned long n)
{
	return make_dir(dir, NULL) || write_csv(dir, n) || write_dump(dir, n) ||
	       write_source(dir, n);
}

enum step { STEP_LOAD, STEP_REPORT, STEP_PANE, STEP_PANE_INSN, STEPS };

static const char *const step_names[STEPS] = {
    "load: CSV + shader dump into the store",
    "stall report view (3 on the kernel / Enter)",
    "source pane at the hottest line (5, Enter)",
    "source pane at an instruction, asm shown",
};

/* Per step, wall and CPU time (ms) of each run. */
struct times {
	double wall[STEPS][RUNS_MAX], cpu[STEPS][RUNS_MAX];
};

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

struct clock_mark {
	double wall, cpu;
};

static struct clock_mark mark(void)
{
	return (struct clock_mark){now_ms(), cpu_ms()};
}

static void record(struct times *t, enum step s, int run, struct clock_mark since)
{
	t->wall[s][run] = now_ms() - since.wall;
	t->cpu[s][run] = cpu_ms() - since.cpu;
}

/* The hottest instruction of kernel k's top stall reason. */
static uint32_t hottest_insn(const struct trex_profile *p, uint32_t k)
{
	uint32_t slots[32], top = TREX_PROFILE_NONE;

	if (trex_stalls_reasons(p, k, true, slots) > 0)
		trex_stalls_top(p, k, slots[0], 1, &top);
	return top;
}

static int one_run(const char *dir, struct times *t, int run, uint32_t *ninsns)
{
	char csv[4096], dumps[4096], map[4200];
	const char *paths[1] = {csv}, *maps[1] = {map};
	struct trex_profile_load_opts o = {dumps, NULL, NULL};
	struct trex_ui_ctx ctx = {0};
	struct trex_profile *p = NULL;
	struct trex_view *v;
	struct trex_error err;
	struct clock_mark t0;
	uint32_t top;
	const struct trex_profile_insn *in;

	snprintf(csv, sizeof(csv), "%s/stalls.csv", dir);
	snprintf(dumps, sizeof(dumps), "%s/dumps", dir);
	snprintf(map, sizeof(map), "/bench/src=%s/src", dir);
	t0 = mark();
	if (trex_profile_load_paths(paths, 1, &o, &p, &err) != TREX_OK)
		return fprintf(stderr, "%s: %s\n", csv, err.message), 1;
	record(t, STEP_LOAD, run, t0);
	*ninsns = trex_profile_kernel(p, 0)->ninsns;
	ctx.profile = p;
	ctx.baseline = TREX_PROFILE_NONE;
	ctx.sources = trex_srcfiles_new(NULL, 0, maps, 1);
	t0 = mark();
	v = stall_kernel_view_new(&ctx, 0);
	record(t, STEP_REPORT, run, t0);
	if (v)
		v->ops->free(v);
	t0 = mark();
	v = stall_source_view_new(&ctx, 0, 0, 0, TREX_PROFILE_NONE);
	record(t, STEP_PANE, run, t0);
	if (v)
		v->ops->free(v);
	top = hottest_insn(p, 0);
	in = top != TREX_PROFILE_NONE ? trex_profile_insn(p, top) : NULL;
	t0 = mark();
	v = in ? stall_source_view_new(&ctx, 0, in->file, in->line, top) : NULL;
	record(t, STEP_PANE_INSN, run, t0);
	if (v)
		v->ops->free(v);
	trex_srcfiles_free(ctx.sources);
	trex_profile_free(p);
	return in ? 0 : (fprintf(stderr, "no stall samples: %s\n", ctx.msg), 1);
}

static void report(const char *what, double *wall, double *cpu, int runs)
{
	double best = wall[0];

	for (int r = 1; r < runs; r++)
		best = wall[r] < best ? wall[r] : best;
	printf("  %-44s wall median %8.2f ms, best %8.2f ms; CPU median %8.2f ms\n", what,
	       median(wall, runs), best, median(cpu, runs));
}

int main(int argc, char **argv)
{
	const char *dir = NULL;
	unsigned long n = 0;
	int runs = 5;
	static struct times t;
	uint32_t ninsns = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--generate") == 0 && i + 1 < argc)
			n = strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
			runs = atoi(argv[++i]);
		else
			dir = argv[i];
	}
	if (!dir || runs < 1 || runs > RUNS_MAX)
		return fprintf(stderr, "usage: stalls DIR [--generate N] [--runs N<=64]\n"), 2;
	if (n > 0 && generate(dir, n))
		return 1;
	for (int r = 0; r < runs; r++)
		if (one_run(dir, &t, r, &ninsns))
			return 1;
	printf("%s: one kernel, %u instructions; %d runs:\n", dir, ninsns, runs);
	for (int s = 0; s < STEPS; s++)
		report(step_names[s], t.wall[s], t.cpu[s], runs);
	return 0;
}
