/*
 * Which arm runs when in `loadscope ab`. Runs go in rounds, one run of each
 * arm per round, so that a drift of the machine over the experiment (a
 * neighbour's load, the page cache filling) falls on every arm alike. The
 * order within a round matters too: a run inherits the state the run
 * before it left (memory just freed, caches just filled), so the rounds
 * follow a Williams design, the Latin square balanced for that carry-over:
 * over its rows each arm runs first equally often and is preceded by each
 * other arm equally often. Two arms give A B, B A, A B, ...
 *
 * Row r of the square for k arms is (w[j] + r) mod k, w = 0, 1, k-1, 2,
 * k-2, ...; for an odd k that square is balanced only together with its
 * mirror image, rows k..2k-1 (each row of the first square reversed).
 */
#include "ab.h"

static unsigned first_row(unsigned j, unsigned k)
{
	if (j == 0)
		return 0;
	return j % 2 ? (j + 1) / 2 : k - j / 2;
}

unsigned ab_arm_at(unsigned r, unsigned j, unsigned k)
{
	if (k < 2)
		return 0;
	unsigned rows = k % 2 ? 2 * k : k;
	r %= rows;
	if (r >= k) { /* the mirror of row r - k */
		r -= k;
		j = k - 1 - j;
	}
	return (first_row(j, k) + r) % k;
}
