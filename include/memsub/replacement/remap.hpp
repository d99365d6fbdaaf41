// memsub — ReMAP: reuse- and memory-access-cost-aware eviction for shared LLCs.
//
// Citation: [Dissertation] Chapter 2: §2.2 (Eq. 2.3, Algorithms 1 and 2), §2.2.2 / §2.2.5
// (PERD, cascaded Bloom-filter victim buffer), §2.2.3 / Table 2.2 (MAC classes), §2.2.4 and
// §2.3.3 (cost-based set dueling between (α, β, γ) = (1, 1, 4) and (1, 4, 1)), §2.3.4 / Fig. 2.6
// (SRRIP+PERD, SRRIP+MAC), §2.3.6 (LRU as the underlying policy). The decisions where the
// dissertation leaves a gap: docs/mechanisms/remap.md, 'ReMAP'.
// Rules:
//  * Victim: the eligible line with the least cost α·R + β·PERD + γ·MAC; ties → the lowest entry
//    (Algorithm 1 replaces its candidate only on a strict <).
//  * R, recency, higher = more worth keeping (Decision, as LIN orients it): over SRRIP R = (2^M −
//    1) − RRPV; over LRU R = E − 1 − stack position (unscaled, as LIN). Over SRRIP, hits and
//    insertions update RRPVs as SRRIP does and every replacement first runs SRRIP's ageing step
//    (add 1 to every RRPV until an eligible line is distant). Decision: without the ageing step
//    RRPVs never rise and R would only separate hit lines from the rest.
//  * PERD (2 bits per line, set at insertion): the class the victim buffer gives the missing
//    line's address — near 3, intermediate 2, far 1, distant 0 (filter/cascaded_victim_buffer.hpp).
//    Every replacement victim's line address enters the buffer in on_evict, i.e. before the
//    missing line is looked up in on_insert (Algorithm 2's order). Decision: blocks leaving
//    for other reasons (write-evict, invalidate, flush, superseded) are not inserted: Algorithm 1
//    inserts the chosen victim only.
//  * Decision: an unconfirmed PERD is spent when it keeps a line. At a replacement, every other
//    eligible line that has not been hit since its insertion and outranked the victim only through
//    its β·PERD term (its key without that term is below the victim's, so without its prediction it
//    would have been evicted instead) loses one class; a demand hit confirms the prediction, and a
//    confirmed PERD stands as [Dissertation] §2.2.2 has it (set at insertion, never revised; one
//    bit per line records the hit). [Dissertation] §2.2.2 never revises PERD; we do for unconfirmed
//    lines because a fixed PERD outranks recency for good: over SRRIP R is 0..3, so a near line
//    costs 3 + R (β = 1) or 12 + R (β = 4) against 1 for a line just inserted, and a near line that
//    is never used again outlives every newer line (in ChampSim, near-filled lines came to hold
//    most of a 2 MiB LLC: docs/performance/remap_in_champsim.md). Spent one class per save, an
//    unconfirmed prediction buys at most PERD (≤ 3) replacements in its set beyond what recency and
//    MAC allow — about Table 2.1's "near" distance of 4 evictions — whatever β. Why not spend
//    confirmed lines too: a lasting PERD is also what keeps reused lines that come back soon after
//    eviction (a zipf's warm lines, part of a loop larger than the cache), and spending every line
//    gave that up on a Zipf stream eight times the cache, while exempting confirmed lines keeps it
//    (figures in docs/performance/remap_in_champsim.md, 'What the fix costs'). Over LRU, R (0..E−1)
//    already limits a save to lines fewer than β·PERD positions above; the rule is the same there.
//    `spend_unconfirmed_perd = false` gives the published rule (and saves the confirmed bit).
//  * Decision: a writeback from the level above (access_kind::writeback) is not a re-reference: its
//    fill is not looked up in the victim buffer (PERD distant) and its miss moves the dueling
//    selector by nothing (it reads no memory). [Dissertation] looks every miss up; its Algorithm 2
//    describes a demand miss ("issue request to DRAM"), and a writeback that misses is the level
//    above returning a dirty line the LLC dropped while the level above still held it — the buffer
//    would see the hierarchy's traffic, not the program's reuse (in ChampSim nearly every
//    writeback fill was classed far or nearer and almost none was hit again:
//    docs/performance/remap_in_champsim.md, 'Diagnosis (before the fix)'). The written-back line
//    still enters the buffer when it is evicted: a demand re-read of it is a real post-eviction
//    reuse. `writebacks_are_not_reuse = false` treats writebacks as [Dissertation] Algorithm 2
//    does.
//  * MAC (2 bits per line, set at insertion): the host's class (`hints.memory_cost_class`, §2.3.6
//    suggests a host-supplied cost for complex schedulers) when known, else memsub's mac_table
//    (memory/mac_table.hpp, Table 2.2) estimated on the miss before the miss itself is recorded.
//    The table records every demand miss the LLC sends to memory (not `writeback` accesses from
//    the level above, which allocate without a read) and every dirty line leaving (a writeback
//    to memory); its pending count is the last-Q approximation (Q = `mac_window`).
//    Decision: bank and row come from a row-interleaved mapping (row : bank : column, Table
//    2.3: 8 banks, 8 KB rows, one channel): bank = (address / row_bytes) mod banks, row =
//    address / (row_bytes · banks). A host with its own mapping passes the class instead.
//  * Dueling: set_dueling (core/set_sampler.hpp's psel_rule, 10-bit PSEL, 32 leader sets per side
//    by complement-select) over the two weight sets; a leader-set miss moves PSEL by its memory
//    access cost, not by one (§2.2.4): `hints.miss_cost_cycles` when the host knows it, else the
//    miss's MAC class + 1 (Decision: the class orders costs as the latencies do). Side 0 =
//    weights[0] = (1, 1, 4), side 1 = (1, 4, 1).
//  * Variants (Fig. 2.6; Decision, the text names no other weights): SRRIP+PERD is γ = 0, SRRIP+MAC
//    is β = 0, each with α = 1 and the dueled value of the remaining weight: (1,1,0)/(1,4,0) and
//    (1,0,4)/(1,0,1). Any weights can be fixed statically (give both sides the same weights).
// Storage (`storage_bits()`): the victim buffer's three Bloom filters (3 × c × E/3 bits) + per
// line the recency bits (SRRIP: M; LRU: ⌈log2 E⌉) + 2 PERD bits and the confirmed bit (when
// some β ≠ 0; no confirmed bit with spend_unconfirmed_perd off) + 2 MAC bits (when some γ ≠ 0) +
// the MAC table (per bank two row addresses and the last-Q approximation) + the PSEL. The
// dissertation's 18.75 KB is the filters alone with 5K-entry stages ([Dissertation] §2.3;
// `victim_buffer.stage_entries = 5120` on a 1 MB 16-way LLC); it counts 4 bits per line (PERD,
// MAC), memsub 5 with the confirmed bit. Layout and deviations: one byte per line holds PERD, MAC,
// the confirmed bit and (over SRRIP) the RRPV, so the RRPV width is limited to 1..3 bits (the RRIP
// paper's 2 is the default); the rows are hosted in the engine's set header (O5) when they fit. Hot
// path: no allocation, no virtual call; a victim costs two branch-free passes over the set's
// entries (ageing, then the least key cost · 64 + entry), its eviction one more (the PERD spend).
// Left open by [Dissertation] §2.2–§2.3, and what memsub does:
//  * whether PERD (or MAC) changes after insertion — an unconfirmed PERD is spent (Decision
//    above); MAC stays as estimated (a re-fetch cost, not a reuse prediction), so with γ = 4 a
//    class-3 line can outrank newer cheaper lines for as long as they keep coming cheaper;
//  * writebacks from the level above, which the evaluated non-inclusive hierarchy (§2.3.1) sends
//    to the LLC — Decision above;
//  * the scale of R: with RRPVs R spans 0..3 (M = 2) while β·PERD and γ·MAC span 0..12, so the
//    (1, 1, 4) / (1, 4, 1) weights let either term override recency entirely; over LRU, R spans
//    0..E−1. memsub keeps the published weights and does not rescale R;
//  * RRIP state under ReMAP (ageing), k of the filters, the MAC table's mapping and its pending
//    count — each explained in its note above.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include <memsub/core/byte_match.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/filter/cascaded_victim_buffer.hpp>
#include <memsub/memory/mac_table.hpp>
#include <memsub/replacement/concept.hpp>
#include <memsub/replacement/recency_stack.hpp>
#include <memsub/replacement/rrpv_state.hpp>
#include <memsub/replacement/set_dueling.hpp>
#include <memsub/replacement/set_rows.hpp>
#include <memsub/replacement/srrip.hpp>

