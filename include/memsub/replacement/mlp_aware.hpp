// memsub — MLP-aware replacement: LIN with sampling-based adaptive replacement (SBAR).
//
// Citation: Qureshi, Lynch, Mutlu, Patt, "A Case for MLP-Aware Cache Replacement", ISCA 2006 —
// the MLP-based cost of a miss (every cycle, each outstanding demand miss accrues 1/N, N = the
// number outstanding), its 3-bit quantisation (cost_q), the LIN policy (victim = argmin
// R + λ·cost_q, R = 0 for the LRU line … E − 1 for the MRU line, λ = 4) and SBAR (LIN in the main
// tag directory, an auxiliary tag directory running LRU for a few sampled leader sets, a PSEL
// moved by cost_q where the two disagree, followers by the PSEL's MSB). ReMAP's comparison
// ([Dissertation] §2.3) uses λ = 4, 3-bit cost_q and a host-supplied cost.
// Rules and decisions (docs/mechanisms/remap.md, 'MLP-aware replacement'):
//  * cost_q = min(2^bits − 1, ⌊cycles / step⌋), step = 60 cycles, 3 bits (the paper's
//    quantisation: 0–59 → 0, …, ≥ 420 → 7). The cycles come from the host:
//    `hints.miss_cost_cycles` of the missing access (the MLP-based cost of that miss, e.g. from
//    `mlp_cost_meter` below, which derives it from the outstanding misses), or later through
//    `update_cost(set, entry, cycles)` when the host learns it after the fill. Unknown (0) → 0.
//  * LIN ties → the line nearer the LRU end (smaller R) (Decision), so with equal costs LIN is
//    exactly LRU.
//  * SBAR: K leader sets (the complement-select candidate-0 sets of core/set_sampler.hpp, K = 32
//    at ≥ 1024 sets, smaller below, a decision) always use LIN; the ATD keeps an LRU copy of
//    each leader set's tags (E entries). In a leader set, an access that misses the main
//    directory but hits the ATD moves PSEL toward LRU by the miss's cost_q; one that hits the
//    main directory but misses the ATD moves it toward LIN by the hit line's stored cost_q
//    (Decision: that miss is never serviced, so its own cost is unknown; the line's last
//    miss cost stands in); when both agree nothing moves. PSEL = core/set_sampler.hpp's psel_rule
//    (10 bits as DRRIP's, a decision; candidate 0 = LIN, starts at 0: followers start with LIN);
//    followers use LIN while the MSB is 0, LRU otherwise. `adaptive = false` is plain LIN
//    everywhere.
// Storage: per line ⌈log2 E⌉ recency bits + cost bits; the ATD (per leader set, E tags of
// `atd_tag_bits` + a valid bit + ⌈log2 E⌉ LRU bits); the PSEL.
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <memsub/core/errors.hpp>
#include <memsub/core/set_sampler.hpp>
#include <memsub/replacement/concept.hpp>
#include <memsub/replacement/recency_stack.hpp>

namespace memsub::replacement {

/// Derives the MLP-based cost of misses from when they are issued and completed (the paper's
/// per-cycle rule, event-driven: between two events N is constant, so each outstanding miss
/// accrues Δt / N). Slots are the host's miss-status registers, 0..capacity−1. Allocates only
/// at construction.
class mlp_cost_meter {
public:
    static constexpr std::string_view component = "memsub::replacement::mlp_cost_meter";

    explicit mlp_cost_meter(std::uint32_t capacity = 32)
        : start_((memsub::require(capacity >= 1, component, "capacity", capacity, "must be >= 1"),
                  capacity),
                 -1.0) {}

    /// A demand miss enters slot `slot` at `cycle` (cycles never decrease). slot < capacity and
    /// free.
    void issue(std::uint32_t slot, std::uint64_t cycle) noexcept {
        MEMSUB_ASSERT(slot < start_.size() && start_[slot] < 0);
        advance(cycle);
        start_[slot] = accrued_;
        ++outstanding_;
    }
    /// The miss in `slot` completes at `cycle`: its MLP-based cost in cycles (rounded down).
    [[nodiscard]] std::uint64_t complete(std::uint32_t slot, std::uint64_t cycle) noexcept {
        MEMSUB_ASSERT(slot < start_.size() && start_[slot] >= 0);
        advance(cycle);
        const double cost = accrued_ - start_[slot];
        start_[slot] = -1.0;
        --outstanding_;
        return static_cast<std::uint64_t>(cost + 1e-9);
    }
    [[nodiscard]] std::uint32_t outstanding() const noexcept { return outstanding_; }

private:
    void advance(std::uint64_t cycle) noexcept {
        if (outstanding_ > 0 && cycle > last_)
            accrued_ += static_cast<double>(cycle - last_) / outstanding_;
        if (cycle > last_) last_ = cycle;
    }
    std::vector<double> start_;
    double accrued_ = 0;
    std::uint64_t last_ = 0;
    std::uint32_t outstanding_ = 0;
};

struct mlp_aware_params {
    /// λ of LIN (4 in the paper's evaluation and in [Dissertation] §2.3).
    std::uint32_t lambda = 4;
    /// Bits of cost_q (3) and the cycles per quantisation step (60).
    std::uint32_t cost_bits = 3;
    std::uint32_t cost_step_cycles = 60;
    /// SBAR (LIN vs LRU by sampling); false = LIN in every set.
    bool adaptive = true;
    /// Leader sets (K); 0 = automatic (32 at ≥ 1024 sets, see set_sampler.hpp).
    std::uint32_t leader_sets = 0;
    /// PSEL width, 1..31.
    std::uint32_t psel_bits = 10;
    /// Tag bits per ATD entry (storage accounting only).
    std::uint32_t atd_tag_bits = 40;

