/* IGC shader dumps: lines, addresses (prefixed or counted +8/+16), basic
 * blocks, the SBID token walk within and across blocks (expected findings
 * worked out by hand from analyzeperfmetrics.py's rules, unitrace.md §4),
 * and matching .asm files to kernels. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shader_dump.h"

static struct asm_listing a;

static void parse(const char *text)
{
	cr_assert(asm_listing_parse(text, strlen(text), &a));
}

static void done(void)
{
	asm_listing_free(&a);
}

TestSuite(asm_listing, .fini = done);

/* The line index of the instruction at addr. */
static size_t insn(uint64_t addr)
{
	size_t i = asm_listing_find(&a, addr);

	cr_assert_neq(i, SIZE_MAX, "no instruction at 0x%llx", (unsigned long long)addr);
	return i;
}

Test(asm_listing, addresses_are_counted_as_addrasm_does)
{
	parse("//.kernel k\n"
	      "        mov (16|M0) r4.0<1>:ud r0.1<0;1,0>:ud {Compacted} // $2\n"
	      "label_0:\n"
	      "        add (16|M0) r6.0<1>:d r4.0<1;0>:d 1:w {I@1} // $3\n"
	      "// a comment with Compacted in it\n"
	      "        mov (16|M0) r8.0<1>:d 0:w {Compacted} // $4\n"
	      "        nop // $5\n");
	cr_assert(!a.prefixed);
	cr_assert_eq(a.lines[1].addr, 0x0);
	cr_assert_eq(a.lines[3].addr, 0x8);
	cr_assert_eq(a.lines[5].addr, 0x18);
	cr_assert_eq(a.lines[6].addr, 0x20);
	cr_assert_eq(a.lines[2].kind, ASM_OTHER, "a label is not an instruction");
	cr_assert_eq(a.lines[4].kind, ASM_OTHER);
}

Test(asm_listing, prefixes_win_when_every_instruction_has_one)
{
	parse("/* [00000000] */ mov (16|M0) r4 r0 {Compacted} // $2\n"
	      "/* [00000040] */ add (16|M0) r6 r4 1:w // $3\n");
	cr_assert(a.prefixed);
	cr_assert_eq(a.lines[1].addr, 0x40, "the dump's own addresses, gaps and all");
	done();
	parse("/* [00000000] */ mov (16|M0) r4 r0 {Compacted} // $2\n"
	      "         add (16|M0) r6 r4 1:w // $3\n"
	      "/* [00000010] */ nop // $4\n");
	cr_assert(!a.prefixed, "one line without a prefix: all counted");
	cr_assert_eq(a.lines[1].addr, 0x8);
	cr_assert_eq(a.lines[2].addr, 0x18);
}

Test(asm_listing, text_and_annotations)
{
	const char *s;
	size_t len;

	parse("/* [000001B8] */         add (16|M0)   r10.0<1>:f   r12.0<1;1,0>:f  {$5.dst} //  "
	      "ALU pipe: "
	      "float; $44\n"
	      "// Line 27:  s += c[k] * x;\n"
	      "//File: /home/dev/v.cpp\n"
	      "// Line 31\n");
	asm_insn_text(&a.lines[0], &s, &len);
	cr_assert_eq(len, strlen("add (16|M0)   r10.0<1>:f   r12.0<1;1,0>:f  {$5.dst}"));
	cr_assert(strncmp(s, "add (16|M0)", 11) == 0);
	cr_assert_eq(a.lines[0].addr, 0x1b8);
	cr_assert_eq(a.lines[1].kind, ASM_LINE);
	cr_assert_eq(a.lines[1].number, 27);
	asm_annotation_text(&a.lines[1], &s, &len);
	cr_assert(len == 14 && strncmp(s, "s += c[k] * x;", 14) == 0);
	cr_assert_eq(a.lines[2].kind, ASM_FILE, "no blank needed after //");
	asm_annotation_text(&a.lines[2], &s, &len);
	cr_assert(len == 15 && strncmp(s, "/home/dev/v.cpp", 15) == 0);
	asm_annotation_text(&a.lines[3], &s, &len);
	cr_assert_eq(len, 0, "a line the compiler could not read");
	cr_assert(a.has_source);
}

Test(asm_listing, blocks_and_predecessors)
{
	parse("//.kernel k\n"
	      "// B000: Preds:{},  Succs:{B001}\n"
	      "        mov (16|M0) r4 r0 {Compacted} // $2\n"
	      "// B001: [inDivergent],  Preds:{B000, B002},  Succs:{B002}\n"
	      "        add (16|M0) r6 r4 1:w // $3\n"
	      "// B002: Preds:{B001, B009},  Succs:{B001}\n"
	      "        nop // $4\n");
	cr_assert_eq(a.nblocks, 3);
	cr_assert_str_eq(a.blocks[1].id, "B001");
	cr_assert_eq(a.blocks[1].head, 3);
	cr_assert_eq(a.blocks[1].tail, 4);
	cr_assert_eq(a.blocks[1].npreds, 2);
	cr_assert(a.blocks[1].preds[0] == 0 && a.blocks[1].preds[1] == 2);
	cr_assert_eq(a.blocks[2].npreds, 1, "B009 is no block");
	cr_assert_eq(a.lines[0].block, UINT32_MAX, "the header is in no block");
	cr_assert_eq(a.lines[6].block, 2);
}

