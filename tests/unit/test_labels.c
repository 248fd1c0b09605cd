/* Run and device labels over hand-built indexes: files that claim one rank
 * keep apart in labels, keys and warnings; devices are called what their
 * trace calls them. */
#include "config.h"

#include <criterion/criterion.h>
#include <string.h>

#include "trex/analysis/labels.h"
#include "trex/core/builder.h"
#include "trex/core/index.h"

#include "index_fixture.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_FILES 10

struct run {
	const char *path;
	int64_t rank;
};

/* One kernel per file, in a Kineto GPU process "0". */
static struct trex_index *index_of_runs(const struct run *runs, size_t n)
{
	struct trex_builder *b[MAX_FILES];
	struct trex_build_file files[MAX_FILES];

	cr_assert_leq(n, MAX_FILES);
	for (size_t f = 0; f < n; f++) {
		b[f] = trex_builder_new((uint32_t)f);
		files[f] = fixture_file(runs[f].path);
		files[f].rank = runs[f].rank;
		files[f].has_rank = true;
		fixture_add(b[f], &files[f],
		            &(struct fixture_slice){"0", "7", "kernel", "k", 10, 5, 0, 0, NULL});
	}
	return fixture_build(files, b, n);
}

static const struct run runs[] = {
    {"a/run1/trace.json", 0}, {"x/base.json.gz", 1},     {"y/test.json.gz", 1}, {"run1/t.json", 2},
    {"run2/t.json", 2},       {"same.json", 3},          {"same.json", 3},      {"q/a-b.json", 4},
    {"q/a_b.json", 4},        {"/data/x/trace.json", 5},
};

Test(labels, a_file_alone_on_its_rank_is_just_the_rank)
{
	struct trex_index *idx = index_of_runs(runs, ARRAY_SIZE(runs));
	char buf[256];

	cr_assert_not(trex_file_rank_shared(idx, 0));
	cr_assert_str_eq(trex_file_name(idx, 0, buf, sizeof(buf)), "trace.json");
	cr_assert_str_eq(trex_file_label(idx, 0, buf, sizeof(buf)), "rank 0");
	cr_assert_str_eq(trex_file_key(idx, 0, buf, sizeof(buf)), "rank0");
	cr_assert_str_eq(trex_file_label(idx, 9, buf, sizeof(buf)), "rank 5");
	trex_index_free(idx);
}

Test(labels, files_of_one_rank_are_told_apart)
{
	static const char *const names[] = {
	    NULL,           "base.json.gz", "test.json.gz", "run1/t.json", "run2/t.json",
	    "same.json #1", "same.json #2", "a-b.json",     "a_b.json",
	};
	static const char *const labels[] = {
	    NULL,
	    "rank 1 (base.json.gz)",
	    "rank 1 (test.json.gz)",
	    "rank 2 (run1/t.json)",
	    "rank 2 (run2/t.json)",
	    "rank 3 (same.json #1)",
	    "rank 3 (same.json #2)",
	    "rank 4 (a-b.json)",
	    "rank 4 (a_b.json)",
	};
	/* a-b and a_b make the same key part: numbered by their place */
	static const char *const keys[] = {
	    NULL,           "rank1_base",        "rank1_test",        "rank2_run1_t",
	    "rank2_run2_t", "rank3_same_json_1", "rank3_same_json_2", "rank4_a_b_1",
	    "rank4_a_b_2",
	};
	struct trex_index *idx = index_of_runs(runs, ARRAY_SIZE(runs));
	char buf[256];

	for (uint32_t f = 1; f < ARRAY_SIZE(names); f++) {
		cr_assert(trex_file_rank_shared(idx, f), "file %u", f);
		cr_assert_str_eq(trex_file_name(idx, f, buf, sizeof(buf)), names[f]);
		cr_assert_str_eq(trex_file_label(idx, f, buf, sizeof(buf)), labels[f]);
		cr_assert_str_eq(trex_file_key(idx, f, buf, sizeof(buf)), keys[f]);
	}
	trex_index_free(idx);
}

