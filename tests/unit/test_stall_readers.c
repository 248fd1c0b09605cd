/* The stall readers: unitrace --stall-sampling CSVs and Nsight Compute
 * source-page CSVs from memory, their awkward parts and their damage
 * (positioned problems, intact rows kept). */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "trex/core/profile.h"
#include "trex/load/profile_load.h"

#define MAX_PROBLEMS 16

struct seen {
	struct trex_error e[MAX_PROBLEMS];
	int n;
};

static void collect(void *user, const struct trex_error *problem)
{
	struct seen *s = user;

	if (s->n < MAX_PROBLEMS)
		s->e[s->n] = *problem;
	s->n++;
}

static struct seen seen;

static struct trex_profile *load(const char *text, enum trex_status want)
{
	struct trex_profile *p = trex_profile_new();
	struct trex_profile_load_opts o = {NULL, collect, &seen};
	struct trex_error err;
	enum trex_status st;

	memset(&seen, 0, sizeof(seen));
	cr_assert(p);
	st = trex_profile_load_text(p, "in.csv", text, strlen(text), &o, &err);
	cr_assert_eq(st, want, "%s", err.message);
	if (st == TREX_OK)
		cr_assert_eq(trex_profile_freeze(p, &err), TREX_OK);
	return p;
}

static uint32_t kernel(const struct trex_profile *p, int64_t device, const char *name)
{
	for (uint32_t k = 0; k < trex_profile_kernel_count(p); k++) {
		const struct trex_profile_kernel *kk = trex_profile_kernel(p, k);

		if (kk->device == device && strcmp(trex_profile_str(p, kk->name), name) == 0)
			return k;
	}
	cr_assert_fail("no kernel %s on device %lld", name, (long long)device);
	return 0;
}

/* Samples of reason (by column name) at addr of kernel k. */
static uint64_t at(const struct trex_profile *p, uint32_t k, uint64_t addr, const char *reason)
{
	const struct trex_profile_report *r =
	    trex_profile_report(p, trex_profile_kernel(p, k)->report);
	uint32_t i = trex_profile_insn_find(p, k, addr);

	cr_assert_neq(i, TREX_PROFILE_NONE, "no instruction at 0x%llx", (unsigned long long)addr);
	for (uint32_t s = 0; s < r->nreasons; s++)
		if (strcmp(trex_profile_str(p, trex_profile_reason(p, r->reasons[s])->name),
		           reason) == 0)
			return trex_profile_counts(p, i)[s];
	cr_assert_fail("no reason %s", reason);
	return 0;
}

static void problem_at(int i, int64_t line, int64_t col, const char *what)
{
	cr_assert_gt(seen.n, i, "problem %d missing", i);
	cr_assert_eq(seen.e[i].line, line, "problem %d: line %lld (%s)", i,
	             (long long)seen.e[i].line, seen.e[i].message);
	cr_assert_eq(seen.e[i].col, col, "problem %d: col %lld (%s)", i, (long long)seen.e[i].col,
	             seen.e[i].message);
	cr_assert(strstr(seen.e[i].message, what), "problem %d: '%s' lacks '%s'", i,
	          seen.e[i].message, what);
	cr_assert_str_eq(seen.e[i].path, "in.csv");
}

/* ---- unitrace ---------------------------------------------------------------------------- */

#define PVC_HEADER                                                                                 \
	"          Kernel, IP[Address], Active[Events], ControlStall[Events], PipeStall[Events], " \
	"SendStall[Events], DistStall[Events], SbidStall[Events], SyncStall[Events], "             \
	"InstrFetchStall[Events], OtherStall[Events]\n"

static const char pvc[] = "\n=== Device #0 Metrics ===\n\n" PVC_HEADER
                          "  \"k, one\",          1b8,  3, 0, 0, 0, 0, 412, 0, 0, 0\n"
                          "  \"k, one\",           40,  0, 1, 0, 0, 0,   0, 0, 0, 7\n"
                          "\n=== Device #1 Metrics ===\n\n" PVC_HEADER
                          "  \"k, one\",           40,  0, 0, 0, 9, 0,   0, 0, 0, 0\n";

