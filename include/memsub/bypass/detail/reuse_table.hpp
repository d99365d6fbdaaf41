// memsub — the shared body of ID-Cache's online bypass predictors (`pc_only`, `pc_divergence`):
// a table of saturating counters trained as Algorithm 3 of [Dissertation] (§3.2.2) describes, with
// the decisions of docs/mechanisms/id_cache.md, 'Bypass predictors'. The two predictors differ
// only in how an access maps to a table index; they compute it and pass it here.
//
// Algorithm 3 with those decisions:
//  * Miss: bypass iff table[index] == 0 (insert iff > 0).
//  * Hit: the line's reused bit is set; table[line.index] += 1, saturating. (`train_hit_on =
//    hitting` trains table[index of the hitting access] instead — Algorithm 3's literal
//    reading, which computes one index from the current request.)
//  * Eviction of a line never reused: table[line.index] −= 1, saturating at 0.
//  * Per line: the table index it was inserted with; the reused bit is the engine's
//    (`evicted_block::reused`: hit at least once while resident).
// Resolutions of this header (not in the text):
//  * Only replacement evictions train (eviction_reason::replacement), as memsub's SHiP does: a
//    write-evicted or invalidated block left for a reason unrelated to its reuse, and a
//    superseded block (a variable-block cache) did not leave — its data merged into the block
//    that replaced it, which carries its reused bit on.
//  * A partial miss of a variable-block cache (ALSI: the request's bytes are partly resident)
//    is a hit for the resident blocks it touches — the engine reports them through T1 and marks
//    them reused — and a miss for the rest: the table is consulted for the missing blocks (Q2),
//    as docs/mechanisms/id_cache.md, 'ALSI' decides ("consulted as for a miss").
//  * Recovery (docs/mechanisms/id_cache.md, 'Bypass predictors'; not in the dissertation): with
//    `learning_sample_rate` N > 0, one in N misses the table would bypass inserts anyway (one
//    global modulo-N counter), so a PC whose counter reached 0 can be hit again and come back. N =
//    0 (the default) reproduces the dissertation: a PC at 0 is bypassed for good.
// Storage: table entries × counter_bits + tag entries × index bits (the inserting index kept
// per block) + the sample counter (bit_width(N − 1) bits when N > 1). The reused bit is the
// engine's and is counted in its tag store.
#pragma once

#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include <memsub/bypass/concept.hpp>
#include <memsub/bypass/trained_table.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/geometry.hpp>
#include <memsub/core/types.hpp>

namespace memsub::bypass {

/// Which table entry a hit trains (Decision: the line's own entry, as SHiP trains; see
/// docs/mechanisms/id_cache.md, 'Bypass predictors').
enum class hit_training : std::uint8_t {
    inserting, ///< the entry of the PC (and bin) that inserted the line, as SHiP does (default)
    hitting,   ///< the entry of the hitting access (Algorithm 3's single `index`, literally)
};

namespace detail {

class reuse_table {
public:
    struct settings {
        std::uint32_t index_bits = 7;
        std::uint32_t counter_bits = 3;
        std::uint32_t initial_counter = 1;
        std::uint32_t learning_sample_rate = 0;
        hit_training train_hit_on = hit_training::inserting;
    };

    reuse_table(const geometry& g, const settings& s, std::string_view component)
        : counter_max_((validate(s, component), low_bits_mask(s.counter_bits)))
        , counter_bits_(s.counter_bits)
        , index_bits_(s.index_bits)
        , sample_rate_(s.learning_sample_rate)
        , train_hit_on_(s.train_hit_on)
        , entries_(g.entries_per_set())
        , table_(std::size_t{1} << s.index_bits, static_cast<std::uint8_t>(s.initial_counter))
        , inserted_by_(g.total_entries(), 0) {}

    /// Algorithm 3, status MISS: bypass iff the counter is 0 (unless this miss is sampled).
    [[nodiscard]] bool should_bypass(std::uint32_t index) noexcept {
        if (table_[index] != 0) return false;
        if (sample_rate_ != 0 && ++sample_count_ == sample_rate_) {
            sample_count_ = 0;
            return false; // recovery sample: insert anyway
        }
        return true;
    }
    /// Replaces the counters with a trained table's (index bits must match; config_error
    /// naming `component` otherwise); a frozen table stops learning.
    void load(const trained_table& t, std::string_view component) {
        memsub::require(t.index_bits == index_bits_, component, "trained_table.index_bits",
                        t.index_bits, "must equal the predictor's table index bits");
        memsub::require(t.counters.size() == table_.size(), component,
                        "trained_table.counters.size()", t.counters.size(), "must be 2^index_bits");
        for (std::size_t i = 0; i < table_.size(); ++i) {
            memsub::require(t.counters[i] <= counter_max_, component, "trained_table.counters[i]",
                            t.counters[i], "must fit in counter_bits");
            table_[i] = t.counters[i];
        }
        frozen_ = t.frozen;
    }
    [[nodiscard]] bool frozen() const noexcept { return frozen_; }

