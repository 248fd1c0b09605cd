/* Sequence alignment for `trex diff --by sequence`: Myers' O((N + M) D)
 * difference algorithm in linear space, as GNU diff's diffseq.h has it
 * (the middle snake found from both ends, divide and conquer, the cost
 * heuristic), over arrays of ids. */
#include "config.h"

#include "trex/analysis/diff.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trex/core/grow.h"

/* The two sequences, the furthest-reaching points per diagonal (indexed by
 * diagonal x - y, offset so that every diagonal of the whole problem
 * fits) and the marks of what was removed from a and added to b. */
struct align {
	const uint32_t *a, *b;
	ptrdiff_t *fd, *bd;
	uint8_t *del, *ins;
	ptrdiff_t too_expensive;
	uint64_t work, budget; /* diagonals and snake steps taken, and how many may be */
	bool approximate;
};

/* Where a subproblem splits, and whether each half must be solved
 * minimally (it is known to be cheap) or may use the heuristic again. */
struct split {
	ptrdiff_t xmid, ymid;
	bool lo_minimal, hi_minimal;
};

/* The work all searches together may do: enough for thousands of edits
 * on similar sequences; past it, what is left is solved as replaced. */
#define BUDGET_PER_ELEMENT 64
#define BUDGET_MIN (1u << 24)

/* The cost past which a search gives up: about the square root of the
 * sequences' length, at least 4096 (GNU diff's choice). */
static ptrdiff_t cost_cap(size_t n)
{
	ptrdiff_t c = 1;

	for (size_t d = n + 3; d; d >>= 2)
		c <<= 1;
	return c < 4096 ? 4096 : c;
}

/* Past the cap: the furthest point either search reached. */
static void give_up(const struct align *al, ptrdiff_t xoff, ptrdiff_t xlim, ptrdiff_t yoff,
                    ptrdiff_t ylim, const ptrdiff_t r[4], struct split *part)
{
	ptrdiff_t fbest = -1, fx = xoff, bbest = PTRDIFF_MAX, bx = xlim;

	for (ptrdiff_t d = r[1]; d >= r[0]; d -= 2) {
		ptrdiff_t x = al->fd[d] < xlim ? al->fd[d] : xlim, y = x - d;

		if (ylim < y) {
			x = ylim + d;
			y = ylim;
		}
		if (fbest < x + y) {
			fbest = x + y;
			fx = x;
		}
	}
	for (ptrdiff_t d = r[3]; d >= r[2]; d -= 2) {
		ptrdiff_t x = al->bd[d] > xoff ? al->bd[d] : xoff, y = x - d;

		if (y < yoff) {
			x = yoff + d;
			y = yoff;
		}
		if (x + y < bbest) {
			bbest = x + y;
			bx = x;
		}
	}
	if ((xlim + ylim) - bbest < fbest - (xoff + yoff))
		*part = (struct split){fx, fbest - fx, true, false};
	else
		*part = (struct split){bx, bbest - bx, false, true};
}

/* One step of the forward search over diagonals [r[0], r[1]]; true when
 * it met the backward one (odd delta), with the split in part. */
static bool forward(struct align *al, ptrdiff_t xlim, ptrdiff_t ylim, ptrdiff_t r[4],
                    ptrdiff_t dmin, ptrdiff_t dmax, bool odd, struct split *part)
{
	ptrdiff_t *fd = al->fd;

	if (r[0] > dmin)
		fd[--r[0] - 1] = -1;
	else
		++r[0];
	if (r[1] < dmax)
		fd[++r[1] + 1] = -1;
	else
		--r[1];
	for (ptrdiff_t d = r[1]; d >= r[0]; d -= 2) {
		ptrdiff_t lo = fd[d - 1], hi = fd[d + 1], x = lo >= hi ? lo + 1 : hi, y = x - d;
		ptrdiff_t x0 = x;

		while (x < xlim && y < ylim && al->a[x] == al->b[y]) {
			x++;
			y++;
		}
		al->work += 1 + (uint64_t)(x - x0);
		fd[d] = x;
		if (odd && r[2] <= d && d <= r[3] && al->bd[d] <= x) {
			*part = (struct split){x, y, true, true};
			return true;
		}
	}
	return false;
}

