// memsub — `cache::sync_epoch_invalidator`: flush a cache level once per synchronisation event
// ([MCM-GPU] §5.1, the GPM-side L1.5).
//
// Under software coherence, a synchronisation event that flushes the L1s (a kernel boundary, a
// barrier) flushes the GPM-side L1.5 too. Several SMs of the module may each send the
// invalidate for the same event, and the L1.5 must invalidate only once per event:
//
//   on sync_event(id): if id != last_invalidated_id: L15.invalidate_all(); last = id
//
// The hook keeps the last id and calls the cache's `flush(sink)` (basic_cache: every block
// removed with reason `invalidated`, each reported to the sink). A write-through L1.5 has no
// dirty blocks; for a write-back level the dirty ones are counted and handed to the host's sink,
// which writes them back. Ids are compared for equality only: any id different from the last one
// is a new event, so a host may number events in any order.
// Decision: an event is "new" when its id differs from the last one invalidated for, not when
// it is larger. [MCM-GPU] §5.1 asks only that the L1.5 be invalidated once per synchronisation
// event although several SMs send the command; equality is all that needs, and it leaves the
// host free to number events as it likes (a wrapping counter, a kernel id). Ordering ids was
// considered: it would make a host that reuses ids silently skip flushes.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>

#include <memsub/replacement/concept.hpp>

namespace memsub::cache {

/// A cache level whose whole contents can be flushed, each departing block reported.
template <class C>
concept flushable_cache = requires(C& c, void (*sink)(const evicted_block&)) {
    c.flush(sink);
};

class sync_epoch_invalidator {
public:
    /// What one sync command did.
    struct outcome {
        /// True when this command started a new event and flushed the level; false when the
        /// event's flush had already happened (a duplicate from another SM).
        bool flushed = false;
        std::uint64_t blocks_invalidated = 0;
        /// Dirty blocks handed to the sink to be written back (0 in a write-through level).
        std::uint64_t dirty_written_back = 0;
    };

    /// Totals since construction.
    struct statistics {
        std::uint64_t commands = 0;
        std::uint64_t flushes = 0;
        std::uint64_t blocks_invalidated = 0;
        std::uint64_t dirty_written_back = 0;
    };

    /// A sync command for event `sync_id` (from any SM): flushes `level` unless this event
    /// already did, calling `sink(const evicted_block&)` for every block removed.
    template <flushable_cache Cache, std::invocable<const evicted_block&> Sink>
    outcome on_sync(std::uint64_t sync_id, Cache& level, Sink&& sink) {
        ++stats_.commands;
        if (last_ == sync_id) return {};
        last_ = sync_id;
        outcome o{.flushed = true};
        o.blocks_invalidated = level.flush([&](const evicted_block& b) {
            if (b.dirty) ++o.dirty_written_back;
            sink(b);
        });
        ++stats_.flushes;
        stats_.blocks_invalidated += o.blocks_invalidated;
        stats_.dirty_written_back += o.dirty_written_back;
        return o;
    }

    /// The same without a sink (a write-through level, or a host that only needs the counts).
    template <flushable_cache Cache>
    outcome on_sync(std::uint64_t sync_id, Cache& level) {
        return on_sync(sync_id, level, [](const evicted_block&) {});
    }

    /// The same with the host's own flush action, for a level that is not one cache: e.g.
    /// `[&] { return h.flush_level<1>(memory); }` on a `cache::hierarchy`, which writes dirty
    /// blocks to the level below itself (they reach the host through its memory sink, so
    /// `dirty_written_back` stays 0 here). `flush()` returns the blocks it removed and is called
    /// only when `sync_id` starts a new event.
    template <class Flush>
    requires std::convertible_to<std::invoke_result_t<Flush&>, std::uint64_t>
        outcome on_sync_with(std::uint64_t sync_id, Flush&& flush) {
        ++stats_.commands;
        if (last_ == sync_id) return {};
        last_ = sync_id;
        const outcome o{.flushed = true, .blocks_invalidated = flush()};
        ++stats_.flushes;
        stats_.blocks_invalidated += o.blocks_invalidated;
        return o;
    }

    /// The id of the last event that flushed, if any.
    [[nodiscard]] std::optional<std::uint64_t> last_event() const noexcept { return last_; }
    [[nodiscard]] const statistics& stats() const noexcept { return stats_; }

private:
    std::optional<std::uint64_t> last_;
    statistics stats_{};
};

} // namespace memsub::cache
