/* The unitrace text reader (src/load/unitrace_*.c) through the metrics
 * registry: the -q/-k metric CSVs in both header styles, blank lines and
 * idle samples, damaged rows positioned and skipped, the -d/-h reports and
 * kernel properties in their layouts, sniffing, gzip input. Expected
 * values are read off the texts below. */
#include "config.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "trex/core/metrics.h"
#include "trex/load/metrics_load.h"
#include "trex/load/source.h"

static struct trex_metrics *m;

static void setup(void)
{
	m = trex_metrics_new();
}

static void teardown(void)
{
	trex_metrics_free(m);
}

TestSuite(unitrace_text, .init = setup, .fini = teardown);

/* Loads text[0..len) as file name; returns the status. */
static enum trex_status load_bytes(const char *name, const void *text, size_t len,
                                   struct trex_error *err)
{
	struct trex_source *src;
	const struct trex_metrics_format *f;
	enum trex_status s;

	cr_assert_eq(trex_source_open_memory(name, text, len, true, &src, err), TREX_OK);
	f = trex_metrics_format_of(src, err);
	cr_assert_not_null(f, "%s is not sniffed as metrics", name);
	s = f->load(src, m, NULL, err);
	trex_source_close(src);
	return s;
}

static void load(const char *text)
{
	struct trex_error err;

	cr_assert_eq(load_bytes("m.csv", text, strlen(text), &err), TREX_OK, "%s", err.message);
}

/* Instance i's value of metric name ("XVE_ACTIVE[%]"). */
static double value(uint32_t i, const char *name)
{
	uint32_t id = trex_metrics_metric_find(m, name);
	double v;

	cr_assert_neq(id, TREX_METRICS_NONE, "no metric %s", name);
	cr_assert(trex_metrics_instance_value(m, i, id, &v), "instance %u has no %s", i, name);
	return v;
}

static const char *kernel(uint32_t i)
{
	return trex_metrics_str(m, trex_metrics_instance(m, i)->kernel);
}

/* ---- metric CSVs ---------------------------------------------------------------------------- */

/* -q in legacy mode (ze_collector.h): banner, header, rows, a blank line
 * after each instance; instance 5 has two sub-device rows. */
static const char query[] =
    "\n=== Device #0 Metrics ===\n"
    "\nKernel,GlobalInstanceId,SubDeviceId,GpuTime[ns],XVE_ACTIVE[%],QueryBeginTime[ns],"
    "ReportReason\n"
    "\"main::{lambda(auto:1)#1}[SIMD32 {4096; 1; 1} {256; 1; 1}]\",1,0,20137,51.250000,"
    "1001000000,1\n"
    "\n"
    "\"gemm<float, 16>[SIMD16 {64; 64; 1} {8; 8; 1}]\",5,0,100,50.000000,2000,1\n"
    "\"gemm<float, 16>[SIMD16 {64; 64; 1} {8; 8; 1}]\",5,1,300,70.000000,1000,0\n"
    "\n";

Test(unitrace_text, query_csv_current_style)
{
	const struct trex_metrics_instance *in;

	load(query);
	cr_assert_eq(trex_metrics_instance_count(m), 2);
	in = trex_metrics_instance(m, 1);
	cr_assert_str_eq(kernel(1), "gemm<float, 16>[SIMD16 {64; 64; 1} {8; 8; 1}]", "quotes off");
	cr_assert_str_eq(trex_metrics_str(m, in->device), "Device #0");
	cr_assert_eq(in->id, 5);
	cr_assert(in->flags & TREX_MINST_HAS_ID);
	cr_assert_eq(in->samples, 2);
	cr_assert_eq(in->line, 7, "the line of its first row");
	cr_assert_float_eq(value(1, "GpuTime[ns]"), 400, 0, "ns add up");
	cr_assert_float_eq(value(1, "XVE_ACTIVE[%]"), 60, 1e-12, "%% average");
	cr_assert_float_eq(value(1, "QueryBeginTime[ns]"), 2000, 0, "a point in time: the first");
	cr_assert_float_eq(value(1, "ReportReason"), 1, 0, "no unit: the first");
	cr_assert_float_eq(value(0, "XVE_ACTIVE"), 51.25, 0);
	cr_assert_float_eq(value(0, "SubDeviceId"), 0, 0);
	cr_assert_eq(trex_metrics_metric_find(m, "GlobalInstanceId"), TREX_METRICS_NONE,
	             "the id is the instance's, not a metric");
	cr_assert_eq(trex_metrics_source(m, 0)->problems, 0);
	cr_assert_eq(trex_metrics_source(m, 0)->lines, 9);
}

