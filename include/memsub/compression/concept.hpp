// memsub — the `compressor` and `invertible_compressor` concepts, the fixed-capacity compressed
// line, decode results and the call protocol every cache-line compressor follows.
//
// A compressor turns one cache line (32, 64 or 128 bytes) into an exact number of payload bits
// (docs/mechanisms/compressors.md §1; rule CS1 of compression/stored_size.hpp). Most hosts only
// need that number (`size_bits`, the cheap path: no payload is built, nothing allocates). The
// refinement `invertible_compressor` also builds the payload bit stream and decodes it again, so
// round trips can be verified and hosts that move real data can do so. Stored sizes (segment
// rounding, raw storage of lines that save nothing, thresholds) are the cache organisation's
// business: see `stored_size.hpp` (§2).
//
// Requirements (a type C models `compressor` when all hold; each is a concept of its own below,
// `c1_params` … `c7_costs`, `ci1_compress`, `ci2_decompress`, and `diagnose_compressor<C>()` /
// `diagnose_invertible_compressor<C>()` name the broken ones; labels: testing/contract.hpp):
//   C1. `typename C::params` is a default-constructible aggregate of knobs with unit-suffixed
//       fields and in-class defaults; it has a `line_bytes` field (32, 64 or 128; default 64).
//   C2. `C(const typename C::params&)` validates the params once and throws
//       `memsub::config_error` (naming component, parameter, value, rule) on a broken rule.
//       Nothing else throws, ever.
//   C3. `c.name()` -> `std::string_view`, a short stable identifier ("bdi", "fpc", "cpack", …).
//   C4. `c.line_bytes()` -> `std::uint32_t`, the line size fixed at construction.
//   C5. `c.size_bits(line)` const noexcept -> `std::uint32_t`: the exact encoded payload bits of
//       `line` (a `std::span<const std::byte>`). Precondition: `line.size() == c.line_bytes()`
//       (checked by MEMSUB_ASSERT). Pure: the same line always gives the same size; no
//       allocation; O(line) time. May exceed 8·line_bytes (FPC, BPC, SC²; §5 P-E5) — apply
//       CS4 through `stored_size_of`.
//   C6. `c.metadata_bits()` const noexcept -> `std::uint32_t`: bits the algorithm keeps per line
//       outside the payload (in the tag): e.g. BDI's 4-bit `enc`, C-PACK+Z's zero flag, a
//       `best_of` member index. The compressed-size field of the cache organisation is not
//       included (see `size_field_bits`).
//   C7. `c.compress_latency_cycles()`, `c.decompress_latency_cycles()` const noexcept ->
//       `std::uint32_t`; `c.compress_energy_nj()`, `c.decompress_energy_nj()` const noexcept ->
//       `double`. Defaults come from docs/mechanisms/compressors.md §3 and are params fields; 0
//       energy means "no source gives a figure" (set your own).
// Refinement (a type C models `invertible_compressor` when it models `compressor` and):
//   CI1. `c.compress(line)` const noexcept -> `compressed_line` (a value: payload bytes, exact
//       bit length, encoding id, best_of member path, code-book id, other tag data; never
//       allocates).
//       Postcondition: `compress(line).bits == size_bits(line)`.
//   CI2. `c.decompress(view, out)` const noexcept -> `decode_result`, where `view` is a
//       `compressed_view` (a `compressed_line` converts to one; fuzzers build one from raw bytes)
//       and `out` a `std::span<std::byte>`. On success it writes exactly `line_bytes()` bytes and
//       reports `decode_status::ok`; `decompress(compress(x)) == x` for every line x. On a
//       corrupt, truncated or over-long payload it returns an error status and the bit offset
//       where decoding failed. It never reads outside `view.payload`, never decodes more than
//       `view.bits` bits (it may load whole words that extend past them, inside the span: a
//       host passes the line's zero-padded slot or segment run, not just ceil(bits/8) bytes),
//       never writes outside `out`, never throws, never crashes; on error the content of `out`
//       is unspecified (but written only inside its bounds).
//   CI3. `decompress_or_throw(c, view, out)` (free function below) is the throwing convenience for
//       cold paths: it throws `memsub::input_error(c.name(), bit_offset, problem)`.
//
// Call protocol (what a host does):
//   CP1. Construct once per configuration (cold path; may throw C2).
//   CP2. Per line: `size_bits(line)` for sizing, or `compress(line)` when the payload is needed.
//        Both are reentrant and const: one compressor may serve many threads.
//   CP3. Apply §2 with `stored_size_of(bits, storage_rule{...})` to get bytes, segments and the
//        raw-storage decision (CS2–CS5, compression/stored_size.hpp); account `metadata_bits()`
//        per tag.
//   CP4. To read a line back: `decompress(compressed, out)`; check the result (`if (!r)`).
//   CP5. Latencies/energies are reported, not applied: memsub keeps no clock (design principle
//        3).
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include <memsub/core/errors.hpp>

