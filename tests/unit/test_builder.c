#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trex/core/builder.h"
#include "../../src/core/builder_internal.h"

static uint32_t S(struct trex_builder *b, const char *s)
{
	return trex_builder_intern(b, s, strlen(s));
}

static struct trex_ev ev_at(struct trex_builder *b, const char *name, int64_t ts, int64_t dur)
{
	struct trex_ev ev;

	memset(&ev, 0, sizeof(ev));
	ev.ts = ts;
	ev.dur = dur;
	ev.name = S(b, name);
	ev.cat = S(b, "cpu_op");
	return ev;
}

/* ---- blocked vector ------------------------------------------------------------ */

Test(vec, push_across_blocks_keeps_every_record)
{
	struct trex_vec v;
	size_t n = 3 * TREX_VEC_BLOCK + 17;

	trex_vec_init(&v, sizeof(uint64_t));
	for (size_t i = 0; i < n; i++) {
		uint64_t *p = trex_vec_push(&v);

		cr_assert_not_null(p);
		*p = i * 3;
	}
	cr_assert_eq(v.count, n);
	cr_assert_eq(v.nblocks, 4);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(*TREX_VEC_AT(&v, uint64_t, i), i * 3);
	cr_assert_geq(trex_vec_memory(&v), n * sizeof(uint64_t));
	trex_vec_shrink(&v);
	cr_assert_eq(v.cap, n);
	cr_assert_eq(*TREX_VEC_AT(&v, uint64_t, n - 1), (n - 1) * 3);
	trex_vec_free(&v);
	cr_assert_eq(v.count, 0);
}

Test(vec, small_vectors_stay_small)
{
	struct trex_vec v;

	trex_vec_init(&v, 56);
	for (int i = 0; i < 10; i++)
		cr_assert_not_null(trex_vec_push(&v));
	cr_assert_lt(trex_vec_memory(&v), 64 * 56 + 64);
	trex_vec_free(&v);
}

Test(vec, permute_applies_new_to_old_mapping)
{
	struct trex_vec v;
	size_t n = TREX_VEC_BLOCK + 999;
	uint32_t *perm = malloc(n * sizeof(*perm));

	trex_vec_init(&v, sizeof(uint32_t));
	for (size_t i = 0; i < n; i++) {
		*(uint32_t *)trex_vec_push(&v) = (uint32_t)(i * 10);
		perm[i] = (uint32_t)i;
	}
	srand(7);
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)rand() % (i + 1);
		uint32_t t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	uint32_t *want = malloc(n * sizeof(*want));
	for (size_t i = 0; i < n; i++)
		want[i] = perm[i] * 10;
	trex_vec_permute(&v, perm);
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(*TREX_VEC_AT(&v, uint32_t, i), want[i]);
		cr_assert_eq(perm[i], i, "perm is left as the identity");
	}
	free(want);
	free(perm);
	trex_vec_free(&v);
}

Test(vec, released_blocks_are_freed_once)
{
	struct trex_vec v;

	trex_vec_init(&v, 8);
	for (size_t i = 0; i < 2 * TREX_VEC_BLOCK + 1; i++)
		cr_assert_not_null(trex_vec_push(&v));
	trex_vec_release_block(&v, 0);
	trex_vec_release_block(&v, 1);
	cr_assert_null(v.blocks[0]);
	trex_vec_free(&v); /* must not double free (ASan/valgrind) */
}

static void push_n(struct trex_vec *v, size_t n, uint64_t first)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t *p = trex_vec_push(v);

		cr_assert_not_null(p);
		*p = first + i;
	}
}

