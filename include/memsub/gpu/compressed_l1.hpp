// memsub — `gpu::compressed_l1`: the compressed GPU L1 data cache of LATTE-CC ([Dissertation]
// §4.3.1, §4.3.3) with a pluggable mode selector (selection/concept.hpp).
//
// Organisation ([Dissertation] §4.3.1, Table 4.2): the 16 KB L1D of 32 sets, 128 B lines, 4 ways,
// compressed with 4× the tags (16 per set) and its data in 32 B segments (16 per set), on
// memsub's variable-block engine (cache/basic_cache.hpp: a line is one block of 0–4 segments).
// LRU over the set's lines, evicting until a free tag and enough free segments exist;
// write-evict (a store invalidates the line and goes to L2: stores never force recompression).
// Each tag holds 2 bits of mode and 4 bits of encoding (the engine's `payload_bits` = 6); the
// simulation also keeps the SC² book generation a line was compressed with in its payload.
//
// Modes: mode 0 stores lines uncompressed; mode m ≥ 1 is `Compressors...[m − 1]`, with that
// compressor's latencies and energies (compression/concept.hpp C7). A line is compressed only
// when it is inserted, with the mode the selector names for its set (SP2), from the host's memory
// image (`line_image`) or `access::data`. It occupies ⌈payload bytes / 32⌉ segments (the engine's
// `segments_for_bits`); a line that saves no segment is stored uncompressed, as mode 0 (rules
// CS3/CS4, compression/stored_size.hpp), and a 0-bit payload (an all-zero line some compressors
// encode in no bits) is a tag-only block (CS7). Hits: a hit to a line of mode m ≥ 1 passes through
// that mode's decompressor, one FIFO, non-pipelined unit per mode per L1 (selection/amat.hpp): its
// effective latency is Eq. 4.3's decompression latency × (queue position + 1), at the arrival cycle
// the host passes. The result's `hit_latency` is the base hit latency plus that. Energy: each
// compression and each decompression costs its mode's nJ (statistics). SC²: `compression::sc2` in
// `Compressors` takes its code book from a `shared_code_book` the whole GPU shares (one VFT and
// book, one period clock, gpu/shared_code_book.hpp); each access ticks that clock, inserted lines
// feed its VFT while it samples, and when it installs a new book this L1 invalidates its lines of
// older books before its next access (`retired`). SC² is kept out of the selector's allowed modes
// (SO2) until the first book exists. Adaptive-CMP (SO3): for a selector that needs LRU stack
// depths, the cache keeps each set's recently evicted lines as tag-only entries in its spare tags
// (16 − resident lines), below the resident lines in LRU order, with the size each line would have
// in the selector's compressed mode. Decision: they live beside the engine, not in it:
// [Adaptive-CMP]'s tags outlive their data under a two-level replacement (data by LRU among lines
// with data, tags by LRU among all), which the engine's one victim order does not express; the side
// list has the same capacity and order, and the engine's own tag-only blocks stay what CS7 needs.
// Storage: the engine's tags and payload bits (6 per tag) plus the selector's counters, per L1;
// the SC² tables once per GPU (`shared_code_book::storage_bits`).
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <tuple>
#include <utility>

#include <memsub/cache/basic_cache.hpp>
#include <memsub/compression/concept.hpp>
#include <memsub/compression/sc2.hpp>
#include <memsub/core/access.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/geometry.hpp>
#include <memsub/gpu/shared_code_book.hpp>
#include <memsub/replacement/lru.hpp>
#include <memsub/selection/amat.hpp>
#include <memsub/selection/concept.hpp>

