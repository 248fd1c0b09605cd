/* The stall analyses over hand-built profiles: reason order, the hottest
 * instructions (ties, the bounded heap against a plain sort), baselines,
 * source lines with compared ones, and the tables. */
#include "config.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "trex/analysis/stalls.h"
#include "trex/analysis/table_order.h"

static struct trex_profile *p;
static uint32_t rep_a, rep_b;

static uint32_t s(const char *text)
{
	return trex_profile_intern(p, text, strlen(text));
}

/* Two reports of columns Active, Sbid, Send. */
static void setup(void)
{
	uint32_t r[3];

	p = trex_profile_new();
	r[0] = trex_profile_reason_add(p, "Active", "Active", TREX_REASON_NOT_STALL);
	r[1] = trex_profile_reason_add(p, "SbidStall", "Sbid", TREX_REASON_DEPENDENCY);
	r[2] = trex_profile_reason_add(p, "SendStall", "Send", 0);
	rep_a = trex_profile_report_add(p, "before.csv", "unitrace-stalls", r, 3);
	rep_b = trex_profile_report_add(p, "after.csv", "unitrace-stalls", r, 3);
}

static void teardown(void)
{
	trex_profile_free(p);
}

TestSuite(stalls, .init = setup, .fini = teardown);

static void insn(uint32_t k, uint64_t addr, const char *file, int64_t line, uint64_t active,
                 uint64_t sbid, uint64_t send)
{
	uint64_t c[3] = {active, sbid, send};
	struct trex_insn_info info = {addr, true, 0, 0, file ? s(file) : 0, line};

	cr_assert_eq(trex_profile_insn_add(p, k, &info, c), 0);
}

static void freeze(void)
{
	struct trex_error err;

	cr_assert_eq(trex_profile_freeze(p, &err), TREX_OK);
}

Test(stalls, reasons_by_samples_stalls_only_or_all)
{
	uint32_t k = trex_profile_kernel_add(p, rep_a, 0, s("k")), slots[3];

	insn(k, 0, "a.c", 1, 50, 5, 5);
	freeze();
	cr_assert_eq(trex_stalls_reasons(p, k, true, slots), 2);
	cr_assert(slots[0] == 1 && slots[1] == 2, "a tie keeps the column order");
	cr_assert_eq(trex_stalls_reasons(p, k, false, slots), 3);
	cr_assert_eq(slots[0], 0);
}

static int cmp_desc(const void *a, const void *b, void *arg)
{
	const struct trex_profile *pp = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t cx = trex_profile_counts(pp, x)[1], cy = trex_profile_counts(pp, y)[1];

	if (cx != cy)
		return cx > cy ? -1 : 1;
	return (x > y) - (x < y);
}

Test(stalls, the_heap_agrees_with_a_sort)
{
	uint32_t k = trex_profile_kernel_add(p, rep_a, 0, s("k")), all[500], got[40];
	size_t n = 0, m;
	unsigned seed = 7;

	for (uint64_t a = 0; a < 500; a++) {
		seed = seed * 1103515245u + 12345u;
		insn(k, a * 16, NULL, 0, 0, (seed >> 16) % 23, 0); /* many ties, some zero */
	}
	freeze();
	for (uint32_t i = 0; i < 500; i++)
		if (trex_profile_counts(p, trex_profile_kernel(p, k)->first_insn + i)[1])
			all[n++] = trex_profile_kernel(p, k)->first_insn + i;
	qsort_r(all, n, sizeof(all[0]), cmp_desc, p);
	m = trex_stalls_top(p, k, 1, 40, got);
	cr_assert_eq(m, 40);
	for (size_t i = 0; i < m; i++)
		cr_assert_eq(got[i], all[i], "rank %zu", i + 1);
	/* top above the count: every sampled instruction (all has room for them) */
	cr_assert_eq(trex_stalls_top(p, k, 1, 10000, all), n);
}

Test(stalls, ties_go_to_the_lower_address_and_zeros_never_count)
{
	uint32_t k = trex_profile_kernel_add(p, rep_a, 0, s("k")), top[4];
	const uint32_t first = 0;

	insn(k, 0x40, NULL, 0, 0, 7, 0);
	insn(k, 0x10, NULL, 0, 0, 7, 0);
	insn(k, 0x20, NULL, 0, 0, 9, 0);
	insn(k, 0x30, NULL, 0, 3, 0, 1);
	freeze();
	cr_assert_eq(trex_stalls_top(p, k, 1, 4, top), 3);
	cr_assert_eq(trex_profile_insn(p, top[0])->addr, 0x20);
	cr_assert_eq(trex_profile_insn(p, top[1])->addr, 0x10);
	cr_assert_eq(trex_profile_insn(p, top[2])->addr, 0x40);
	cr_assert_eq(trex_stalls_top(p, k, 1, 0, top), 3, "0: the default of 10");
	cr_assert_eq(trex_stalls_insn_total(p, k, trex_profile_insn_find(p, k, 0x30)), 1);
	(void)first;
}

