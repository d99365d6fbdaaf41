# memsub.Hierarchy: levels fed by the misses and dirty victims of the level above.
import numpy as np

import memsub
from conftest import mixed_stream


def test_one_level_is_the_cache(rng):
    addresses, kinds = mixed_stream(rng, 20000, 2000)
    h = memsub.Hierarchy([dict(policy="srrip", sets=32, ways=8)])
    served = h.access(addresses, kinds)
    flags = memsub.Cache("srrip", sets=32, ways=8).access(addresses, kinds)
    np.testing.assert_array_equal(served == 0, flags == 1)
    assert h.depth == 1 and h.stats()[0]["served"] == int(flags.sum())


def test_levels_see_the_misses_and_writebacks_above(rng):
    addresses, kinds = mixed_stream(rng, 50000, 6000)
    h = memsub.Hierarchy([dict(sets=16, ways=4), dict(policy="drrip", sets=128, ways=8),
                          dict(policy="ship", sets=512, ways=16, line_bytes=128)])
    served = h.access(addresses, kinds)
    l1, l2, l3 = h.stats()
    assert l1["accesses"] == len(addresses)
    # A level-0 miss is a fill request (a load: write-allocate) to level 1; its dirty victims
    # arrive as writebacks.
    assert l2["by_kind"]["load"]["accesses"] == l1["misses"]
    assert l2["by_kind"]["writeback"]["accesses"] == l1["writebacks"]
    assert l3["by_kind"]["load"]["accesses"] == l2["by_kind"]["load"]["misses"]
    counts = np.bincount(served, minlength=4)
    assert [l1["served"], l2["served"], l3["served"]] == counts[:3].tolist()
    memory = h.memory_stats()
    assert memory["served"] == counts[3] and memory["reads"] == counts[3]
    assert memory["writebacks"] == l3["writebacks"]
    h.reset_stats()
    assert all(s["accesses"] == 0 for s in h.stats())
