// check_compressor_contract: memsub's compressors and a minimal one pass; for each rule it
// checks, a compressor broken in exactly that way is reported under the rule's label.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include <memsub/compression/all.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/testing/all.hpp>

using namespace memsub;
namespace mc = memsub::compression;

namespace {

/// The one thing a test compressor gets wrong.
enum class flaw {
    none,
    accepts_any_line_size, // C2
    throws_runtime_error,  // C2
    empty_name,            // C3
    fixed_line_bytes,      // C4: line_bytes() is 64 whatever the params say
    impure_size,           // C5: size_bits() counts its calls
    drifting_metadata,     // C6
    placeholder_latency,   // C7
    negative_energy,       // C7
    size_mismatch,         // CI1: compress() reports a byte more than size_bits()
    dirty_padding,         // CI1: garbage past bytes()
    lossy,                 // CI2: the last byte comes back zero
    accepts_trailing,      // CI2: an over-long payload decodes as ok
    accepts_truncated,     // CI2: a short payload decodes as ok
    ignores_out_size,      // CI2: writes a whole line into any span
    overruns_on_corrupt,   // CI2: a corrupt raw payload is copied past `out`
    instance_dependent,    // K3: the second instance built codes raw lines one bit longer
    aborts_on_corrupt,     // K7: an unknown encoding aborts
};

int instances_built = 0; // for flaw::instance_dependent

/// The minimal invertible compressor: a zero line is 0 payload bits (a tag flag, encoding 1),
/// any other line is stored raw (encoding 0) — and `F`, the flaw under test.
template <flaw F = flaw::none>
class zero_or_raw {
public:
    struct params {
        std::uint32_t line_bytes = 64;
    };
    explicit zero_or_raw(const params& p) : line_bytes_(p.line_bytes), serial_(instances_built++) {
        if constexpr (F == flaw::throws_runtime_error)
            if (p.line_bytes == 48) throw std::runtime_error("48");
        if constexpr (F != flaw::accepts_any_line_size)
            memsub::require(mc::is_supported_line_size(p.line_bytes), "zero_or_raw", "line_bytes",
                            p.line_bytes, "must be 32, 64 or 128");
    }
    std::string_view name() const noexcept { return F == flaw::empty_name ? "" : "zero_or_raw"; }
    std::uint32_t line_bytes() const noexcept {
        return F == flaw::fixed_line_bytes ? 64 : line_bytes_;
    }
    std::uint32_t size_bits(std::span<const std::byte> line) const noexcept {
        if constexpr (F == flaw::impure_size) ++calls_;
        if (is_zero(line)) return 0;
        std::uint32_t bits = 8 * line_bytes_;
        if constexpr (F == flaw::impure_size) bits += calls_ % 2;
        if constexpr (F == flaw::instance_dependent) bits += serial_ % 2;
        return bits;
    }
    std::uint32_t metadata_bits() const noexcept {
        if constexpr (F == flaw::drifting_metadata) return 1 + calls_++;
        return 1;
    }
    std::uint32_t compress_latency_cycles() const noexcept {
        return F == flaw::placeholder_latency ? mc::latency_for_line_size : 1;
    }
    std::uint32_t decompress_latency_cycles() const noexcept { return 1; }
    double compress_energy_nj() const noexcept { return F == flaw::negative_energy ? -1.0 : 0.0; }
    double decompress_energy_nj() const noexcept { return 0.0; }

