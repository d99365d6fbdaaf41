// Compiled (syntax only) once per MEMSUB_BROKEN case by the `diagnose_messages` tests
// (tests/CMakeLists.txt): each case hands a type that breaks one requirement to its concept's
// `diagnose_X<T>()`, and the test passes only when the compiler's output carries that
// requirement's static_assert message, label first ("MS2: …"). A case with a good type
// (MEMSUB_BROKEN = 0) compiles; the tests do not build it.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>

#include <memsub/compression/concept.hpp>
#include <memsub/memory/concept.hpp>
#include <memsub/memory/scheduler_concept.hpp>
#include <memsub/replacement/concept.hpp>
#include <memsub/testing/archetypes.hpp>

#ifndef MEMSUB_BROKEN
#define MEMSUB_BROKEN 0
#endif

namespace {

using namespace memsub;
constexpr int broken = MEMSUB_BROKEN;

/// A request scheduler whose select may throw (MS2) when case 1 is built.
struct scheduler {
    struct params {};
    scheduler(const params&, std::uint32_t) {}
    template <class View>
    memory::selection select(std::size_t, const View&) noexcept(broken != 1) {
        return {};
    }
    template <class View>
    void on_selected(const View&, std::size_t) noexcept {}
    std::string_view name() const { return "s"; }
};

/// An address mapping without organisation() (M2, case 2) or without unmap (MI1, case 3).
struct mapping {
    memory::dram_address map(byte_address) const noexcept { return {}; }
#if MEMSUB_BROKEN != 2
    const memory::dram_organisation& organisation() const {
        return o;
    }
#endif
#if MEMSUB_BROKEN != 3
    byte_address unmap(const memory::dram_address&) const noexcept {
        return {};
    }
#endif
    memory::dram_organisation o;
};

/// A compressor whose compress returns a size instead of a compressed_line (CI1, case 4).
struct compressor {
    struct params {
        std::uint32_t line_bytes = 64;
    };
    compressor() = default;
    explicit compressor(const params&) {}
    std::string_view name() const { return "c"; }
    std::uint32_t line_bytes() const { return 64; }
    std::uint32_t size_bits(std::span<const std::byte>) const noexcept { return 0; }
    std::uint32_t metadata_bits() const noexcept { return 0; }
    std::uint32_t compress_latency_cycles() const noexcept { return 0; }
    std::uint32_t decompress_latency_cycles() const noexcept { return 0; }
    double compress_energy_nj() const noexcept { return 0; }
    double decompress_energy_nj() const noexcept { return 0; }
#if MEMSUB_BROKEN != 4
    compression::compressed_line compress(std::span<const std::byte>) const noexcept {
        return {};
    }
#else
    std::uint32_t compress(std::span<const std::byte>) const noexcept {
        return 0;
    }
#endif
    compression::decode_result decompress(compression::compressed_view,
                                          std::span<std::byte>) const noexcept {
        return {};
    }
};

/// Case 5: a replacement policy whose name() returns an int (R7).
using policy =
    std::conditional_t<broken == 5, testing::broken_policy_unnamed, testing::replacement_archetype>;

static_assert(memory::diagnose_request_scheduler<scheduler>());
static_assert(memory::diagnose_invertible_address_mapping<mapping>());
static_assert(compression::diagnose_invertible_compressor<compressor>());
static_assert(replacement::diagnose_replacement_policy<policy>());

} // namespace