Test(vec, full_blocks_move_without_copy)
{
	struct trex_vec dst, a, b, small;
	unsigned char *a0, *a1;
	bool ok;

	trex_vec_init(&dst, sizeof(uint64_t));
	trex_vec_init(&a, sizeof(uint64_t));
	trex_vec_init(&b, sizeof(uint64_t));
	trex_vec_init(&small, sizeof(uint64_t));
	push_n(&a, 2 * TREX_VEC_BLOCK + 5, 0);
	push_n(&b, TREX_VEC_BLOCK, 1000000);
	push_n(&small, 100, 7);
	a0 = a.blocks[0];
	a1 = a.blocks[1];
	/* a part smaller than a block has nothing to hand over */
	cr_assert_eq(trex_vec_take_full_blocks(&dst, &small, &ok), 0);
	cr_assert(ok);
	cr_assert_eq(dst.count, 0);
	cr_assert_eq(trex_vec_take_full_blocks(&dst, &a, &ok), 2 * TREX_VEC_BLOCK);
	cr_assert(ok);
	cr_assert_eq(dst.blocks[0], a0, "moved, not copied");
	cr_assert_eq(dst.blocks[1], a1);
	cr_assert_null(a.blocks[0]);
	cr_assert_eq(*TREX_VEC_AT(&a, uint64_t, 2 * TREX_VEC_BLOCK + 4), 2 * TREX_VEC_BLOCK + 4,
	             "the partial last block stays readable");
	cr_assert_eq(trex_vec_take_full_blocks(&dst, &b, &ok), TREX_VEC_BLOCK);
	cr_assert_eq(dst.count, 3 * TREX_VEC_BLOCK);
	cr_assert_eq(dst.cap, dst.count);
	for (size_t i = 0; i < dst.count; i++)
		cr_assert_eq(*TREX_VEC_AT(&dst, uint64_t, i),
		             i < 2 * TREX_VEC_BLOCK ? i : 1000000 + i - 2 * TREX_VEC_BLOCK);
	/* a partial block at the end of dst stops further moves */
	push_n(&dst, 1, 42);
	trex_vec_free(&a);
	push_n(&a, TREX_VEC_BLOCK, 0);
	cr_assert_eq(trex_vec_take_full_blocks(&dst, &a, &ok), 0);
	cr_assert(ok);
	trex_vec_free(&dst);
	trex_vec_free(&a); /* moved blocks are freed by dst only (ASan/valgrind) */
	trex_vec_free(&b);
	trex_vec_free(&small);
}

/* ---- key map ------------------------------------------------------------------------ */

Test(kmap, insert_find_grow_clear)
{
	struct trex_kmap m;

	memset(&m, 0, sizeof(m));
	cr_assert_null(trex_kmap_find(&m, 1, 2, 3));
	for (uint32_t i = 0; i < 20000; i++) {
		uint32_t *slot = trex_kmap_insert(&m, i, i ^ 5, i % 3);

		cr_assert_not_null(slot);
		cr_assert_eq(*slot, TREX_NONE, "new keys start empty");
		*slot = i;
	}
	cr_assert_eq(m.count, 20000);
	for (uint32_t i = 0; i < 20000; i++) {
		uint32_t *slot = trex_kmap_find(&m, i, i ^ 5, i % 3);

		cr_assert_not_null(slot);
		cr_assert_eq(*slot, i);
		cr_assert_null(trex_kmap_find(&m, i, i ^ 5, (i % 3) + 1), "c is part of the key");
	}
	*trex_kmap_insert(&m, 7, 7 ^ 5, 1) = 99;
	cr_assert_eq(*trex_kmap_find(&m, 7, 7 ^ 5, 1), 99, "existing key keeps its slot");
	cr_assert_eq(m.count, 20000);
	trex_kmap_clear(&m);
	cr_assert_eq(m.count, 0);
	cr_assert_null(trex_kmap_find(&m, 7, 2, 1));
	trex_kmap_free(&m);
}

/* ---- builder ------------------------------------------------------------------------- */

