// memsub — `gpu::shared_code_book`: one SC² value-frequency table and code book for every L1 of
// a GPU, and the GPU-wide period clock that samples, builds and installs it ([Dissertation]
// §4.3.3; [SC2] for the VFT and the Huffman book).
//
// One copy for the GPU: the dissertation gives the SC² tables (VFT 5.5 KB, compressor code table
// 7 KB, De-LUT 3 KB: 15.5 KB) as 6.45 % of the GPU's total L1D (15.5 KB / (16 KB × 15 SMs)), so
// the tables are shared, and so is their schedule. Every compressed L1 ticks the clock once per
// access; a GPU experimental phase (EP) is `ep_accesses` accesses per L1 (`ep_accesses × l1s`
// accesses of all L1s together), a period `eps_per_period` EPs, as each L1's own learning
// schedule (selection/detail/sampled_selection.hpp) counts them.
//  * The VFT samples the words of lines the L1s insert during EP 1 of the first period and
//    during the last EP of every period. Decision: it is cleared before each sampling EP, so
//    each book reflects one EP's values (the text's "latest sampling").
//  * At the end of a sampling EP a book is built from the VFT and installed: after period 1's
//    EP 1 (the first book) and at the start of every later period. Each install starts a new
//    generation; the L1s invalidate their lines of older generations (counted as `retired`)
//    before their next access, so at most one book is live in steady state — the tag's one
//    code-book bit ([SC2]: two live books) is what lets the hardware retire lazily.
//  * Until the first install there is no book (generation 0): SC²-mode lines would be stored
//    uncompressed, and the L1s keep SC² out of their selectors' allowed modes.
// Decision: evictions never touch the VFT ([SC2] decrements the counters of evicted lines' words;
// LATTE-CC samples only inserted lines within one EP). The VFT is cleared before each sampling
// EP, so decrementing for lines inserted before it would subtract values it never counted.
// Books are built in place (compression::sc2_shared_state: two slots, the next book overwrites
// the one before the current, which no line uses any more), so a rebuild allocates nothing once
// the slots have grown; it happens once per period (2,560 accesses per L1 by default) and its
// count is reported (`build_count`) so a benchmark can show its share.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include <memsub/compression/huffman_code_book.hpp>
#include <memsub/compression/sc2.hpp>
#include <memsub/core/errors.hpp>

namespace memsub::gpu {

class shared_code_book {
public:
    struct params {
        /// L1s sharing the book (the GPU's SMs): a GPU EP is `ep_accesses × l1s` accesses.
        std::uint32_t l1s = 15;
        /// Accesses per L1 per EP, and EPs per period ([Dissertation] §4.3.3: 256 and 10).
        std::uint32_t ep_accesses = 256;
        std::uint32_t eps_per_period = 10;
        /// Line size of the L1s.
        std::uint32_t line_bytes = 128;
        compression::value_frequency_table::params vft{};
        compression::huffman_code_book::params book{};
        /// SC²'s latencies and energies (compression::sc2::params' defaults: 6 / 14 cycles,
        /// 0.42 / 0.336 nJ, [Dissertation] §4.3.3).
        std::uint32_t compress_latency_cycles = 6;
        std::uint32_t decompress_latency_cycles = 14;
        double compress_energy_nj = 0.42;
        double decompress_energy_nj = 0.336;
    };
    static constexpr std::string_view component = "memsub::gpu::shared_code_book";

    shared_code_book() : shared_code_book(params{}) {}
    explicit shared_code_book(const params& p)
        : p_(validated(p))
        , state_(compression::sc2_shared_state::params{.table = p.vft, .book = p.book})
        , compressor_(sc2_params(nullptr)) {
        ep_length_ = std::uint64_t{p.ep_accesses} * p.l1s;
        state_.start_sampling(); // EP 1 of the first period samples
    }

    /// One L1 access, from any L1 (the GPU-wide clock).
    void tick() noexcept {
        if (++access_in_ep_ < ep_length_) return;
        access_in_ep_ = 0;
        end_ep();
    }

    /// Whether the VFT samples inserted lines now.
    [[nodiscard]] bool sampling() const noexcept { return state_.sampling(); }
    /// A line an L1 inserts: its words are sampled while `sampling()`.
    void on_insert(std::span<const std::byte> line) noexcept {
        if (!state_.sampling()) return;
        state_.on_insert(line);
        ++sampled_lines_;
    }

    /// The generation of the installed book: 0 before the first, then 1, 2, …
    [[nodiscard]] std::uint32_t generation() const noexcept { return generation_; }
    [[nodiscard]] bool has_book() const noexcept { return generation_ != 0; }
    /// An SC² compressor with the installed book (the escape-only book before the first).
    [[nodiscard]] const compression::sc2& compressor() const noexcept { return compressor_; }

    /// Books built and installed so far.
    [[nodiscard]] std::uint64_t build_count() const noexcept { return generation_; }
    /// Lines whose words the VFT sampled.
    [[nodiscard]] std::uint64_t sampled_lines() const noexcept { return sampled_lines_; }
    /// GPU EPs completed.
    [[nodiscard]] std::uint64_t eps() const noexcept { return eps_; }
    [[nodiscard]] const compression::value_frequency_table& vft() const noexcept {
        return state_.table();
    }
    [[nodiscard]] const params& parameters() const noexcept { return p_; }

    /// The GPU's one copy of the SC² tables: the VFT and the installed book's code and
    /// decode tables ([Dissertation] §4.3.3: 5.5 + 7 + 3 KB).
    [[nodiscard]] std::uint64_t storage_bits() const noexcept { return state_.storage_bits(); }

private:
    static const params& validated(const params& p) {
        require(p.l1s >= 1, component, "l1s", p.l1s, "must be >= 1");
        require(p.ep_accesses >= 1, component, "ep_accesses", p.ep_accesses,
                "an experimental phase needs at least one access");
        require(p.eps_per_period >= 2, component, "eps_per_period", p.eps_per_period,
                "a period needs a learning EP and at least one adaptive EP");
        return p;
    }

    [[nodiscard]] compression::sc2::params
    sc2_params(std::shared_ptr<const compression::huffman_code_book> book) const {
        return compression::sc2::params{.line_bytes = p_.line_bytes,
                                        .code_book = std::move(book),
                                        .compress_latency_cycles = p_.compress_latency_cycles,
                                        .decompress_latency_cycles = p_.decompress_latency_cycles,
                                        .compress_energy_nj = p_.compress_energy_nj,
                                        .decompress_energy_nj = p_.decompress_energy_nj};
    }

    void end_ep() noexcept {
        ++eps_;
        if (state_.sampling()) install();
        // The next EP samples iff it is the last of its period (the VFT cleared first).
        if (eps_ % p_.eps_per_period == p_.eps_per_period - 1) state_.start_sampling();
    }

    /// Builds the next book in place of the one before the current (no L1 line uses that one:
    /// they were retired when the current one was installed) and codes new lines with it.
    void install() noexcept {
        state_.stop_sampling();
        state_.rebuild();
        compressor_ = compression::sc2(sc2_params(state_.current()));
        ++generation_;
    }

    params p_;
    compression::sc2_shared_state state_;
    compression::sc2 compressor_;
    std::uint64_t ep_length_ = 0;
    std::uint64_t access_in_ep_ = 0;
    std::uint64_t eps_ = 0;
    std::uint64_t sampled_lines_ = 0;
    std::uint32_t generation_ = 0;
};

} // namespace memsub::gpu
