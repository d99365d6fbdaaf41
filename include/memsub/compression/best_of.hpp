// memsub — `best_of<Selector, Compressors...>`: per-line choice among compressors, itself a
// compressor (docs/design.md, principle 5: combinators preserve concepts).
//
// Citation: the "multi" compressor of gem5 (src/mem/cache/compressors/multi.*) and the
// per-line best-algorithm choice of HyComp / LATTE-CC (dissertation Ch. 4.3.3, which picks among
// BDI, FPC, C-PACK+Z, BPC, SC²). All members see the line in parallel; a selector picks one per
// line; the winner's index is tag metadata (⌈log2 N⌉ bits) next to the winner's own metadata.
//
// Deviations / resolutions:
// - Default selector `smallest_bits`: smallest exact payload, ties → the member listed first
//   (list members in your preferred order). gem5 instead compares power-of-two-rounded sizes
//   and breaks ties by decompression latency (P-G10): use `smallest_bits_then_fastest` for its
//   tie-break or `smallest_stored` to compare §2 stored sizes.
// - Latency (docs/mechanisms/compressors.md §3, gem5 Multi): compression = slowest member +
//   `select_compress_cycles` (default +1, select the winner); decompression = the chosen member's +
//   `select_decompress_cycles` (default +1; 0 models a member id read together with the tag,
//   gem5's BDI configuration). The concept-level `decompress_latency_cycles()` reports
//   the worst member (a bound); `decompress_latency_cycles(line)` the actual one.
// - Energy: compression = Σ members (all run); decompression = the chosen member's (bound:
//   the largest).
// - Every member is constructed with `params::line_bytes` (the members' own field is replaced);
//   so is a selector's storage rule (`smallest_stored::rule.line_bytes`).
// Member path: `compressed_line::member` = child.member · N + index, so best_of nests.
// Hardware budget: the members' own, plus a comparator tree over N sizes.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

#include <memsub/compression/concept.hpp>
#include <memsub/compression/stored_size.hpp>
#include <memsub/config.hpp>

namespace memsub::compression {

/// What a selector sees about one member for one line.
struct candidate {
    std::uint32_t bits = 0;                      ///< exact payload bits
    std::uint32_t decompress_latency_cycles = 0; ///< the member's decompression latency
    std::uint32_t metadata_bits = 0;             ///< the member's tag metadata bits
};

/// A selector picks one candidate index (< size) for a line; pure, noexcept.
template <class S>
concept compressor_selector = std::default_initializable<S> && std::copy_constructible<S> &&
    requires(const S& s, std::span<const candidate> c) {
    { s(c) }
    noexcept->std::convertible_to<std::size_t>;
};

/// Smallest exact payload; ties → lowest index.
struct smallest_bits {
    [[nodiscard]] std::size_t operator()(std::span<const candidate> c) const noexcept {
        std::size_t best = 0;
        for (std::size_t i = 1; i < c.size(); ++i)
            if (c[i].bits < c[best].bits) best = i;
        return best;
    }
};

/// Smallest exact payload; ties → lowest decompression latency, then lowest index (gem5's
/// tie-break, P-G4/P-G10, on exact sizes).
struct smallest_bits_then_fastest {
    [[nodiscard]] std::size_t operator()(std::span<const candidate> c) const noexcept {
        std::size_t best = 0;
        for (std::size_t i = 1; i < c.size(); ++i)
            if (c[i].bits < c[best].bits ||
                (c[i].bits == c[best].bits &&
                 c[i].decompress_latency_cycles < c[best].decompress_latency_cycles))
                best = i;
        return best;
    }
};

/// Smallest §2 stored size under `rule`; ties → fewer bits, then faster decompression, then
/// lowest index. Inside `best_of` the rule's line size is the combinator's; its segment defaults
/// to the CS3 one for that line size.
struct smallest_stored {
    storage_rule rule{};
    [[nodiscard]] std::size_t operator()(std::span<const candidate> c) const noexcept {
        std::size_t best = 0;
        std::uint32_t best_stored = stored_size_of(c[0].bits, rule).stored_bytes;
        for (std::size_t i = 1; i < c.size(); ++i) {
            const std::uint32_t s = stored_size_of(c[i].bits, rule).stored_bytes;
            const bool better =
                s < best_stored ||
                (s == best_stored &&
                 (c[i].bits < c[best].bits ||
                  (c[i].bits == c[best].bits &&
                   c[i].decompress_latency_cycles < c[best].decompress_latency_cycles)));
            if (better) {
                best = i;
                best_stored = s;
            }
        }
        return best;
    }
};

static_assert(compressor_selector<smallest_bits>);
static_assert(compressor_selector<smallest_bits_then_fastest>);
static_assert(compressor_selector<smallest_stored>);

template <compressor_selector Selector, compressor... Cs>
class best_of;

namespace detail {
/// How many distinct member paths a compressor uses (1 for a plain compressor).
template <class C>
struct member_paths : std::integral_constant<std::uint32_t, 1> {};
template <class S, class... Cs>
struct member_paths<best_of<S, Cs...>>
    : std::integral_constant<std::uint32_t,
                             sizeof...(Cs) * std::max({member_paths<Cs>::value...})> {};
} // namespace detail

template <compressor_selector Selector, compressor... Cs>
class best_of {
    static_assert(sizeof...(Cs) >= 1, "best_of needs at least one member");
    static constexpr std::uint32_t n = sizeof...(Cs);

public:
    struct params {
        std::uint32_t line_bytes = 64;
        /// Each member's parameters (their `line_bytes` is replaced by the one above).
        std::tuple<typename Cs::params...> members{};
        Selector selector{};
        std::uint32_t select_compress_cycles = 1;   ///< gem5 Multi: +1 to pick the winner
        std::uint32_t select_decompress_cycles = 1; ///< gem5 Multi: +1 (0: id read with the tag)
    };

