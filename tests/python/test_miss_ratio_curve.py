# Miss-ratio curves: one pass equals one simulation per size.
import numpy as np
import pytest

import memsub
from conftest import mixed_stream


def test_lru_curve_equals_per_size_simulation(rng):
    addresses, _ = mixed_stream(rng, 30000, 3000)
    sizes = [1, 3, 16, 100, 512, 2048, 4096]
    curve = memsub.miss_ratio_curve(addresses, sizes=sizes)
    np.testing.assert_array_equal(curve["lines"], sizes)
    np.testing.assert_array_equal(curve["bytes"], np.array(sizes) * 64)
    assert curve["accesses"] == len(addresses)
    for lines, misses, ratio in zip(sizes, curve["misses"], curve["miss_ratio"]):
        fa = memsub.Cache("lru", kind="fully_associative", lines=lines)
        fa.access(addresses)
        assert fa.stats()["misses"] == misses
        assert ratio == pytest.approx(misses / len(addresses))
        # A single set of `lines` ways is the same cache.
        if lines <= 64:
            sa = memsub.Cache("lru", sets=1, ways=lines)
            sa.access(addresses)
            assert sa.stats()["misses"] == misses
    distinct = len(np.unique(addresses // 64))
    assert curve["cold_misses"] == distinct


def test_default_sizes_reach_the_footprint(rng):
    addresses, _ = mixed_stream(rng, 10000, 1000)
    curve = memsub.miss_ratio_curve(addresses, line_bytes=128)
    lines = curve["lines"]
    assert lines[0] == 1 and np.all(lines[1:] == lines[:-1] * 2)
    assert lines[-1] >= len(np.unique(addresses // 128)) > lines[-2]
    assert curve["miss_ratio"][-1] == pytest.approx(curve["cold_misses"] / len(addresses))
    assert np.all(np.diff(curve["miss_ratio"]) <= 0)


def test_opt_below_lru_and_shards_near_lru(rng):
    addresses, _ = mixed_stream(rng, 50000, 5000)
    sizes = [64, 256, 1024]
    lru = memsub.miss_ratio_curve(addresses, sizes=sizes)
    opt = memsub.miss_ratio_curve(addresses, sizes=sizes, method="opt")
    assert np.all(opt["misses"] <= lru["misses"])
    assert np.any(opt["misses"] < lru["misses"])
    full = memsub.miss_ratio_curve(addresses, sizes=sizes, method="shards", rate=1.0)
    np.testing.assert_allclose(full["miss_ratio"], lru["miss_ratio"], atol=1e-9)
    sampled = memsub.miss_ratio_curve(addresses, sizes=sizes, method="shards", rate=0.5)
    assert np.max(np.abs(sampled["miss_ratio"] - lru["miss_ratio"])) < 0.05