    /// Algorithm 3, status HIT.
    void on_hit(set_index s, entry_index e, std::uint32_t hitting_index) noexcept {
        on_hit(s, e, [hitting_index] { return hitting_index; });
    }
    /// The same, computing the hitting access's index only when it is the one trained
    /// (hit_training::hitting): with the default (`inserting`) a hit needs no index, and the
    /// predictors' index of the hitting access cost every hit of the ID-Cache L1 ~8
    /// instructions.
    template <std::invocable<> HittingIndex>
    void on_hit(set_index s, entry_index e, HittingIndex&& hitting_index) noexcept {
        if (frozen_) return;
        const std::uint32_t i = train_hit_on_ == hit_training::inserting
                                    ? std::uint32_t{inserted_by_[slot(s, e)]}
                                    : static_cast<std::uint32_t>(hitting_index());
        std::uint8_t& c = table_[i];
        c = static_cast<std::uint8_t>(c + (c < counter_max_));
    }
    /// The admitted block remembers its table index.
    void on_insert(set_index s, entry_index e, std::uint32_t index) noexcept {
        inserted_by_[slot(s, e)] = static_cast<std::uint16_t>(index);
    }
    /// Algorithm 3, status EVICT (replacement evictions only; see above).
    void on_evict(set_index s, entry_index e, const evicted_block& b) noexcept {
        if (frozen_ || b.reason != eviction_reason::replacement || b.reused) return;
        std::uint8_t& c = table_[inserted_by_[slot(s, e)]];
        c = static_cast<std::uint8_t>(c - (c != 0));
    }

    [[nodiscard]] std::uint32_t counter(std::uint32_t index) const noexcept {
        return table_[index & (table_.size() - 1)];
    }
    [[nodiscard]] std::uint32_t table_size() const noexcept {
        return static_cast<std::uint32_t>(table_.size());
    }
    [[nodiscard]] std::uint32_t inserted_index(set_index s, entry_index e) const noexcept {
        return inserted_by_[slot(s, e)];
    }

    [[nodiscard]] std::uint64_t storage_bits() const noexcept {
        const std::uint64_t sampler =
            sample_rate_ > 1 ? static_cast<std::uint64_t>(std::bit_width(sample_rate_ - 1u)) : 0;
        return std::uint64_t{table_.size()} * counter_bits_ +
               std::uint64_t{inserted_by_.size()} * index_bits_ + sampler;
    }

private:
    static void validate(const settings& s, std::string_view component) {
        require(s.index_bits >= 1 && s.index_bits <= 16, component, "table index bits",
                s.index_bits, "must be in 1..16");
        require(s.counter_bits >= 1 && s.counter_bits <= 8, component, "counter_bits",
                s.counter_bits, "must be in 1..8");
        require(s.initial_counter <= low_bits_mask(s.counter_bits), component, "initial_counter",
                s.initial_counter, "must fit in counter_bits");
    }

    [[nodiscard]] std::size_t slot(set_index s, entry_index e) const noexcept {
        return std::size_t{s.value} * entries_ + e.value;
    }

    std::uint64_t counter_max_;
    std::uint32_t counter_bits_;
    std::uint32_t index_bits_;
    std::uint32_t sample_rate_;
    std::uint32_t sample_count_ = 0;
    hit_training train_hit_on_;
    bool frozen_ = false; ///< a frozen trained table (offline): no online training
    std::uint32_t entries_;
    std::vector<std::uint8_t> table_;
    std::vector<std::uint16_t> inserted_by_;
};

/// Table index bits of a PC: "the lower 7 bits of an instruction PC" (§3.2.2) after dropping
/// the `alignment_bits` the instruction size fixes (Decision: otherwise aligned PCs use a
/// fraction of the table).
[[nodiscard]] constexpr std::uint32_t pc_bits(std::uint64_t pc, std::uint32_t alignment_bits,
                                              std::uint32_t index_bits) noexcept {
    // index_bits is validated to 1..14: no low_bits_mask compare per access.
    return static_cast<std::uint32_t>((pc >> alignment_bits) & nonzero_low_bits_mask(index_bits));
}

inline void validate_pc_params(std::uint32_t pc_index_bits, std::uint32_t pc_alignment_bits,
                               std::string_view component) {
    require(pc_index_bits >= 1 && pc_index_bits <= 14, component, "pc_index_bits", pc_index_bits,
            "must be in 1..14");
    require(pc_alignment_bits <= 16, component, "pc_alignment_bits", pc_alignment_bits,
            "must be in 0..16");
}

/// The body ID-Cache's table predictors share (pc_only, pc_divergence): a reuse_table indexed by
/// `Derived::index_of(access)`, and the predictor hooks (B/T requirements) forwarding to it.
template <class Derived>
class indexed_reuse_predictor {
public:
    [[nodiscard]] bool should_bypass(set_index, const access& a) noexcept {
        return table_.should_bypass(index(a));
    }
    void on_hit(set_index s, entry_index e, const access& a) noexcept {
        table_.on_hit(s, e, [&] { return index(a); });
    }
    void on_insert(set_index s, entry_index e, const access& a) noexcept {
        table_.on_insert(s, e, index(a));
    }
    void on_evict(set_index s, entry_index e, const evicted_block& b) noexcept {
        table_.on_evict(s, e, b);
    }
    [[nodiscard]] std::uint64_t storage_bits() const noexcept { return table_.storage_bits(); }
    /// Loads an offline-trained table (bypass/offline_trainer.hpp).
    void load(const trained_table& t) { table_.load(t, Derived::component); }
    /// The counter an access would be predicted with.
    [[nodiscard]] std::uint32_t counter(const access& a) const noexcept {
        return table_.counter(index(a));
    }
    [[nodiscard]] const reuse_table& table() const noexcept { return table_; }

protected:
    indexed_reuse_predictor(const geometry& g, const reuse_table::settings& s,
                            std::string_view component)
        : table_(g, s, component) {}

private:
    [[nodiscard]] std::uint32_t index(const access& a) const noexcept {
        return static_cast<const Derived&>(*this).index_of(a);
    }
    reuse_table table_;
};

} // namespace detail
} // namespace memsub::bypass