namespace memsub::replacement {

/// (α, β, γ) of Eq. 2.3: weights of recency, PERD and MAC.
struct remap_weights {
    std::uint32_t recency = 1;
    std::uint32_t reuse = 1;
    std::uint32_t cost = 4;
    friend constexpr bool operator==(const remap_weights&, const remap_weights&) = default;

    /// The fields text can set (core/param_text.hpp).
    template <class V>
    friend void describe_params(V& v, remap_weights& w) {
        v("recency", w.recency);
        v("reuse", w.reuse);
        v("cost", w.cost);
    }
};

/// Which terms a ReMAP instance weighs by default (Fig. 2.6's isolation study).
enum class remap_variant : std::uint8_t {
    full,      ///< ReMAP: (1,1,4) vs (1,4,1)
    perd_only, ///< SRRIP+PERD: γ = 0 — (1,1,0) vs (1,4,0)
    mac_only,  ///< SRRIP+MAC: β = 0 — (1,0,4) vs (1,0,1)
};

/// The underlying recency policy (§2.3.1: SRRIP; §2.3.6: LRU).
enum class remap_recency : std::uint8_t { srrip, lru };

[[nodiscard]] constexpr std::array<remap_weights, 2> default_remap_weights(remap_variant v) {
    switch (v) {
    case remap_variant::perd_only:
        return {remap_weights{1, 1, 0}, remap_weights{1, 4, 0}};
    case remap_variant::mac_only:
        return {remap_weights{1, 0, 4}, remap_weights{1, 0, 1}};
    case remap_variant::full:
        break;
    }
    return {remap_weights{1, 1, 4}, remap_weights{1, 4, 1}};
}

/// The knobs of ReMAP's dual policy (the dueling knobs are set_dueling's).
template <remap_variant Variant>
struct remap_dual_params {
    /// Side 0 and side 1 of the set dueling.
    std::array<remap_weights, 2> weights = default_remap_weights(Variant);
    /// The PERD victim buffer (E = entries_per_set × sets, c, k, stage override).
    filter::cascaded_victim_buffer::params victim_buffer{};
    /// SRRIP's RRPV width and hit promotion (ignored over LRU).
    srrip_params rrip{};
    /// DRAM banks and row size of the MAC table's mapping (powers of two).
    std::uint32_t dram_banks = 8;
    std::uint32_t dram_row_bytes = 8192;
    /// Row-address bits stored per bank (storage accounting).
    std::uint32_t mac_row_bits = 16;
    /// Q of the pending-count approximation (0 = no approximation: pending is 0).
    std::uint32_t mac_window = 16;
    /// Spend an unconfirmed PERD when it keeps a line (header: Decision). false = PERD fixed at
    /// insertion, as [Dissertation] §2.2.2 publishes it (no confirmed bit in the storage).
    bool spend_unconfirmed_perd = true;
    /// A writeback from the level above is not a re-reference (header: Decision). false = it is
    /// looked up in the victim buffer and its miss costs the dueling selector like a demand
    /// miss, as [Dissertation] Algorithm 2 has it.
    bool writebacks_are_not_reuse = true;