    /// The fields text can set (core/param_text.hpp).
    template <class V>
    friend void describe_params(V& v, mlp_aware_params& p) {
        v("lambda", p.lambda);
        v("cost_bits", p.cost_bits);
        v("cost_step_cycles", p.cost_step_cycles);
        v("adaptive", p.adaptive);
        v("leader_sets", p.leader_sets);
        v("psel_bits", p.psel_bits);
        v("atd_tag_bits", p.atd_tag_bits);
    }
};

class mlp_aware {
public:
    static constexpr std::string_view component = "memsub::replacement::mlp_aware";
    /// O8: what it needs from the host.
    static constexpr std::string_view host_hints_needed =
        "each miss's MLP-based cost in hints.miss_cost_cycles (or update_cost): without costs "
        "every cost_q is 0, LIN's ties go to the LRU end, and it replaces exactly as LRU";
    using params = mlp_aware_params;
    static constexpr std::uint32_t lin = 0;
    static constexpr std::uint32_t lru = 1;

    explicit mlp_aware(const geometry& g) : mlp_aware(g, params{}) {}
    mlp_aware(const geometry& g, const params& p)
        : p_((validate(p), p))
        , entries_(g.entries_per_set())
        , line_shift_(log2_exact(g.line_bytes))
        , cost_max_((1u << p.cost_bits) - 1u)
        , stack_(g)
        , cost_q_(std::size_t{g.sets} * g.entries_per_set(), 0)
        , leader_of_(g.sets, no_leader)
        , psel_(psel_rule::params{.psel_bits = p.psel_bits},
                sampler_shape{.candidates = 2, .requesters = 1, .component = component}) {
        if (!p.adaptive) return;
        const std::uint32_t k =
            p.leader_sets != 0 ? p.leader_sets : leader_sets::automatic_leaders(g.sets);
        require(k >= 1 && g.sets % k == 0 && std::uint64_t{k} * k <= g.sets, component,
                "leader_sets", k, "must divide the number of sets with K^2 <= sets");
        for (std::uint32_t c = 0; c < k; ++c)
            leader_of_[leader_sets::complement_select_set(g.sets, k, 1, 0, 0, c)] = c;
        atd_lines_.assign(std::size_t{k} * entries_, empty_tag);
        atd_.emplace(geometry{.sets = k, .ways = entries_, .line_bytes = g.line_bytes});
    }

    [[nodiscard]] std::string_view name() const noexcept {
        return p_.adaptive ? "mlp_aware" : "lin";
    }

    void on_hit(set_index s, entry_index e, const access& a) noexcept {
        stack_.promote(s, e);
        const std::uint32_t l = leader_of_[s.value];
        if (l != no_leader && !atd_access(l, a.address.value >> line_shift_))
            psel_.on_leader_miss(0, lru, cost_q_[index(s, e)]); // LRU would have missed
    }
    void on_miss(set_index s, const access& a) noexcept {
        miss_line_ = a.address.value >> line_shift_;
        miss_cost_ = quantise(a.hints.miss_cost_cycles);
        const std::uint32_t l = leader_of_[s.value];
        if (l != no_leader && atd_access(l, miss_line_))
            psel_.on_leader_miss(0, lin, miss_cost_); // LRU would have hit
    }
    void on_insert(set_index s, entry_index e, const access& a) noexcept {
        const std::uint64_t line = a.address.value >> line_shift_;
        cost_q_[index(s, e)] = line == miss_line_ ? miss_cost_ : quantise(a.hints.miss_cost_cycles);
        stack_.promote(s, e);
    }
    void on_evict(set_index s, entry_index e, const evicted_block&) noexcept {
        stack_.demote(s, e);
    }
    [[nodiscard]] entry_index victim(set_index s, entry_mask eligible, const access&) noexcept {
        if (uses_lin(s)) return lin_victim(s, eligible);
        const std::uint8_t* pos = stack_.row(s);
        std::uint32_t best = 0, best_pos = 0;
        bool any = false;
        for (entry_mask m = eligible; m != 0; m &= m - 1) {
            const auto e = static_cast<std::uint32_t>(std::countr_zero(m));
            if (!any || pos[e] > best_pos) {
                best = e;
                best_pos = pos[e];
                any = true;
            }
        }
        return entry_index{best};
    }

