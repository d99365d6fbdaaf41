// memsub — Belady's OPT (MIN) misses for every capacity in one pass: fully associative, and
// per set count for set-associative caches with bit-selection indexing.
//
// Citation: [Mattson70] §"OPT" (OPT is a stack algorithm: with priorities = time of next use, the
// stack's top C lines are exactly the content of MIN's cache of C lines, for every C at once;
// the stack update carries the lowest-priority line seen so far down to the accessed line's
// position), [SugumarAbraham93] (one-pass OPT simulation for all cache sizes from next-use
// times; per set for set-associative caches, whose sets are independent under bit selection).
//
// The update, as used here: an access to line x at stack position p (or beyond the stack) puts
// x on top; of the lines at positions 1 .. p-1 only the successive maxima of next use (the
// "records" met going down from the top) move, each to the position of the next record and the
// last one to p. The other positions keep their lines, so the stack is a fixed array of slots,
// and the records are found with a max segment tree over the slots' next uses ("first slot
// after i whose next use is later than v"): O((records + 1) log C) per access. Records are few
// when next uses down the stack are mixed, but an OPT stack tends to sort itself by next use, and
// then nearly every slot above the accessed line is a record: on the explorer's built-in mix the
// curve up to 2^16 lines runs at about 0.1 M references/s (bench/miss_ratio_curves.cpp), and
// its cost grows with the bound.
//
// Next use: each access carries the position, in the stream of line accesses, of the next access
// to the same line (memsub::never if none), exactly as replacement::next_use_positions and the
// explorer's OPT pass compute it (positions index the line pieces: a line-crossing reference is
// one position per line). Positions only compare, so any increasing numbering works. Ties
// between lines never used again cannot change a miss count. Counting: one reference = one access
// with at most one miss; a reference of several lines is fed as pieces (access_piece) and counts
// at the largest distance of its lines, as the explorer's "opt" and "fa_opt" rows count.
// Exactness: misses(C) equals cache::fully_associative_cache<fa_opt> of C lines for every C up to
// the bound, and set_associative_opt's misses(sets, ways) equals
// cache::set_associative_cache<replacement::opt> (no bypass) of that geometry.
//
// Decision: the stack is bounded at max_capacity_lines slots; the line a record walk carries past
// the last slot leaves the stack (it is the line MIN's largest cache would evict), and a later
// access to it is counted beyond the bound. The top C slots depend only on the top C slots before
// the access, so the bound loses nothing for C <= bound, and it keeps the stack's memory
// independent of the trace's footprint (only the line index grows with distinct lines).
// Memory: fully associative, per slot 4 bytes of line id, 8 of next use and 16-32 of segment tree
// (two nodes per leaf, leaves a power of two >= bound), and per distinct line the index (24-40
// bytes) and 4 bytes of slot.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <memsub/analysis/detail/checks.hpp>
#include <memsub/analysis/line_index.hpp>
#include <memsub/analysis/reference_lines.hpp>
#include <memsub/analysis/stack_distance_lru.hpp>
#include <memsub/core/access.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/types.hpp>