namespace memsub::gpu {

/// [Dissertation] Table 4.2's L1D with 4× the tags and 32 B segments (16 per set).
using compressed_l1_geometry = fixed_geometry<32, 4, 128, 32, 16>;
static_assert(compressed_l1_geometry::capacity_bytes() == 16 * 1024);

/// A memory image: copies the bytes at [address, address + out.size()) into `out`
/// (`workload::simt::device_memory` is one).
template <class I>
concept line_image = requires(const I& image, std::uint64_t address, std::span<std::byte> out) {
    image.read(address, out);
};

struct compressed_l1_params {
    /// Cycles of a hit before any decompression (added to every hit's latency).
    std::uint32_t base_hit_latency = 0;
    /// Cycles of a miss, for the selector's AMAT ([Dissertation] Table 4.2: L2's 120).
    std::uint32_t miss_latency = 120;
    /// Compress every inserted line, decompress it and compare with its bytes (tests, studies
    /// that want proof; costs a full compression and decompression per fill).
    bool verify_round_trip = false;
};

/// What one access did: the engine's result (hit, fills, evictions, bytes fetched…) and what
/// compression added. (A member, not a base: initialised from the engine's prvalue in place,
/// where a base would be copied — the eviction list makes that 600 bytes per access.)
template <class EngineResult>
struct compressed_access_result {
    /// Built from a callable returning the engine's result, constructed in place. (Aggregate
    /// initialisation from the prvalue made GCC 12 zero the whole result first: 576 bytes of
    /// `rep stos` per access, a third of the compressed L1's own time.)
    template <std::invocable F>
    explicit compressed_access_result(F&& engine_access) noexcept(noexcept(engine_access()))
        : engine(engine_access()) {}

    EngineResult engine;
    /// hit: the mode the line was stored with; fill: the mode it was stored with now.
    std::uint32_t mode = 0;
    /// Segments the filled line occupies (fill only).
    std::uint32_t stored_segments = 0;
    /// hit: the effective decompression latency (Eq. 4.3; 0 for mode 0): the cycles a hit
    /// takes beyond the L1's own hit latency (`simt::timed_requests` adds them).
    std::uint32_t extra_hit_cycles = 0;
    /// hit: base hit latency + extra_hit_cycles.
    std::uint32_t hit_latency = 0;
    /// The selector's experimental phase ended with this access (a host updates its latency
    /// tolerance then, SO1).
    bool epoch_ended = false;

    [[nodiscard]] bool hit() const noexcept { return engine.hit; }
    [[nodiscard]] bool filled() const noexcept { return engine.filled(); }
};

/// Running totals of a compressed L1 (index = mode).
struct compressed_l1_stats {
    std::uint64_t accesses = 0;
    std::uint64_t load_hits = 0;
    std::uint64_t load_misses = 0;
    std::uint64_t stores = 0;
    std::array<std::uint64_t, selection::max_modes> fills_by_mode{};
    std::array<std::uint64_t, selection::max_modes> hits_by_mode{};
    std::array<std::uint64_t, selection::max_modes> compressions{};
    std::array<std::uint64_t, selection::max_modes> decompressions{};
    /// Lines a mode's compressor ran on that saved no segment (stored as mode 0).
    std::array<std::uint64_t, selection::max_modes> stored_raw{};
    /// Segments of the lines filled, by the mode they were stored in.
    std::array<std::uint64_t, selection::max_modes> filled_segments{};
    std::uint64_t tag_only_fills = 0;
    double compression_energy_nj = 0.0;
    double decompression_energy_nj = 0.0;
    /// Sum of the effective hit latencies (cycles) of all load hits.
    std::uint64_t hit_latency_cycles = 0;
    /// Lines invalidated because their code book was replaced.
    std::uint64_t retired = 0;
    /// Sum over accesses of the resident lines (mean effective capacity = this / accesses ×
    /// line bytes / data bytes).
    std::uint64_t resident_line_accesses = 0;
    std::uint64_t round_trip_checks = 0;
    std::uint64_t round_trip_failures = 0;