/// Cache-line compressors: the `compressor` concept (C1–C7) and its refinement
/// `invertible_compressor` (CI1–CI3), the compressed line they produce and read, and stored
/// sizes (`stored_size.hpp`). The call protocol is CP1–CP5 in compression/concept.hpp.
namespace memsub::compression {

/// Largest supported line, and the supported sizes (docs/mechanisms/compressors.md, 'Notation': L ∈
/// {32, 64, 128}).
inline constexpr std::uint32_t max_line_bytes = 128;

/// Whether `bytes` is a line size a compressor accepts (32, 64 or 128: C1's `line_bytes`).
[[nodiscard]] constexpr bool is_supported_line_size(std::uint32_t bytes) noexcept {
    return bytes == 32 || bytes == 64 || bytes == 128;
}

/// Payload capacity of a `compressed_line`: 2048 bits. The largest encodings of §1 on 128-byte
/// lines are SC² with every word escaped (32 × (16 + 32) = 1536 bits), FPC (32 × 35 = 1120),
/// BPC (33 + 33 × 32 = 1089) and C-PACK (32 × 34 = 1088).
inline constexpr std::uint32_t max_payload_bytes = 256;
/// `max_payload_bytes` in bits: no encoding of a supported line is longer (a `compressed_view`
/// whose `bits` exceed it is a `decode_status::bad_view`).
inline constexpr std::uint32_t max_payload_bits = max_payload_bytes * 8;

/// A borrowed compressed line: what `decompress` reads. Build it from a `compressed_line` or, for
/// payloads from outside (fuzzers, files), from raw bytes; nothing in it is trusted.
struct compressed_view {
    /// The payload bytes; bit 0 of the stream is the most significant bit of byte 0. It may be
    /// longer than ceil(bits/8) (the slot a host keeps the line in); decoders may load any of
    /// its bytes but decode only the first `bits` bits.
    std::span<const std::byte> payload{};
    /// Exact payload length in bits; must not exceed `payload.size() * 8`.
    std::uint32_t bits = 0;
    /// Algorithm-specific encoding id kept in the tag (BDI `enc`, C-PACK+Z zero flag, …).
    std::uint8_t encoding = 0;
    /// `best_of` member path (0 for plain compressors).
    std::uint16_t member = 0;
    /// Code-book version (SC²; 0 for algorithms without a code book).
    std::uint32_t codebook = 0;
    /// Further algorithm metadata kept in the tag beside `encoding` (the BΔI mask under
    /// `bdi_mask::in_tag`, bit i = element i); 0 for algorithms that keep none.
    std::uint64_t tag_data = 0;
};

/// A compressed line as a value (no heap): the payload bits plus the tag metadata that goes with
/// them. Bytes past `bytes()` are zero when produced by `compress`.
struct compressed_line {
    /// Exact payload length in bits; `compress(line).bits == size_bits(line)` (CI1).
    std::uint32_t bits = 0;
    /// Algorithm-specific encoding id kept in the tag (as `compressed_view::encoding`).
    std::uint8_t encoding = 0;
    /// `best_of` member path (0 for plain compressors).
    std::uint16_t member = 0;
    /// Code-book version (SC²; 0 for algorithms without a code book).
    std::uint32_t codebook = 0;
    /// Further tag metadata beside `encoding` (as `compressed_view::tag_data`).
    std::uint64_t tag_data = 0;
    /// The payload bit stream, most significant bit of byte 0 first; only the first `bytes()`
    /// bytes are in use, the rest is zero padding readers may load but never decode.
    std::array<std::byte, max_payload_bytes> payload{};

    /// CS2: bytes = ceil(bits / 8).
    [[nodiscard]] constexpr std::uint32_t bytes() const noexcept { return (bits + 7) / 8; }
    /// The payload bytes in use (the first `bytes()`), without the padding.
    [[nodiscard]] constexpr std::span<const std::byte> data() const noexcept {
        return {payload.data(), std::min<std::size_t>(bytes(), payload.size())};
    }
    /// A view of this line. Its byte span is the whole (zero-padded) array so that readers can
    /// take full 64-bit windows near the end; `bits` still bounds what is read.
    [[nodiscard]] constexpr compressed_view view() const noexcept {
        return {std::span<const std::byte>{payload}, bits, encoding, member, codebook, tag_data};
    }
    /// Implicit conversion to `view()`, so `decompress` takes a `compressed_line` directly.
    constexpr operator compressed_view() const noexcept { return view(); } // NOLINT

