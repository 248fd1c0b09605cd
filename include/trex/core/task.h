/* Numbered tasks on worker threads: the one thread pool of the trex core,
 * used by every parallel stage of the index build and by the loaders.
 *
 * A run starts its workers, takes part itself, and returns once every
 * task is done, so runs nest freely (a loader task may run tasks of its
 * own). Workers take tasks in ascending order. A task writes only its
 * own outputs, and the caller combines them in task order afterwards, so
 * results never depend on the number of threads or on which took what. */
#ifndef TREX_CORE_TASK_H
#define TREX_CORE_TASK_H

#include <stddef.h>

#define TREX_TASK_THREADS_MAX 64

/* One task: its number (0..ntasks-1) and the worker running it
 * (0..trex_task_workers()-1; one worker runs one task at a time, so a
 * task may use scratch owned by its worker). */
typedef void trex_task_fn(void *arg, size_t task, unsigned worker);

/* The workers a run of ntasks on up to threads threads uses at most:
 * min(threads, ntasks, TREX_TASK_THREADS_MAX), and at least 1. */
unsigned trex_task_workers(unsigned threads, size_t ntasks);

/* Runs fn on every task, on up to trex_task_workers(threads, ntasks)
 * threads, the calling thread included (threads 0 or 1: only it). A
 * thread that cannot be started leaves its share to the others. To stop
 * early, tasks check a flag of the caller's and return at once. */
void trex_task_run(unsigned threads, size_t ntasks, trex_task_fn *fn, void *arg);

#endif