    /// The fields text can set (core/param_text.hpp): side0.* and side1.* are the weights,
    /// SRRIP's fields join unprefixed.
    template <class V>
    friend void describe_params(V& v, remap_dual_params& p) {
        v("side0", p.weights[0]);
        v("side1", p.weights[1]);
        v("victim_buffer", p.victim_buffer);
        v("", p.rrip);
        v("dram_banks", p.dram_banks);
        v("dram_row_bytes", p.dram_row_bytes);
        v("mac_row_bits", p.mac_row_bits);
        v("mac_window", p.mac_window);
        v("spend_unconfirmed_perd", p.spend_unconfirmed_perd);
        v("writebacks_are_not_reuse", p.writebacks_are_not_reuse);
    }
};

/// ReMAP's state under both weight sets: the dual policy `set_dueling` drives.
/// Layout: one byte per line — PERD in bits 0–1, MAC in bits 2–3, over SRRIP the RRPV in bits
/// 4–6 (so M ≤ 3), and in bit 7 whether a demand hit confirmed the PERD — one 16-byte-padded
/// row per set (set_rows.hpp), hosted in the engine's set header when it fits (O5: a
/// 16-way set's row shares the line of its tags' fingerprints), so a hit or a victim scan
/// touches one metadata line, as SRRIP's does. Over LRU the stack positions live in their own
/// rows (recency_stack.hpp).
template <remap_variant Variant, remap_recency Recency>
class remap_dual {
public:
    static constexpr std::string_view component = "memsub::replacement::remap";
    using params = remap_dual_params<Variant>;