namespace memsub::analysis {

/// One reference's lines and their next uses, for feeding an OPT curve: the explorer's OPT
/// stream (every line of every reference in order, each with the position of the next access to
/// its line among them).
struct opt_piece {
    std::uint64_t line = 0;
    std::uint64_t next_use = never;
    bool starts_reference = true;
};

/// The pieces of `references` with their next uses (in memory: 24 bytes per line access).
[[nodiscard]] inline std::vector<opt_piece> opt_pieces(std::span<const memsub::access> references,
                                                       std::uint32_t line_bytes) {
    memsub::require(line_bytes >= 4 && std::has_single_bit(line_bytes),
                    "memsub::analysis::opt_pieces", "line_bytes", line_bytes,
                    "must be a power of two >= 4");
    const std::uint32_t shift = log2_exact(line_bytes);
    std::vector<opt_piece> pieces;
    pieces.reserve(references.size());
    for (const auto& a : references) {
        bool first = true;
        lines_of_reference(a, shift, [&](std::uint64_t line) {
            pieces.push_back({line, never, first});
            first = false;
        });
    }
    line_index seen(pieces.size() / 4);
    std::vector<std::uint64_t> next_of_id;
    for (std::size_t i = pieces.size(); i-- > 0;) { // backward: the next use seen so far
        const auto [id, fresh] = seen.find_or_insert(pieces[i].line);
        if (id >= next_of_id.size()) next_of_id.resize(id + std::size_t{1}, never);
        pieces[i].next_use = fresh ? never : next_of_id[id];
        next_of_id[id] = i;
    }
    return pieces;
}

namespace detail {

/// References per distance with the explorer's reference rule, shared by the OPT curves.
class reference_histogram {
public:
    explicit reference_histogram(std::uint64_t bound) : bound_(bound), counts_(bound + 2, 0) {}
    /// A line of the reference in progress (a new one when `starts_reference`) at distance d.
    void add(std::uint64_t d, bool starts_reference) noexcept {
        if (starts_reference) flush();
        pending_ = true;
        pending_distance_ = std::max(pending_distance_, d);
    }
    [[nodiscard]] std::uint64_t accesses() const noexcept { return accesses_ + pending_; }
    [[nodiscard]] std::uint64_t cold() const noexcept {
        return cold_ + (pending_ && pending_distance_ == cold_distance);
    }
    /// References at distance d (1 .. bound), or deeper (bound + 1).
    [[nodiscard]] std::uint64_t at(std::uint64_t d) const noexcept {
        return counts_[d] + (pending_ && pending_distance_ != cold_distance &&
                             std::min(pending_distance_, bound_ + 1) == d);
    }
    [[nodiscard]] std::uint64_t bound() const noexcept { return bound_; }
    [[nodiscard]] std::uint64_t misses(std::uint64_t capacity) const noexcept {
        std::uint64_t m = cold();
        for (std::uint64_t d = capacity + 1; d <= bound_ + 1; ++d) m += at(d);
        return m;
    }
    [[nodiscard]] std::size_t memory_bytes() const noexcept {
        return counts_.capacity() * sizeof(std::uint64_t);
    }

private:
    void flush() noexcept {
        if (!pending_) return;
        ++accesses_;
        if (pending_distance_ == cold_distance)
            ++cold_;
        else
            ++counts_[std::min(pending_distance_, bound_ + 1)];
        pending_ = false;
        pending_distance_ = 0;
    }
    std::uint64_t bound_;
    std::vector<std::uint64_t> counts_;
    std::uint64_t accesses_ = 0, cold_ = 0;
    bool pending_ = false;
    std::uint64_t pending_distance_ = 0;
};

} // namespace detail

/// Fully associative OPT misses for every capacity 0 .. max_capacity_lines in one pass.
class opt_curve {
public:
    struct params {
        /// Line size in bytes (a power of two >= 4): used by access() and from_references().
        std::uint32_t line_bytes = 64;
        /// The largest capacity (in lines) of the curve, and the stack's depth; >= 1.
        std::uint64_t max_capacity_lines = std::uint64_t{1} << 16;
    };

    explicit opt_curve(const params& p)
        : line_shift_(validated_line_shift(p.line_bytes))
        , bound_(validated_bound(p.max_capacity_lines))
        , leaves_(std::bit_ceil(bound_))
        , slot_id_(bound_, line_index::absent)
        , slot_key_(bound_, 0)
        , tree_(2 * leaves_, 0)
        , histogram_(bound_) {}

    /// The curve of `references` (next uses computed here, in memory).
    [[nodiscard]] static opt_curve from_references(std::span<const memsub::access> references,
                                                   const params& p) {
        opt_curve curve(p);
        curve.access_all(opt_pieces(references, p.line_bytes));
        return curve;
    }