Test(builder, strings_are_local_and_zero_is_empty)
{
	struct trex_builder *b = trex_builder_new(3);

	cr_assert_not_null(b);
	cr_assert_eq(b->file, 3);
	cr_assert_eq(trex_builder_intern(b, "", 0), TREX_STR_NONE);
	cr_assert_eq(S(b, "a"), 1);
	cr_assert_eq(S(b, "b"), 2);
	cr_assert_eq(S(b, "a"), 1);
	trex_builder_free(b);
}

Test(builder, tracks_are_keyed_by_pid_and_tid_text)
{
	struct trex_builder *b = trex_builder_new(0);
	uint32_t p1 = S(b, "1"), p2 = S(b, "2"), t7 = S(b, "7"), t8 = S(b, "8");
	uint32_t a = trex_builder_track(b, p1, t7), c = trex_builder_track(b, p1, t8);
	uint32_t d = trex_builder_track(b, p2, t7);

	cr_assert_eq(a, 0);
	cr_assert_eq(c, 1);
	cr_assert_eq(d, 2);
	/* Alternating lookups go past the one-entry cache and still agree. */
	for (int i = 0; i < 5; i++) {
		cr_assert_eq(trex_builder_track(b, p1, t7), a);
		cr_assert_eq(trex_builder_track(b, p2, t7), d);
		cr_assert_eq(trex_builder_track(b, p1, t8), c);
	}
	cr_assert_eq(b->ntracks, 3);
	cr_assert_eq(b->nprocs, 2, "one process per pid");
	/* A counter series with the same text is another track. */
	cr_assert_eq(trex_builder_counter(b, p1, t7, 5, 1.0), 0);
	cr_assert_eq(b->ntracks, 4);
	cr_assert_eq(b->tracks[3].cls, TREX_BT_COUNTER);
	cr_assert_eq(trex_builder_track(b, p1, t7), a);
	trex_builder_free(b);
}

Test(builder, events_are_recorded_in_file_order)
{
	struct trex_builder *b = trex_builder_new(0);
	uint32_t t = trex_builder_track(b, S(b, "1"), S(b, "1"));
	struct trex_ev x = ev_at(b, "x", 100, 50), bb = ev_at(b, "b", 10, 0),
	               e = ev_at(b, "", 20, 0);
	const struct trex_bslice *s;

	x.flags = TREX_SLICE_HAS_LAUNCH_LINK;
	x.launch_link = 77;
	x.args = 1234;
	x.kind = TREX_KIND_KERNEL;
	cr_assert_eq(trex_builder_begin(b, t, &bb), 0, "handles are places in recording order");
	cr_assert_eq(trex_builder_complete(b, t, &x), 1);
	cr_assert_eq(trex_builder_end(b, t, &e), 0);
	cr_assert_eq(b->slices.count, 2);
	cr_assert_eq(b->begins.count, 1);
	cr_assert_eq(*TREX_VEC_AT(&b->begins, uint32_t, 0), 0);
	cr_assert_eq(b->ends.count, 1);
	cr_assert_eq(TREX_VEC_AT(&b->ends, struct trex_bend, 0)->after, 2,
	             "the end came after both slices");
	s = TREX_VEC_AT(&b->slices, struct trex_bslice, 0);
	cr_assert_eq(s->flags, TREX_SLICE_PAIRED);
	s = TREX_VEC_AT(&b->slices, struct trex_bslice, 1);
	cr_assert_eq(s->ts, 100);
	cr_assert_eq(s->dur, 50);
	cr_assert_eq(s->launch_link, 77);
	cr_assert_eq(s->flags, TREX_SLICE_HAS_LAUNCH_LINK);
	cr_assert_eq(s->args, 1234, "the reference is the codec's, kept as it is");
	cr_assert_eq(s->kind, TREX_KIND_KERNEL);
	cr_assert(b->has_time);
	cr_assert_eq(b->max_end, 150);
	cr_assert_eq(trex_builder_event_count(b), 3);
	trex_builder_free(b);
}

/* A finished loader part gives back its vectors' spare room; the records
 * stay, and a builder trimmed too early still takes more. */
