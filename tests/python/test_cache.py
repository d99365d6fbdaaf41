# memsub.Cache against a pure-Python LRU and against the C interface on the same streams.
import ctypes
from collections import OrderedDict

import numpy as np
import pytest

import memsub
from conftest import mixed_stream


def reference_lru(addresses, kinds, sets, ways, line_bytes=64):
    """A write-back, write-allocate set-associative LRU cache: hit flags and writebacks."""
    content = [OrderedDict() for _ in range(sets)]  # line -> dirty, least recent first
    flags, writebacks = [], 0
    for address, kind in zip(addresses.tolist(), kinds.tolist()):
        line = address // line_bytes
        s = content[line % sets]
        hit = line in s
        if hit:
            s.move_to_end(line)
        else:
            if len(s) == ways:
                _, dirty = s.popitem(last=False)
                writebacks += dirty
            s[line] = False
        if kind == memsub.STORE:
            s[line] = True
        flags.append(hit)
    return np.array(flags, dtype=np.uint8), writebacks


def test_lru_matches_a_python_reference(rng):
    addresses, kinds = mixed_stream(rng, 30000, 2000)
    cache = memsub.Cache("lru", sets=16, ways=4)
    flags = cache.access(addresses, kinds)
    expected, writebacks = reference_lru(addresses, kinds, 16, 4)
    assert flags.dtype == np.uint8 and flags.shape == addresses.shape
    np.testing.assert_array_equal(flags, expected)
    s = cache.stats()
    assert s["accesses"] == len(addresses)
    assert s["misses"] == len(addresses) - int(expected.sum())
    assert s["hits"] == int(expected.sum())
    assert s["writebacks"] == writebacks
    assert s["by_kind"]["store"]["accesses"] == int((kinds == memsub.STORE).sum())
    assert s["bytes_fetched"] == 64 * s["misses"]
    assert s["bytes_written_back"] == 64 * writebacks
    assert s["miss_ratio"] == pytest.approx(s["misses"] / s["accesses"])


def test_fully_associative_lru_matches_the_reference(rng):
    addresses, kinds = mixed_stream(rng, 20000, 600)
    cache = memsub.Cache("lru", kind="fully_associative", lines=64)
    flags = cache.access(addresses, kinds)
    expected, writebacks = reference_lru(addresses, kinds, 1, 64)
    np.testing.assert_array_equal(flags, expected)
    assert cache.stats()["writebacks"] == writebacks


def test_calls_continue_the_same_cache(rng):
    addresses, kinds = mixed_stream(rng, 20000, 2000)
    whole = memsub.Cache("srrip", sets=32, ways=8).access(addresses, kinds)
    split = memsub.Cache("srrip", sets=32, ways=8)
    parts = [split.access(addresses[i:i + 7000], kinds[i:i + 7000]) for i in range(0, 20000, 7000)]
    np.testing.assert_array_equal(np.concatenate(parts), whole)


def test_kinds_by_name_constant_and_code_agree(rng):
    addresses, kinds = mixed_stream(rng, 5000, 500)
    names = np.array(memsub.KIND_NAMES)[kinds]
    by_code = memsub.Cache("drrip", sets=16, ways=4).access(addresses, kinds)
    by_name = memsub.Cache("drrip", sets=16, ways=4).access(addresses, names)
    by_list = memsub.Cache("drrip", sets=16, ways=4).access(addresses.tolist(), names.tolist())
    np.testing.assert_array_equal(by_code, by_name)
    np.testing.assert_array_equal(by_code, by_list)
    c = memsub.Cache(sets=16, ways=4)
    c.access(addresses, "store")
    assert c.stats()["by_kind"]["store"]["accesses"] == len(addresses)
    c.access(addresses, memsub.INSTRUCTION_FETCH)
    assert c.stats()["by_kind"]["instruction_fetch"]["accesses"] == len(addresses)


def test_reset_stats_keeps_contents(rng):
    addresses, kinds = mixed_stream(rng, 5000, 100)
    for kind in ("set_associative", "fully_associative"):
        c = memsub.Cache(sets=16, ways=16, kind=kind)
        c.access(addresses, kinds)
        c.reset_stats()
        assert c.stats()["accesses"] == 0 and c.stats()["writebacks"] == 0
        flags = c.access(addresses[:100])  # 100 distinct lines fit: all resident
        assert flags.all()
        assert c.stats()["hits"] == 100 and c.stats()["misses"] == 0


