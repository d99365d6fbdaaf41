# pytest set-up for the memsub Python module's tests (ctest runs them with PYTHONPATH set to
# the module's build directory, and MEMSUB_HOST_LIBRARY to the C interface's library).
import os

import numpy as np
import pytest


@pytest.fixture
def rng():
    return np.random.default_rng(2026)


@pytest.fixture(scope="session")
def host_library():
    """The C interface's shared library (libmemsub_host.so), or a skip when it is not built."""
    path = os.environ.get("MEMSUB_HOST_LIBRARY")
    if not path:
        pytest.skip("MEMSUB_HOST_LIBRARY is not set (CMake sets it when memsub::host is built)")
    import ctypes

    return ctypes.CDLL(path)


def mixed_stream(rng, n, lines, line_bytes=64, store_share=0.25):
    """A stream over `lines` distinct lines: a zipf-like hot set and uniform traffic, with
    stores, and offsets inside the line."""
    hot = rng.zipf(1.3, n) % (lines // 4)
    cold = rng.integers(0, lines, n)
    line = np.where(rng.random(n) < 0.6, hot, cold).astype(np.uint64)
    addresses = line * np.uint64(line_bytes) + rng.integers(0, line_bytes, n).astype(np.uint64)
    kinds = np.where(rng.random(n) < store_share, 1, 0).astype(np.uint8)
    return addresses, kinds