Test(builder, trim_keeps_records_and_allows_more)
{
	struct trex_builder *b = trex_builder_new(0);
	uint32_t t = trex_builder_track(b, S(b, "1"), S(b, "1"));
	size_t first = 100, more = 2 * TREX_VEC_BLOCK;

	for (size_t i = 0; i < first; i++) {
		struct trex_ev x = ev_at(b, "x", (int64_t)i * 10, 5);
		cr_assert_eq(trex_builder_complete(b, t, &x), (trex_handle)i);
	}
	cr_assert_gt(b->slices.cap, first, "block 0 grew by doubling");
	trex_builder_trim(b);
	cr_assert_eq(b->slices.cap, first);
	cr_assert_lt(trex_vec_memory(&b->slices), (first + 8) * sizeof(struct trex_bslice) + 64);
	for (size_t i = first; i < first + more; i++) {
		struct trex_ev x = ev_at(b, "x", (int64_t)i * 10, 5);
		cr_assert_eq(trex_builder_complete(b, t, &x), (trex_handle)i);
	}
	trex_builder_trim(b); /* several blocks: left as they are */
	cr_assert_eq(b->slices.count, first + more);
	for (size_t i = 0; i < first + more; i++)
		cr_assert_eq(TREX_VEC_AT(&b->slices, struct trex_bslice, i)->ts, (int64_t)i * 10);
	trex_builder_free(b);
}

Test(builder, every_kind_of_event_is_counted)
{
	struct trex_builder *b = trex_builder_new(0);
	uint32_t pid = S(b, "1"), t = trex_builder_track(b, pid, S(b, "1"));
	struct trex_ev ev = ev_at(b, "n", 5, 0);

	cr_assert_eq(trex_builder_instant(b, t, &ev, TREX_SCOPE_GLOBAL), 0);
	cr_assert_eq(trex_builder_counter(b, pid, S(b, "mem"), 6, 2.5), 0);
	struct trex_flow_point fp = {.key = {S(b, "ac2g"), 0, 9},
	                             .name = S(b, "ac2g"),
	                             .role = TREX_FLOW_START,
	                             .slice = TREX_HANDLE_NONE,
	                             .track = t,
	                             .ts = 7,
	                             .bind = TREX_BIND_ENCLOSING};
	struct trex_key key = {S(b, "cat"), 0, 1};
	cr_assert_eq(trex_builder_flow(b, &fp), 0);
	cr_assert_eq(trex_builder_keyed_begin(b, pid, &key, &ev), 0);
	cr_assert_eq(trex_builder_process_name(b, pid, S(b, "python")), 0);
	cr_assert_eq(trex_builder_process_labels(b, pid, S(b, "CPU")), 0);
	cr_assert_eq(trex_builder_process_sort_index(b, pid, 4), 0);
	cr_assert_eq(trex_builder_thread_name(b, t, S(b, "main")), 0);
	cr_assert_eq(trex_builder_thread_sort_index(b, t, -3), 0);
	cr_assert_eq(trex_builder_event_count(b), 9);
	cr_assert_eq(b->instants.count, 1);
	cr_assert_eq(TREX_VEC_AT(&b->instants, struct trex_instant, 0)->scope, TREX_SCOPE_GLOBAL);
	cr_assert_eq(b->samples.count, 1);
	cr_assert_eq(b->flows.count, 1);
	cr_assert_eq(TREX_VEC_AT(&b->flows, struct trex_bflow, 0)->bind, TREX_BIND_ENCLOSING);
	cr_assert_eq(b->keyed.count, 1);
	cr_assert_eq(b->slices.count, 1, "a keyed begin is a slice");
	cr_assert_eq(b->procs[0].sort_index, 4);
	cr_assert_eq(b->tracks[t].sort_index, -3);
	cr_assert_eq(b->max_end, 7);
	trex_builder_free(b);
}