    remap_dual(const geometry& g, const params& p)
        : entries_((validate(g, p), g.entries_per_set()))
        , line_shift_(log2_exact(g.line_bytes))
        , row_shift_(log2_exact(p.dram_row_bytes))
        , bank_mask_(p.dram_banks - 1)
        , bank_shift_(log2_exact(p.dram_banks))
        , rrpv_bits_(p.rrip.rrpv_bits)
        , distant_(static_cast<std::uint8_t>((1u << p.rrip.rrpv_bits) - 1u))
        , weights_(p.weights)
        , promotion_(p.rrip.promotion)
        , spend_unconfirmed_(p.spend_unconfirmed_perd)
        , writebacks_not_reuse_(p.writebacks_are_not_reuse)
        , stack_(make_stack(g))
        , rows_(g.sets, padded_row_bytes(g.entries_per_set()), 0)
        , buffer_(g.sets, p.victim_buffer)
        , mac_(memory::mac_table::params{
              .banks = p.dram_banks, .row_bits = p.mac_row_bits, .window = p.mac_window}) {
        const std::uint32_t top = Recency == remap_recency::srrip ? distant_ : entries_ - 1u;
        narrow_keys_ = true;
        for (const auto& w : weights_)
            narrow_keys_ = narrow_keys_ && w.recency * top + 3 * (w.reuse + w.cost) < 512;
    }

    [[nodiscard]] std::string_view name() const noexcept {
        if constexpr (Recency == remap_recency::lru) {
            if constexpr (Variant == remap_variant::perd_only) return "lru_perd";
            if constexpr (Variant == remap_variant::mac_only) return "lru_mac";
            return "remap_lru";
        } else {
            if constexpr (Variant == remap_variant::perd_only) return "srrip_perd";
            if constexpr (Variant == remap_variant::mac_only) return "srrip_mac";
            return "remap";
        }
    }

    void on_hit(set_index s, entry_index e, const access& a, std::uint32_t) noexcept {
        std::uint8_t& b = row(s)[e.value];
        // A demand hit confirms the line's PERD (header: Decision); a writeback does not.
        if (a.kind != access_kind::writeback) b |= confirmed_bit;
        if constexpr (Recency == remap_recency::lru) {
            stack_.promote(s, e);
        } else {
            if (promotion_ == hit_promotion::hit_priority)
                b &= meta_mask; // RRPV ← 0
            else if ((b & rrpv_mask) != 0)
                b = static_cast<std::uint8_t>(b - (1u << rrpv_shift)); // RRPV ← RRPV − 1
        }
    }

    /// Algorithm 2: the miss goes to memory; its MAC class is estimated before it is recorded.
    void on_miss(set_index, const access& a, std::uint32_t) noexcept {
        const std::uint64_t addr = a.address.value;
        miss_line_ = addr >> line_shift_;
        if (a.hints.memory_cost_class != host_hints::unknown_class)
            miss_class_ = a.hints.memory_cost_class < 3 ? a.hints.memory_cost_class : 3;
        else
            miss_class_ = mac_.estimate(bank_of(addr), row_of(addr));
        if (a.kind != access_kind::writeback) mac_.record(bank_of(addr), row_of(addr));
        miss_pending_ = true;
    }

    void on_insert(set_index s, entry_index e, const access& a, std::uint32_t) noexcept {
        const std::uint64_t addr = a.address.value;
        const std::uint64_t line = addr >> line_shift_;
        // PERD after the victim entered the buffer (on_evict precedes on_insert); a writeback
        // from the level above is not a re-reference (header: Decision).
        const auto perd = writebacks_not_reuse_ && a.kind == access_kind::writeback
                              ? 0u
                              : static_cast<std::uint32_t>(buffer_.classify(line));
        std::uint32_t mac = 0;
        if (miss_pending_ && line == miss_line_)
            mac = miss_class_;
        else if (a.hints.memory_cost_class != host_hints::unknown_class)
            mac = a.hints.memory_cost_class < 3 ? a.hints.memory_cost_class : 3;
        else
            mac = mac_.estimate(bank_of(addr), row_of(addr));
        std::uint32_t b = perd | (mac << 2);
        if constexpr (Recency == remap_recency::lru)
            stack_.promote(s, e);
        else
            b |= static_cast<std::uint32_t>(distant_ - 1u) << rrpv_shift; // SRRIP: "long"
        row(s)[e.value] = static_cast<std::uint8_t>(b);
    }

