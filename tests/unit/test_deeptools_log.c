/* The DeepTools compiler log reader: the corpus excerpts' tables (the
 * numbers read off acelyzer/sample_comp_log_ideal.txt and dt_cycles_table.log
 * by eye), phases, and every problem positioned and skipped. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "trex/load/deeptools_log.h"

#define PROBLEMS_MAX 8

struct problems {
	struct trex_error e[PROBLEMS_MAX];
	size_t n;
};

static void collect(void *user, const struct trex_error *problem)
{
	struct problems *p = user;

	if (p->n < PROBLEMS_MAX)
		p->e[p->n] = *problem;
	p->n++;
}

static struct trex_ideal_log *parse(const char *text, struct problems *p)
{
	struct trex_ideal_log *log = NULL;
	struct trex_error err;

	memset(p, 0, sizeof(*p));
	cr_assert_eq(trex_deeptools_log_parse("c.log", text, strlen(text), collect, p, &log, &err),
	             TREX_OK, "%s", err.message);
	return log;
}

static void assert_kernel(const struct trex_ideal_table *t, const char *name, const char *cat,
                          uint64_t cycles)
{
	const struct trex_ideal_kernel *k = trex_ideal_table_find(t, name);

	cr_assert_not_null(k, "no %s", name);
	cr_assert_str_eq(k->category, cat, "%s", name);
	cr_assert_eq(k->cycles, cycles, "%s", name);
}

/* The first lines of acelyzer/sample_comp_log_ideal.txt: a tab before the
 * Total, trailing blanks after the numbers. */
static const char sample[] =
    "[DeepRT] ===== Perf BEGIN =====\n"
    "====== Perf Summary ======\n"
    "~~~~ Ideal/Total Cycles ~~~~\n"
    "-------------------------------------------------------------------------------------------\n"
    "Name                                                                            Ideal Cy.\n"
    "-------------------------------------------------------------------------------------------\n"
    "convolution-opCatConvOs1_fp16                                                   115248        "
    " \n"
    "max_pool2d_with_indices-opCatPooling                                            0             "
    " \n"
    "convolution_1-opCatConv_fp16                                                    12544         "
    " \n"
    "convolution_15-Output-Form1-LxRelayout-opCatStcdpLx                             0             "
    " \n"
    "addmm_MatMul-opCatBmm_fp16                                                      2048          "
    " \n"
    "-------------------------------------------------------------------------------------------\n"
    "Total\t\t\t\t\t\t556336\n"
    "-------------------------------------------------------------------------------------------\n"
    "====== Perf Summary End ======\n"
    "[DeepRT] ===== Perf END =====\n";

Test(deeptools_log, the_sample_table)
{
	struct problems p;
	struct trex_ideal_log *log = parse(sample, &p);
	const struct trex_ideal_table *t = &log->tables[0];

	cr_assert_eq(p.n, 0, "%s", p.e[0].message);
	cr_assert_eq(log->ntables, 1);
	cr_assert_not(log->autopilot);
	cr_assert_eq(t->nkernels, 5);
	cr_assert_str_eq(t->phase, "UNKN");
	cr_assert(t->closed);
	cr_assert_eq(t->line, 3);
	cr_assert_eq(t->total_cycles, 556336);
	assert_kernel(t, "convolution Cmpt Exec", "ConvOs1_fp16", 115248);
	assert_kernel(t, "max_pool2d_with_indices Cmpt Exec", "Pooling", 0);
	assert_kernel(t, "convolution_1 Cmpt Exec", "Conv_fp16", 12544);
	assert_kernel(t, "convolution_15-Output-Form1-LxRelayout Cmpt Exec", "StcdpLx", 0);
	assert_kernel(t, "addmm_MatMul Cmpt Exec", "Bmm_fp16", 2048);
	cr_assert_eq(t->kernels[2].line, 9);
	cr_assert_eq(t->ncategories, 5);
	cr_assert_str_eq(t->categories[0], "ConvOs1_fp16");
	cr_assert_str_eq(t->categories[4], "Bmm_fp16");
	cr_assert_null(trex_ideal_table_find(t, "convolution_1"));
	trex_ideal_log_free(log);
}

/* acelyzer/dt_cycles_table.log names a BMM pass inside the kernel name;
 * -NA and no suffix are NotAvailable; Precompute and -LxPreload are no
 * kernels; PREFILL / DECODING lines set the phase of the next tables. */