Test(stalls, the_baseline_is_the_same_kernel_of_an_earlier_report)
{
	uint32_t a0 = trex_profile_kernel_add(p, rep_a, 0, s("k"));
	uint32_t a1 = trex_profile_kernel_add(p, rep_a, 1, s("k"));
	uint32_t b0 = trex_profile_kernel_add(p, rep_b, 0, s("k"));
	uint32_t b1 = trex_profile_kernel_add(p, rep_b, 0, s("other"));
	struct trex_stall_opts o = {0, NULL, TREX_PROFILE_NONE, NULL};

	freeze();
	cr_assert_eq(trex_stalls_baseline(p, b0, &o), a0);
	cr_assert_eq(trex_stalls_baseline(p, a0, &o), TREX_PROFILE_NONE);
	cr_assert_eq(trex_stalls_baseline(p, b1, &o), TREX_PROFILE_NONE);
	o.baseline = rep_b;
	cr_assert_eq(trex_stalls_baseline(p, a0, &o), b0, "--compare names the baseline");
	cr_assert_eq(trex_stalls_baseline(p, b0, &o), TREX_PROFILE_NONE);
	cr_assert_eq(trex_stalls_baseline(p, a1, &o), TREX_PROFILE_NONE, "device 1 is not there");
}

Test(stalls, lines_group_instructions_and_take_the_baseline)
{
	uint32_t a = trex_profile_kernel_add(p, rep_a, 0, s("k"));
	uint32_t b = trex_profile_kernel_add(p, rep_b, 0, s("k"));
	struct trex_stall_lines l;
	struct trex_error err;
	size_t i;

	insn(a, 0x00, "v.c", 5, 0, 10, 0);
	insn(a, 0x10, "v.c", 9, 0, 4, 0);
	insn(b, 0x00, "v.c", 5, 0, 3, 1);
	insn(b, 0x20, "v.c", 5, 9, 0, 2);
	insn(b, 0x30, "v.c", 7, 0, 6, 0);
	insn(b, 0x40, "u.c", 2, 0, 1, 0);
	freeze();
	cr_assert_eq(trex_stalls_lines(p, b, a, &l, &err), TREX_OK);
	cr_assert_eq(l.n, 4);
	cr_assert(l.v[0].file == s("u.c") && l.v[0].line == 2, "files in name order");
	i = trex_stall_lines_find(&l, s("v.c"), 5);
	cr_assert_eq(l.v[i].stall, 6);
	cr_assert_eq(l.v[i].base, 10);
	cr_assert_eq(l.v[i].ninsns, 2);
	cr_assert_eq(l.counts[i * l.nreasons + 0], 9);
	cr_assert_eq(trex_profile_insn(p, l.insns[l.v[i].first + 1])->addr, 0x20);
	i = trex_stall_lines_find(&l, s("v.c"), 9);
	cr_assert(l.v[i].stall == 0 && l.v[i].base == 4 && l.v[i].ninsns == 0,
	          "only the baseline has it");
	cr_assert(l.v[3].line == 9 && l.v[2].line == 7, "lines in order after the baseline's");
	trex_stall_lines_free(&l);
}

Test(stalls, tables_and_their_notes)
{
	uint32_t k = trex_profile_kernel_add(p, rep_a, 0, s("gemm"));
	struct trex_stall_opts o = {2, NULL, TREX_PROFILE_NONE, NULL};
	struct trex_regex *re;
	struct trex_table t;
	struct trex_error err;

	insn(k, 0x10, "g.c", 3, 1, 4, 2);
	insn(k, 0x20, "g.c", 3, 0, 6, 0);
	cr_assert_eq(trex_profile_wait_add(p, k, 0x20, 0x10, s("g.c"), 2), 0);
	freeze();
	cr_assert_eq(trex_stalls_kernels_table(p, &o, &t, &err), TREX_OK);
	cr_assert_eq(t.nrows, 1);
	cr_assert_eq(trex_table_cell(&t, 0, 2)->count, 12);
	cr_assert_str_eq(trex_table_cell(&t, 0, 4)->text, "Sbid");
	cr_assert_float_eq(trex_table_cell(&t, 0, 5)->number, 100.0 * 10 / 12, 1e-9);
	trex_table_free(&t);
	cr_assert_eq(trex_stalls_reasons_table(p, &o, &t, &err), TREX_OK);
	cr_assert_eq(t.nrows, 3);
	cr_assert(isnan(trex_table_cell(&t, 2, 5)->number), "Active has no stall share");
	trex_table_free(&t);
	cr_assert_eq(trex_stalls_top_table(p, &o, &t, &err), TREX_OK);
	cr_assert_eq(t.nrows, 3, "Sbid: 0x20 (with its wait) and 0x10; Send: 0x10");
	cr_assert_str_eq(trex_table_cell(&t, 0, 6)->text, "0x20");
	cr_assert_str_eq(trex_table_cell(&t, 0, 13)->text, "0x10");
	cr_assert_eq(trex_table_cell(&t, 0, 16)->count, 2);
	cr_assert_str_eq(trex_table_cell(&t, 2, 3)->text, "Send");
	cr_assert_str_eq(trex_table_cell(&t, 2, 13)->text, "", "a Send stall waits for nothing");
	trex_table_free(&t);
	cr_assert_eq(trex_regex_compile("^nothing", &re, &err), TREX_OK);
	o.kernel = re;
	cr_assert_eq(trex_stalls_lines_table(p, &o, &t, &err), TREX_OK);
	cr_assert_eq(t.nrows, 0);
	cr_assert_str_eq(t.note, "no kernel of the reports matches --kernel");
	trex_table_free(&t);
	trex_regex_free(re);
}