    /// The host learned the MLP-based cost of the miss that filled (s, e) after the fill.
    void update_cost(set_index s, entry_index e, std::uint64_t cycles) noexcept {
        cost_q_[index(s, e)] = quantise(cycles);
    }

    // ------------------------------------------------------------ introspection

    [[nodiscard]] std::uint8_t quantise(std::uint64_t cycles) const noexcept {
        const std::uint64_t q = cycles / p_.cost_step_cycles;
        return static_cast<std::uint8_t>(q < cost_max_ ? q : cost_max_);
    }
    [[nodiscard]] std::uint32_t cost_q(set_index s, entry_index e) const noexcept {
        return cost_q_[index(s, e)];
    }
    /// LIN's recency value: E − 1 (MRU) … 0 (LRU).
    [[nodiscard]] std::uint32_t recency(set_index s, entry_index e) const noexcept {
        return stack_.recency(s, e);
    }
    [[nodiscard]] bool is_leader(set_index s) const noexcept {
        return leader_of_[s.value] != no_leader;
    }
    /// LIN in leader sets and while PSEL's MSB is 0 (always without SBAR).
    [[nodiscard]] bool uses_lin(set_index s) const noexcept {
        return !p_.adaptive || is_leader(s) || psel_.choice(0) == lin;
    }
    [[nodiscard]] std::uint32_t psel() const noexcept { return psel_.psel(0); }
    [[nodiscard]] std::uint32_t psel_max() const noexcept { return psel_.psel_max(); }

    [[nodiscard]] std::uint64_t storage_bits() const noexcept {
        const std::uint64_t lru_bits = static_cast<std::uint64_t>(std::bit_width(entries_ - 1));
        const std::uint64_t atd = atd_lines_.size() * (p_.atd_tag_bits + 1 + lru_bits);
        return stack_.storage_bits() + cost_q_.size() * p_.cost_bits + atd +
               (p_.adaptive ? psel_.storage_bits() : 0);
    }

private:
    static constexpr std::uint32_t no_leader = ~0u;
    static constexpr std::uint64_t empty_tag = ~std::uint64_t{0};

    static void validate(const params& p) {
        require(p.cost_bits >= 1 && p.cost_bits <= 8, component, "cost_bits", p.cost_bits,
                "must be in 1..8");
        require(p.cost_step_cycles >= 1, component, "cost_step_cycles", p.cost_step_cycles,
                "must be >= 1");
        require(p.lambda <= 1024, component, "lambda", p.lambda, "must be <= 1024");
        require(p.psel_bits >= 1 && p.psel_bits <= 31, component, "psel_bits", p.psel_bits,
                "must be in 1..31");
        require(p.atd_tag_bits >= 1 && p.atd_tag_bits <= 64, component, "atd_tag_bits",
                p.atd_tag_bits, "must be in 1..64");
    }

    [[nodiscard]] entry_index lin_victim(set_index s, entry_mask eligible) const noexcept {
        std::uint32_t best = 0, best_value = ~0u, best_r = ~0u;
        for (entry_mask m = eligible; m != 0; m &= m - 1) {
            const auto e = static_cast<std::uint32_t>(std::countr_zero(m));
            const std::uint32_t r = stack_.recency(s, entry_index{e});
            const std::uint32_t v = r + p_.lambda * cost_q_[index(s, entry_index{e})];
            if (v < best_value || (v == best_value && r < best_r)) {
                best = e;
                best_value = v;
                best_r = r;
            }
        }
        return entry_index{best};
    }

    /// The ATD's LRU copy of leader set `l`: looks `line` up, fills it on a miss (evicting the
    /// LRU tag), promotes it; true on a hit.
    bool atd_access(std::uint32_t l, std::uint64_t line) noexcept {
        std::uint64_t* tags = atd_lines_.data() + std::size_t{l} * entries_;
        const set_index as{l};
        for (std::uint32_t e = 0; e < entries_; ++e)
            if (tags[e] == line) {
                atd_->promote(as, entry_index{e});
                return true;
            }
        const std::uint8_t* pos = atd_->row(as);
        std::uint32_t victim = 0;
        for (std::uint32_t e = 0; e < entries_; ++e)
            if (pos[e] == entries_ - 1) victim = e;
        tags[victim] = line;
        atd_->promote(as, entry_index{victim});
        return false;
    }

    [[nodiscard]] std::size_t index(set_index s, entry_index e) const noexcept {
        return std::size_t{s.value} * entries_ + e.value;
    }

    params p_;
    std::uint32_t entries_;
    std::uint32_t line_shift_;
    std::uint32_t cost_max_;
    recency_stack stack_;
    std::vector<std::uint8_t> cost_q_;
    std::vector<std::uint32_t> leader_of_;
    std::vector<std::uint64_t> atd_lines_;
    std::optional<recency_stack> atd_;
    psel_rule psel_;
    std::uint64_t miss_line_ = ~std::uint64_t{0};
    std::uint8_t miss_cost_ = 0;
};

static_assert(replacement_policy<mlp_aware>);

} // namespace memsub::replacement