Test(deeptools_log, names_categories_and_phases)
{
	static const char text[] = "  PREFILL  \n"
	                           " Ideal/Total Cycles \n"
	                           "addmm_MatMul-BMM_1-opCatBmm_fp16   27648\n"
	                           "bmm-BMM_1-opCatBmm_fp16  12288\n"
	                           "a-b-opCatX-opCatY  7\n"
	                           "gelu-NA 3\r\n"
	                           "plain 5\n"
	                           "x_Precompute-opCatZ 9\n"
	                           "y-LxPreload-opCatZ 9\n"
	                           "Total 100\n"
	                           "====== Perf Summary End ======\n"
	                           "\tDECODING\n"
	                           "~~ Ideal/Total Cycles ~~\n"
	                           "mul-opCatBroadcast 0\n"
	                           "====== Perf Summary End ======\n";
	struct problems p;
	struct trex_ideal_log *log = parse(text, &p);

	cr_assert_eq(p.n, 0, "%s", p.e[0].message);
	cr_assert_eq(log->ntables, 2);
	cr_assert_str_eq(log->tables[0].phase, "PREFILL");
	cr_assert_str_eq(log->tables[1].phase, "DECODING");
	cr_assert_eq(log->tables[0].nkernels, 5);
	assert_kernel(&log->tables[0], "addmm_MatMul-BMM_1 Cmpt Exec", "Bmm_fp16", 27648);
	assert_kernel(&log->tables[0], "a-b Cmpt Exec", "Y", 7);
	assert_kernel(&log->tables[0], "gelu Cmpt Exec", "NotAvailable", 3);
	assert_kernel(&log->tables[0], "plain Cmpt Exec", "NotAvailable", 5);
	cr_assert_eq(log->tables[0].total_cycles, 100);
	assert_kernel(&log->tables[1], "mul Cmpt Exec", "Broadcast", 0);
	trex_ideal_log_free(log);
}

/* Every problem is reported at its line and column, and skipped; the rest
 * of the table loads. */
Test(deeptools_log, problems_are_positioned_and_skipped)
{
	static const char text[] = "DSM-AutoPilot BEGIN\n"                 /* 1 */
	                           " Ideal/Total Cycles \n"                /* 2 */
	                           "good-opCatA 10\n"                      /* 3 */
	                           "huge-opCatA 99999999999999999999999\n" /* 4 */
	                           "good-opCatB 11\n"                      /* 5 */
	                           "good-opCatA 10\n"                      /* 6 */
	                           "what is this\n"                        /* 7 */
	                           "x-opCatA 12 extra\n"                   /* 8 */
	                           "other-opCatC 4\n";                     /* 9 */
	struct problems p;
	struct trex_ideal_log *log = parse(text, &p);
	char buf[400];

	cr_assert(log->autopilot);
	cr_assert_eq(p.n, 6);
	cr_assert_eq(p.e[0].line, 1);
	cr_assert_eq(p.e[1].line, 4);
	cr_assert_eq(p.e[1].col, 13);
	cr_assert_eq(p.e[1].offset, (int64_t)(strlen("DSM-AutoPilot BEGIN\n Ideal/Total Cycles \n"
	                                             "good-opCatA 10\n") +
	                                      12));
	cr_assert(strstr(p.e[1].message, "beyond"));
	cr_assert_eq(p.e[2].line, 5);
	cr_assert(strstr(p.e[2].message, "on line 3 already"), "%s", p.e[2].message);
	cr_assert_eq(p.e[3].line, 7);
	cr_assert_eq(p.e[4].line, 8);
	cr_assert_eq(p.e[5].line, 2);
	cr_assert(strstr(p.e[5].message, "does not end"));
	trex_error_format(&p.e[3], buf, sizeof(buf));
	cr_assert(strncmp(buf, "c.log:7:1: ", 11) == 0, "%s", buf);
	cr_assert_eq(log->tables[0].nkernels, 2);
	cr_assert_not(log->tables[0].closed);
	trex_ideal_log_free(log);
}

Test(deeptools_log, a_file_without_a_table_fails_at_its_end)
{
	static const char *const texts[] = {"", "no table here\nat all",
	                                    " Ideal/Total Cycles \nName  Ideal Cy.\n---\n",
	                                    "====== Perf Summary End ======\nfoo-opCatA 5\n"};
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct trex_ideal_log *log = (struct trex_ideal_log *)1;
		struct trex_error err;

		cr_assert_eq(trex_deeptools_log_parse("e.log", texts[i], strlen(texts[i]), NULL,
		                                      NULL, &log, &err),
		             TREX_FORMAT);
		cr_assert_null(log);
		cr_assert_eq(err.offset, (int64_t)strlen(texts[i]));
		cr_assert_gt(err.line, 0);
		cr_assert(strstr(err.message, "no kernel in an ideal-cycles table"));
	}
}