Test(builder, metadata_later_calls_win)
{
	struct trex_builder *b = trex_builder_new(0);
	uint32_t pid = S(b, "1"), t = trex_builder_track(b, pid, S(b, "1"));

	trex_builder_process_name(b, pid, S(b, "first"));
	trex_builder_process_name(b, pid, S(b, "second"));
	trex_builder_thread_name(b, t, S(b, "t1"));
	trex_builder_thread_name(b, t, S(b, "t2"));
	cr_assert_str_eq(trex_strtab_get(b->strs, b->procs[0].name, NULL), "second");
	cr_assert_str_eq(trex_strtab_get(b->strs, b->tracks[t].name, NULL), "t2");
	trex_builder_free(b);
}

Test(builder, misuse_fails_and_sticks)
{
	struct trex_builder *b = trex_builder_new(0);
	uint32_t pid = S(b, "1"), t = trex_builder_track(b, pid, S(b, "1"));
	struct trex_ev ev = ev_at(b, "x", 0, 1);

	struct trex_flow_point bad = {
	    .role = (enum trex_flow_role)7, .slice = TREX_HANDLE_NONE, .track = t};
	cr_assert_eq(trex_builder_flow(b, &bad), -1, "unknown role");
	cr_assert(b->failed);
	cr_assert_eq(trex_builder_complete(b, t, &ev), TREX_HANDLE_NONE,
	             "a failed builder stays failed");
	trex_builder_free(b);

	b = trex_builder_new(0);
	cr_assert_eq(trex_builder_complete(b, 5, &ev), TREX_HANDLE_NONE, "no such track");
	trex_builder_free(b);

	b = trex_builder_new(0);
	cr_assert_eq(trex_builder_track(b, 999, 0), TREX_NONE, "pid is no string id");
	cr_assert(b->failed);
	trex_builder_free(b);

	b = trex_builder_new(0);
	pid = S(b, "1");
	cr_assert_eq(trex_builder_counter(b, pid, S(b, "s"), 0, 1.0), 0);
	cr_assert_eq(trex_builder_complete(b, 0, &ev), TREX_HANDLE_NONE,
	             "a counter track takes no slices");
	trex_builder_free(b);
	trex_builder_free(NULL);
}

Test(builder, flow_binding_modes)
{
	struct trex_builder *b = trex_builder_new(0);
	uint32_t t = trex_builder_track(b, S(b, "1"), S(b, "1"));
	struct trex_ev x = ev_at(b, "x", 10, 5);
	trex_handle h = trex_builder_complete(b, t, &x);
	struct trex_flow_point p = {.key = {0, 0, 1},
	                            .role = TREX_FLOW_STEP,
	                            .slice = TREX_HANDLE_NONE,
	                            .track = t,
	                            .ts = 1,
	                            .bind = TREX_BIND_ENCLOSING};
	const struct trex_bflow *f;

	cr_assert_eq(trex_builder_flow(b, &p), 0);
	p.role = TREX_FLOW_END, p.ts = 2, p.bind = TREX_BIND_NEXT;
	cr_assert_eq(trex_builder_flow(b, &p), 0);
	p.slice = h, p.bind = TREX_BIND_ENCLOSING;
	cr_assert_eq(trex_builder_flow(b, &p), 0);
	f = TREX_VEC_AT(&b->flows, struct trex_bflow, 0);
	cr_assert_eq(f[0].bind, TREX_BIND_ENCLOSING);
	cr_assert_eq(f[1].bind, TREX_BIND_NEXT);
	cr_assert_eq(f[1].slice, TREX_HANDLE_NONE);
	cr_assert_eq(f[2].slice, h, "a point on a handle needs no binding");
	cr_assert_eq(f[2].ts, 10, "and sits at its slice's start");
	p.slice = h + 1;
	cr_assert_eq(trex_builder_flow(b, &p), -1, "no such handle");
	trex_builder_free(b);
}

