# Compressors on real data: the bytes of a binary.
import os
import sys

import numpy as np
import pytest

import memsub


def binary_bytes(limit=256 * 1024):
    for path in ("/bin/ls", "/usr/bin/ls", sys.executable):
        if os.path.exists(path):
            with open(path, "rb") as f:
                data = f.read(limit)
            return data[: len(data) // 128 * 128]
    pytest.skip("no binary to read")


def test_names():
    names = memsub.compressor_names()
    assert names[:7] == ["bdi", "fpc", "cpack", "cpack_z", "bpc", "sc2", "best_of_all"]
    assert {"none", "zero"} <= set(names)


@pytest.mark.parametrize("name", memsub.compressor_names())
def test_round_trip_and_sizes_on_a_binary(name):
    data = binary_bytes(64 * 1024)
    bits = memsub.compressed_sizes(data, name, unit="bits")
    sizes = memsub.compressed_sizes(np.frombuffer(data, dtype=np.uint8), name)
    assert bits.dtype == np.uint32 and sizes.dtype == np.uint32
    assert len(bits) == len(data) // 64
    np.testing.assert_array_equal(sizes, (bits + 7) // 8)
    for i in range(len(bits)):
        line = data[64 * i: 64 * i + 64]
        packed = memsub.compress(line, name)
        assert packed.bits == bits[i] and packed.bytes == sizes[i]
        assert packed.line_bytes == 64 and packed.compressor == name
        assert bytes(memsub.decompress(packed)) == line


def test_what_the_sizes_say():
    data = binary_bytes()
    none = memsub.compressed_sizes(data, "none")
    assert np.all(none == 64)
    best = memsub.compressed_sizes(data, "best_of_all")
    for name in ("bdi", "fpc", "cpack_z", "bpc"):
        assert np.all(best <= memsub.compressed_sizes(data, name))
    zero = np.zeros(128 * 10, dtype=np.uint8)
    assert np.all(memsub.compressed_sizes(zero, "bdi", line_bytes=128) < 8)
    assert memsub.compressed_sizes(bytes(32 * 3), "fpc", line_bytes=32).shape == (3,)
    # A binary has zero and pointer-like lines: BDI compresses some, not all.
    bdi = memsub.compressed_sizes(data, "bdi")
    assert 0 < np.count_nonzero(bdi < 64) < len(bdi)