/* One step of the backward search over diagonals [r[2], r[3]]. */
static bool backward(struct align *al, ptrdiff_t xoff, ptrdiff_t yoff, ptrdiff_t r[4],
                     ptrdiff_t dmin, ptrdiff_t dmax, bool odd, struct split *part)
{
	ptrdiff_t *bd = al->bd;

	if (r[2] > dmin)
		bd[--r[2] - 1] = PTRDIFF_MAX;
	else
		++r[2];
	if (r[3] < dmax)
		bd[++r[3] + 1] = PTRDIFF_MAX;
	else
		--r[3];
	for (ptrdiff_t d = r[3]; d >= r[2]; d -= 2) {
		ptrdiff_t lo = bd[d - 1], hi = bd[d + 1], x = lo < hi ? lo : hi - 1, y = x - d;
		ptrdiff_t x0 = x;

		while (xoff < x && yoff < y && al->a[x - 1] == al->b[y - 1]) {
			x--;
			y--;
		}
		al->work += 1 + (uint64_t)(x0 - x);
		bd[d] = x;
		if (!odd && r[0] <= d && d <= r[1] && x <= al->fd[d]) {
			*part = (struct split){x, y, true, true};
			return true;
		}
	}
	return false;
}

/* The middle snake of a[xoff, xlim) against b[yoff, ylim), both ends
 * already differing; past the cost cap (unless minimal), the heuristic's
 * split. r: forward min, max, backward min, max diagonal. */
static void middle(struct align *al, ptrdiff_t xoff, ptrdiff_t xlim, ptrdiff_t yoff, ptrdiff_t ylim,
                   bool minimal, struct split *part)
{
	ptrdiff_t dmin = xoff - ylim, dmax = xlim - yoff;
	ptrdiff_t fmid = xoff - yoff, bmid = xlim - ylim;
	ptrdiff_t r[4] = {fmid, fmid, bmid, bmid};
	bool odd = (fmid - bmid) & 1;

	al->fd[fmid] = xoff;
	al->bd[bmid] = xlim;
	for (ptrdiff_t c = 1;; c++) {
		if (forward(al, xlim, ylim, r, dmin, dmax, odd, part) ||
		    backward(al, xoff, yoff, r, dmin, dmax, odd, part))
			return;
		if ((!minimal && c >= al->too_expensive) || al->work > al->budget) {
			al->approximate = true;
			give_up(al, xoff, xlim, yoff, ylim, r, part);
			return;
		}
	}
}

struct task {
	ptrdiff_t xoff, xlim, yoff, ylim;
	bool minimal;
};

struct task_stack {
	struct task *v;
	size_t n, cap;
};

static bool push_task(struct task_stack *s, struct task t)
{
	struct task *v = trex_grow(s->v, &s->cap, s->n + 1, sizeof(*v), 64);

	if (!v)
		return false;
	s->v = v;
	s->v[s->n++] = t;
	return true;
}

/* One subproblem: the common ends cut, then either all removed, all
 * added, or split at the middle snake into two more. */
static bool solve(struct align *al, struct task t, struct task_stack *todo)
{
	struct split part;

	while (t.xoff < t.xlim && t.yoff < t.ylim && al->a[t.xoff] == al->b[t.yoff]) {
		t.xoff++;
		t.yoff++;
	}
	while (t.xoff < t.xlim && t.yoff < t.ylim && al->a[t.xlim - 1] == al->b[t.ylim - 1]) {
		t.xlim--;
		t.ylim--;
	}
	if (t.xoff == t.xlim || t.yoff == t.ylim || al->work > al->budget) {
		al->approximate = al->approximate || (t.xoff < t.xlim && t.yoff < t.ylim);
		memset(al->ins + t.yoff, 1, (size_t)(t.ylim - t.yoff));
		memset(al->del + t.xoff, 1, (size_t)(t.xlim - t.xoff));
		return true;
	}
	middle(al, t.xoff, t.xlim, t.yoff, t.ylim, t.minimal, &part);
	return push_task(todo,
	                 (struct task){t.xoff, part.xmid, t.yoff, part.ymid, part.lo_minimal}) &&
	       push_task(todo,
	                 (struct task){part.xmid, t.xlim, part.ymid, t.ylim, part.hi_minimal});
}

