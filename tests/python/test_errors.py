# Errors: ConfigError names the parameter, bad arrays raise TypeError / ValueError naming the
# argument, and nothing crashes.
import numpy as np
import pytest

import memsub


@pytest.mark.parametrize("kwargs, parameter", [
    (dict(sets=3), "sets"),
    (dict(ways=0), "ways"),
    (dict(line_bytes=48), "line_bytes"),
    (dict(policy="no_such_policy"), "name"),
    (dict(kind="direct"), "kind"),
    (dict(write_policy="write_sometimes"), "write_policy"),
    (dict(kind="fully_associative", policy="srrip"), "policy"),
    (dict(kind="fully_associative", write_policy="write_through"), "write_policy"),
    (dict(lines=64), "lines"),
    (dict(kind="variable_block", line_bytes=128, segment_bytes=32, max_block_segments=3),
     "max_block_segments"),
])
def test_config_error_names_the_parameter(kwargs, parameter):
    with pytest.raises(memsub.ConfigError) as e:
        memsub.Cache(**kwargs)
    assert e.value.parameter == parameter
    assert parameter in str(e.value)
    assert isinstance(e.value, ValueError)


def test_unknown_policy_lists_what_can_be_built():
    with pytest.raises(memsub.ConfigError, match="srrip"):
        memsub.Cache("no_such_policy", sets=64, ways=8)


def test_other_config_errors():
    with pytest.raises(memsub.ConfigError) as e:
        memsub.Hierarchy([dict(sets=64, ways=8), dict(sets=100, ways=8)])
    assert e.value.parameter == "sets"
    with pytest.raises(memsub.ConfigError) as e:
        memsub.Hierarchy([dict(sets=64, ways=8, associativity=2)])
    assert e.value.parameter == "associativity"
    with pytest.raises(memsub.ConfigError) as e:
        memsub.Hierarchy([dict(sets=64, ways=8, policy="opt")])
    assert e.value.parameter == "policy"
    with pytest.raises(memsub.ConfigError) as e:
        memsub.Hierarchy([dict(sets=64, ways=8)] * 4)
    assert e.value.parameter == "levels"
    with pytest.raises(memsub.ConfigError) as e:
        memsub.miss_ratio_curve(np.arange(10, dtype=np.uint64), method="belady")
    assert e.value.parameter == "method"
    with pytest.raises(memsub.ConfigError) as e:
        memsub.miss_ratio_curve(np.arange(10, dtype=np.uint64), line_bytes=3)
    assert e.value.parameter == "line_bytes"
    with pytest.raises(memsub.ConfigError) as e:
        memsub.miss_ratio_curve(np.arange(10, dtype=np.uint64), method="shards", rate=2.0)
    assert e.value.parameter == "rate"
    with pytest.raises(memsub.ConfigError) as e:
        memsub.compressed_sizes(bytes(64), compressor="lz4")
    assert e.value.parameter == "compressor"
    with pytest.raises(memsub.ConfigError) as e:
        memsub.compressed_sizes(bytes(48), line_bytes=48)
    assert e.value.parameter == "line_bytes"
    with pytest.raises(memsub.ConfigError) as e:
        memsub.read_trace("whatever.txt", format="pcap")
    assert e.value.parameter == "format"


def test_bad_arrays_name_the_argument():
    c = memsub.Cache(sets=16, ways=4)
    a = np.arange(10, dtype=np.uint64)
    with pytest.raises(TypeError, match="addresses"):
        c.access(a.astype(np.float64))
    with pytest.raises(TypeError, match="addresses"):
        c.access(["a", "b"])
    with pytest.raises(ValueError, match="addresses"):
        c.access(a.reshape(2, 5))
    with pytest.raises(ValueError, match="addresses"):
        c.access(np.array([-1, 5], dtype=np.int64))
    with pytest.raises(ValueError, match="kinds"):
        c.access(a, np.zeros(9, dtype=np.uint8))
    with pytest.raises(ValueError, match="kinds"):
        c.access(a, np.full(10, 5, dtype=np.uint8))
    with pytest.raises(ValueError, match="kinds"):
        c.access(a, np.array(["load"] * 9 + ["lode"]))
    with pytest.raises(ValueError, match="kinds"):
        c.access(a, 7)
    with pytest.raises(TypeError, match="kinds"):
        c.access(a, np.zeros(10, dtype=np.float32))
    with pytest.raises(ValueError, match="pcs"):
        c.access(a, pcs=np.zeros(11, dtype=np.uint64))
    with pytest.raises(ValueError, match="sizes"):
        c.access(a, sizes=np.full(10, 2**33, dtype=np.uint64))
    with pytest.raises(TypeError, match="buffer"):
        memsub.compressed_sizes(np.zeros(64, dtype=np.int32))
    with pytest.raises(ValueError, match="buffer"):
        memsub.compressed_sizes(bytes(100))
    assert c.stats()["accesses"] == 0  # no call above ran any access


def test_other_integer_dtypes_are_converted():
    a = np.arange(1000, dtype=np.int64) * 64
    expected = memsub.Cache(sets=16, ways=4).access(a.astype(np.uint64))
    for dtype in (np.int64, np.uint32, np.int32):
        np.testing.assert_array_equal(
            memsub.Cache(sets=16, ways=4).access((a // 64).astype(dtype) * 64), expected)
    assert memsub.Cache(sets=16, ways=4).access(np.array([], dtype=np.uint64)).size == 0