Test(labels, a_warning_per_rank_claimed_twice)
{
	const struct run three[] = {{"a.json", 0}, {"b.json", 0}, {"c.json", 0}, {"d.json", 1}};
	struct trex_index *idx = index_of_runs(runs, ARRAY_SIZE(runs));
	char buf[512];

	cr_assert_eq(trex_rank_clash_count(idx), 4);
	cr_assert_str_eq(trex_rank_clash_warning(idx, 0, buf, sizeof(buf)),
	                 "base.json.gz and test.json.gz both claim rank 1; they are shown as "
	                 "separate runs");
	cr_assert_str_eq(
	    trex_rank_clash_warning(idx, 3, buf, sizeof(buf)),
	    "a-b.json and a_b.json both claim rank 4; they are shown as separate runs");
	cr_assert_str_eq(trex_rank_clash_warning(idx, 4, buf, sizeof(buf)), "");
	trex_index_free(idx);

	idx = index_of_runs(three, ARRAY_SIZE(three));
	cr_assert_eq(trex_rank_clash_count(idx), 1);
	cr_assert_str_eq(trex_rank_clash_warning(idx, 0, buf, sizeof(buf)),
	                 "a.json, b.json and c.json all claim rank 0; they are shown as separate "
	                 "runs");
	trex_index_free(idx);

	idx = index_of_runs(three + 2, 2);
	cr_assert_eq(trex_rank_clash_count(idx), 0);
	cr_assert_str_eq(trex_rank_clash_warning(idx, 0, buf, sizeof(buf)), "");
	trex_index_free(idx);
}

/* ---- devices ------------------------------------------------------------------------------ */

struct proc {
	unsigned file;
	const char *pid, *cat, *name, *labels; /* name, labels: NULL for none */
};

static void add_proc(struct trex_builder *b, struct trex_build_file *file, const struct proc *p)
{
	uint32_t pid = fixture_str(b, p->pid);

	fixture_add(b, file, &(struct fixture_slice){p->pid, "7", p->cat, "k", 10, 5, 0, 0, NULL});
	if (p->name)
		cr_assert_eq(trex_builder_process_name(b, pid, fixture_str(b, p->name)), 0);
	if (p->labels)
		cr_assert_eq(trex_builder_process_labels(b, pid, fixture_str(b, p->labels)), 0);
}

/* File 0: Kineto, rank 0; file 1: unitrace, rank 1; file 2: Kineto, rank 2. */
static struct trex_index *index_of_procs(const struct proc *procs, size_t n, unsigned nfiles)
{
	static const char *const dialects[] = {"kineto", "unitrace", "kineto"};
	struct trex_builder *b[3];
	struct trex_build_file files[3];

	for (unsigned f = 0; f < nfiles; f++) {
		b[f] = trex_builder_new(f);
		files[f] = fixture_file("t.json");
		files[f].dialect = dialects[f];
		files[f].rank = f;
		files[f].has_rank = true;
	}
	for (size_t i = 0; i < n; i++)
		add_proc(b[procs[i].file], &files[procs[i].file], &procs[i]);
	return fixture_build(files, b, nfiles);
}

/* The process of file with pid text pid. */
static uint32_t proc_of(const struct trex_index *idx, unsigned file, const char *pid)
{
	for (uint32_t p = 0; p < trex_index_process_count(idx); p++) {
		const struct trex_process *pr = trex_index_process(idx, p);

		if (pr->file == file && strcmp(trex_index_str(idx, pr->pid), pid) == 0)
			return p;
	}
	cr_assert_fail("no process %u/%s", file, pid);
	return 0;
}

