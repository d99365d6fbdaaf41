// memsub — every cache-line compressor of the family, and the list tests and benchmarks iterate.
//
// `all_compressors` is a std::tuple of every compressor type with default parameters usable as
// is (64-byte lines). Contract and round-trip tests (tests/compression/test_roundtrip_common.cpp)
// and the benchmarks instantiate each member; a new compressor must be added here.
#pragma once

#include <tuple>

#include <memsub/compression/bdi.hpp>
#include <memsub/compression/best_of.hpp>
#include <memsub/compression/bpc.hpp>
#include <memsub/compression/concept.hpp>
#include <memsub/compression/cpack.hpp>
#include <memsub/compression/fpc.hpp>
#include <memsub/compression/none.hpp>
#include <memsub/compression/sc2.hpp>
#include <memsub/compression/stored_size.hpp>
#include <memsub/compression/zero.hpp>

namespace memsub::compression {

/// Every compressor type (each models `invertible_compressor`).
/// (`sc2` default-constructed uses the escape-only code book; give it a trained
/// `huffman_code_book` through `sc2::params::code_book`.)
using all_compressors = std::tuple<none, zero, bdi, fpc, cpack, cpack_z, bpc, sc2>;

/// The dissertation-style per-line best of the classic algorithms.
using best_of_classic = best_of<smallest_bits, bdi, fpc, cpack_z>;

/// All five algorithms of the dissertation (Ch. 4.3.3): BDI, FPC, C-PACK+Z, BPC, SC².
using best_of_all = best_of<smallest_bits, bdi, fpc, cpack_z, bpc, sc2>;

} // namespace memsub::compression