Test(unitrace, padded_rows_hex_offsets_and_devices)
{
	struct trex_profile *p = load(pvc, TREX_OK);
	uint32_t k0 = kernel(p, 0, "k, one"), k1 = kernel(p, 1, "k, one");

	cr_assert_eq(seen.n, 0);
	cr_assert_eq(at(p, k0, 0x1b8, "SbidStall"), 412);
	cr_assert_eq(at(p, k0, 0x1b8, "Active"), 3);
	cr_assert_eq(at(p, k0, 0x40, "OtherStall"), 7, "40 is hexadecimal: 0x40");
	cr_assert_eq(at(p, k1, 0x40, "SendStall"), 9);
	cr_assert_eq(trex_profile_kernel(p, k0)->stall_total, 420);
	cr_assert_str_eq(trex_profile_str(p, trex_profile_report(p, 0)->format), "unitrace-stalls");
	cr_assert_eq(trex_profile_report(p, 0)->rows, 3);
	trex_profile_free(p);
}

Test(unitrace, the_xe2_psdep_column)
{
	static const char xe2[] =
	    "Kernel, IP[Address], Active[Events], PSDepStall[Events], ControlStall[Events], "
	    "PipeStall[Events], SendStall[Events], DistStall[Events], SbidStall[Events], "
	    "SyncStall[Events], InstrFetchStall[Events], OtherStall[Events]\n"
	    "\"x\", 20, 0, 5, 0, 0, 0, 0, 66, 0, 0, 1\n";
	struct trex_profile *p = load(xe2, TREX_OK);
	uint32_t k = kernel(p, 0, "x");

	cr_assert_eq(at(p, k, 0x20, "PSDepStall"), 5);
	cr_assert_eq(at(p, k, 0x20, "SbidStall"), 66);
	cr_assert_eq(trex_profile_report(p, 0)->nreasons, 10);
	trex_profile_free(p);
}

Test(unitrace, ragged_and_bad_rows_are_reported_and_skipped)
{
	static const char bad[] = "\"early\", 10, 1, 1, 1, 1, 1, 1, 1, 1, 1\n" PVC_HEADER
	                          "\"a\", 10, 0, 0, 0, 0, 0, 5, 0, 0, 0\n"
	                          "\"a\", 20, 0, 0, 0, 0, 0, 5, 0, 0\n"
	                          "\"a\", 30, 0, 0, 0, 0, 0, 5, 0, 0, 0, 9\n"
	                          "\"a\", 4g, 0, 0, 0, 0, 0, 5, 0, 0, 0\n"
	                          "\"a\", 50, 0, 0, x1, 0, 0, 5, 0, 0, 0\n"
	                          "\"a, 60, 0, 0, 0, 0, 0, 5, 0, 0, 0\n"
	                          "\"a\", 70, 0, 0, 0, 0, 0, 6, 0, 0, 0\n"
	                          "\"a\", 80, 0, 0, 0, 0, 0, 7";
	struct trex_profile *p = load(bad, TREX_OK);
	uint32_t k = kernel(p, 0, "a");

	cr_assert_eq(seen.n, 7);
	problem_at(0, 1, 1, "header");
	problem_at(1, 4, 32, "expected 11 fields");
	problem_at(2, 5, 37, "expected 11 fields");
	problem_at(3, 6, 6, "hexadecimal");
	problem_at(4, 7, 16, "sample count");
	problem_at(5, 8, 1, "quoted field");
	problem_at(6, 10, 26, "ends inside this row: 8 of 11 fields");
	cr_assert_eq(at(p, k, 0x10, "SbidStall"), 5);
	cr_assert_eq(at(p, k, 0x70, "SbidStall"), 6);
	cr_assert_eq(trex_profile_kernel(p, k)->ninsns, 2, "only the intact rows");
	cr_assert_eq(trex_profile_report(p, 0)->problems, 7);
	trex_profile_free(p);
}

Test(unitrace, no_header_is_no_report)
{
	struct trex_profile *p = load("Kernel, IP[Address], SbidStall[Events]\n", TREX_OK);

	cr_assert_eq(trex_profile_kernel_count(p), 0);
	trex_profile_free(p);
	p = load("\"a\", 10, 1\n", TREX_FORMAT);
	trex_profile_free(p);
}