    [[nodiscard]] double mean_resident_lines() const noexcept {
        return accesses == 0 ? 0.0 : static_cast<double>(resident_line_accesses) / accesses;
    }
    [[nodiscard]] double compression_energy_total_nj() const noexcept {
        return compression_energy_nj + decompression_energy_nj;
    }
};

template <selection::mode_selector Selector, compression::compressor... Compressors>
class compressed_l1 {
public:
    static constexpr std::uint32_t mode_count = 1 + sizeof...(Compressors);
    static_assert(mode_count <= selection::max_modes, "at most 7 compressors");
    static_assert(mode_count <= 16, "the payload keeps the mode in 4 bits");
    /// Whether a mode is SC² (its book comes from the GPU's `shared_code_book`).
    static constexpr bool shares_code_book = (std::same_as<Compressors, compression::sc2> || ...);
    using geometry_type = compressed_l1_geometry;
    using cache_type =
        cache::basic_cache<replacement::lru,
                           cache::cache_options{.writes = cache::write_policy::write_evict,
                                                .max_block_segments = 4,
                                                .payload_bits = 6},
                           compressed_l1_geometry>;
    using result_type = compressed_access_result<typename cache_type::result_type>;
    static constexpr std::uint32_t line_bytes = compressed_l1_geometry::line_bytes;
    static constexpr std::uint32_t sets = compressed_l1_geometry::sets;
    static constexpr std::uint32_t tags_per_set = compressed_l1_geometry::tags_per_set;
    static constexpr std::uint32_t segments_per_set =
        compressed_l1_geometry::ways * (line_bytes / compressed_l1_geometry::segment_bytes);
    static constexpr std::uint32_t segments_per_line =
        line_bytes / compressed_l1_geometry::segment_bytes;
    static constexpr std::string_view component = "memsub::gpu::compressed_l1";

    /// `book` is required (and shared by every L1 of the GPU) when a mode is SC²; the
    /// compressors get `line_bytes = 128` and otherwise their default params.
    explicit compressed_l1(const compressed_l1_params& p = {},
                           const typename Selector::params& selector = {},
                           shared_code_book* book = nullptr)
        : p_(p)
        , book_(checked_book(book))
        , compressors_(make_compressor<Compressors>()...)
        , selector_(make_shape(), selector) {
        for (std::uint32_t m = 0; m < mode_count; ++m)
            queues_[m] = selection::decompression_queue(costs_[m].decompress_cycles);
        if constexpr (shares_code_book) {
            seen_generation_ = book_->generation();
            update_allowed_modes();
        }
    }

    /// One access (a line request of a coalesced warp instruction: loads read the whole line,
    /// stores invalidate it) arriving at `cycle` (the host's clock: a timed host's issue cycle,
    /// or the warp instruction's index in an untimed replay). On a fill the line's bytes come
    /// from `image`.
    template <line_image Image>
    result_type access(const memsub::access& a, std::uint64_t cycle, const Image& image) noexcept {
        return access_with(a, cycle, [&](std::uint64_t line_address, std::span<std::byte> out) {
            image.read(line_address, out);
        });
    }
    /// As above with the line's bytes in `a.data` (the whole line, `line_bytes` bytes; a
    /// shorter span is zero-filled).
    result_type access(const memsub::access& a, std::uint64_t cycle) noexcept {
        return access_with(a, cycle, [&](std::uint64_t, std::span<std::byte> out) {
            std::fill(out.begin(), out.end(), std::byte{0});
            std::memcpy(out.data(), a.data.data(), std::min(out.size(), a.data.size()));
        });
    }

    /// SO1: the host's latency tolerance estimate (cycles), for the selector's next decision.
    void set_latency_tolerance(std::uint32_t cycles) noexcept {
        selection::notify_tolerance(selector_, cycles);
    }