Test(asm_listing, no_block_lines_make_one_block)
{
	parse("        mov (16|M0) r4 r0 {Compacted} // $2\n        nop // $3\n");
	cr_assert_eq(a.nblocks, 1);
	cr_assert_str_eq(a.blocks[0].id, "B000");
	cr_assert_eq(a.lines[1].block, 0);
}

/* ---- the SBID walk ------------------------------------------------------------------------- */

static struct sbid_result r;

static void walk(uint64_t addr)
{
	cr_assert_eq(asm_sbid_walk(&a, insn(addr), &r), 0);
}

static void cause(size_t i, uint64_t addr, int64_t line)
{
	cr_assert_gt(r.n, i, "cause %zu missing", i);
	cr_assert_eq(a.lines[r.causes[i].insn].addr, addr, "cause %zu at 0x%llx", i,
	             (unsigned long long)a.lines[r.causes[i].insn].addr);
	if (line)
		cr_assert_eq(a.lines[r.causes[i].line].number, line, "cause %zu line", i);
	else
		cr_assert_eq(r.causes[i].line, SIZE_MAX, "cause %zu has no line", i);
}

static void walk_done(void)
{
	sbid_result_free(&r);
	done();
}

TestSuite(sbid, .fini = walk_done);

/* A loop: B000 -> B001 <-> B002, B001 -> B003. */
static const char loop[] =
    "// B000: Preds:{},  Succs:{B001}\n"
    "// File: /v.cpp\n"
    "// Line 10:  x = a[i];\n"
    "/* [00000000] */ load.ugm.d32 (16|M0) r12:1 [r10:2] {A@1,$1} // $1\n"
    "// Line 11:  y = b[i];\n"
    "/* [00000010] */ add (16|M0) r14 r8 r5 {Compacted,$1.src} // $2\n"
    "/* [00000018] */ load.ugm.d32 (16|M0) r16:1 [r14:2] {A@1,$2} // $3\n"
    "// Line 12:  s = x * y;\n"
    "/* [00000028] */ mul (16|M0) r18 r12 r16 {$2.dst} // $4\n"
    "/* [00000038] */ send.ugm (16|M0) r20 r10:2 null:0 0x0 0x08200580 {$0} // $5\n"
    "// B001: [inDivergent],  Preds:{B000, B002},  Succs:{B002, B003}\n"
    "// Line 14:  for (...) {\n"
    "/* [00000048] */ add (16|M0) r24 r18 r12 {$1.dst} // $6\n"
    "/* [00000058] */ sync.nop null {Compacted,$5} // $7\n"
    "// B002: Preds:{B001, B002},  Succs:{B001, B002}\n"
    "// Line 15:  s += c[k];\n"
    "/* [00000060] */ sync.allrd ($0,$5) // $8\n"
    "/* [00000070] */ load.ugm.d32 (16|M0) r28:1 [r26:2] {A@1,$5} // $9\n"
    "/* [00000080] */ mad (16|M0) r24 r24 r28 r12 {$5.dst} // $10\n"
    "// B003: Preds:{B001},  Succs:{}\n"
    "// Line 17:  out[i] = s;\n"
    "/* [00000090] */ add (16|M0) r32 r24 r20 {$0.dst} // $11\n"
    "/* [000000A0] */ add (16|M0) r34 r32 r30 {$9.dst} // $12\n"
    "/* [000000B0] */ store.ugm.d32 (16|M0) [r36:2] r34:1 {A@1,$3} // $13\n"
    "/* [000000C0] */ store.ugm.d32 (16|M0) [r36:2] r34:1 {A@1,$3.src} // $14\n";

Test(sbid, within_a_block)
{
	parse(loop);
	walk(0x28);
	cr_assert_eq(r.tokens, 1);
	cr_assert_eq(r.n, 1);
	cause(0, 0x18, 11); /* $2 is set by the load; its line is 11 */
	cr_assert(a.lines[r.causes[0].file].len == 15 &&
	          !strncmp(a.lines[r.causes[0].file].s, "// File: /v.cpp", 15));
}

Test(sbid, a_dst_token_needs_the_bare_token_not_another_suffix)
{
	parse(loop);
	walk(0x48); /* $1.dst: the add at 0x10 carries $1.src, not $1 */
	cause(0, 0x0, 10);
	cr_assert_eq(r.n, 1);
}