Test(sniff, formats_by_their_first_bytes)
{
	static const char ncu[] = "==PROF== Connected to process 1\n\"Kernel Name\",\"k\"\n";

	cr_assert_str_eq(trex_profile_sniff(pvc, sizeof(pvc) - 1), "unitrace-stalls");
	cr_assert_str_eq(trex_profile_sniff(ncu, sizeof(ncu) - 1), "ncu-source");
	cr_assert_str_eq(trex_profile_sniff("\"Line No\",\"Source\",\"x\"", 22), "ncu-source");
	cr_assert_null(trex_profile_sniff("{\"traceEvents\":[]}", 18));
	cr_assert_null(trex_profile_sniff("\"ID\",\"Process ID\",\"Kernel Name\"", 32),
	               "the raw page is metrics, not a source page");
	cr_assert_null(trex_profile_sniff("Kernel,GlobalInstanceId,GpuTime[ns]\n", 36));
}

/* ---- Nsight Compute ------------------------------------------------------------------------- */

#define NCU_HEAD                                                                                   \
	"\"Warp Stall Sampling (All Samples)\",\"stall_long_sb\",\"stall_selected\","              \
	"\"stall_long_sb (Not Issued)\""

Test(ncu, sass_rows_per_kernel_with_offsets_and_separators)
{
	static const char sass[] =
	    "==PROF== Connected to process 4242 (/x)\n"
	    "\"Kernel Name\",\"k1(int)\"\n"
	    "\"Address\",\"Source\"," NCU_HEAD "\n"
	    "\"0x7f0000000100\",\"      IMAD R1, R2 \",\"3\",\"2\",\"1\",\"2\"\n"
	    "\"0x7f0000000110\",\"      FADD R9, R2, R5 \",\"1,235\",\"1,234\",\"1\",\"1,234\"\n"
	    "\"Kernel Name\",\"k2\"\n"
	    "\"Address\",\"Source\"," NCU_HEAD "\n"
	    "\"0x7f0000004000\",\"EXIT\",\"-\",\"-\",\"-\",\"-\"\n";
	struct trex_profile *p = load(sass, TREX_OK);
	uint32_t k1 = kernel(p, 0, "k1(int)"), k2 = kernel(p, 0, "k2");
	const struct trex_profile_insn *in;

	cr_assert_eq(seen.n, 0, "%s", seen.n ? seen.e[0].message : "");
	cr_assert_eq(at(p, k1, 0x10, "stall_long_sb"), 1234, "offsets from the lowest address");
	cr_assert_eq(at(p, k1, 0x0, "stall_selected"), 1);
	cr_assert_eq(at(p, k2, 0x0, "stall_long_sb"), 0);
	cr_assert_eq(trex_profile_report(p, 0)->nreasons, 2, "no total, no Not Issued twin");
	in = trex_profile_insn(p, trex_profile_insn_find(p, k1, 0x10));
	cr_assert_str_eq(trex_profile_str(p, in->text), "FADD R9, R2, R5");
	cr_assert_eq(in->line, 0, "sass alone: no source correlation");
	cr_assert_eq(trex_profile_kernel(p, k1)->stall_total, 1236);
	trex_profile_free(p);
}

static const char cuda_sass[] =
    "\"File Path\",\"/b/v.cu\"\n"
    "\"Function Name\",\"vadd\"\n"
    "\"Line No\",\"Source\",\"Address\",\"Source\"," NCU_HEAD "\n"
    "\"6\",\"    if (i < n)\",\"-\",\"-\",\"4\",\"4\",\"0\",\"4\"\n"
    "\"\",\"\",\"0x1000\",\"ISETP.GE.AND P0\",\"4\",\"4\",\"0\",\"4\"\n"
    "\"7\",\"  c[i] = a[i] + b[i];\",\"-\",\"-\",\"1,235\",\"1,234\",\"1\",\"1,234\"\n"
    "\"\",\"\",\"0x1010\",\"LDG.E R2, [R2.64]\",\"1\",\"0\",\"1\",\"0\"\n"
    "\"\",\"\",\"0x1020\",\"FADD R9, R2, R5\",\"1,234\",\"1,234\",\"0\",\"1,234\"\n"
    "\"8\",\"}\",\"-\",\"-\",\"-\",\"-\",\"-\",\"-\"\n";