Test(builder, large_input_is_blocked)
{
	struct trex_builder *b = trex_builder_new(0);
	uint32_t t = trex_builder_track(b, S(b, "1"), S(b, "1"));
	struct trex_ev ev = ev_at(b, "x", 0, 1);
	size_t n = 5 * TREX_VEC_BLOCK;

	for (size_t i = 0; i < n; i++) {
		ev.ts = (int64_t)i;
		cr_assert_eq(trex_builder_complete(b, t, &ev), (trex_handle)i);
	}
	cr_assert_eq(b->slices.nblocks, 5);
	/* 56-byte records plus the block directory, nothing per event else. */
	cr_assert_leq(trex_vec_memory(&b->slices), n * sizeof(struct trex_bslice) + 4096);
	cr_assert_eq(TREX_VEC_AT(&b->slices, struct trex_bslice, n - 1)->ts, (int64_t)n - 1);
	trex_builder_free(b);
}

Test(builder, slice_record_is_40_bytes)
{
	cr_assert_eq(sizeof(struct trex_slice), 40,
	             "the index's record (issue 15: 48 bytes/event)");
	cr_assert_eq(sizeof(struct trex_bslice), 56, "the build's record, links and shape beside");
}

/* Examples the loader hands over: the first TREX_PROBLEM_EXAMPLES of each
 * counter reach the index in order, and a span is weighed for the largest
 * even past them. */
Test(builder, problems_reach_the_index)
{
	struct trex_builder *b = trex_builder_new(0);
	uint32_t t = trex_builder_track(b, S(b, "1"), S(b, "2"));
	struct trex_ev e = ev_at(b, "k", 5, 1);
	struct trex_problem p = {.counter = TREX_INTEG_bad_dur,
	                         .offset = 40,
	                         .disk_offset = -1,
	                         .track = t,
	                         .name = e.name,
	                         .ts = 5,
	                         .has_ts = true};

	cr_assert_eq(trex_builder_complete(b, t, &e), 0);
	snprintf(p.what, sizeof(p.what), "dur is a string");
	cr_assert_eq(trex_builder_problem(b, &p), 0);
	for (int i = 0; i < 12; i++) {
		struct trex_problem span = {.counter = TREX_INTEG_syntax_errors,
		                            .offset = 100 + 10 * i,
		                            .disk_offset = -1,
		                            .length = i == 10 ? 9 : 1,
		                            .track = TREX_NONE,
		                            .name = TREX_NONE};
		cr_assert_eq(trex_builder_problem(b, &span), 0);
	}

	struct trex_build_file file = {.path = "p.json", .format = "chrome-json", .dialect = "x"};
	struct trex_build_input in = {&file, 1, &b, 1, 1, NULL, NULL};
	struct trex_index *idx;
	struct trex_error err;
	file.base_time_ns = 1000;
	cr_assert_eq(trex_index_build(&in, &idx, &err), TREX_OK, "%s", err.message);
	cr_assert_eq(trex_index_problem_count(idx, 0, TREX_INTEG_syntax_errors), 8);
	cr_assert_eq(trex_index_problem(idx, 0, TREX_INTEG_syntax_errors, 7)->offset, 170);
	cr_assert_eq(trex_index_problem_count(idx, 0, TREX_INTEG_bytes_skipped), 8);
	cr_assert_eq(trex_index_damage(idx, 0, true)->offset, 200, "the longest, not kept");
	cr_assert_eq(trex_index_damage(idx, 0, false)->offset, 100);
	const struct trex_problem *q = trex_index_problem(idx, 0, TREX_INTEG_bad_dur, 0);
	cr_assert_eq(q->ts, 1005, "on the index clock");
	cr_assert_eq(q->slice, 0);
	cr_assert_str_eq(trex_index_str(idx, q->name), "k");
	cr_assert_eq(q->track, trex_index_slice(idx, 0)->track);
	trex_index_free(idx);
}