    void on_evict(set_index s, entry_index e, const evicted_block& b) noexcept {
        if (b.reason == eviction_reason::replacement) {
            buffer_.insert(b.line.value);
            // Before LRU's demote below: spend() compares costs as victim() saw them.
            if (spend_unconfirmed_ && chosen_.set == s.value && chosen_.entry == e.value)
                spend(s, e);
            chosen_.set = no_set;
        }
        if (b.dirty) mac_.record(bank_of(b.address.value), row_of(b.address.value));
        if constexpr (Recency == remap_recency::lru) stack_.demote(s, e);
    }

    /// Algorithm 1: the eligible entry of least α·R + β·PERD + γ·MAC, the lowest on ties.
    [[nodiscard]] entry_index victim(set_index s, entry_mask eligible, const access&,
                                     std::uint32_t side) noexcept {
        // A full conventional set offers every entry: loops without a per-entry mask test
        // (the compiler vectorises them); otherwise the masked loops.
        entry_index v{};
        if (eligible == low_bits_mask(entries_))
            v = choose(s, side, [](std::uint32_t) { return true; });
        else
            v = choose(s, side,
                       [eligible](std::uint32_t e) { return ((eligible >> e) & 1u) != 0; });
        chosen_ = {.set = s.value, .entry = v.value, .side = side, .eligible = eligible};
        return v;
    }

    /// O5: the per-set rows may live in the engine's set header.
    [[nodiscard]] std::uint32_t row_bytes() const noexcept { return rows_.row_bytes(); }
    void place_rows(std::byte* first, std::size_t stride) noexcept { rows_.place(first, stride); }

    // ------------------------------------------------------------ introspection

    /// R of an entry (higher = more worth keeping).
    [[nodiscard]] std::uint32_t recency(set_index s, entry_index e) const noexcept {
        if constexpr (Recency == remap_recency::lru)
            return stack_.recency(s, e);
        else
            return distant_ - rrpv(s, e);
    }
    /// The RRPV of an entry (over SRRIP).
    [[nodiscard]] std::uint32_t rrpv(set_index s, entry_index e) const noexcept {
        return (row(s)[e.value] & rrpv_mask) >> rrpv_shift;
    }
    [[nodiscard]] std::uint32_t perd(set_index s, entry_index e) const noexcept {
        return row(s)[e.value] & 3u;
    }
    [[nodiscard]] std::uint32_t mac(set_index s, entry_index e) const noexcept {
        return (row(s)[e.value] >> 2) & 3u;
    }
    /// Whether a demand hit confirmed the entry's PERD since its insertion.
    [[nodiscard]] bool confirmed(set_index s, entry_index e) const noexcept {
        return (row(s)[e.value] & confirmed_bit) != 0;
    }
    /// The cost Eq. 2.3 gives an entry under side `side`'s weights.
    [[nodiscard]] std::uint32_t cost(set_index s, entry_index e,
                                     std::uint32_t side) const noexcept {
        const remap_weights w = weights_[side];
        return w.recency * recency(s, e) + w.reuse * perd(s, e) + w.cost * mac(s, e);
    }
    /// Whether a writeback from the level above is kept out of PERD and the dueling cost.
    [[nodiscard]] bool writebacks_are_not_reuse() const noexcept { return writebacks_not_reuse_; }
    /// The MAC class of the last miss (what the dueling cost reads).
    [[nodiscard]] std::uint32_t last_miss_class() const noexcept { return miss_class_; }
    [[nodiscard]] const std::array<remap_weights, 2>& weights() const noexcept { return weights_; }
    [[nodiscard]] const filter::cascaded_victim_buffer& victim_buffer() const noexcept {
        return buffer_;
    }
    [[nodiscard]] const memory::mac_table& mac_table() const noexcept { return mac_; }
    [[nodiscard]] std::uint32_t bank_of(std::uint64_t address) const noexcept {
        return static_cast<std::uint32_t>(address >> row_shift_) & bank_mask_;
    }
    [[nodiscard]] std::uint32_t row_of(std::uint64_t address) const noexcept {
        return static_cast<std::uint32_t>(address >> (row_shift_ + bank_shift_));
    }