/* ---- a trace kernel's report (trex_stalls_kernel_for) ------------------------------------- */

/* The report kernel trex_stalls_kernel_for finds for a trace's name. */
static void expect_for(const char *name, uint32_t want, const struct trex_stall_opts *o)
{
	cr_expect_eq(trex_stalls_kernel_for(p, name, o), want, "%s: %u, not %u", name,
	             trex_stalls_kernel_for(p, name, o), want);
}

/* Kernel name with sbid stall samples at one address. */
static uint32_t named(uint32_t rep, int64_t device, const char *name, uint64_t sbid)
{
	uint32_t k = trex_profile_kernel_add(p, rep, device, s(name));

	insn(k, 0x10, NULL, 0, 0, sbid, 0);
	return k;
}

Test(stalls, a_trace_kernel_finds_its_report_by_name)
{
	uint32_t gemm = named(rep_a, 0, "GEMM", 5);
	uint32_t gemm_big = named(rep_a, 0, "GEMM_big", 9);
	uint32_t lam = named(rep_a, 0, "main::{lambda(auto:1)#3}", 7);
	uint32_t run = named(rep_a, 0, "RunAndCheck(...)::__GEMM", 4);
	uint32_t vadd = named(rep_a, 0, "vadd", 3);
	uint32_t scoped = named(rep_a, 0, "ns::detail::reduce", 2);
	struct trex_stall_opts o = {0, NULL, TREX_PROFILE_NONE, NULL};
	const struct {
		const char *trace_name;
		uint32_t want;
	} cases[] = {
	    {"GEMM", gemm},
	    {"GEMM[SIMD32 {1; 1024; 1} {1024; 1; 1}]", gemm},
	    {"GEMM_big [SIMD16 {8; 1; 1} {8; 1; 1}]", gemm_big},
	    {"main::{lambda(auto:1)#3}[SIMD32 {4096; 1; 1} {256; 1; 1}]", lam},
	    {"RunAndCheck(sycl::_V1::queue, float)::__GEMM[SIMD32 {1; 1; 1}]", run},
	    {"void vadd(float const*, float*, int)", vadd},
	    {"reduce(int)", scoped},
	    {"detail::reduce", scoped},
	    /* Neither a part of a name nor another lambda. */
	    {"GEM", TREX_PROFILE_NONE},
	    {"xreduce", TREX_PROFILE_NONE},
	    {"main::{lambda(auto:1)#5}[SIMD32 {1; 1; 1}]", TREX_PROFILE_NONE},
	    {"zeCommandListAppendMemoryCopy(M2D)[4194304]", TREX_PROFILE_NONE},
	};

	freeze();
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
		expect_for(cases[c].trace_name, cases[c].want, &o);
	cr_expect_eq(trex_stalls_kernel_for(NULL, "GEMM", &o), TREX_PROFILE_NONE);
}

Test(stalls, of_several_the_most_samples_and_never_the_baseline)
{
	uint32_t a1 = named(rep_a, 1, "k", 8);
	uint32_t b0 = named(rep_b, 0, "k", 50);
	uint32_t exact = named(rep_a, 0, "k(int)", 1);
	struct trex_stall_opts o = {0, NULL, rep_b, NULL};

	named(rep_a, 0, "k", 5); /* fewer samples than device 1's */

	freeze();
	expect_for("k", a1, &o);
	o.baseline = TREX_PROFILE_NONE;
	expect_for("k", b0, &o);
	/* The exact name first, though another has more samples. */
	expect_for("k(int)", exact, &o);
}