def test_opt_is_a_lower_bound_and_matches_the_opt_curve(rng):
    addresses, kinds = mixed_stream(rng, 20000, 3000)
    misses = {}
    for p in ("lru", "srrip", "drrip", "opt"):
        flags = memsub.Cache(p, sets=32, ways=8).access(addresses)
        misses[p] = len(flags) - int(flags.sum())
    assert misses["opt"] < min(misses[p] for p in ("lru", "srrip", "drrip"))
    curve = memsub.miss_ratio_curve(addresses, sizes=[16, 64, 256], method="opt")
    for lines, expected in zip(curve["lines"], curve["misses"]):
        fa = memsub.Cache("opt", kind="fully_associative", lines=int(lines))
        fa.access(addresses)
        assert fa.stats()["misses"] == expected


def test_write_policies_and_variable_block(rng):
    addresses, kinds = mixed_stream(rng, 10000, 1000)
    back = memsub.Cache(sets=16, ways=4, write_policy="write_back")
    through = memsub.Cache(sets=16, ways=4, write_policy="write_through")
    back.access(addresses, kinds)
    through.access(addresses, kinds)
    assert back.stats()["writebacks"] > 0 and through.stats()["writebacks"] == 0
    assert through.stats()["bytes_written_down"] > 0
    vb = memsub.Cache(sets=16, ways=4, kind="variable_block", line_bytes=128, segment_bytes=32)
    sa = memsub.Cache(sets=16, ways=4, line_bytes=128)
    # Whole lines are inserted: the same hits as the conventional cache.
    np.testing.assert_array_equal(vb.access(addresses, kinds), sa.access(addresses, kinds))


def test_policy_names():
    names = memsub.policy_names(sets=64, ways=8)
    assert {"lru", "srrip", "drrip", "ship", "opt"} <= set(names)
    assert memsub.policy_names("fully_associative") == ["lru", "fifo", "opt"]
    for name in names:
        memsub.Cache(name, sets=64, ways=8).access(np.arange(1000, dtype=np.uint64) * 64)


def test_policy_settings_by_text_or_dict(rng):
    addresses, kinds = mixed_stream(rng, 40000, 4000)
    defaults = memsub.policy_params("srrip", sets=64, ways=8)
    assert defaults == {"rrpv_bits": 2, "promotion": "hit_priority"}
    assert memsub.policy_params("drrip")["psel_bits"] == 10
    assert memsub.policy_params("mlp_aware")["adaptive"] is True
    assert memsub.policy_params("lru") == {}
    assert memsub.policy_params("srrip", params={"rrpv_bits": 3})["rrpv_bits"] == 3

    def hits(policy, **kw):
        cache = memsub.Cache(policy, sets=64, ways=8, **kw)
        return cache.access(addresses, kinds).sum(), cache

    by_text, cache = hits("srrip:rrpv_bits=3,promotion=frequency_priority")
    assert cache.policy == "srrip:rrpv_bits=3,promotion=frequency_priority"
    by_dict, _ = hits("srrip", params={"rrpv_bits": 3, "promotion": "frequency_priority"})
    assert by_text == by_dict
    plain, _ = hits("srrip")
    assert plain != by_text  # the settings change what the policy keeps
    # a bool from Python reaches the policy as true/false
    assert hits("opt", params={"allow_bypass": True})[0] >= hits("opt")[0]
    with pytest.raises(memsub.ConfigError) as e:
        memsub.Cache("srrip", sets=64, ways=8, params={"rrpv_bits": 9})
    assert e.value.parameter == "rrpv_bits"
    with pytest.raises(memsub.ConfigError, match="rrpv_bits, promotion"):
        memsub.Cache("srrip:bits=3", sets=64, ways=8)
    with pytest.raises(memsub.ConfigError, match="take no parameters"):
        memsub.Cache("lru:x=1", kind="fully_associative", lines=64)
    with pytest.raises(TypeError):
        memsub.Cache("srrip", params=[("rrpv_bits", 3)])
    # a hierarchy level takes a spec too
    two = memsub.Hierarchy([dict(policy="srrip:rrpv_bits=3", sets=64, ways=8),
                            dict(policy="drrip:psel_bits=6", sets=256, ways=8)])
    two.access(addresses, kinds)


