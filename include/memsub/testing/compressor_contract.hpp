// memsub::testing — the contract check of a cache-line compressor (compression/concept.hpp).
//
//   auto report = memsub::testing::check_compressor_contract<my_compressor>();
//   if (!report.ok()) std::fputs(report.text().c_str(), stderr);
//
// The concepts `compressor` and `invertible_compressor` check signatures at compile time; this
// check holds a compressor to what they promise at run time. It builds the compressor once per
// line size (the params' own `line_bytes`, then the other supported sizes unless
// `all_line_sizes = false`), two instances alike, and feeds both the same seeded lines of many
// kinds (zero, repeated, narrow, based, pointer-like, few distinct words, random). Each line
// size is a pass, run in a child process where the platform has fork, so a decoder that
// crashes is reported (K7) instead of ending the host. A violation is labelled by the rule of
// compression/concept.hpp it breaks:
//   C2  params with an unsupported line size (0, 48) throw `config_error`; the params' own line
//       size is accepted; nothing but `config_error` is thrown.
//   C3  `name()` is non-empty and the same for every instance.
//   C4  `line_bytes()` is the params' `line_bytes`.
//   C5  `size_bits(line)` is pure: the same line asked twice gives the same size.
//   C6  `metadata_bits()` is fixed at construction (the same before and after a pass, and for
//       two instances alike).
//   C7  latencies and energies are fixed, energies finite and not negative, and no latency is
//       left at the `latency_for_line_size` placeholder.
//   CI1  `compress(line).bits == size_bits(line)`, within `max_payload_bits`, with the payload's
//       bytes past `bytes()` zero.
//   CI2  `decompress(compress(x)) == x` with status ok; the payload one bit shorter or longer
//       than `compress` produced, or an output span that is not one line, is not decoded as
//       ok; decoding corrupt payloads (random ones and valid ones with a bit flipped) never
//       writes outside `out`.
//   K3  determinism: the two instances give the same size and the same compressed line.
//   K7  every pass runs to completion (no crash, no exception, within the time limit).
// A compressor that is not invertible gets C2–C7 and K3, and a note that CI1–CI2 went unchecked.
// Limits: a read outside `view.payload` that does not fault goes unseen (run the check under a
// sanitizer); CP2's thread safety is not exercised.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <memsub/compression/concept.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/testing/contract_report.hpp>
#include <memsub/testing/detail/isolated_pass.hpp>