    [[nodiscard]] const compressed_l1_stats& stats() const noexcept { return stats_; }
    [[nodiscard]] const cache_type& engine() const noexcept { return cache_; }
    [[nodiscard]] const Selector& selector() const noexcept { return selector_; }
    [[nodiscard]] Selector& selector() noexcept { return selector_; }
    [[nodiscard]] const selection::mode_cost& cost(std::uint32_t mode) const noexcept {
        return costs_[mode];
    }
    /// Lines resident now (tag-only lines included).
    [[nodiscard]] std::uint32_t resident_lines() const noexcept { return resident_total_; }
    /// Resident lines' bytes over the data array's (> 1 when compression adds capacity).
    [[nodiscard]] double effective_capacity() const noexcept {
        return static_cast<double>(resident_total_) * line_bytes /
               compressed_l1_geometry::capacity_bytes();
    }
    /// The mean of effective_capacity over all accesses so far.
    [[nodiscard]] double mean_effective_capacity() const noexcept {
        return stats_.mean_resident_lines() * line_bytes / compressed_l1_geometry::capacity_bytes();
    }
    /// This L1's hardware bits: tags with their 6 payload bits, LRU state, the selector. The
    /// SC² tables are the GPU's (`shared_code_book::storage_bits`), counted once there.
    [[nodiscard]] std::uint64_t storage_bits() const noexcept {
        return cache_.storage_bits() + selection::storage_bits_of(selector_);
    }

    /// Payload layout: mode in bits 0–3, encoding in 4–7, book generation from bit 8.
    [[nodiscard]] static constexpr std::uint32_t mode_of(std::uint32_t payload) noexcept {
        return payload & 0xFu;
    }
    [[nodiscard]] static constexpr std::uint32_t encoding_of(std::uint32_t payload) noexcept {
        return (payload >> 4) & 0xFu;
    }
    [[nodiscard]] static constexpr std::uint32_t generation_of(std::uint32_t payload) noexcept {
        return payload >> 8;
    }
    [[nodiscard]] static constexpr std::uint32_t
    make_payload(std::uint32_t mode, std::uint32_t encoding, std::uint32_t generation) noexcept {
        return mode | (encoding & 0xFu) << 4 | generation << 8;
    }
    /// Whether mode m is SC² (its lines depend on the shared book).
    [[nodiscard]] static constexpr bool is_sc2_mode(std::uint32_t m) noexcept {
        return m >= 1 && sc2_modes[m];
    }

private:
    static constexpr std::array<bool, mode_count> sc2_modes = {
        false, std::same_as<Compressors, compression::sc2>...};
    static constexpr bool tracks_depth = selection::needs_stack_depth<Selector>;

    struct shadow_entry {
        std::uint64_t line = 0;
        std::uint8_t potential = 0; ///< segments in the selector's compressed mode
    };

    shared_code_book* checked_book(shared_code_book* book) const {
        if constexpr (shares_code_book)
            memsub::require(book != nullptr, component, "code_book", 0,
                            "a compressed L1 with an SC² mode needs the GPU's "
                            "shared_code_book");
        return book;
    }

    template <class C>
    static C make_compressor() {
        typename C::params cp{};
        cp.line_bytes = line_bytes;
        return C(cp);
    }

    selection::selection_shape make_shape() {
        selection::selection_shape shape;
        shape.sets = sets;
        shape.miss_latency = p_.miss_latency;
        shape.uncompressed_ways = compressed_l1_geometry::ways;
        shape.modes.assign(mode_count, selection::mode_cost{});
        std::uint32_t m = 1;
        std::apply([&](const auto&... c) { ((shape.modes[m++] = cost_of(c)), ...); }, compressors_);
        for (std::uint32_t i = 0; i < mode_count; ++i) costs_[i] = shape.modes[i];
        return shape;
    }
    template <class C>
    selection::mode_cost cost_of(const C& c) const noexcept {
        const C& live = compressor_for(c);
        return selection::mode_cost{live.compress_latency_cycles(),
                                    live.decompress_latency_cycles(), live.compress_energy_nj(),
                                    live.decompress_energy_nj()};
    }
    /// The instance a mode uses: the GPU's book for SC², the L1's own otherwise.
    template <class C>
    const C& compressor_for(const C& own) const noexcept {
        if constexpr (std::same_as<C, compression::sc2>)
            return book_->compressor();
        else
            return own;
    }