    /// Equal when lengths, metadata and the payload bytes in use are equal.
    friend constexpr bool operator==(const compressed_line& a, const compressed_line& b) noexcept {
        return a.bits == b.bits && a.encoding == b.encoding && a.member == b.member &&
               a.codebook == b.codebook && a.tag_data == b.tag_data &&
               std::ranges::equal(a.data(), b.data());
    }
};

/// Why a decode failed.
enum class decode_status : std::uint8_t {
    ok,                ///< the line decoded; `out` holds exactly `line_bytes()` bytes
    truncated,         ///< the stream ended inside a field (`bits` too small for the content)
    invalid_code,      ///< a code or field value no encoder produces (e.g. an unwritten index)
    unknown_encoding,  ///< `encoding` (or `member`) names no encoding of this compressor
    trailing_bits,     ///< the line was complete before `bits` bits were consumed
    bad_view,          ///< `bits` exceeds the payload bytes or the capacity
    wrong_output_size, ///< `out.size()` differs from the line size
    codebook_mismatch, ///< the line was coded with another code book (SC²)
};

/// A short English description of `s` for messages (the `problem` of CI3's `input_error`).
[[nodiscard]] constexpr std::string_view to_string(decode_status s) noexcept {
    switch (s) {
    case decode_status::ok:
        return "ok";
    case decode_status::truncated:
        return "payload truncated inside a field";
    case decode_status::invalid_code:
        return "invalid code or field value";
    case decode_status::unknown_encoding:
        return "unknown encoding id";
    case decode_status::trailing_bits:
        return "line complete before the end of the payload";
    case decode_status::bad_view:
        return "bit length exceeds the payload bytes";
    case decode_status::wrong_output_size:
        return "output span is not one line";
    case decode_status::codebook_mismatch:
        return "payload coded with another code book";
    }
    return "?";
}

/// What `decompress` returns: a status and, on error, the bit offset where it was detected.
struct decode_result {
    /// `ok`, or why decoding stopped.
    decode_status status = decode_status::ok;
    /// On error, the offset into the payload bit stream at which it was detected (0 on success).
    std::uint32_t bit_offset = 0;