Test(unitrace_text, query_csv_without_banner)
{
	load(query + strlen("\n=== Device #0 Metrics ===\n"));
	cr_assert_eq(trex_metrics_instance_count(m), 2);
	cr_assert_str_eq(trex_metrics_str(m, trex_metrics_instance(m, 0)->device), "");
}

/* -k (ze_metrics.h): ", " between fields, samples until a blank line,
 * NoKernel samples between kernels with dummy ids. */
static const char sampling[] =
    "\n=== Device #1 Metrics ===\n"
    "\nKernel, GlobalInstanceId, GpuTime[ns], XVE_ACTIVE[%], CoreFrequencyMHz[MHz], StreamMarker\n"
    "\"k1[SIMD32 {1; 1; 1} {2; 1; 1}]\", 1, 50000, 30.250000, 1400, 0\n"
    "\"k1[SIMD32 {1; 1; 1} {2; 1; 1}]\", 1, 50010, 42.750000, 1402, 0\n"
    "\n"
    "\"NoKernel(Before k2)\", 1048577, 50000, 0.000000, 1400, 0\n"
    "\n"
    "\"k2\", 2, 10, 10.000000, 1500, 0\n"
    "\"k2\", 3, 20, 20.000000, 1500, 0\n"
    "\n";

Test(unitrace_text, sampling_csv_instances_and_idle)
{
	load(sampling);
	cr_assert_eq(trex_metrics_instance_count(m), 4, "k1, idle, k2 id 2, k2 id 3");
	cr_assert_eq(trex_metrics_instance(m, 0)->samples, 2);
	cr_assert_float_eq(value(0, "GpuTime[ns]"), 100010, 0);
	cr_assert_float_eq(value(0, "XVE_ACTIVE[%]"), 36.5, 1e-12);
	cr_assert_float_eq(value(0, "CoreFrequencyMHz[MHz]"), 1401, 1e-12, "MHz average");
	cr_assert(trex_metrics_instance(m, 1)->flags & TREX_MINST_IDLE);
	cr_assert_str_eq(kernel(1), "NoKernel(Before k2)");
	cr_assert_eq(trex_metrics_instance(m, 2)->id, 2, "another id without a blank line: new");
	cr_assert_eq(trex_metrics_instance(m, 3)->id, 3);
	cr_assert_str_eq(trex_metrics_str(m, trex_metrics_instance(m, 3)->device), "Device #1");
}

/* The older style (scripts/roofline/example): its header before every
 * instance, trailing commas, %g floats, a Device column, no ids. */
static const char older[] =
    "\n== Kernel Metrics ==\n\n\n"
    "Kernel,Device,SubDeviceId,GpuTime[ns],XVE_ACTIVE[%],XVE_STALL[%],\n"
    "binary_test[SIMD16 {1; 1; 1} {4; 2; 1}],0,0,563720,6.89741e-06,0.00162064,\n"
    "\n"
    "Kernel,Device,SubDeviceId,GpuTime[ns],XVE_ACTIVE[%],XVE_STALL[%],\n"
    "hgemm[SIMD16 {56; 1; 1} {64; 8; 1}],0,0,4733040,90.354,3.26538,\n"
    "\n"
    "Kernel,Device,SubDeviceId,GpuTime[ns],XVE_ACTIVE[%],XVE_STALL[%],\n"
    "hgemm[SIMD16 {56; 1; 1} {64; 8; 1}],0,0,4504960,90.63,3.1351,\n";

Test(unitrace_text, older_style)
{
	load(older);
	cr_assert_eq(trex_metrics_instance_count(m), 3);
	cr_assert_eq(trex_metrics_layout_width(m, trex_metrics_instance(m, 0)->layout), 4,
	             "SubDeviceId and three metrics; the trailing comma is none");
	cr_assert_not(trex_metrics_instance(m, 0)->flags & TREX_MINST_HAS_ID);
	cr_assert_str_eq(trex_metrics_str(m, trex_metrics_instance(m, 0)->device), "Device #0");
	cr_assert_str_eq(kernel(0), "binary_test[SIMD16 {1; 1; 1} {4; 2; 1}]");
	cr_assert_eq(value(0, "XVE_ACTIVE[%]"), 6.89741e-06, "%%g read exactly");
	cr_assert_eq(value(1, "XVE_ACTIVE[%]"), 90.354);
	cr_assert_eq(value(2, "GpuTime[ns]"), 4504960);
	cr_assert_eq(trex_metrics_source(m, 0)->problems, 0);
}