    /// One line of a reference (`starts_reference` false: a further line of the previous one),
    /// with the position of the next access to the line. Returns its stack distance before the
    /// access (1 = top), cold_distance for a first access, or max_capacity_lines + 1 for a line
    /// below the stack.
    std::uint64_t access(const opt_piece& piece) {
        const std::uint64_t d = touch(piece.line, piece.next_use);
        histogram_.add(d, piece.starts_reference);
        return d;
    }
    /// Every piece of `pieces` in order (opt_pieces' output, or a host's own next-use pass).
    void access_all(std::span<const opt_piece> pieces) {
        for (const opt_piece& piece : pieces) (void)access(piece);
    }
    /// A one-line reference (line = byte address / line_bytes).
    std::uint64_t access_line(line_address line, std::uint64_t next_use) {
        return access({line.value, next_use, true});
    }
    /// A one-line reference whose next use is in `a.hints.next_use`.
    std::uint64_t access(const memsub::access& a) {
        return access({a.address.value >> line_shift_, a.hints.next_use, true});
    }

    [[nodiscard]] std::uint64_t accesses() const noexcept { return histogram_.accesses(); }
    [[nodiscard]] std::uint64_t cold_misses() const noexcept { return histogram_.cold(); }
    [[nodiscard]] std::uint64_t max_capacity_lines() const noexcept { return bound_; }

    /// Misses of MIN in a fully associative cache of `capacity_lines` lines (0 .. the bound).
    [[nodiscard]] std::uint64_t misses(std::uint64_t capacity_lines) const {
        memsub::require(capacity_lines <= bound_, "memsub::analysis::opt_curve", "capacity_lines",
                        capacity_lines, "must be <= max_capacity_lines");
        return histogram_.misses(capacity_lines);
    }
    /// misses(c) for every c = 0 .. max_capacity_lines (index c).
    [[nodiscard]] std::vector<std::uint64_t> miss_curve() const {
        std::vector<std::uint64_t> curve(bound_ + 1);
        std::uint64_t m = histogram_.cold() + histogram_.at(bound_ + 1);
        for (std::uint64_t c = bound_ + 1; c-- > 0;) {
            curve[c] = m;
            if (c > 0) m += histogram_.at(c);
        }
        return curve;
    }

    /// Distinct lines seen.
    [[nodiscard]] std::size_t distinct_lines() const noexcept { return index_.size(); }
    [[nodiscard]] std::size_t memory_bytes() const noexcept {
        return index_.memory_bytes() + slot_of_.capacity() * sizeof(std::uint32_t) +
               slot_id_.capacity() * sizeof(std::uint32_t) +
               (slot_key_.capacity() + tree_.capacity()) * sizeof(std::uint64_t) +
               histogram_.memory_bytes();
    }

private:
    static constexpr std::uint32_t no_slot = line_index::absent;
    static constexpr std::size_t none = static_cast<std::size_t>(-1);

    static std::uint32_t validated_line_shift(std::uint32_t bytes) {
        return detail::checked_line_shift("memsub::analysis::opt_curve", bytes);
    }
    static std::uint64_t validated_bound(std::uint64_t lines) {
        memsub::require(lines >= 1 && lines < (std::uint64_t{1} << 31),
                        "memsub::analysis::opt_curve", "max_capacity_lines", lines,
                        "must be in 1 .. 2^31 - 1");
        return lines;
    }

    std::uint64_t touch(std::uint64_t line, std::uint64_t next_use) {
        const auto [id, fresh] = index_.find_or_insert(line);
        if (id >= slot_of_.size()) slot_of_.resize(id + std::size_t{1}, no_slot);
        const std::uint32_t at = slot_of_[id];
        std::uint64_t d;
        std::size_t p; // the slot the record walk ends at (bound_: off the stack)
        if (at != no_slot) {
            d = std::uint64_t{at} + 1;
            p = at;
        } else {
            d = fresh ? cold_distance : bound_ + 1;
            p = used_ < bound_ ? used_++ : bound_;
        }
        if (p > 0) {
            // Carry the top line down through the records of next use above slot p.
            std::uint32_t carry_id = slot_id_[0];
            std::uint64_t carry_key = slot_key_[0];
            for (std::size_t i = first_above(1, carry_key); i < p;
                 i = first_above(i + 1, carry_key)) {
                std::swap(carry_id, slot_id_[i]);
                std::swap(carry_key, slot_key_[i]);
                slot_of_[slot_id_[i]] = static_cast<std::uint32_t>(i);
                set_key(i, slot_key_[i]);
            }
            if (p < bound_) {
                slot_id_[p] = carry_id;
                slot_of_[carry_id] = static_cast<std::uint32_t>(p);
                set_key(p, carry_key);
            } else {
                slot_of_[carry_id] = no_slot; // below the deepest slot: leaves the stack
            }
        }
        slot_id_[0] = id;
        slot_of_[id] = 0;
        set_key(0, next_use);
        return d;
    }

