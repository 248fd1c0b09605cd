#include "config.h"

#include "trex/core/task.h"

#include <pthread.h>
#include <stdatomic.h>

struct task_run {
	trex_task_fn *fn;
	void *arg;
	size_t ntasks;
	atomic_size_t next;
};

struct task_worker {
	struct task_run *run;
	unsigned id;
	pthread_t thread;
};

static void *task_worker_main(void *arg)
{
	struct task_worker *w = arg;
	struct task_run *r = w->run;
	size_t k;

	while ((k = atomic_fetch_add(&r->next, 1)) < r->ntasks)
		r->fn(r->arg, k, w->id);
	return NULL;
}

unsigned trex_task_workers(unsigned threads, size_t ntasks)
{
	unsigned n = threads > TREX_TASK_THREADS_MAX ? TREX_TASK_THREADS_MAX : threads;

	if ((size_t)n > ntasks)
		n = (unsigned)ntasks;
	return n ? n : 1;
}

void trex_task_run(unsigned threads, size_t ntasks, trex_task_fn *fn, void *arg)
{
	struct task_run r = {fn, arg, ntasks, 0};
	struct task_worker w[TREX_TASK_THREADS_MAX];
	unsigned n = trex_task_workers(threads, ntasks), started = 1;

	atomic_init(&r.next, 0);
	for (unsigned i = 0; i < n; i++)
		w[i] = (struct task_worker){&r, i, 0};
	/* worker 0 is this thread; the others as many as start */
	while (started < n &&
	       pthread_create(&w[started].thread, NULL, task_worker_main, &w[started]) == 0)
		started++;
	task_worker_main(&w[0]);
	for (unsigned i = 1; i < started; i++)
		pthread_join(w[i].thread, NULL);
}