    mc::compressed_line compress(std::span<const std::byte> line) const noexcept {
        mc::compressed_line out;
        out.bits = size_bits(line);
        if (out.bits == 0) {
            out.encoding = 1;
            return out;
        }
        std::memcpy(out.payload.data(), line.data(), line.size());
        if constexpr (F == flaw::size_mismatch) out.bits += 8;
        if constexpr (F == flaw::dirty_padding) out.payload[out.bytes()] = std::byte{1};
        return out;
    }
    mc::decode_result decompress(mc::compressed_view v, std::span<std::byte> out) const noexcept {
        if constexpr (F == flaw::overruns_on_corrupt)
            if (v.encoding == 0 && v.bits >= 8 * line_bytes_ + 64) { // copies what the view says
                std::memcpy(out.data(), v.payload.data(),
                            std::min<std::size_t>(v.bits / 8, line_bytes_ + 8));
                return {};
            }
        if constexpr (F == flaw::aborts_on_corrupt)
            if (v.encoding > 1) std::abort();
        if (F != flaw::ignores_out_size && out.size() != line_bytes_)
            return {mc::decode_status::wrong_output_size, 0};
        if (v.bits > v.payload.size() * 8) return {mc::decode_status::bad_view, 0};
        const std::uint32_t expect = v.encoding == 1 ? 0 : 8 * line_bytes_;
        if (v.encoding > 1) return {mc::decode_status::unknown_encoding, 0};
        if (F != flaw::accepts_truncated && v.bits < expect)
            return {mc::decode_status::truncated, v.bits};
        if (F != flaw::accepts_trailing && v.bits > expect + (F == flaw::instance_dependent))
            return {mc::decode_status::trailing_bits, expect};
        if (v.encoding == 1)
            std::fill_n(out.data(), line_bytes_, std::byte{0});
        else
            std::memcpy(out.data(), v.payload.data(), line_bytes_);
        if constexpr (F == flaw::lossy) out[line_bytes_ - 1] = std::byte{0};
        return {};
    }

private:
    static bool is_zero(std::span<const std::byte> line) noexcept {
        return std::all_of(line.begin(), line.end(), [](std::byte b) { return b == std::byte{0}; });
    }
    std::uint32_t line_bytes_;
    int serial_;
    mutable std::uint32_t calls_ = 0;
};

/// A compressor that only sizes lines (not invertible): the number of non-zero 32-bit words
/// times 33 bits plus a 1-bit flag per word.
struct size_only {
    struct params {
        std::uint32_t line_bytes = 64;
    };
    explicit size_only(const params& p) : line_bytes_(p.line_bytes) {
        memsub::require(mc::is_supported_line_size(p.line_bytes), "size_only", "line_bytes",
                        p.line_bytes, "must be 32, 64 or 128");
    }
    std::string_view name() const noexcept { return "size_only"; }
    std::uint32_t line_bytes() const noexcept { return line_bytes_; }
    std::uint32_t size_bits(std::span<const std::byte> line) const noexcept {
        std::uint32_t bits = 0;
        for (std::size_t w = 0; w + 4 <= line.size(); w += 4) {
            std::uint32_t v;
            std::memcpy(&v, &line[w], 4);
            bits += v == 0 ? 1 : 33;
        }
        return bits;
    }
    std::uint32_t metadata_bits() const noexcept { return 0; }
    std::uint32_t compress_latency_cycles() const noexcept { return 1; }
    std::uint32_t decompress_latency_cycles() const noexcept { return 1; }
    double compress_energy_nj() const noexcept { return 0.0; }
    double decompress_energy_nj() const noexcept { return 0.0; }

private:
    std::uint32_t line_bytes_;
};

static_assert(mc::invertible_compressor<zero_or_raw<>>);
static_assert(mc::compressor<size_only> && !mc::invertible_compressor<size_only>);

testing::compressor_contract_options quick() {
    testing::compressor_contract_options o;
    o.lines = 1500;
    o.corrupt_payloads = 1500;
    return o;
}

template <class C>
void check_passes(const typename C::params& p = {}) {
    const auto rep = testing::check_compressor_contract<C>(p, quick());
    INFO(rep.text());
    CHECK(rep.ok());
    REQUIRE(rep.passes.size() == 3);
    for (const auto& pass : rep.passes) CHECK(pass.status == testing::pass_status::completed);
    CHECK(rep.passes[0].name == std::to_string(p.line_bytes) + " B lines");
    CHECK(rep.accesses == 3 * quick().lines);
}

/// The first violation kind the check finds in `zero_or_raw<F>` is labelled `label` and its
/// rule starts with `rule` (a flaw can have later effects: a size that differs from size_bits()
/// also fails to decode).
template <flaw F>
void check_reported(std::string_view label, std::string_view rule) {
    auto o = quick();
    o.all_line_sizes = false;
    const auto rep = testing::check_compressor_contract<zero_or_raw<F>>({}, o);
    INFO(rep.text());
    CHECK(!rep.ok());
    if (rep.ok()) return; // the next flaw's check still runs
    CHECK(rep.violations[0].check == label);
    CHECK(rep.violations[0].rule.starts_with(rule));
}

} // namespace

TEST_CASE("check_compressor_contract passes memsub's compressors at every line size") {
    check_passes<mc::bdi>();
    check_passes<mc::fpc>();
    check_passes<mc::cpack>();
    check_passes<mc::cpack_z>();
    check_passes<mc::bpc>();
    check_passes<mc::zero>();
    check_passes<mc::none>();
    check_passes<mc::sc2>({.line_bytes = 128});
    check_passes<mc::best_of_all>();
}

TEST_CASE("check_compressor_contract passes SC2 with a trained code book") {
    mc::value_frequency_table vft;
    xoshiro256ss rng(7);
    std::array<std::byte, 64> line{};
    for (int i = 0; i < 2000; ++i) {
        testing::detail::fill_contract_line(rng, line);
        vft.on_insert(line);
    }
    mc::sc2::params p;
    p.code_book = vft.build_code_book();
    check_passes<mc::sc2>(p);
}