/* ---- damage ------------------------------------------------------------------------------------
 */

static const struct trex_error *problem(uint32_t i)
{
	cr_assert_lt(i, trex_metrics_source(m, 0)->kept);
	return &trex_metrics_source(m, 0)->problem[i];
}

Test(unitrace_text, damaged_rows_are_positioned_and_the_rest_kept)
{
	static const char text[] = "Kernel,GlobalInstanceId,SubDeviceId,GpuTime[ns],XVE_ACTIVE[%]\n"
	                           "\"a\",1,0,10,1.5\n"
	                           "\"a\",1,1,20\n"       /* short */
	                           "\"a\",1,2,30,2.5,9\n" /* long */
	                           "\n"
	                           "\"b\",2,0,abc,3.5\n" /* not a number */
	                           "\"b\",,0,40,3.5\n"   /* no id */
	                           "\"c\",3,0,50,4";     /* cut */

	load(text);
	cr_assert_eq(trex_metrics_instance_count(m), 2, "a and b; c's only row is cut");
	cr_assert_eq(trex_metrics_instance(m, 0)->samples, 1);
	cr_assert_eq(trex_metrics_instance(m, 1)->samples, 1);
	cr_assert_not(
	    trex_metrics_instance_value(m, 1, trex_metrics_metric_find(m, "GpuTime"), &(double){0}),
	    "abc is no value");
	cr_assert_float_eq(value(1, "XVE_ACTIVE[%]"), 3.5, 0, "the rest of the row kept");
	cr_assert_eq(trex_metrics_source(m, 0)->problems, 5);
	cr_assert_eq(problem(0)->line, 3);
	cr_assert(strstr(problem(0)->message, "4 fields where its header has 5"), "%s",
	          problem(0)->message);
	cr_assert_eq(problem(1)->line, 4);
	cr_assert(strstr(problem(1)->message, "6 fields"));
	cr_assert_eq(problem(2)->line, 6);
	cr_assert_eq(problem(2)->col, 9, "at the value");
	cr_assert_eq(problem(2)->offset, (int64_t)strstr(text, "abc") - (int64_t)text);
	cr_assert(strstr(problem(2)->message, "'abc' is not a number"));
	cr_assert(strstr(problem(3)->message, "without an instance id"));
	cr_assert_eq(problem(4)->line, 8);
	cr_assert(strstr(problem(4)->message, "ends inside"), "%s", problem(4)->message);
	cr_assert_str_eq(problem(4)->path, "m.csv");
}

Test(unitrace_text, nothing_readable_is_an_error)
{
	static const char text[] = "=== Device Timing Summary ===\n\nno table here\n";
	struct trex_error err;

	cr_assert_eq(load_bytes("d.txt", text, strlen(text), &err), TREX_FORMAT);
	cr_assert(strstr(err.message, "expected unitrace metrics or reports"), "%s", err.message);
}

/* The reader on empty input (whatever sniffing says): an error, no
 * arithmetic on the empty source's NULL data (the fuzz target's first find,
 * under clang's -fsanitize=pointer-overflow). */
Test(unitrace_text, empty_input_is_an_error)
{
	struct trex_source *src;
	struct trex_error err;

	cr_assert_eq(trex_source_open_memory("e.csv", "", 0, true, &src, &err), TREX_OK);
	cr_assert_eq(trex_metrics_formats()[0]->load(src, m, NULL, &err), TREX_FORMAT);
	trex_source_close(src);
	cr_assert_eq(trex_metrics_instance_count(m), 0);
}

/* ---- reports -----------------------------------------------------------------------------------
 */

/* -d as test/cpp_test/dpc_gemm/gold/linux/d.txt lays it out: names quoted
 * and right-aligned (one with commas), numbers padded. */