    struct sized_line {
        std::uint32_t bits = 0;
        std::uint32_t encoding = 0;
    };
    /// Size (and encoding) of `line` in mode m ≥ 1.
    sized_line size_in_mode(std::uint32_t m, std::span<const std::byte> line) const noexcept {
        sized_line out;
        std::uint32_t i = 1;
        std::apply(
            [&](const auto&... c) {
                (((i++ == m) ? (void)(out = size_with(compressor_for(c), line)) : (void)0), ...);
            },
            compressors_);
        return out;
    }
    template <class C>
    static sized_line size_with(const C& c, std::span<const std::byte> line) noexcept {
        if constexpr (requires { c.choose(line).encoding; }) {
            const auto ch = c.choose(line);
            return {ch.bits, c.code_of(ch.encoding)};
        } else {
            return {c.size_bits(line), 0};
        }
    }
    /// Compresses and decompresses `line` in mode m; true when the bytes come back.
    bool round_trips(std::uint32_t m, std::span<const std::byte> line) const noexcept {
        bool ok = true;
        std::uint32_t i = 1;
        std::apply(
            [&](const auto&... c) {
                (((i++ == m) ? (void)(ok = round_trip_with(compressor_for(c), line)) : (void)0),
                 ...);
            },
            compressors_);
        return ok;
    }
    template <class C>
    static bool round_trip_with(const C& c, std::span<const std::byte> line) noexcept {
        if constexpr (compression::invertible_compressor<C>) {
            const compression::compressed_line z = c.compress(line);
            std::array<std::byte, line_bytes> back{};
            const auto r = c.decompress(z.view(), back);
            return r.status == compression::decode_status::ok &&
                   std::memcmp(back.data(), line.data(), line_bytes) == 0;
        } else {
            return true; // nothing to check: the compressor only sizes lines
        }
    }

    void update_allowed_modes() noexcept {
        std::uint32_t mask = (1u << mode_count) - 1u;
        if (!book_->has_book())
            for (std::uint32_t m = 1; m < mode_count; ++m)
                if (sc2_modes[m]) mask &= ~(1u << m);
        selection::notify_allowed_modes(selector_, mask);
    }

    /// A new book was installed: lines of older books can no longer be decoded.
    void retire_old_lines() noexcept {
        const std::uint32_t current = book_->generation();
        const std::uint64_t n = cache_.invalidate_if(
            [current](const cache::block_view& b) {
                return is_sc2_mode(mode_of(b.payload)) && generation_of(b.payload) != current;
            },
            [this](const evicted_block& e) { forget(e); }, eviction_reason::retired);
        stats_.retired += n;
        seen_generation_ = current;
        update_allowed_modes();
    }

    /// A line left: keep the resident counts (and the potential sizes) in step.
    void forget(const evicted_block& e) noexcept {
        const std::uint32_t s = e.set.value;
        --resident_[s];
        --resident_total_;
        if constexpr (tracks_depth) {
            const std::uint8_t pot = potential_[s * tags_per_set + e.entry.value];
            potential_sum_[s] -= pot;
            if (e.reason == eviction_reason::replacement) push_shadow(s, e.line.value, pot);
        }
    }

    void push_shadow(std::uint32_t s, std::uint64_t line, std::uint8_t potential) noexcept {
        shadow_entry* row = &shadow_[s * tags_per_set];
        const std::uint32_t keep = std::min<std::uint32_t>(shadow_count_[s], tags_per_set - 1);
        std::move_backward(row, row + keep, row + keep + 1);
        row[0] = shadow_entry{line, potential};
        shadow_count_[s] = static_cast<std::uint8_t>(keep + 1);
        trim_shadow(s);
    }
    void trim_shadow(std::uint32_t s) noexcept {
        const std::uint32_t spare = tags_per_set - resident_[s];
        if (shadow_count_[s] > spare) shadow_count_[s] = static_cast<std::uint8_t>(spare);
    }
    /// Finds and removes the line's tag-only entry: its position, or no_depth.
    std::uint32_t take_shadow(std::uint32_t s, std::uint64_t line,
                              std::uint32_t& potential_above) noexcept {
        shadow_entry* row = &shadow_[s * tags_per_set];
        std::uint32_t sum = 0;
        for (std::uint32_t j = 0; j < shadow_count_[s]; ++j) {
            sum += row[j].potential;
            if (row[j].line == line) {
                std::move(row + j + 1, row + shadow_count_[s], row + j);
                --shadow_count_[s];
                potential_above = sum;
                return j;
            }
        }
        return selection::no_depth;
    }
    /// LRU depth of entry e among the set's resident lines (0 = most recent).
    std::uint32_t depth_of(set_index s, entry_index e) const noexcept {
        const auto& lru = cache_.policy();
        const std::uint32_t pos = lru.stack_position(s, e);
        std::uint32_t depth = 0;
        for (std::uint32_t i = 0; i < tags_per_set; ++i) {
            const cache::block_view v = cache_.block(s, entry_index{i});
            depth += v.valid && i != e.value && lru.stack_position(s, entry_index{i}) < pos;
        }
        return depth;
    }