    /// Distinct `compressed_line::member` values this combinator may produce.
    static constexpr std::uint32_t member_path_count = detail::member_paths<best_of>::value;
    static_assert(member_path_count <= 65536, "best_of nesting exceeds the 16-bit member path");

    best_of() : best_of(params{}) {}
    explicit best_of(const params& p)
        : p_(p)
        , members_(make_members(p, std::index_sequence_for<Cs...>{})) {
        require_line_bytes(p.line_bytes, "memsub::compression::best_of");
        if constexpr (requires { p_.selector.rule.line_bytes; }) {
            p_.selector.rule.line_bytes = p.line_bytes;
            p_.selector.rule.validate("memsub::compression::best_of selector");
        }
        // name: "best_of(a,b,…)"
        std::size_t k = 0;
        auto append = [&](std::string_view s) {
            for (char ch : s)
                if (k + 1 < name_.size()) name_[k++] = ch;
        };
        append("best_of(");
        std::size_t i = 0;
        std::apply(
            [&](const auto&... m) { ((append(i++ == 0 ? "" : ","), append(m.name())), ...); },
            members_);
        append(")");
        name_len_ = k;
    }

    [[nodiscard]] std::string_view name() const noexcept { return {name_.data(), name_len_}; }
    [[nodiscard]] std::uint32_t line_bytes() const noexcept { return p_.line_bytes; }
    [[nodiscard]] const params& parameters() const noexcept { return p_; }
    [[nodiscard]] static constexpr std::uint32_t size() noexcept { return n; }
    /// Member i (compile-time index).
    template <std::size_t I>
    [[nodiscard]] const auto& member() const noexcept {
        return std::get<I>(members_);
    }

    /// ⌈log2 N⌉ bits of member id + the largest member metadata.
    [[nodiscard]] std::uint32_t metadata_bits() const noexcept {
        std::uint32_t m = 0;
        std::apply(
            [&](const auto&... c) { ((m = std::max<std::uint32_t>(m, c.metadata_bits())), ...); },
            members_);
        return static_cast<std::uint32_t>(std::bit_width(n - 1)) + m;
    }
    [[nodiscard]] std::uint32_t compress_latency_cycles() const noexcept {
        std::uint32_t m = 0;
        std::apply(
            [&](const auto&... c) {
                ((m = std::max<std::uint32_t>(m, c.compress_latency_cycles())), ...);
            },
            members_);
        return m + p_.select_compress_cycles;
    }
    /// Worst case over members (a bound); see the per-line overload.
    [[nodiscard]] std::uint32_t decompress_latency_cycles() const noexcept {
        std::uint32_t m = 0;
        std::apply(
            [&](const auto&... c) {
                ((m = std::max<std::uint32_t>(m, c.decompress_latency_cycles())), ...);
            },
            members_);
        return m + p_.select_decompress_cycles;
    }
    /// The decompression latency of a compressed line (its member's + the select cycles).
    [[nodiscard]] std::uint32_t decompress_latency_cycles(const compressed_line& c) const noexcept {
        return latencies_[c.member % n] + p_.select_decompress_cycles;
    }
    [[nodiscard]] double compress_energy_nj() const noexcept {
        double e = 0;
        std::apply([&](const auto&... c) { ((e += c.compress_energy_nj()), ...); }, members_);
        return e;
    }
    [[nodiscard]] double decompress_energy_nj() const noexcept {
        double e = 0;
        std::apply([&](const auto&... c) { ((e = std::max(e, c.decompress_energy_nj())), ...); },
                   members_);
        return e;
    }