static const char device_timing[] =
    "\n=== Device Timing Summary ===\n\n"
    "                Total Execution Time (ns):            214649009\n"
    "    Total Device Time for L0 backend (ns):             97642160\n"
    "\n== L0 Backend ==\n\n"
    "                   Kernel,        Calls,            Time (ns),     Time (%),         Average "
    "(ns),             Min (ns),             Max (ns)\n"
    "\"Run(float, int)::__GEMM\",            4,             89769760,    91.937500,             "
    "22442440,             22436320,             22454240\n"
    "   \"zeCommandListAppendMemoryCopy(M2D)\",           12,              5238880,     "
    "5.365387,               436573,               328560,               774800\n"
    "\n\n=== Kernel Properties ===\n\n"
    "                   Kernel, Compiled, SIMD, Number of Arguments, SLM Per Work Group, Private "
    "Memory Per Thread, Spill Memory Per Thread, Register File Size Per Thread\n"
    "\"Run(float, int)::__GEMM\",      JIT,  ANY,                   4,                  0,      "
    "                   0,                       0,                       unknown\n";

Test(unitrace_text, device_timing_and_properties)
{
	double v;

	load(device_timing);
	cr_assert_eq(trex_metrics_report_count(m), 3, "totals, L0 backend, properties");
	cr_assert_eq(trex_metrics_report(m, 0)->kind, TREX_REPORT_TOTALS);
	cr_assert_str_eq(trex_metrics_report_cell(m, 0, 1, 0, NULL),
	                 "Total Device Time for L0 backend (ns)");
	trex_metrics_report_cell(m, 0, 1, 1, &v);
	cr_assert_float_eq(v, 97642160, 0);
	cr_assert_eq(trex_metrics_report(m, 1)->kind, TREX_REPORT_DEVICE_TIMING);
	cr_assert_str_eq(trex_metrics_str(m, trex_metrics_report(m, 1)->title), "L0 Backend");
	cr_assert_eq(trex_metrics_report(m, 1)->nrows, 2);
	cr_assert_str_eq(trex_metrics_report_cell(m, 1, -1, 3, NULL), "Time (%)");
	cr_assert_str_eq(trex_metrics_report_cell(m, 1, 0, 0, NULL), "Run(float, int)::__GEMM");
	trex_metrics_report_cell(m, 1, 0, 3, &v);
	cr_assert_float_eq(v, 91.9375, 0);
	trex_metrics_report_cell(m, 1, 1, 1, &v);
	cr_assert_float_eq(v, 12, 0);
	cr_assert_eq(trex_metrics_report(m, 2)->kind, TREX_REPORT_KERNEL_PROPERTIES);
	cr_assert_str_eq(trex_metrics_report_cell(m, 2, 0, 2, &v), "ANY");
	cr_assert(isnan(v));
	cr_assert_str_eq(trex_metrics_report_cell(m, 2, 0, 7, NULL), "unknown");
	cr_assert_eq(trex_metrics_source(m, 0)->problems, 0);
}

/* cl_gemm's OpenCL tables: bare names, percents with 2 decimals; and the
 * older kernel properties, values apart by blanks after the first comma;
 * program output before the first section. */
static const char cl_and_older[] =
    "Hello from the program\n"
    "\n=== API Timing Summary ===\n\n"
    "Total API Time for CL CPU backend (ns):                 3149\n"
    "\n== CL CPU Backend ==\n\n"
    "      Function,       Calls,           Time (ns),    Time (%),        Average (ns),"
    "            Min (ns),            Max (ns)\n"
    "clGetDeviceIDs,           2,                3149,      100.00,                1574,"
    "                 758,                2391\n"
    "\n=== Kernel Properties ===\n\n"
    "      Kernel, Number of Arguments, SLM Per Work Group, Private Memory Per Thread, Spill "
    "Memory Per Thread\n"
    "hgemm[SIMD16 {56; 1; 1} {64; 8; 1}],                  27                  8          "
    "               0                       0\n";

Test(unitrace_text, opencl_host_timing_and_older_properties)
{
	double v;

	load(cl_and_older);
	cr_assert_eq(trex_metrics_report_count(m), 3);
	cr_assert_eq(trex_metrics_report(m, 1)->kind, TREX_REPORT_HOST_TIMING);
	cr_assert_str_eq(trex_metrics_report_cell(m, 1, 0, 0, NULL), "clGetDeviceIDs");
	trex_metrics_report_cell(m, 1, 0, 5, &v);
	cr_assert_float_eq(v, 758, 0);
	cr_assert_str_eq(trex_metrics_report_cell(m, 2, 0, 0, NULL),
	                 "hgemm[SIMD16 {56; 1; 1} {64; 8; 1}]");
	trex_metrics_report_cell(m, 2, 0, 1, &v);
	cr_assert_float_eq(v, 27, 0);
	trex_metrics_report_cell(m, 2, 0, 2, &v);
	cr_assert_float_eq(v, 8, 0);
	cr_assert_eq(trex_metrics_source(m, 0)->unread, 1, "the program's line");
	cr_assert_eq(trex_metrics_source(m, 0)->problems, 0);
}