    void set_key(std::size_t slot, std::uint64_t key) noexcept {
        slot_key_[slot] = key;
        std::size_t n = slot + leaves_;
        tree_[n] = key;
        for (n /= 2; n > 0; n /= 2) tree_[n] = std::max(tree_[2 * n], tree_[2 * n + 1]);
    }
    /// The first slot >= lo whose next use is later than v, or `none`.
    [[nodiscard]] std::size_t first_above(std::size_t lo, std::uint64_t v) const noexcept {
        if (lo >= leaves_) return none;
        // Climb from leaf lo: at each left child whose right sibling holds a larger key, the
        // answer is in that sibling (or in lo's own leaf first).
        std::size_t n = lo + leaves_;
        if (tree_[n] > v) return lo;
        for (;;) {
            while (n & 1) { // a right child: go up until we are a left child
                n /= 2;
                if (n == 0) return none;
            }
            if (n == 0) return none;
            ++n; // the right sibling covers the slots just after
            if (tree_[n] > v) break;
        }
        while (n < leaves_) n = tree_[2 * n] > v ? 2 * n : 2 * n + 1; // leftmost larger leaf
        return n - leaves_;
    }

    std::uint32_t line_shift_;
    std::uint64_t bound_;
    std::size_t leaves_;
    line_index index_;
    std::vector<std::uint32_t> slot_of_; // per line id: its slot, or no_slot
    std::vector<std::uint32_t> slot_id_; // per slot: the line id there
    std::vector<std::uint64_t> slot_key_;
    std::vector<std::uint64_t> tree_; // max of next use over slots (leaves from leaves_)
    std::uint64_t used_ = 0;          // slots filled
    detail::reference_histogram histogram_;
};

/// Set-associative OPT misses for every power-of-two set count min_sets .. max_sets and every way
/// count 1 .. max_ways, in one pass: per set count, per set, an OPT stack of max_ways slots
/// (the same update, walked linearly: a set's stack is short). Unlike LRU, OPT's distances have
/// no inclusion across set counts that would bound one count's search by another's, so each
/// count is its own stack simulation: O(counts x max_ways) per access.
class set_associative_opt {
public:
    struct params {
        std::uint32_t line_bytes = 64;
        std::uint32_t min_sets = 1;
        std::uint32_t max_sets = std::uint32_t{1} << 12;
        std::uint32_t max_ways = 16;
    };

    explicit set_associative_opt(const params& p)
        : line_shift_(validated(p))
        , min_sets_log2_(log2_exact(p.min_sets))
        , counts_(log2_exact(p.max_sets) - log2_exact(p.min_sets) + 1)
        , ways_(p.max_ways)
        , level_base_(counts_)
        , lines_((2 * std::size_t{p.max_sets} - p.min_sets) * p.max_ways, empty_line)
        , keys_(lines_.size(), 0) {
        histograms_.reserve(counts_);
        std::size_t base = 0;
        for (std::uint32_t k = 0; k < counts_; ++k) {
            level_base_[k] = base;
            base += (std::size_t{p.min_sets} << k) * ways_;
            histograms_.emplace_back(ways_);
        }
    }

    [[nodiscard]] static set_associative_opt
    from_references(std::span<const memsub::access> references, const params& p) {
        set_associative_opt grid(p);
        grid.access_all(opt_pieces(references, p.line_bytes));
        return grid;
    }