    /// Which member the selector picks for `line`, and its exact bits.
    struct choice {
        std::uint32_t member = 0;
        std::uint32_t bits = 0;
        friend constexpr bool operator==(choice, choice) noexcept = default;
    };
    [[nodiscard]] choice choose(std::span<const std::byte> line) const noexcept {
        MEMSUB_ASSERT(line.size() == p_.line_bytes);
        std::array<candidate, n> cand{};
        fill(cand, line, std::index_sequence_for<Cs...>{});
        const auto i = static_cast<std::uint32_t>(p_.selector(std::span<const candidate>{cand}));
        MEMSUB_ASSERT(i < n);
        const std::uint32_t idx = i < n ? i : 0;
        return {idx, cand[idx].bits};
    }

    [[nodiscard]] std::uint32_t size_bits(std::span<const std::byte> line) const noexcept {
        return choose(line).bits;
    }

    [[nodiscard]] compressed_line compress(std::span<const std::byte> line) const noexcept
        requires(invertible_compressor<Cs>&&...) {
        const choice ch = choose(line);
        compressed_line out;
        dispatch(ch.member, [&](const auto& c) { out = c.compress(line); });
        out.member = static_cast<std::uint16_t>(out.member * n + ch.member);
        return out;
    }

    [[nodiscard]] decode_result decompress(compressed_view v,
                                           std::span<std::byte> out) const noexcept
        requires(invertible_compressor<Cs>&&...) {
        if (out.size() != p_.line_bytes) return {decode_status::wrong_output_size, 0};
        if (v.member >= member_path_count) return {decode_status::unknown_encoding, 0};
        const std::uint32_t idx = v.member % n;
        compressed_view child = v;
        child.member = static_cast<std::uint16_t>(v.member / n);
        decode_result r{decode_status::unknown_encoding, 0};
        dispatch(idx, [&](const auto& c) { r = c.decompress(child, out); });
        return r;
    }

private:
    template <std::size_t... I>
    static std::tuple<Cs...> make_members(const params& p, std::index_sequence<I...>) {
        auto ps = p.members;
        ((std::get<I>(ps).line_bytes = p.line_bytes), ...);
        return std::tuple<Cs...>{Cs(std::get<I>(ps))...};
    }
    template <std::size_t... I>
    void fill(std::array<candidate, n>& cand, std::span<const std::byte> line,
              std::index_sequence<I...>) const noexcept {
        ((cand[I] = candidate{std::get<I>(members_).size_bits(line),
                              std::get<I>(members_).decompress_latency_cycles(),
                              std::get<I>(members_).metadata_bits()}),
         ...);
    }
    template <class F>
    void dispatch(std::uint32_t idx, F&& f) const noexcept {
        dispatch_impl(idx, f, std::index_sequence_for<Cs...>{});
    }
    template <class F, std::size_t... I>
    void dispatch_impl(std::uint32_t idx, F& f, std::index_sequence<I...>) const noexcept {
        const bool found =
            ((idx == I ? (static_cast<void>(f(std::get<I>(members_))), true) : false) || ...);
        static_cast<void>(found);
    }

    params p_;
    std::tuple<Cs...> members_;
    std::array<std::uint32_t, n> latencies_ = std::apply(
        [](const auto&... c) {
            return std::array<std::uint32_t, n>{c.decompress_latency_cycles()...};
        },
        members_);
    std::array<char, 96> name_{};
    std::size_t name_len_ = 0;
};

} // namespace memsub::compression