    /// Per-line bits (recency, PERD and its confirmed bit when weighed, MAC when weighed).
    [[nodiscard]] std::uint64_t per_line_storage_bits() const noexcept {
        const bool uses_perd = weights_[0].reuse != 0 || weights_[1].reuse != 0;
        const bool uses_mac = weights_[0].cost != 0 || weights_[1].cost != 0;
        const std::uint64_t lines = std::uint64_t{rows_.sets()} * entries_;
        std::uint64_t recency_bits = 0;
        if constexpr (Recency == remap_recency::lru)
            recency_bits = stack_.storage_bits();
        else
            recency_bits = lines * rrpv_bits_;
        const std::uint64_t perd_bits = uses_perd ? (spend_unconfirmed_ ? 3u : 2u) : 0u;
        return recency_bits + lines * (perd_bits + (uses_mac ? 2u : 0u));
    }
    /// Victim buffer + per-line bits + MAC table (the PSEL is added by set_dueling).
    [[nodiscard]] std::uint64_t storage_bits() const noexcept {
        return buffer_.storage_bits() + per_line_storage_bits() + mac_.storage_bits();
    }

private:
    // Row byte: PERD bits 0–1, MAC bits 2–3, RRPV bits 4–6 (over SRRIP), confirmed bit 7.
    static constexpr std::uint32_t rrpv_shift = 4;
    static constexpr std::uint8_t rrpv_mask = 0x70;
    static constexpr std::uint8_t confirmed_bit = 0x80;
    static constexpr std::uint8_t meta_mask = 0x8f; // all but the RRPV
    struct no_stack {};
    using stack_type = std::conditional_t<Recency == remap_recency::lru, recency_stack, no_stack>;

    template <class Eligible>
    [[nodiscard]] entry_index choose(set_index s, std::uint32_t side, Eligible eligible) noexcept {
        std::uint8_t* r = row(s);
        const std::uint8_t* rec = nullptr;
        std::uint32_t top = 0;
        if constexpr (Recency == remap_recency::srrip) {
            // SRRIP's ageing step (a decision, see the file comment): add 1 to every RRPV until an
            // eligible one is distant, i.e. add distant − (the largest eligible RRPV), saturating.
            std::uint8_t largest = 0;
            for (std::uint32_t e = 0; e < entries_; ++e) {
                const auto v = static_cast<std::uint8_t>(eligible(e) ? r[e] & rrpv_mask : 0);
                largest = std::max(largest, v);
            }
            const std::uint32_t k = distant_ - (largest >> rrpv_shift);
            if (k != 0) {
                const auto cap = static_cast<std::uint8_t>(distant_ << rrpv_shift);
                const auto add = static_cast<std::uint8_t>(k << rrpv_shift);
                for (std::uint32_t e = 0; e < entries_; ++e) {
                    // RRPV in bits 4–6: RRPV·16 + k·16 saturates at distant·16; others kept.
                    const auto high = static_cast<std::uint8_t>(r[e] & rrpv_mask);
                    const auto aged =
                        static_cast<std::uint8_t>(std::min<std::uint32_t>(high + add, cap));
                    r[e] = static_cast<std::uint8_t>(aged | (r[e] & meta_mask));
                }
            }
        } else {
            rec = stack_.row(s); // R = top − stack position
            top = entries_ - 1;
        }
        const remap_weights w = weights_[side];
        // key = cost · 64 + entry: the minimum key is the least cost at the lowest entry;
        // ineligible entries get the largest key. In 16-bit lanes when every cost is < 512.
        auto cost_of = [&](std::uint32_t e) noexcept {
            const std::uint32_t b = r[e];
            const std::uint32_t recency = Recency == remap_recency::srrip
                                              ? distant_ - ((b & rrpv_mask) >> rrpv_shift)
                                              : top - rec[e];
            return w.recency * recency + w.reuse * (b & 3u) + w.cost * ((b >> 2) & 3u);
        };
        if (narrow_keys_) {
            std::uint16_t best = 0xffff;
            for (std::uint32_t e = 0; e < entries_; ++e) {
                const auto key =
                    static_cast<std::uint16_t>(eligible(e) ? (cost_of(e) << 6) | e : 0xffffu);
                best = std::min(best, key);
            }
            return entry_index{best & 63u};
        }
        std::uint32_t best = ~0u;
        for (std::uint32_t e = 0; e < entries_; ++e) {
            const std::uint32_t key = eligible(e) ? (cost_of(e) << 6) | e : ~0u;
            best = std::min(best, key);
        }
        return entry_index{best & 63u};
    }