namespace memsub::testing {

struct compressor_contract_options {
    /// Lines per pass (each fed to both instances).
    std::uint64_t lines = 4000;
    /// Corrupt payloads decoded per pass (invertible compressors only).
    std::uint64_t corrupt_payloads = 4000;
    std::uint64_t seed = 1;
    /// Also run the supported line sizes other than the params' own (32, 64, 128 B). A size
    /// the compressor refuses with `config_error` is a note, not a violation.
    bool all_line_sizes = true;
    /// Run each pass in a child process (POSIX), so that a crash is reported as K7.
    bool isolate_passes = true;
    /// Seconds an isolated pass may run before it is reported as hung (K7); 0 = no limit.
    std::uint32_t pass_time_limit_seconds = 300;
};

namespace detail {

/// Fills `line` with one of the value patterns compressors are built for, or random bytes.
inline void fill_contract_line(xoshiro256ss& rng, std::span<std::byte> line) {
    const std::size_t words = line.size() / 4;
    const auto put32 = [&](std::size_t w, std::uint32_t v) { std::memcpy(&line[4 * w], &v, 4); };
    const auto put64 = [&](std::size_t w, std::uint64_t v) { std::memcpy(&line[8 * w], &v, 8); };
    std::fill(line.begin(), line.end(), std::byte{0});
    switch (rng.below(10)) {
    case 0: // all zero
        break;
    case 1: { // one repeated 64-bit value
        const std::uint64_t v = rng();
        for (std::size_t w = 0; w < words / 2; ++w) put64(w, v);
        break;
    }
    case 2: // small signed integers
        for (std::size_t w = 0; w < words; ++w)
            put32(w, static_cast<std::uint32_t>(static_cast<std::int32_t>(rng.below(256)) - 128));
        break;
    case 3: { // pointers: a 64-bit base plus small deltas
        const std::uint64_t base = 0x7ff000000000 + 64 * rng.below(1 << 20);
        for (std::size_t w = 0; w < words / 2; ++w) put64(w, base + 8 * rng.below(256));
        break;
    }
    case 4: // half-words in words
        for (std::size_t w = 0; w < words; ++w)
            put32(w, static_cast<std::uint32_t>(rng.below(1 << 16)));
        break;
    case 5: // mostly zero, a few random words
        for (std::size_t w = 0; w < words; ++w)
            if (rng.below(4) == 0) put32(w, static_cast<std::uint32_t>(rng()));
        break;
    case 6: { // a few distinct words (dictionary and Huffman coders' case)
        std::array<std::uint32_t, 4> v{};
        for (auto& x : v) x = static_cast<std::uint32_t>(rng());
        for (std::size_t w = 0; w < words; ++w) put32(w, v[rng.below(v.size())]);
        break;
    }
    case 7: { // a 32-bit base plus 8-bit deltas
        const auto base = static_cast<std::uint32_t>(rng());
        for (std::size_t w = 0; w < words; ++w)
            put32(w, base + static_cast<std::uint32_t>(rng.below(256)));
        break;
    }
    case 8: // repeated bytes
        std::fill(line.begin(), line.end(), static_cast<std::byte>(rng.below(256)));
        break;
    default: // random bytes
        for (auto& b : line) b = static_cast<std::byte>(rng.below(256));
        break;
    }
}

inline constexpr std::byte canary{0xa5};
inline constexpr std::size_t canary_bytes = 32;

/// An output line with canary bytes on both sides: `out(n)` is the n-byte span between them.
struct guarded_line {
    std::array<std::byte, compression::max_line_bytes + 2 * canary_bytes> buffer{};
    std::size_t size = 0;
    std::span<std::byte> out(std::size_t n) {
        buffer.fill(canary);
        size = n;
        return {buffer.data() + canary_bytes, n};
    }
    [[nodiscard]] bool canaries_intact() const {
        for (std::size_t i = 0; i < buffer.size(); ++i)
            if ((i < canary_bytes || i >= canary_bytes + size) && buffer[i] != canary) return false;
        return true;
    }
    [[nodiscard]] std::span<const std::byte> line() const {
        return {buffer.data() + canary_bytes, size};
    }
};

template <class C>
struct compressor_costs {
    std::uint32_t metadata, compress_cycles, decompress_cycles;
    double compress_nj, decompress_nj;
    explicit compressor_costs(const C& c)
        : metadata(c.metadata_bits())
        , compress_cycles(c.compress_latency_cycles())
        , decompress_cycles(c.decompress_latency_cycles())
        , compress_nj(c.compress_energy_nj())
        , decompress_nj(c.decompress_energy_nj()) {}
    bool same_costs(const compressor_costs& o) const {
        return compress_cycles == o.compress_cycles && decompress_cycles == o.decompress_cycles &&
               compress_nj == o.compress_nj && decompress_nj == o.decompress_nj;
    }
};

/// C6/C7 of one instance, against itself earlier (`before`) and against the other instance.
template <class C>
void check_costs(const compressor_costs<C>& before, const compressor_costs<C>& after,
                 const compressor_costs<C>& other, const std::string& pass, contract_report& out) {
    if (before.metadata != after.metadata)
        out.add("C6", pass, "metadata_bits() changed during a pass",
                "from " + std::to_string(before.metadata) + " to " +
                    std::to_string(after.metadata));
    if (before.metadata != other.metadata)
        out.add("C6", pass, "two instances built alike report different metadata_bits()",
                std::to_string(before.metadata) + " and " + std::to_string(other.metadata));
    if (!before.same_costs(after))
        out.add("C7", pass, "a latency or energy changed during a pass", "after the pass's lines");
    if (!before.same_costs(other))
        out.add("C7", pass, "two instances built alike report different latencies or energies",
                "at construction");
    if (before.compress_cycles == compression::latency_for_line_size ||
        before.decompress_cycles == compression::latency_for_line_size)
        out.add("C7", pass, "a latency is left at the latency_for_line_size placeholder",
                "compress " + std::to_string(before.compress_cycles) + ", decompress " +
                    std::to_string(before.decompress_cycles) + " cycles",
                1, "resolve it for the line size in the constructor");
    for (const double e : {before.compress_nj, before.decompress_nj})
        if (!std::isfinite(e) || e < 0)
            out.add("C7", pass, "an energy is negative or not finite",
                    "compress " + std::to_string(before.compress_nj) + " nJ, decompress " +
                        std::to_string(before.decompress_nj) + " nJ");
}

/// CI2 on corrupt input: random payloads, and valid ones with one bit flipped. Any status is
/// allowed; writing outside `out` is not (a crash ends the child: K7).
template <class C>
void decode_corrupt(const C& c, const compression::compressed_line& valid, xoshiro256ss& rng,
                    std::uint64_t i, const std::string& pass, contract_report& out) {
    compression::compressed_line bad = valid;
    if (rng.below(2) == 0 && valid.bits > 0) {
        const auto bit = static_cast<std::uint32_t>(rng.below(valid.bits));
        bad.payload[bit / 8] ^= std::byte{static_cast<unsigned char>(0x80u >> (bit % 8))};
    } else {
        for (auto& b : bad.payload) b = static_cast<std::byte>(rng.below(256));
        bad.bits = static_cast<std::uint32_t>(rng.below(compression::max_payload_bits + 1));
        bad.encoding =
            static_cast<std::uint8_t>(rng.below(4) == 0 ? rng.below(256) : rng.below(16));
        bad.member = static_cast<std::uint16_t>(rng.below(4) == 0 ? rng.below(8) : 0);
        bad.codebook =
            rng.below(4) == 0 ? static_cast<std::uint32_t>(rng.below(4)) : valid.codebook;
        bad.tag_data = rng.below(2) == 0 ? rng() : valid.tag_data;
    }
    guarded_line g;
    const compression::decode_result r = c.decompress(bad.view(), g.out(c.line_bytes()));
    (void)r; // any status: the payload is corrupt
    if (!g.canaries_intact())
        out.add("CI2", pass, "decompress of a corrupt payload wrote outside `out`",
                "corrupt payload " + std::to_string(i) + ", bits " + std::to_string(bad.bits) +
                    ", encoding " + std::to_string(bad.encoding));
}

/// One pass: two instances alike, `o.lines` lines of `p.line_bytes` bytes.
template <compression::compressor C>
void compressor_pass(const typename C::params& p, const compressor_contract_options& o,
                     const std::string& pass, contract_report& out, pass_channel& ch) {
    const C a(p);
    const C b(p);
    const std::uint32_t L = p.line_bytes;
    if (a.line_bytes() != L)
        out.add("C4", pass, "line_bytes() differs from params.line_bytes",
                "line_bytes() = " + std::to_string(a.line_bytes()) + ", params " +
                    std::to_string(L));
    const std::string_view name = a.name();
    if (name.empty()) out.add("C3", pass, "name() is empty", "at construction");
    if (name != std::string_view(b.name()))
        out.add("C3", pass, "two instances built alike report different names",
                "\"" + std::string(name) + "\" and \"" + std::string(b.name()) + "\"");
    const compressor_costs<C> costs_a(a), costs_b(b);
    xoshiro256ss rng(o.seed + L);
    std::array<std::byte, compression::max_line_bytes> line{};
    const std::span<std::byte> x(line.data(), L);
    for (std::uint64_t i = 0; i < o.lines; ++i) {
        fill_contract_line(rng, x);
        const std::string at = "line " + std::to_string(i);
        const std::uint32_t bits = a.size_bits(x);
        if (a.size_bits(x) != bits)
            out.add("C5", pass, "size_bits() of the same line differs between two calls", at);
        if (b.size_bits(x) != bits)
            out.add("K3", pass, "two instances built alike give different size_bits()",
                    at + ": " + std::to_string(bits) + " and " + std::to_string(b.size_bits(x)));
        if constexpr (compression::invertible_compressor<C>) {
            const compression::compressed_line cl = a.compress(x);
            if (cl.bits != bits)
                out.add("CI1", pass, "compress(line).bits differs from size_bits(line)",
                        at + ": " + std::to_string(cl.bits) + " and " + std::to_string(bits));
            if (cl.bits > compression::max_payload_bits)
                out.add("CI1", pass, "compress(line).bits exceeds max_payload_bits",
                        at + ": " + std::to_string(cl.bits));
            else if (std::any_of(cl.payload.begin() + cl.bytes(), cl.payload.end(),
                                 [](std::byte v) { return v != std::byte{0}; }))
                out.add("CI1", pass, "payload bytes past bytes() are not zero", at);
            if (!(b.compress(x) == cl))
                out.add("K3", pass, "two instances built alike compress a line differently", at);
            guarded_line g;
            const compression::decode_result r = a.decompress(cl, g.out(L));
            if (!r)
                out.add("CI2", pass, "decompress(compress(x)) failed",
                        at + ": " + std::string(r.message()) + " at bit " +
                            std::to_string(r.bit_offset));
            else if (!std::ranges::equal(g.line(), x))
                out.add("CI2", pass, "decompress(compress(x)) differs from x", at);
            if (!g.canaries_intact()) out.add("CI2", pass, "decompress wrote outside `out`", at);
            compression::compressed_view v = cl.view();
            if (cl.bits > 0) {
                v.bits = cl.bits - 1;
                if (a.decompress(v, g.out(L)))
                    out.add("CI2", pass,
                            "a payload one bit shorter than compress produced decoded as ok",
                            at + ", " + std::to_string(cl.bits) + " bits", 1,
                            "a truncated payload must return decode_status::truncated");
            }
            if (cl.bits < compression::max_payload_bits) {
                v.bits = cl.bits + 1;
                if (a.decompress(v, g.out(L)))
                    out.add("CI2", pass,
                            "a payload one bit longer than compress produced decoded as ok",
                            at + ", " + std::to_string(cl.bits) + " bits", 1,
                            "an over-long payload must return decode_status::trailing_bits");
            }
            if (a.decompress(cl, g.out(L - 1)))
                out.add("CI2", pass, "decompress into a span one byte short of a line returned ok",
                        at, 1, "return decode_status::wrong_output_size");
            if (!g.canaries_intact())
                out.add("CI2", pass, "decompress into a span one byte short wrote outside it", at);
            if (i < o.corrupt_payloads) decode_corrupt(a, cl, rng, i, pass, out);
        }
        ++out.accesses;
        if ((i + 1) % progress_interval == 0) { // a child that dies leaves this report behind
            ch.progress(1, i + 1);
            ch.snapshot(out);
        }
    }
    if constexpr (compression::invertible_compressor<C>)
        for (std::uint64_t i = o.lines; i < o.corrupt_payloads; ++i) {
            fill_contract_line(rng, x);
            decode_corrupt(a, a.compress(x), rng, i, pass, out);
        }
    check_costs(costs_a, compressor_costs<C>(a), costs_b, pass, out);
    ch.progress(1, o.lines);
    ch.snapshot(out);
}

template <class Params>
[[nodiscard]] Params with_line_bytes(Params p, std::uint32_t bytes) {
    p.line_bytes = bytes;
    return p;
}

} // namespace detail

/// Runs C2–C7, CI1–CI2, K3 and K7 for compressor `C` (constructed with `params`, and with
/// `params` at the other supported line sizes) and returns what it found.
template <compression::compressor C>
[[nodiscard]] contract_report check_compressor_contract(const typename C::params& params = {},
                                                        const compressor_contract_options& o = {}) {
    contract_report report;
    // C2: unsupported line sizes are refused at construction, with config_error.
    for (const std::uint32_t bad : {0u, 48u}) {
        const std::string at = "params.line_bytes = " + std::to_string(bad);
        try {
            const C c(detail::with_line_bytes(params, bad));
            report.add("C2", "construction", "an unsupported line size was accepted", at, 1,
                       "validate line_bytes in the constructor (compression::detail::"
                       "require_line_bytes)");
        } catch (const config_error&) {
        } catch (...) {
            report.add("C2", "construction",
                       "an unsupported line size threw something other than config_error", at);
        }
    }
    std::vector<std::uint32_t> sizes{params.line_bytes};
    if (o.all_line_sizes)
        for (const std::uint32_t l : {32u, 64u, 128u})
            if (l != params.line_bytes) sizes.push_back(l);
    for (const std::uint32_t l : sizes) {
        const auto p = detail::with_line_bytes(params, l);
        const std::string pass = std::to_string(l) + " B lines";
        try {
            const C probe(p);
        } catch (const config_error& e) {
            if (l == params.line_bytes)
                report.add("C2", pass, "the params given to the check were refused", e.what());
            else
                report.notes.push_back("C1: not built for " + pass + ": " + e.what());
            continue;
        } catch (const std::exception& e) {
            report.add("C2", pass, "the constructor threw something other than config_error",
                       e.what());
            continue;
        }
        const detail::pass_spec spec{.name = pass,
                                     .shape = geometry{.sets = 1, .ways = 1, .line_bytes = l},
                                     .description = "seeded lines of ten kinds",
                                     .subject = "compressor",
                                     .state = "state",
                                     .runs = 2,
                                     .accesses = o.lines,
                                     .isolate = o.isolate_passes,
                                     .time_limit = o.pass_time_limit_seconds};
        detail::run_pass(spec, report, [&](contract_report& out, detail::pass_channel& ch) {
            detail::compressor_pass<C>(p, o, pass, out, ch);
        });
    }
    if constexpr (!compression::invertible_compressor<C>)
        report.notes.push_back(
            "CI1-CI2: the compressor is not invertible (no compress/decompress): its sizes are "
            "checked, its round trip is not, and hosts that move data cannot use it");
    return report;
}

} // namespace memsub::testing
