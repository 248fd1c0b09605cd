#include "config.h"

#include <criterion/criterion.h>
#include <stdatomic.h>
#include <string.h>

#include "trex/core/task.h"

#define NTASKS 5000

/* Per task: how often it ran and on which worker; per worker: a scratch
 * counter that only its own tasks touch, and whether a task of it ran
 * while another of it was running. */
struct run_log {
	atomic_uint ran[NTASKS];
	unsigned worker_of[NTASKS];
	atomic_uint busy[TREX_TASK_THREADS_MAX];
	unsigned scratch[TREX_TASK_THREADS_MAX];
	atomic_bool overlap;
	unsigned workers;
	atomic_bool worker_out_of_range;
};

static void log_task(void *arg, size_t k, unsigned worker)
{
	struct run_log *l = arg;

	if (worker >= l->workers) {
		atomic_store(&l->worker_out_of_range, true);
		return;
	}
	if (atomic_fetch_add(&l->busy[worker], 1) != 0)
		atomic_store(&l->overlap, true);
	l->scratch[worker]++;
	l->worker_of[k] = worker;
	atomic_fetch_add(&l->ran[k], 1);
	atomic_fetch_sub(&l->busy[worker], 1);
}

static void run_logged(unsigned threads, size_t ntasks)
{
	static struct run_log l;
	unsigned total = 0;

	memset(&l, 0, sizeof(l));
	l.workers = trex_task_workers(threads, ntasks);
	trex_task_run(threads, ntasks, log_task, &l);
	cr_assert_not(atomic_load(&l.worker_out_of_range), "threads %u", threads);
	cr_assert_not(atomic_load(&l.overlap), "a worker ran two tasks at once");
	for (size_t k = 0; k < ntasks; k++)
		cr_assert_eq(atomic_load(&l.ran[k]), 1, "task %zu ran %u times", k,
		             atomic_load(&l.ran[k]));
	for (unsigned w = 0; w < l.workers; w++)
		total += l.scratch[w];
	cr_assert_eq(total, ntasks, "per-worker scratch counts every task once");
}

Test(task, every_task_runs_once_on_any_thread_count)
{
	unsigned counts[] = {0, 1, 2, 3, 8, 64, 1000};

	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		run_logged(counts[i], NTASKS);
		run_logged(counts[i], 1);
		run_logged(counts[i], 0);
	}
}

Test(task, workers_are_bounded_by_threads_tasks_and_the_maximum)
{
	cr_assert_eq(trex_task_workers(0, 10), 1);
	cr_assert_eq(trex_task_workers(1, 10), 1);
	cr_assert_eq(trex_task_workers(4, 10), 4);
	cr_assert_eq(trex_task_workers(4, 3), 3);
	cr_assert_eq(trex_task_workers(4, 0), 1);
	cr_assert_eq(trex_task_workers(1000, 100000), TREX_TASK_THREADS_MAX);
}

static void count_task(void *arg, size_t k, unsigned worker)
{
	(void)k;
	(void)worker;
	atomic_fetch_add((atomic_uint *)arg, 1);
}

struct nested {
	atomic_uint inner;
};

static void outer_task(void *arg, size_t k, unsigned worker)
{
	struct nested *n = arg;

	(void)k;
	(void)worker;
	trex_task_run(3, 7, count_task, &n->inner);
}

Test(task, runs_nest)
{
	struct nested n;

	atomic_init(&n.inner, 0);
	trex_task_run(4, 9, outer_task, &n);
	cr_assert_eq(atomic_load(&n.inner), 9 * 7);
}