    /// Whether the line decoded (`status == decode_status::ok`).
    [[nodiscard]] constexpr bool ok() const noexcept { return status == decode_status::ok; }
    /// `ok()`, for `if (!r)` after a decode.
    constexpr explicit operator bool() const noexcept { return ok(); }
    /// `to_string(status)`: what went wrong, for a message.
    [[nodiscard]] constexpr std::string_view message() const noexcept { return to_string(status); }
    /// Equal when status and bit offset are equal.
    friend constexpr bool operator==(decode_result, decode_result) noexcept = default;
};

// ------------------------------------------------------------ one concept per requirement

/// C1: `C::params` is a default-constructible aggregate of knobs with a `line_bytes` field.
template <class C>
concept c1_params = std::default_initializable<typename C::params> &&
    requires(typename C::params& p) {
    { p.line_bytes } -> std::convertible_to<std::uint32_t>;
};

/// C2: `C` is constructible from its params, validating them once (`config_error`).
template <class C>
concept c2_constructible = std::constructible_from<C, const typename C::params&>;

/// C3: `c.name()` gives a short stable identifier ("bdi", "fpc", …).
template <class C>
concept c3_name = requires(const C& c) {
    { c.name() } -> std::convertible_to<std::string_view>;
};

/// C4: `c.line_bytes()` gives the line size fixed at construction.
template <class C>
concept c4_line_bytes = requires(const C& c) {
    { c.line_bytes() } -> std::convertible_to<std::uint32_t>;
};

/// C5: `c.size_bits(line)` const noexcept gives the exact encoded payload bits of one line:
/// pure, O(line), no allocation.
template <class C>
concept c5_size_bits = requires(const C& c, std::span<const std::byte> line) {
    { c.size_bits(line) }
    noexcept->std::same_as<std::uint32_t>;
};

/// C6: `c.metadata_bits()` const noexcept gives the bits per line kept in the tag, outside the
/// payload.
template <class C>
concept c6_metadata_bits = requires(const C& c) {
    { c.metadata_bits() }
    noexcept->std::convertible_to<std::uint32_t>;
};

/// C7: the reported (never applied) compression and decompression latencies in cycles and
/// energies in nJ, const noexcept.
template <class C>
concept c7_costs = requires(const C& c) {
    { c.compress_latency_cycles() }
    noexcept->std::convertible_to<std::uint32_t>;
    { c.decompress_latency_cycles() }
    noexcept->std::convertible_to<std::uint32_t>;
    { c.compress_energy_nj() }
    noexcept->std::convertible_to<double>;
    { c.decompress_energy_nj() }
    noexcept->std::convertible_to<double>;
};

/// A cache-line compressor (C1–C7): gives the exact encoded size of a line without building the
/// payload. What most hosts need; `invertible_compressor` adds the payload round trip.
template <class C>
concept compressor = c1_params<C> && c2_constructible<C> && c3_name<C> && c4_line_bytes<C> &&
    c5_size_bits<C> && c6_metadata_bits<C> && c7_costs<C>;

/// CI1: `c.compress(line)` const noexcept builds the payload as a `compressed_line` value whose
/// `bits` equal `size_bits(line)`.
template <class C>
concept ci1_compress = requires(const C& c, std::span<const std::byte> line) {
    { c.compress(line) }
    noexcept->std::same_as<compressed_line>;
};

/// CI2: `c.decompress(view, out)` const noexcept decodes a `compressed_view` (or a
/// `compressed_line`) into `out` and reports a `decode_result`; never reads or writes out of
/// bounds, whatever the payload.
template <class C>
concept ci2_decompress = requires(const C& c, const compressed_line& cl, compressed_view v,
                                  std::span<std::byte> out) {
    { c.decompress(v, out) }
    noexcept->std::same_as<decode_result>;
    { c.decompress(cl, out) }
    noexcept->std::same_as<decode_result>;
};

/// A `compressor` that also builds and decodes the payload (CI1–CI2), so that
/// `decompress(compress(x)) == x` can be verified and real data moved.
template <class C>
concept invertible_compressor = compressor<C> && ci1_compress<C> && ci2_decompress<C>;

/// Fails to compile with one message per broken requirement (C1–C7):
/// `static_assert(memsub::compression::diagnose_compressor<my_compressor>())`.
template <class C>
consteval bool diagnose_compressor() {
    static_assert(c1_params<C>, "C1: C::params must be a default-constructible aggregate with a "
                                "`line_bytes` field");
    static_assert(c2_constructible<C>, "C2: C must be constructible from (const C::params&)");
    static_assert(c3_name<C>, "C3: c.name() const must return something convertible to "
                              "std::string_view");
    static_assert(c4_line_bytes<C>, "C4: c.line_bytes() const must return std::uint32_t");
    static_assert(c5_size_bits<C>, "C5: c.size_bits(std::span<const std::byte>) const must be "
                                   "noexcept and return std::uint32_t");
    static_assert(c6_metadata_bits<C>, "C6: c.metadata_bits() const must be noexcept and return "
                                       "std::uint32_t");
    static_assert(c7_costs<C>, "C7: c.compress_latency_cycles(), c.decompress_latency_cycles() "
                               "(std::uint32_t), c.compress_energy_nj(), "
                               "c.decompress_energy_nj() (double) must be const noexcept");
    return compressor<C>;
}

/// `diagnose_compressor<C>()` and then CI1–CI2.
template <class C>
consteval bool diagnose_invertible_compressor() {
    static_assert(diagnose_compressor<C>());
    static_assert(ci1_compress<C>, "CI1: c.compress(std::span<const std::byte>) const must be "
                                   "noexcept and return compressed_line");
    static_assert(ci2_decompress<C>, "CI2: c.decompress(compressed_view or compressed_line, "
                                     "std::span<std::byte>) const must be noexcept and return "
                                     "decode_result");
    return invertible_compressor<C>;
}

/// CI3: decode or throw `memsub::input_error` naming the compressor and the bit offset (cold path).
template <invertible_compressor C>
void decompress_or_throw(const C& c, compressed_view v, std::span<std::byte> out) {
    const decode_result r = c.decompress(v, out);
    if (!r)
        throw input_error(c.name(), input_error::position_kind::bit_offset, r.bit_offset,
                          r.message());
}

/// A latency field (`compress_latency_cycles`, `decompress_latency_cycles`) left at this value
/// takes the docs/mechanisms/compressors.md §3 figure for the configured line size: where §3's
/// source is gem5's latency model, extra + (L/4 32-bit chunks) / (chunks per cycle), scaled with
/// the line size (FPC both ways, C-PACK compression); the compressors' `params` default to it
/// there.
inline constexpr std::uint32_t latency_for_line_size = ~std::uint32_t{0};

/// Throws `config_error` unless `bytes` is 32, 64 or 128: the C2 check every compressor's
/// constructor makes (the library's and a user's alike).
inline void require_line_bytes(std::uint32_t bytes, std::string_view component) {
    memsub::require(is_supported_line_size(bytes), component, "line_bytes", bytes,
                    "must be 32, 64 or 128");
}

} // namespace memsub::compression