    // Decision (PERD is spent): every other eligible line not yet confirmed by a hit that
    // outranked the victim only through its β·PERD term — its key without the term is below the
    // victim's, so without its prediction it would have gone instead — loses one PERD class.
    // Runs once per replacement (in on_evict, so a host that asks victim() twice spends once),
    // before the victim's row is rewritten; one branch-free pass over the set.
    void spend(set_index s, entry_index v) noexcept {
        const remap_weights w = weights_[chosen_.side];
        if (w.reuse == 0) return;
        if (chosen_.eligible == low_bits_mask(entries_))
            spend_in(s, v, w, [](std::uint32_t) { return true; });
        else
            spend_in(s, v, w,
                     [m = chosen_.eligible](std::uint32_t e) { return ((m >> e) & 1u) != 0; });
    }
    template <class Eligible>
    void spend_in(set_index s, entry_index v, remap_weights w, Eligible eligible) noexcept {
        // Locals, not members: the row stores (uint8_t) may alias `this`, which would keep the
        // loop from vectorising.
        std::uint8_t* r = row(s);
        const std::uint8_t* rec = nullptr;
        if constexpr (Recency == remap_recency::lru) rec = stack_.row(s);
        const std::uint32_t n = entries_, top = Recency == remap_recency::srrip ? distant_ : n - 1u;
        const std::uint32_t victim = v.value;
        auto base_cost = [=](std::uint32_t b, std::uint32_t e) noexcept { // α·R + γ·MAC
            const std::uint32_t recency = Recency == remap_recency::srrip
                                              ? top - ((b & rrpv_mask) >> rrpv_shift)
                                              : top - rec[e];
            return w.recency * recency + w.cost * ((b >> 2) & 3u);
        };
        const std::uint32_t victim_key =
            ((base_cost(r[victim], victim) + w.reuse * (r[victim] & 3u)) << 6) | victim;
        // Branch-free (bit arithmetic, no &&), so the loop vectorises as choose()'s does.
        auto spare = [&](std::uint32_t e, auto key_type) noexcept {
            using key_t = decltype(key_type);
            const std::uint32_t b = r[e];
            const auto key = static_cast<key_t>((base_cost(b, e) << 6) | e);
            const std::uint32_t unconfirmed = ((b | (b >> 1)) & 1u) & ~(b >> 7); // PERD ≠ 0
            const std::uint32_t below = key < static_cast<key_t>(victim_key) ? 1u : 0u;
            const std::uint32_t other = (e != victim && eligible(e)) ? 1u : 0u;
            r[e] = static_cast<std::uint8_t>(b - (unconfirmed & below & other));
        };
        if (narrow_keys_)
            for (std::uint32_t e = 0; e < n; ++e) spare(e, std::uint16_t{});
        else
            for (std::uint32_t e = 0; e < n; ++e) spare(e, std::uint32_t{});
    }

    static void validate(const geometry& g, const params& p) {
        require(p.dram_banks >= 1 && std::has_single_bit(p.dram_banks), component, "dram_banks",
                p.dram_banks, "must be a power of two");
        require(p.dram_row_bytes >= 1 && std::has_single_bit(p.dram_row_bytes), component,
                "dram_row_bytes", p.dram_row_bytes, "must be a power of two");
        require(std::has_single_bit(g.line_bytes), component, "geometry.line_bytes", g.line_bytes,
                "must be a power of two");
        for (const auto& w : p.weights)
            require(w.recency <= 1024 && w.reuse <= 1024 && w.cost <= 1024, component, "weights",
                    std::max({w.recency, w.reuse, w.cost}), "each weight must be <= 1024");
        require(p.rrip.rrpv_bits >= 1 && p.rrip.rrpv_bits <= 3, component, "rrpv_bits",
                p.rrip.rrpv_bits,
                "must be in 1..3 (ReMAP keeps RRPV, PERD and MAC in one byte per line)");
    }
    static stack_type make_stack(const geometry& g) {
        if constexpr (Recency == remap_recency::lru)
            return stack_type(g);
        else
            return stack_type{};
    }
    [[nodiscard]] std::uint8_t* row(set_index s) noexcept {
        return reinterpret_cast<std::uint8_t*>(rows_.row(s));
    }
    [[nodiscard]] const std::uint8_t* row(set_index s) const noexcept {
        return reinterpret_cast<const std::uint8_t*>(rows_.row(s));
    }

