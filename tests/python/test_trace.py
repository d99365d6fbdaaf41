# Reading traces the test writes, in every text format and u64.
import numpy as np
import pytest

import memsub


def test_lackey(tmp_path):
    path = tmp_path / "t.lackey"
    path.write_text("==123== Lackey\nI  00400000,4\n L 7ff000100,8\n S 7ff000140,4\n"
                    " M 7ff000180,8\n")
    data = memsub.read_trace(str(path))
    np.testing.assert_array_equal(data["address"], [0x7ff000100, 0x7ff000140, 0x7ff000180])
    np.testing.assert_array_equal(data["pc"], [0x400000] * 3)
    t = memsub.read_trace(str(path), instruction_fetches=True)
    assert t["format"] == "lackey"
    np.testing.assert_array_equal(t["address"], [0x400000, 0x7ff000100, 0x7ff000140, 0x7ff000180])
    np.testing.assert_array_equal(t["kind"], [memsub.INSTRUCTION_FETCH, memsub.LOAD,
                                              memsub.STORE, memsub.LOAD])
    np.testing.assert_array_equal(t["size"], [4, 8, 4, 8])
    np.testing.assert_array_equal(t["read_modify_write"], [False, False, False, True])
    assert t["address"].dtype == np.uint64 and t["kind"].dtype == np.uint8


def test_din_and_limit(tmp_path):
    path = tmp_path / "t.din"
    path.write_text("".join(f"{i % 2} {0x1000 + 64 * i:x}\n" for i in range(100)))
    t = memsub.read_trace(str(path))
    assert t["format"] == "din" and len(t["address"]) == 100
    np.testing.assert_array_equal(t["address"], 0x1000 + 64 * np.arange(100))
    np.testing.assert_array_equal(t["kind"], np.arange(100) % 2)
    assert len(memsub.read_trace(str(path), limit=7)["address"]) == 7
    assert len(memsub.read_trace(str(path), limit=0)["address"]) == 0


def test_u64_and_feeding_a_cache(tmp_path, rng):
    addresses = rng.integers(0, 1 << 40, 10000, dtype=np.uint64)
    path = tmp_path / "t.u64"
    addresses.astype("<u8").tofile(path)
    t = memsub.read_trace(str(path))
    np.testing.assert_array_equal(t["address"], addresses)
    a = memsub.Cache(sets=64, ways=8).access(t["address"], t["kind"], t["pc"])
    b = memsub.Cache(sets=64, ways=8).access(addresses)
    np.testing.assert_array_equal(a, b)


def test_text_with_explicit_format(tmp_path):
    path = tmp_path / "trace.log"
    path.write_text("0x1000 R\n0x2000 W\n0x3000 I\n")
    t = memsub.read_trace(str(path), format="text")
    np.testing.assert_array_equal(t["address"], [0x1000, 0x2000, 0x3000])
    np.testing.assert_array_equal(t["kind"], [memsub.LOAD, memsub.STORE, memsub.INSTRUCTION_FETCH])


def test_errors(tmp_path):
    with pytest.raises(memsub.TraceError, match="cannot open"):
        memsub.read_trace(str(tmp_path / "missing.din"))
    bad = tmp_path / "bad.din"
    bad.write_text("0 1000\n0 2000\n9 zz\n")
    with pytest.raises(memsub.TraceError, match="line 3"):
        memsub.read_trace(str(bad))
    binary = tmp_path / "blob"
    binary.write_bytes(bytes(range(256)))
    with pytest.raises(memsub.TraceError, match="format"):
        memsub.read_trace(str(binary))