Test(sbid, across_blocks_breadth_first)
{
	parse(loop);
	walk(0x90); /* B003 <- B001 <- {B000, B002}: $0 is set in B000 */
	cr_assert_eq(r.n, 1);
	cause(0, 0x38, 12);
	cr_assert_eq(r.unresolved, 0);
}

Test(sbid, bare_tokens_in_parentheses_and_a_loop_back_to_the_block)
{
	parse(loop);
	walk(0x60); /* sync.allrd ($0,$5): $5 later in its own block (loop), $0 in B000 */
	cr_assert_eq(r.tokens, 2);
	cr_assert_eq(r.n, 2);
	cause(0, 0x70, 15);
	cause(1, 0x38, 12);
}

Test(sbid, a_bare_token_skips_sync_instructions)
{
	parse("/* [00000000] */ send.ugm (16|M0) r20 r10:2 null:0 0x0 0x0 {$5} // $1\n"
	      "/* [00000010] */ sync.nop null {Compacted,$5} // $2\n"
	      "/* [00000018] */ sync.allrd ($5) // $3\n");
	walk(0x18);
	cr_assert_eq(r.n, 1);
	cause(0, 0x0, 0);
}

Test(sbid, send_instructions_wait_only_for_suffixed_tokens)
{
	parse(loop);
	walk(0xb0); /* a store's own $3 is the token it sets */
	cr_assert_eq(r.tokens, 0);
	cr_assert_eq(r.n, 0);
	walk_done();
	parse(loop);
	walk(0xc0); /* $3.src of a store: set by the store before it */
	cr_assert_eq(r.tokens, 1);
	cause(0, 0xb0, 17);
}

Test(sbid, a_token_nothing_sets_ends_the_walk)
{
	parse(loop);
	walk(0xa0); /* $9.dst: B003, B001, B000, B002 visited once each */
	cr_assert_eq(r.tokens, 1);
	cr_assert_eq(r.unresolved, 1);
	cr_assert_eq(r.n, 0);
}

Test(sbid, without_source_lines_no_line_is_looked_for)
{
	parse("/* [00000000] */ load.ugm.d32 (16|M0) r12:1 [r10:2] {A@1,$1} // $1\n"
	      "/* [00000010] */ add (16|M0) r24 r18 r12 {$1.dst} // $2\n");
	cr_assert(!a.has_source);
	walk(0x10);
	cause(0, 0x0, 0);
	cr_assert_eq(r.causes[0].file, SIZE_MAX);
}

/* ---- dump directories ---------------------------------------------------------------------- */

static const char *dumps(char *buf, size_t size)
{
	const char *srcdir = getenv("TREX_SRCDIR");

	snprintf(buf, size, "%s/tests/data/stalls/intel/dumps", srcdir ? srcdir : ".");
	return buf;
}

static void ends_with(const char *path, const char *name)
{
	cr_assert(path, "no file for %s", name);
	cr_assert(strlen(path) >= strlen(name) && !strcmp(path + strlen(path) - strlen(name), name),
	          "%s is not %s", path, name);
}

Test(dump_dir, kernels_are_found_by_their_demangled_names)
{
	struct shader_dump *d;
	struct trex_error err;
	char dir[1024];

	cr_assert_eq(shader_dump_open(dumps(dir, sizeof(dir)), &d, &err), TREX_OK, "%s",
	             err.message);
	ends_with(shader_dump_find(d, "main::{lambda(auto:1)#3}"),
	          "/OCL_asm5f8c2a7e13b9d4aa_simd16_entry_0003.asm");
	ends_with(shader_dump_find(d, "GEMM"), "/OCL_asm0c1d2e3f40516273_simd16_GEMM_0001.asm");
	/* recompiled: the longest name, then the largest */
	ends_with(shader_dump_find(d, "main::{lambda(auto:1)#4}"),
	          "/OCL_asm77aa01be_simd32_entry_0005_r2.asm");
	cr_assert_null(shader_dump_find(d, "main::{lambda(auto:1)#9}"));
	cr_assert_null(shader_dump_find(d, "_ZTSZ4mainEUlT_E1_"), "the CSV names are demangled");
	shader_dump_free(d);
}

Test(dump_dir, a_missing_directory_is_an_error)
{
	struct shader_dump *d;
	struct trex_error err;

	cr_assert_eq(shader_dump_open("/nonexistent/dumps", &d, &err), TREX_IO);
	cr_assert(strstr(err.message, "shader dump directory"));
	cr_assert_str_eq(err.path, "/nonexistent/dumps");
}

/* Found by tests/fuzz/fuzz_asm.c: an empty listing has no lines, and the
 * dummy block's first line was read from the NULL array. */
Test(asm_listing, an_empty_listing_has_one_empty_block)
{
	struct asm_listing empty;

	cr_assert(asm_listing_parse("", 0, &empty));
	cr_assert_eq(empty.n, 0);
	cr_assert_eq(empty.nblocks, 1);
	cr_assert_eq(asm_listing_find(&empty, 0), SIZE_MAX);
	asm_listing_free(&empty);
}