/* ---- sniffing and gzip -------------------------------------------------------------------------
 */

static const struct trex_metrics_format *sniff(const char *text)
{
	struct trex_source *src;
	struct trex_error err;
	const struct trex_metrics_format *f;

	cr_assert_eq(trex_source_open_memory("x", text, strlen(text), true, &src, &err), TREX_OK);
	f = trex_metrics_format_of(src, &err);
	trex_source_close(src);
	return f;
}

Test(unitrace_text, sniffing)
{
	cr_assert_not_null(sniff(query));
	cr_assert_not_null(sniff(sampling));
	cr_assert_not_null(sniff(older));
	cr_assert_not_null(sniff(device_timing));
	cr_assert_not_null(sniff("\n=== API Timing Summary ===\n"));
	cr_assert_null(sniff("{\"traceEvents\": []}"), "a trace");
	cr_assert_null(sniff("[{\"ph\": \"X\"}]"));
	cr_assert_null(sniff("\n=== Device #0 Metrics ===\n\n          Kernel,  IP[Address], "
	                     "Active[Events]\n"),
	               "the stall-sampling CSV (blank-padded header) is not ours");
	cr_assert_null(sniff("Thread 47571 Device 35747536 : \"k\" [ns] 1 (append)\n"), "-t");
	cr_assert_null(sniff(""));
	cr_assert_not_null(sniff("Hello from the program\n\n=== Device Timing Summary ===\n"),
	                   "a report after the program's output");
	cr_assert_null(sniff("[\"a\",\n=== Device Timing Summary ===\n"), "JSON is never ours");
	cr_assert_null(sniff("Hello\n=====\n"), "a row of '=' is no banner");
}

Test(unitrace_text, gzip_input)
{
	unsigned char gz[4096], in[sizeof(sampling)];
	z_stream z = {0};
	struct trex_error err;

	cr_assert_eq(deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), Z_OK);
	memcpy(in, sampling, sizeof(sampling));
	z.next_in = in;
	z.avail_in = sizeof(sampling) - 1;
	z.next_out = gz;
	z.avail_out = sizeof(gz);
	cr_assert_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
	cr_assert_eq(load_bytes("k.csv.gz", gz, sizeof(gz) - z.avail_out, &err), TREX_OK);
	deflateEnd(&z);
	cr_assert_eq(trex_metrics_instance_count(m), 4);
	cr_assert_float_eq(value(3, "GpuTime[ns]"), 20, 0);
}

Test(unitrace_text, numbers)
{
	static const char text[] =
	    "Kernel,GlobalInstanceId,SubDeviceId,a,b,c,d,e,f,g,h\n"
	    "\"k\",1,0,6.89741e-06,-nan,1E+3,0x10,123456789012345678901,.5,1718111111000001001,"
	    "9007199254740993.5\n";

	load(text);
	cr_assert_eq(value(0, "a"), 6.89741e-06);
	cr_assert_not(
	    trex_metrics_instance_value(m, 0, trex_metrics_metric_find(m, "b"), &(double){0}),
	    "nan is no value");
	cr_assert_eq(value(0, "c"), 1000);
	cr_assert_not(
	    trex_metrics_instance_value(m, 0, trex_metrics_metric_find(m, "d"), &(double){0}),
	    "hex is not what unitrace writes");
	cr_assert_eq(value(0, "e"), 123456789012345678901.0, "beyond 19 digits: strtod");
	cr_assert_eq(value(0, "f"), 0.5);
	/* above 2^53: an integer rounds once, as strtod rounds it; a fraction is strtod's */
	cr_assert_eq(value(0, "g"), strtod("1718111111000001001", NULL));
	cr_assert_eq(value(0, "h"), strtod("9007199254740993.5", NULL));
	cr_assert_eq(trex_metrics_source(m, 0)->problems, 1, "0x10");
}