Test(ncu, cuda_sass_correlates_source_lines)
{
	struct trex_profile *p = load(cuda_sass, TREX_OK);
	uint32_t k = kernel(p, 0, "vadd");
	const struct trex_profile_insn *in =
	    trex_profile_insn(p, trex_profile_insn_find(p, k, 0x20));
	uint32_t file = trex_profile_str_find(p, "/b/v.cu", 7);

	cr_assert_eq(seen.n, 0, "%s", seen.n ? seen.e[0].message : "");
	cr_assert_eq(trex_profile_kernel(p, k)->ninsns, 3, "the line rows are not instructions");
	cr_assert_eq(in->line, 7);
	cr_assert_eq(in->file, file);
	cr_assert_eq(trex_profile_kernel(p, k)->stall_total, 1238, "lines not counted twice");
	cr_assert_str_eq(trex_profile_str(p, trex_profile_source_text(p, file, 7)),
	                 "c[i] = a[i] + b[i];");
	cr_assert(trex_profile_kernel(p, k)->flags & TREX_KERNEL_SOURCE);
	trex_profile_free(p);
}

Test(ncu, cuda_alone_gives_lines)
{
	static const char cuda[] = "\"File Path\",\"/b/v.cu\"\n\"Function Name\",\"vadd\"\n"
	                           "\"Line No\",\"Source\"," NCU_HEAD "\n"
	                           "\"5\",\"int i;\",\"40\",\"40\",\"0\",\"40\"\n"
	                           "\"7\",\"c[i] = 0;\",\"1,234\",\"1,234\",\"0\",\"1,234\"\n";
	struct trex_profile *p = load(cuda, TREX_OK);
	uint32_t k = kernel(p, 0, "vadd");
	const struct trex_profile_insn *in =
	    trex_profile_insn(p, trex_profile_kernel(p, k)->first_insn + 1);

	cr_assert_eq(trex_profile_kernel(p, k)->ninsns, 2);
	cr_assert(!in->has_addr);
	cr_assert_eq(in->line, 7);
	cr_assert_eq(trex_profile_counts(p, trex_profile_kernel(p, k)->first_insn + 1)[0], 1234);
	trex_profile_free(p);
}

Test(ncu, ragged_and_cut_rows)
{
	static const char bad[] = "\"Kernel Name\",\"k\"\n"
	                          "\"Address\",\"Source\"," NCU_HEAD "\n"
	                          "\"0x10\",\"A\",\"1\",\"1\",\"0\",\"1\"\n"
	                          "\"0x20\",\"B\",\"1\",\"1\",\"0\"\n"
	                          "\"0x30\",\"C\",\"1\",\"1.5\",\"0\",\"1\"\n"
	                          "\"zz\",\"D\",\"1\",\"1\",\"0\",\"1\"\n"
	                          "\"0x40\",\"E\",\"2\",\"2\",\"0\",\"2\"\n"
	                          "\"0x50\",\"F\",\"3\",\"3";
	struct trex_profile *p = load(bad, TREX_OK);
	uint32_t k = kernel(p, 0, "k");

	cr_assert_eq(seen.n, 4);
	problem_at(0, 4, 23, "expected 6 fields as in the header at line 2, found 5");
	problem_at(1, 5, 16, "sample count");
	problem_at(2, 6, 1, "instruction address");
	problem_at(3, 8, 16, "quoted field");
	cr_assert_eq(trex_profile_kernel(p, k)->ninsns, 2);
	cr_assert_eq(at(p, k, 0x30, "stall_long_sb"), 2, "offset from 0x10");
	trex_profile_free(p);
}

Test(ncu, without_sampling_columns_is_no_stall_report)
{
	static const char no[] = "\"Kernel Name\",\"k\"\n\"Address\",\"Source\",\"Instructions "
	                         "Executed\"\n\"0x10\",\"A\",\"1\"\n";
	struct trex_profile *p = load(no, TREX_FORMAT);

	trex_profile_free(p);
}

Test(ncu, the_total_alone_is_a_reason)
{
	static const char old[] = "\"Kernel Name\",\"k\"\n\"Address\",\"Source\",\"Warp Stall "
	                          "Sampling (All Cycles)\"\n\"0x10\",\"A\",\"42\"\n";
	struct trex_profile *p = load(old, TREX_OK);

	cr_assert_eq(at(p, kernel(p, 0, "k"), 0, "Warp Stall Sampling (All Cycles)"), 42);
	trex_profile_free(p);
}