    template <class ReadLine>
    result_type access_with(const memsub::access& a, std::uint64_t cycle,
                            ReadLine&& read_line) noexcept {
        if constexpr (shares_code_book) {
            if (book_->generation() != seen_generation_) retire_old_lines();
            book_->tick();
        }
        ++stats_.accesses;
        const std::uint64_t line = a.address.value / line_bytes;
        const std::uint32_t s = cache_.set_of(a.address).value; // the engine's own indexing
        selection::access_outcome o{.set = set_index{s}};

        if (is_write(a.kind)) return store_access(a, o);
        return load_access(a, cycle, line, s, o, read_line);
    }

    /// A store: write-evict invalidates the line (one return, so the result is built in place).
    result_type store_access(const memsub::access& a, selection::access_outcome& o) noexcept {
        result_type out([&]() noexcept { return cache_.access(a); });
        ++stats_.stores;
        for (const auto& e : out.engine.evictions) forget(e);
        o.what = selection::access_outcome::kind::store;
        finish(out, o);
        return out;
    }

    template <class ReadLine>
    result_type load_access(const memsub::access& a, std::uint64_t cycle, std::uint64_t line,
                            std::uint32_t s, selection::access_outcome& o,
                            ReadLine& read_line) noexcept {
        // A load reads its whole line (the engine's size-0 request).
        memsub::access whole = a;
        whole.size = 0;
        whole.sector_mask = 0;
        std::uint32_t shadow_depth = selection::no_depth, shadow_potential = 0;
        if constexpr (tracks_depth) shadow_depth = take_shadow(s, line, shadow_potential);
        const std::uint32_t resident_before = resident_[s];
        const std::uint32_t potential_before = tracks_depth ? potential_sum_[s] : 0;

        std::uint32_t stored_mode = 0, stored_segments = segments_per_line, potential = 0;
        result_type out([&]() noexcept {
            return cache_.access(whole, [&](const memsub::access&) noexcept {
                const std::uint32_t m = selector_.insertion_mode(set_index{s});
                const std::span<const std::byte> view(line_buffer_);
                bool sampling = false;
                if constexpr (shares_code_book) sampling = book_->sampling();
                // The line's bytes are read only when something needs them.
                if (m != 0 || sampling || tracks_depth) {
                    read_line(line * line_bytes, std::span<std::byte>(line_buffer_));
                    if constexpr (shares_code_book) book_->on_insert(view);
                }
                std::uint32_t payload = 0;
                if (m != 0) {
                    const sized_line z = size_in_mode(m, view);
                    ++stats_.compressions[m];
                    stats_.compression_energy_nj += costs_[m].compress_nj;
                    const std::uint32_t segs = cache_.segments_for_bits(z.bits);
                    if (segs < segments_per_line) {
                        stored_mode = m;
                        stored_segments = segs;
                        payload =
                            make_payload(m, z.encoding, is_sc2_mode(m) ? seen_generation_ : 0);
                        if (p_.verify_round_trip) {
                            ++stats_.round_trip_checks;
                            stats_.round_trip_failures += round_trips(m, view) ? 0 : 1;
                        }
                    } else {
                        ++stats_.stored_raw[m];
                    }
                }
                if constexpr (tracks_depth) {
                    const std::uint32_t cm = selector_.compressed_mode();
                    potential =
                        cm == stored_mode
                            ? stored_segments
                            : std::min(segments_per_line,
                                       cache_.segments_for_bits(size_in_mode(cm, view).bits));
                }
                return cache::block_spec{.span_segments = segments_per_line,
                                         .stored_segments = stored_segments,
                                         .payload = payload};
            });
        });
        const auto& r = out.engine;
        for (const auto& e : r.evictions) forget(e);

        if (r.hit) {
            const std::uint32_t m = mode_of(r.payload);
            const std::uint32_t lat = queues_[m].enter(cycle);
            ++stats_.load_hits;
            ++stats_.hits_by_mode[m];
            if (m != 0) {
                ++stats_.decompressions[m];
                stats_.decompression_energy_nj += costs_[m].decompress_nj;
            }
            out.mode = m;
            out.extra_hit_cycles = lat;
            out.hit_latency = p_.base_hit_latency + lat;
            stats_.hit_latency_cycles += out.hit_latency;
            o.what = selection::access_outcome::kind::hit;
            o.mode = m;
            o.hit_latency = out.hit_latency;
            o.compressed = m != 0;
            if constexpr (tracks_depth) o.stack_depth = depth_of(r.set, r.entry);
        } else {
            ++stats_.load_misses;
            if (r.filled()) {
                const std::uint32_t e = r.entry.value;
                ++resident_[s];
                ++resident_total_;
                ++stats_.fills_by_mode[stored_mode];
                stats_.filled_segments[stored_mode] += stored_segments;
                stats_.tag_only_fills += stored_segments == 0;
                out.mode = stored_mode;
                out.stored_segments = stored_segments;
                o.what = selection::access_outcome::kind::fill;
                o.mode = stored_mode;
                if constexpr (tracks_depth) {
                    potential_[s * tags_per_set + e] = static_cast<std::uint8_t>(potential);
                    potential_sum_[s] += potential;
                    trim_shadow(s);
                }
            } else {
                o.what = selection::access_outcome::kind::miss;
            }
            if constexpr (tracks_depth) {
                if (shadow_depth != selection::no_depth) {
                    o.stack_depth = resident_before + shadow_depth;
                    o.fits_if_compressed = potential_before + shadow_potential <= segments_per_set;
                }
            }
        }
        finish(out, o);
        return out;
    }