static bool add_run(struct trex_diff_script *s, enum trex_diff_edit_kind kind, size_t a_pos,
                    size_t b_pos, size_t len)
{
	struct trex_diff_edit *v;

	if (s->n && s->v[s->n - 1].kind == kind) {
		s->v[s->n - 1].len += len;
		return true;
	}
	if (!(v = trex_grow(s->v, &s->cap, s->n + 1, sizeof(*v), 64)))
		return false;
	s->v = v;
	s->v[s->n++] = (struct trex_diff_edit){kind, a_pos, b_pos, len};
	return true;
}

/* The marks as runs: removals, then additions, then matches. */
static bool script_of(const struct align *al, size_t na, size_t nb, struct trex_diff_script *s)
{
	size_t i = 0, j = 0;

	while (i < na || j < nb) {
		size_t i0 = i, j0 = j;
		enum trex_diff_edit_kind kind;

		if (i < na && al->del[i]) {
			kind = TREX_DIFF_DEL;
			while (i < na && al->del[i])
				i++;
		} else if (j < nb && al->ins[j]) {
			kind = TREX_DIFF_INS;
			while (j < nb && al->ins[j])
				j++;
		} else {
			kind = TREX_DIFF_MATCH;
			while (i < na && j < nb && !al->del[i] && !al->ins[j]) {
				i++;
				j++;
			}
			if (i == i0) /* unmarked left on one side only: cannot be */
				break;
		}
		if (!add_run(s, kind, i0, j0, kind == TREX_DIFF_INS ? j - j0 : i - i0))
			return false;
	}
	return true;
}

void trex_diff_script_free(struct trex_diff_script *s)
{
	free(s->v);
	*s = (struct trex_diff_script){0};
}

static enum trex_status align_run(struct align *al, size_t na, size_t nb,
                                  struct trex_diff_script *out)
{
	struct task_stack todo = {NULL, 0, 0};
	bool ok = push_task(&todo, (struct task){0, (ptrdiff_t)na, 0, (ptrdiff_t)nb, false});

	while (ok && todo.n) {
		struct task t = todo.v[--todo.n];

		ok = solve(al, t, &todo);
	}
	free(todo.v);
	ok = ok && script_of(al, na, nb, out);
	out->approximate = al->approximate;
	return ok ? TREX_OK : TREX_NOMEM;
}

enum trex_status trex_diff_align(const uint32_t *a, size_t na, const uint32_t *b, size_t nb,
                                 struct trex_diff_script *out, struct trex_error *err)
{
	size_t diags = na + nb + 3;
	struct align al = {.a = a,
	                   .b = b,
	                   .too_expensive = cost_cap(na + nb),
	                   .budget = BUDGET_MIN + BUDGET_PER_ELEMENT * (uint64_t)(na + nb)};
	ptrdiff_t *fd = NULL, *bd = NULL;
	enum trex_status st = TREX_NOMEM;

	*out = (struct trex_diff_script){0};
	if (na >= PTRDIFF_MAX / 4 || nb >= PTRDIFF_MAX / 4)
		return trex_error_set(err, TREX_USAGE, NULL, -1, "sequence alignment: too long");
	fd = malloc(2 * diags * sizeof(*fd));
	al.del = calloc(na + 1, 1);
	al.ins = calloc(nb + 1, 1);
	if (fd && al.del && al.ins) {
		bd = fd + diags;
		/* diagonal d lives at [d + nb + 1]: d runs from -(nb + 1) to na + 1 */
		al.fd = fd + nb + 1;
		al.bd = bd + nb + 1;
		st = align_run(&al, na, nb, out);
	}
	free(fd);
	free(al.del);
	free(al.ins);
	if (st != TREX_OK) {
		trex_diff_script_free(out);
		return trex_error_set(err, st, NULL, -1, "sequence alignment: out of memory");
	}
	return TREX_OK;
}
