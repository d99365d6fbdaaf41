// memsub — every cache-line compressor of the family, and the list tests and benchmarks iterate.
//
// `all_compressors` is a std::tuple of every compressor type with default parameters usable as
// is (64-byte lines). Contract and round-trip tests (tests/compression/test_roundtrip_common.cpp)
// and the benchmarks instantiate each member; a new compressor must be added here.
#pragma once

#include <tuple>

#include <memsub/compression/bdi.hpp>
#include <memsub/compression/best_of.hpp>
#include <memsub/compression/concept.hpp>
#include <memsub/compression/cpack.hpp>
#include <memsub/compression/fpc.hpp>
#include <memsub/compression/none.hpp>
#include <memsub/compression/stored_size.hpp>

namespace memsub::compression {

/// Every compressor type (each models `invertible_compressor`).
using all_compressors = std::tuple<none, bdi, fpc, cpack, cpack_z>;

/// The dissertation-style per-line best of the classic algorithms.
using best_of_classic = best_of<smallest_bits, bdi, fpc, cpack_z>;

} // namespace memsub::compression