    std::uint32_t entries_;
    std::uint32_t line_shift_;
    std::uint32_t row_shift_;
    std::uint32_t bank_mask_;
    std::uint32_t bank_shift_;
    std::uint32_t rrpv_bits_;
    std::uint8_t distant_;
    std::array<remap_weights, 2> weights_;
    hit_promotion promotion_;
    bool spend_unconfirmed_;
    bool writebacks_not_reuse_;
    [[no_unique_address]] stack_type stack_;
    set_rows rows_;
    filter::cascaded_victim_buffer buffer_;
    memory::mac_table mac_;
    /// The last victim() decision, for on_evict's spend() (no_set: none pending).
    static constexpr std::uint32_t no_set = ~0u;
    struct chosen_victim {
        std::uint32_t set = no_set;
        std::uint32_t entry = 0;
        std::uint32_t side = 0;
        entry_mask eligible = 0;
    };
    chosen_victim chosen_{};
    std::uint64_t miss_line_ = 0;
    std::uint8_t miss_class_ = 0;
    bool miss_pending_ = false;
    /// Every cost is below 512: victim keys fit 16-bit lanes.
    bool narrow_keys_ = false;
};

/// ReMAP's dueling cost of a leader-set miss (§2.2.4): the host's cycles when known, else the
/// MAC class + 1 (the host's class, or the MAC table's estimate made in on_miss).
struct remap_miss_cost {
    template <remap_variant V, remap_recency R>
    [[nodiscard]] std::uint32_t operator()(const remap_dual<V, R>& d, set_index,
                                           const access& a) const noexcept {
        // A writeback miss reads nothing from memory (header: Decision).
        if (a.kind == access_kind::writeback && d.writebacks_are_not_reuse()) return 0;
        if (a.hints.miss_cost_cycles != 0) return a.hints.miss_cost_cycles;
        return d.last_miss_class() + 1u;
    }
};

/// ReMAP (or a Fig. 2.6 variant) over SRRIP (default) or LRU, its weights set-dueled by cost.
template <remap_variant Variant = remap_variant::full, remap_recency Recency = remap_recency::srrip>
class basic_remap : public set_dueling<remap_dual<Variant, Recency>, remap_miss_cost> {
public:
    using base = set_dueling<remap_dual<Variant, Recency>, remap_miss_cost>;
    using params = typename base::params;
    using base::base;

    /// The side (weight set) followers use now: 0 → weights[0], 1 → weights[1].
    [[nodiscard]] std::uint32_t follower_side(std::uint32_t requester = 0) const noexcept {
        return this->sampler().follower_candidate(requester);
    }
    [[nodiscard]] std::uint32_t perd(set_index s, entry_index e) const noexcept {
        return this->dual().perd(s, e);
    }
    [[nodiscard]] std::uint32_t mac(set_index s, entry_index e) const noexcept {
        return this->dual().mac(s, e);
    }
    [[nodiscard]] bool confirmed(set_index s, entry_index e) const noexcept {
        return this->dual().confirmed(s, e);
    }
    [[nodiscard]] const filter::cascaded_victim_buffer& victim_buffer() const noexcept {
        return this->dual().victim_buffer();
    }
    /// O5, forwarded to the dual policy's rows.
    [[nodiscard]] std::uint32_t row_bytes() const noexcept { return this->dual().row_bytes(); }
    void place_rows(std::byte* first, std::size_t stride) noexcept {
        this->dual().place_rows(first, stride);
    }
};

/// ReMAP over SRRIP (§2.3.1), dueling (1,1,4) against (1,4,1).
using remap = basic_remap<>;
/// ReMAP over LRU (§2.3.6).
using remap_lru = basic_remap<remap_variant::full, remap_recency::lru>;
/// Fig. 2.6's isolation variants: SRRIP+PERD (γ = 0) and SRRIP+MAC (β = 0).
using srrip_perd = basic_remap<remap_variant::perd_only>;
using srrip_mac = basic_remap<remap_variant::mac_only>;

static_assert(replacement_policy<remap>);
static_assert(replacement_policy<remap_lru>);
static_assert(replacement_policy<srrip_perd>);
static_assert(replacement_policy<srrip_mac>);
static_assert(places_rows<remap> && places_rows<remap_lru>);

} // namespace memsub::replacement