static const struct proc procs[] = {
    {0, "0", "kernel", "python3.10", "GPU 0"},
    {0, "1", "kernel", "python3.10", NULL},
    {0, "1234", "cpu_op", "python3", "CPU"},
    {0, "17", "mtia_runtime", "MTIA 17", "MTIA 17"},
    {0, "Spans", "Trace", NULL, NULL},
    {1, "4294967295", "kernel", "DEVICEnode01[Intel(R) Data Center GPU Max 1550] 0:3a:0:0 #1",
     NULL},
    {1, "4294967294", "kernel", "RANK 1 DEVICEnode01[Intel GPU] 0:9a:0:0 #0.1", NULL},
    {1, "4294967293", "kernel", NULL, NULL},
    {2, "0", "kernel", "python", "GPU 3"},
    {2, "1", "kernel", "python", "GPU 3"},
};

Test(labels, devices_are_named_as_their_trace_names_them)
{
	static const struct {
		unsigned file;
		const char *pid, *name, *label, *key, *title;
	} want[] = {
	    {0, "0", "GPU 0", "rank 0 GPU 0", "gpu0", "GPU 0"},
	    {0, "1", "GPU 1", "rank 0 GPU 1", "gpu1", "GPU 1"},
	    {0, "1234", "python3 (1234)", "rank 0 python3 (1234)", "pid1234", "python3"},
	    {0, "17", "MTIA 17", "rank 0 MTIA 17", "mtia17", "MTIA 17"},
	    {0, "Spans", "Spans", "rank 0 Spans", "pidspans", ""},
	    {1, "4294967295", "GPU 1", "rank 1 GPU 1", "gpu1", "GPU 1"},
	    {1, "4294967294", "GPU 0.1", "rank 1 GPU 0.1", "gpu0_1", "GPU 0.1"},
	    {1, "4294967293", "4294967293", "rank 1 4294967293", "pid4294967293", ""},
	    {2, "0", "GPU 3 (pid 0)", "rank 2 GPU 3 (pid 0)", "gpu3_pid0", "GPU 3 (pid 0)"},
	    {2, "1", "GPU 3 (pid 1)", "rank 2 GPU 3 (pid 1)", "gpu3_pid1", "GPU 3 (pid 1)"},
	};
	struct trex_index *idx = index_of_procs(procs, ARRAY_SIZE(procs), 3);
	char buf[256];

	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		uint32_t p = proc_of(idx, want[i].file, want[i].pid);

		cr_assert_str_eq(trex_device_name(idx, p, buf, sizeof(buf)), want[i].name);
		cr_assert_str_eq(trex_device_label(idx, p, buf, sizeof(buf)), want[i].label);
		cr_assert_str_eq(trex_device_key(idx, p, buf, sizeof(buf)), want[i].key);
		cr_assert_str_eq(trex_process_title(idx, p, buf, sizeof(buf)), want[i].title);
	}
	trex_index_free(idx);
}

Test(labels, one_file_labels_a_device_without_its_rank)
{
	struct trex_index *idx = index_of_procs(procs, 5, 1);
	char buf[256];

	cr_assert_str_eq(trex_device_label(idx, proc_of(idx, 0, "0"), buf, sizeof(buf)), "GPU 0");
	cr_assert_str_eq(trex_device_label(idx, proc_of(idx, 0, "1234"), buf, sizeof(buf)),
	                 "python3 (1234)");
	trex_index_free(idx);
}

Test(labels, a_device_of_a_shared_rank_says_which_run)
{
	const struct run two[] = {{"r/base.json.gz", 1}, {"r/test.json.gz", 1}};
	struct trex_index *idx = index_of_runs(two, 2);
	char buf[256];

	cr_assert_str_eq(trex_device_label(idx, proc_of(idx, 1, "0"), buf, sizeof(buf)),
	                 "rank 1 (test.json.gz) GPU 0");
	trex_index_free(idx);
}

Test(labels, a_short_buffer_truncates)
{
	struct trex_index *idx = index_of_runs(runs, ARRAY_SIZE(runs));
	char buf[8];

	cr_assert_str_eq(trex_file_label(idx, 1, buf, sizeof(buf)), "rank 1 ");
	cr_assert_str_eq(trex_file_key(idx, 1, buf, sizeof(buf)), "rank1_b");
	cr_assert_str_eq(trex_rank_clash_warning(idx, 0, buf, sizeof(buf)), "base.js");
	trex_index_free(idx);
}