    void finish(result_type& out, const selection::access_outcome& o) noexcept {
        const std::uint64_t eps_before = eps_of();
        selector_.on_access(o);
        out.epoch_ended = eps_of() != eps_before;
        stats_.resident_line_accesses += resident_total_;
    }
    [[nodiscard]] std::uint64_t eps_of() const noexcept {
        if constexpr (selection::counts_epochs<Selector>)
            return selector_.eps();
        else
            return 0;
    }

    compressed_l1_params p_;
    shared_code_book* book_ = nullptr;
    std::tuple<Compressors...> compressors_;
    std::array<selection::mode_cost, mode_count> costs_{};
    Selector selector_;
    cache_type cache_{};
    std::array<selection::decompression_queue, mode_count> queues_{};
    compressed_l1_stats stats_{};
    std::array<std::byte, line_bytes> line_buffer_{};
    std::array<std::uint8_t, sets> resident_{};
    std::uint32_t resident_total_ = 0;
    std::uint32_t seen_generation_ = 0;
    // Adaptive-CMP's bookkeeping (SO3): sizes in its compressed mode and the tag-only entries.
    std::array<std::uint8_t, tracks_depth ? sets * tags_per_set : 0> potential_{};
    std::array<std::uint32_t, tracks_depth ? sets : 0> potential_sum_{};
    std::array<shadow_entry, tracks_depth ? sets * tags_per_set : 0> shadow_{};
    std::array<std::uint8_t, tracks_depth ? sets : 0> shadow_count_{};
};

} // namespace memsub::gpu