TEST_CASE("check_compressor_contract passes a minimal compressor, and notes one that only sizes") {
    check_passes<zero_or_raw<>>();
    check_passes<zero_or_raw<>>({.line_bytes = 32});
    const auto rep = testing::check_compressor_contract<size_only>({}, quick());
    INFO(rep.text());
    CHECK(rep.ok());
    REQUIRE(rep.notes.size() == 1);
    CHECK(rep.notes[0].starts_with("CI1-CI2: the compressor is not invertible"));
}

TEST_CASE("check_compressor_contract: a line size the compressor refuses is a note, unless it is "
          "the params' own") {
    struct only_128 : zero_or_raw<> {
        struct params {
            std::uint32_t line_bytes = 128;
        };
        explicit only_128(const params& p) : zero_or_raw<>({.line_bytes = p.line_bytes}) {
            memsub::require(p.line_bytes == 128, "only_128", "line_bytes", p.line_bytes,
                            "must be 128");
        }
    };
    auto rep = testing::check_compressor_contract<only_128>({}, quick());
    CHECK(rep.ok());
    CHECK(rep.passes.size() == 1);
    CHECK(rep.notes.size() == 2);
    rep = testing::check_compressor_contract<only_128>({.line_bytes = 64}, quick());
    INFO(rep.text());
    REQUIRE(!rep.violations.empty());
    CHECK(rep.violations[0].check == "C2");
    CHECK(rep.violations[0].rule == "the params given to the check were refused");
}

TEST_CASE("check_compressor_contract reports each broken rule under its label") {
    check_reported<flaw::accepts_any_line_size>("C2", "an unsupported line size was accepted");
    check_reported<flaw::throws_runtime_error>(
        "C2", "an unsupported line size threw something other than config_error");
    check_reported<flaw::empty_name>("C3", "name() is empty");
    check_reported<flaw::impure_size>("C5", "size_bits() of the same line differs");
    check_reported<flaw::drifting_metadata>("C6", "metadata_bits() changed during a pass");
    check_reported<flaw::placeholder_latency>("C7", "a latency is left at the");
    check_reported<flaw::negative_energy>("C7", "an energy is negative");
    check_reported<flaw::size_mismatch>("CI1", "compress(line).bits differs from size_bits");
    check_reported<flaw::dirty_padding>("CI1", "payload bytes past bytes() are not zero");
    check_reported<flaw::lossy>("CI2", "decompress(compress(x)) differs from x");
    check_reported<flaw::accepts_trailing>("CI2", "a payload one bit longer");
    check_reported<flaw::accepts_truncated>("CI2", "a payload one bit shorter");
    check_reported<flaw::instance_dependent>("K3", "two instances built alike give different");
}

TEST_CASE("check_compressor_contract: C4 and CI2's output bounds") {
    // line_bytes() stuck at 64: C4 in the 32 B pass (and the 32 B round trip still holds).
    auto o = quick();
    auto rep = testing::check_compressor_contract<zero_or_raw<flaw::fixed_line_bytes>>(
        {.line_bytes = 32}, o);
    INFO(rep.text());
    CHECK(rep.has("C4", "32 B lines", "line_bytes() differs from params.line_bytes"));
    CHECK(!rep.has("C4", "64 B lines", "line_bytes() differs from params.line_bytes"));

    o.all_line_sizes = false;
    rep = testing::check_compressor_contract<zero_or_raw<flaw::ignores_out_size>>({}, o);
    INFO(rep.text());
    CHECK(rep.has("CI2", "64 B lines",
                  "decompress into a span one byte short of a line returned ok"));
    CHECK(rep.has("CI2", "64 B lines", "decompress into a span one byte short wrote outside it"));

    rep = testing::check_compressor_contract<zero_or_raw<flaw::overruns_on_corrupt>>({}, o);
    INFO(rep.text());
    REQUIRE(rep.violations.size() == 1);
    CHECK(rep.violations[0].text().starts_with(
        "CI2 [64 B lines] decompress of a corrupt payload wrote outside `out`"));
}

#if MEMSUB_TESTING_CAN_FORK
TEST_CASE("check_compressor_contract: a decoder that crashes on a corrupt payload is K7") {
    auto o = quick();
    o.all_line_sizes = false;
    const auto rep =
        testing::check_compressor_contract<zero_or_raw<flaw::aborts_on_corrupt>>({}, o);
    INFO(rep.text());
    REQUIRE(rep.passes.size() == 1);
    CHECK(rep.passes[0].status == testing::pass_status::crashed);
    REQUIRE(rep.violations.size() == 1);
    CHECK(rep.violations[0].check == "K7");
    CHECK(rep.violations[0].rule.starts_with("the compressor crashed with signal"));
}
#endif