    /// One line of a reference, as opt_curve::access.
    void access(const opt_piece& piece) noexcept {
        for (std::uint32_t k = 0; k < counts_; ++k) {
            const std::uint64_t set = piece.line & ((std::uint64_t{1} << (min_sets_log2_ + k)) - 1);
            const std::size_t base = level_base_[k] + set * ways_;
            histograms_[k].add(touch(&lines_[base], &keys_[base], piece.line, piece.next_use),
                               piece.starts_reference);
        }
    }
    void access_line(line_address line, std::uint64_t next_use) noexcept {
        access({line.value, next_use, true});
    }
    void access_all(std::span<const opt_piece> pieces) noexcept {
        for (const opt_piece& piece : pieces) access(piece);
    }

    [[nodiscard]] std::uint64_t accesses() const noexcept { return histograms_[0].accesses(); }
    [[nodiscard]] std::uint32_t min_sets() const noexcept { return 1u << min_sets_log2_; }
    [[nodiscard]] std::uint32_t max_sets() const noexcept {
        return 1u << (min_sets_log2_ + counts_ - 1);
    }
    [[nodiscard]] std::uint32_t max_ways() const noexcept { return ways_; }
    [[nodiscard]] std::uint32_t line_bytes() const noexcept { return 1u << line_shift_; }

    /// Misses of MIN in the `sets` x `ways` cache (bit selection, no bypass).
    [[nodiscard]] std::uint64_t misses(std::uint32_t sets, std::uint32_t ways) const {
        constexpr std::string_view c = "memsub::analysis::set_associative_opt::misses";
        memsub::require(std::has_single_bit(sets) && sets >= min_sets() && sets <= max_sets(), c,
                        "sets", sets, "must be a power of two in min_sets .. max_sets");
        memsub::require(ways >= 1 && ways <= ways_, c, "ways", ways, "must be in 1 .. max_ways");
        return histograms_[log2_exact(sets) - min_sets_log2_].misses(ways);
    }

    [[nodiscard]] std::size_t memory_bytes() const noexcept {
        std::size_t h = 0;
        for (const auto& x : histograms_) h += x.memory_bytes();
        return (lines_.capacity() + keys_.capacity()) * sizeof(std::uint64_t) + h;
    }

private:
    static constexpr std::uint64_t empty_line = ~std::uint64_t{0};

    static std::uint32_t validated(const params& p) {
        constexpr std::string_view c = "memsub::analysis::set_associative_opt";
        const std::uint32_t shift = detail::checked_line_shift(c, p.line_bytes);
        detail::check_grid(c, p.min_sets, p.max_sets, p.max_ways);
        return shift;
    }

    /// The OPT stack update on one set's `ways_` slots; returns the line's distance (a line not
    /// among them: cold_distance if the slots are not full, else ways + 1 — in either case a
    /// miss at every way count, which is all the histogram needs).
    std::uint64_t touch(std::uint64_t* lines, std::uint64_t* keys, std::uint64_t line,
                        std::uint64_t next_use) noexcept {
        std::uint32_t p = 0;
        while (p < ways_ && lines[p] != line && lines[p] != empty_line) ++p;
        const bool hit = p < ways_ && lines[p] == line;
        const std::uint64_t d = hit ? std::uint64_t{p} + 1 : std::uint64_t{ways_} + 1;
        std::uint64_t carry_line = lines[0], carry_key = keys[0];
        if (p > 0) {
            for (std::uint32_t i = 1; i < p; ++i)
                if (keys[i] > carry_key) {
                    std::swap(carry_line, lines[i]);
                    std::swap(carry_key, keys[i]);
                }
            if (p < ways_) { // else the carried line leaves the set's slots
                lines[p] = carry_line;
                keys[p] = carry_key;
            }
        }
        lines[0] = line;
        keys[0] = next_use;
        return d;
    }

    std::uint32_t line_shift_;
    std::uint32_t min_sets_log2_;
    std::uint32_t counts_;
    std::uint32_t ways_;
    std::vector<std::size_t> level_base_;
    std::vector<std::uint64_t> lines_, keys_;
    std::vector<detail::reference_histogram> histograms_;
};

} // namespace memsub::analysis
