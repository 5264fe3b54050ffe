/*
 * SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the darrayio authors (AUTHORS)
 *
 * strategies.c - the strategy table: every way of moving a call's bytes.
 *
 * The planner (plan.c) asks each entry for its estimate and applies its
 * rules in the table's order (the first entry a hint forces wins; ties go
 * to the later entry); darray_strategy takes the entries' names (hints.c),
 * darray_explain prints every entry's estimate.
 *
 * Adding a strategy: a folder src/NAME/ that defines
 * `const strategy_t darray__strategy_NAME` with designated initializers
 * (strategy.h says what each slot must do; its estimate sizes the call as
 * its prepare does; state it keeps on the file across calls is freed by
 * its close slot, words of its own for darray_explain come from its
 * explain slot), its files in Makefile.am, one line in the list (strategy.h),
 * and its tests (test/plan/test_plan_unit.c checks every entry's estimate
 * against its formula). Nothing outside its folder names it. Keep direct
 * runs first: they are the fallback.
 *
 * The list itself is DARRAY_STRATEGY_LIST (hints.h), whose names the
 * core reads for darray_strategy (hints.c) without naming a strategy. A
 * line's .name must be its word in the list: test/plan/test_plan_unit.c
 * (table_names) fails where one differs (no compiler sees both: the
 * lines are in the strategies' files).
 */
#include "strategy.h"

#include <string.h>

/* rows before twophase: where its one group is every process the two
 * move the same bytes the same way, and a tie goes to the later entry,
 * two-phase (plan.c, rule 4); rows wins where it is cheaper. static
 * before both: it moves the same bytes in noncontiguous vectors where
 * they move contiguous extents, so at an equal estimate either asks less
 * of the file system; after direct runs, whose file calls its merged
 * pieces save. groups last: of the collective entries it has the fewest
 * processes at the file (one writer per group) and sends no message, so
 * at an equal estimate it asks least of the file system and of the
 * network; and the values of darray_strategy before it keep their
 * numbers. mapped last of all: where it is a candidate it asks nothing of
 * the network and one call per window of the file system (its estimate
 * charges a call even for no bytes, so it never ties direct runs on an
 * empty call) */
#define STRATEGIES(X) DARRAY_STRATEGY_LIST(X) /* strategy.h */

#define DECLARE(name)                                                          \
  DARRAY_HIDDEN extern const strategy_t darray__strategy_##name;
#define ENTRY(name) &darray__strategy_##name,
STRATEGIES(DECLARE)
const strategy_t *const darray__strategies[] = {STRATEGIES(ENTRY) NULL};

_Static_assert(sizeof darray__strategies / sizeof darray__strategies[0] <=
                   DARRAY_MAX_STRATEGIES + 1,
               "more strategies than DARRAY_MAX_STRATEGIES");

const strategy_t *darray__strategy_named(const char *name) {
  for (int k = 0; darray__strategies[k] != NULL; k++)
    if (strcmp(darray__strategies[k]->name, name) == 0)
      return darray__strategies[k];
  return NULL;
}