# -- the C interface on the same stream --------------------------------------------------------

C_ACCESS = np.dtype([("address", "<u8"), ("pc", "<u8"), ("next_use", "<u8"), ("size", "<u4"),
                     ("requester", "<u4"), ("miss_cost_cycles", "<u4"),
                     ("span_segments", "<u4"), ("stored_segments", "<u4"),
                     ("sector_mask", "<u2"), ("kind", "u1"), ("read_modify_write", "u1"),
                     ("no_allocate", "u1"), ("memory_cost_class", "u1"), ("hints", "u1"),
                     ("reserved", "u1")], align=True)


class CConfig(ctypes.Structure):
    _fields_ = [("sets", ctypes.c_uint32), ("ways", ctypes.c_uint32),
                ("line_bytes", ctypes.c_uint32), ("segment_bytes", ctypes.c_uint32),
                ("tags_per_set", ctypes.c_uint32), ("max_block_segments", ctypes.c_uint32),
                ("lines", ctypes.c_uint64), ("write_policy", ctypes.c_uint32),
                ("reserved", ctypes.c_uint32)]


def next_uses(addresses, line_bytes=64):
    lines = (addresses // line_bytes).tolist()
    out, seen = [0] * len(lines), {}
    for i in range(len(lines) - 1, -1, -1):
        out[i] = seen.get(lines[i], 2**64 - 1)
        seen[lines[i]] = i
    return np.array(out, dtype=np.uint64)


def c_interface_flags(lib, policy, sets, ways, addresses, kinds, pcs):
    assert C_ACCESS.itemsize == 56
    records = np.zeros(len(addresses), dtype=C_ACCESS)
    records["address"], records["kind"], records["pc"] = addresses, kinds, pcs
    if policy == "opt":
        records["next_use"], records["hints"] = next_uses(addresses), 1
    cache = ctypes.c_void_p()
    config = CConfig(sets=sets, ways=ways, line_bytes=64)
    assert lib.memsub_cache_create(0, policy.encode(), ctypes.byref(config),
                                   ctypes.byref(cache), None) == 0
    flags = np.zeros(len(addresses), dtype=np.uint8)
    hits = ctypes.c_uint64()
    status = lib.memsub_cache_access_batch(cache, records.ctypes.data_as(ctypes.c_void_p),
                                           ctypes.c_size_t(len(records)), ctypes.byref(hits),
                                           flags.ctypes.data_as(ctypes.c_void_p))
    lib.memsub_cache_destroy(cache)
    assert status == 0
    return flags


@pytest.mark.parametrize("policy", ["lru", "srrip", "drrip", "ship", "brrip", "tree_plru",
                                    "remap", "opt",
                                    "srrip:rrpv_bits=3,promotion=frequency_priority",
                                    "drrip:psel_bits=6,source=counter"])
def test_same_hits_as_the_c_interface(host_library, rng, policy):
    host_library.memsub_cache_destroy.argtypes = [ctypes.c_void_p]
    addresses, kinds = mixed_stream(rng, 40000, 4000)
    pcs = (rng.integers(0, 64, len(addresses)) * 4 + 0x400000).astype(np.uint64)
    expected = c_interface_flags(host_library, policy, 64, 8, addresses, kinds, pcs)
    flags = memsub.Cache(policy, sets=64, ways=8).access(addresses, kinds, pcs=pcs)
    np.testing.assert_array_equal(flags, expected)


def test_threads_sharing_a_cache_take_turns(rng):
    import threading

    addresses, kinds = mixed_stream(rng, 200000, 20000)
    shared = memsub.Cache("srrip", sets=64, ways=8)
    chunks = np.array_split(np.arange(len(addresses)), 8)
    threads = [threading.Thread(target=shared.access, args=(addresses[c], kinds[c]))
               for c in chunks]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # The order of the calls is the threads', but every access ran exactly once.
    s = shared.stats()
    assert s["accesses"] == len(addresses)
    assert s["by_kind"]["store"]["accesses"] == int((kinds == memsub.STORE).sum())
