/* The profile store: rows merged per (kernel, address), totals, waits,
 * quoted source lines, lookups. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "trex/core/profile.h"

static struct trex_profile *p;
static uint32_t active, sbid, send, report;

static uint32_t s(const char *text)
{
	return trex_profile_intern(p, text, strlen(text));
}

static void setup(void)
{
	uint32_t reasons[3];

	p = trex_profile_new();
	cr_assert(p);
	active = trex_profile_reason_add(p, "Active", "Active", TREX_REASON_NOT_STALL);
	sbid = trex_profile_reason_add(p, "SbidStall", "Sbid", TREX_REASON_DEPENDENCY);
	send = trex_profile_reason_add(p, "SendStall", "Send", 0);
	reasons[0] = active;
	reasons[1] = sbid;
	reasons[2] = send;
	report = trex_profile_report_add(p, "a.csv", "unitrace-stalls", reasons, 3);
	cr_assert_neq(report, TREX_PROFILE_NONE);
}

static void teardown(void)
{
	trex_profile_free(p);
}

static void row(uint32_t k, uint64_t addr, uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t counts[3] = {a, b, c};
	struct trex_insn_info info = {.addr = addr, .has_addr = true};

	cr_assert_eq(trex_profile_insn_add(p, k, &info, counts), 0);
}

static void freeze(void)
{
	struct trex_error err;

	cr_assert_eq(trex_profile_freeze(p, &err), TREX_OK);
}

TestSuite(profile, .init = setup, .fini = teardown);

Test(profile, reasons_are_interned_by_name)
{
	cr_assert_eq(trex_profile_reason_add(p, "SbidStall", "other", 0), sbid);
	cr_assert_eq(trex_profile_reason_count(p), 3);
	cr_assert_str_eq(trex_profile_str(p, trex_profile_reason(p, sbid)->label), "Sbid");
}

Test(profile, kernels_are_told_apart_by_report_device_and_name)
{
	uint32_t a0 = trex_profile_kernel_add(p, report, 0, s("A"));
	uint32_t a1 = trex_profile_kernel_add(p, report, 1, s("A"));
	uint32_t b0 = trex_profile_kernel_add(p, report, 0, s("B"));

	cr_assert(a0 != a1 && a0 != b0 && a1 != b0);
	cr_assert_eq(trex_profile_kernel_add(p, report, 1, s("A")), a1);
	cr_assert_eq(trex_profile_kernel_add(p, 7, 0, s("A")), TREX_PROFILE_NONE, "no such report");
}

Test(profile, many_kernels_keep_their_ids)
{
	uint32_t ids[300];
	char name[16];

	for (int i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "k%d", i);
		ids[i] = trex_profile_kernel_add(p, report, i % 3, s(name));
	}
	for (int i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "k%d", i);
		cr_assert_eq(trex_profile_kernel_add(p, report, i % 3, s(name)), ids[i]);
	}
	cr_assert_eq(trex_profile_kernel_count(p), 300);
}

Test(profile, rows_of_one_address_are_summed_and_ordered)
{
	uint32_t k = trex_profile_kernel_add(p, report, 0, s("A"));
	const struct trex_profile_kernel *kk;
	const uint64_t *c;

	row(k, 0x40, 1, 2, 3);
	row(k, 0x10, 0, 5, 0);
	row(k, 0x40, 10, 20, 30);
	freeze();
	kk = trex_profile_kernel(p, k);
	cr_assert_eq(kk->ninsns, 2);
	cr_assert_eq(trex_profile_insn(p, kk->first_insn)->addr, 0x10);
	c = trex_profile_counts(p, kk->first_insn + 1);
	cr_assert(c[0] == 11 && c[1] == 22 && c[2] == 33);
	cr_assert(kk->totals[0] == 11 && kk->totals[1] == 27 && kk->totals[2] == 33);
	cr_assert_eq(kk->stall_total, 60, "Active is no stall");
}

Test(profile, later_fields_win_and_rows_without_counts_describe)
{
	uint32_t k = trex_profile_kernel_add(p, report, 0, s("A"));
	struct trex_insn_info a = {.addr = 8, .has_addr = true, .text = s("old"), .line = 3};
	struct trex_insn_info b = {.addr = 8, .has_addr = true, .text = s("new"), .file = s("f.c")};
	const struct trex_profile_insn *in;

	row(k, 8, 0, 4, 0);
	cr_assert_eq(trex_profile_insn_add(p, k, &a, NULL), 0);
	cr_assert_eq(trex_profile_insn_add(p, k, &b, NULL), 0);
	freeze();
	in = trex_profile_insn(p, trex_profile_kernel(p, k)->first_insn);
	cr_assert_str_eq(trex_profile_str(p, in->text), "new");
	cr_assert_str_eq(trex_profile_str(p, in->file), "f.c");
	cr_assert_eq(in->line, 3);
	cr_assert_eq(trex_profile_counts(p, trex_profile_kernel(p, k)->first_insn)[1], 4);
	cr_assert(trex_profile_kernel(p, k)->flags & TREX_KERNEL_SOURCE);
}

Test(profile, rows_without_address_come_after)
{
	uint32_t k = trex_profile_kernel_add(p, report, 0, s("A"));
	struct trex_insn_info line7 = {.addr = 7, .has_addr = false, .line = 7};
	uint64_t counts[3] = {0, 1, 0};
	const struct trex_profile_kernel *kk;

	cr_assert_eq(trex_profile_insn_add(p, k, &line7, counts), 0);
	row(k, 0x100, 0, 0, 1);
	freeze();
	kk = trex_profile_kernel(p, k);
	cr_assert(trex_profile_insn(p, kk->first_insn)->has_addr);
	cr_assert(!trex_profile_insn(p, kk->first_insn + 1)->has_addr);
	cr_assert_eq(trex_profile_insn_find(p, k, 7), TREX_PROFILE_NONE, "7 is an ordinal");
	cr_assert_eq(trex_profile_insn_find(p, k, 0x100), kk->first_insn);
}

Test(profile, waits_attach_once_and_need_their_instruction)
{
	uint32_t k = trex_profile_kernel_add(p, report, 0, s("A"));
	const struct trex_profile_insn *in;

	row(k, 0x60, 0, 9, 0);
	row(k, 0x50, 0, 0, 1);
	cr_assert_eq(trex_profile_wait_add(p, k, 0x60, 0x50, s("f.c"), 23), 0);
	cr_assert_eq(trex_profile_wait_add(p, k, 0x60, 0x50, s("f.c"), 23), 0);
	cr_assert_eq(trex_profile_wait_add(p, k, 0x60, 0x20, 0, 0), 0);
	cr_assert_eq(trex_profile_wait_add(p, k, 0x999, 0x50, 0, 0), 0);
	freeze();
	in = trex_profile_insn(p, trex_profile_insn_find(p, k, 0x60));
	cr_assert_eq(in->nwaits, 2);
	cr_assert_eq(trex_profile_wait_at(p, in->first_wait)->producer, 0x50);
	cr_assert_eq(trex_profile_wait_at(p, in->first_wait)->line, 23);
	cr_assert_eq(trex_profile_wait_at(p, in->first_wait + 1)->producer, 0x20);
	cr_assert_eq(trex_profile_insn(p, trex_profile_insn_find(p, k, 0x50))->nwaits, 0);
}

Test(profile, the_first_quote_of_a_line_wins)
{
	uint32_t f = s("f.c"), g = s("g.c");

	cr_assert_eq(trex_profile_source_add(p, g, 2, s("g two")), 0);
	cr_assert_eq(trex_profile_source_add(p, f, 5, s("five")), 0);
	cr_assert_eq(trex_profile_source_add(p, f, 5, s("FIVE")), 0);
	cr_assert_eq(trex_profile_source_add(p, f, 1, s("one")), 0);
	freeze();
	cr_assert_str_eq(trex_profile_str(p, trex_profile_source_text(p, f, 5)), "five");
	cr_assert_str_eq(trex_profile_str(p, trex_profile_source_text(p, f, 1)), "one");
	cr_assert_str_eq(trex_profile_str(p, trex_profile_source_text(p, g, 2)), "g two");
	cr_assert_eq(trex_profile_source_text(p, f, 2), 0);
}

Test(profile, problems_are_counted_and_the_first_kept)
{
	struct trex_error e;

	for (int i = 0; i < TREX_PROFILE_PROBLEMS + 3; i++) {
		trex_error_set(&e, TREX_FORMAT, "a.csv", i, "problem %d", i);
		trex_profile_report_note(p, report, 1, &e);
	}
	freeze();
	cr_assert_eq(trex_profile_report(p, report)->problems, TREX_PROFILE_PROBLEMS + 3);
	cr_assert_eq(trex_profile_report(p, report)->rows, TREX_PROFILE_PROBLEMS + 3);
	cr_assert_str_eq(trex_profile_report(p, report)->problem[0].message, "problem 0");
}

Test(profile, kernels_of_different_widths)
{
	uint32_t one[1] = {send}, r2 = trex_profile_report_add(p, "b.csv", "ncu-source", one, 1);
	uint32_t ka = trex_profile_kernel_add(p, report, 0, s("A"));
	uint32_t kb = trex_profile_kernel_add(p, r2, 0, s("A"));
	uint64_t c1[1] = {7};
	struct trex_insn_info info = {.addr = 4, .has_addr = true};

	row(ka, 4, 1, 2, 3);
	cr_assert_eq(trex_profile_insn_add(p, kb, &info, c1), 0);
	row(ka, 8, 4, 5, 6);
	freeze();
	cr_assert_eq(trex_profile_counts(p, trex_profile_insn_find(p, kb, 4))[0], 7);
	cr_assert_eq(trex_profile_counts(p, trex_profile_insn_find(p, ka, 8))[2], 6);
	cr_assert_eq(trex_profile_kernel(p, kb)->stall_total, 7);
	cr_assert_gt(trex_profile_memory(p), 0);
}

/* Found by tests/fuzz/fuzz_unitrace.c: an input without a row left the
 * store without rows, waits or quotes, and freezing it sorted NULL arrays
 * (undefined behaviour; UBSan stops there). */
Test(profile, a_store_without_rows_freezes_empty)
{
	freeze();
	cr_assert_eq(trex_profile_kernel_count(p), 0);
	cr_assert_eq(trex_profile_report_count(p), 1);
}
