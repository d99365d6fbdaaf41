// The write strategies' hooks (cache/write_strategy.hpp), each against a port that records what
// it is asked to do: the engine's paths call these hooks instead of testing the write policy, so
// what each hook does for each policy is the write policy's whole behaviour at that point.
#include <doctest/doctest.h>

#include <memsub/cache/basic_cache.hpp>
#include <memsub/cache/write_strategy.hpp>
#include <memsub/replacement/lru.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

namespace {

using namespace memsub::cache;
using memsub::entry_mask;

/// Records the port calls a hook makes, in order.
struct recording_port {
    std::string calls;
    void send_down(std::uint32_t bytes) { calls += "down(" + std::to_string(bytes) + ")"; }
    void mark_dirty(entry_mask blocks) { calls += "dirty(" + std::to_string(blocks) + ")"; }
    void evict(entry_mask blocks) { calls += "evict(" + std::to_string(blocks) + ")"; }
    void resize(entry_mask blocks) { calls += "resize(" + std::to_string(blocks) + ")"; }
};

template <class Strategy>
std::string write_hit(entry_mask blocks, std::uint32_t bytes) {
    recording_port port;
    Strategy::on_write_hit(port, blocks, bytes);
    return port.calls;
}
template <class Strategy>
std::string write_not_allocated(entry_mask touched) {
    recording_port port;
    Strategy::on_write_not_allocated(port, touched);
    return port.calls;
}
template <class Strategy>
std::string read_modify_write(entry_mask blocks, std::uint32_t bytes) {
    recording_port port;
    Strategy::on_read_modify_write(port, blocks, bytes);
    return port.calls;
}

} // namespace

TEST_CASE("write strategies: each write_policy value names its strategy, and basic_cache runs it") {
    static_assert(
        std::is_same_v<write_strategy_t<write_policy::write_back>, write_strategies::write_back>);
    static_assert(std::is_same_v<write_strategy_t<write_policy::write_through>,
                                 write_strategies::write_through>);
    static_assert(
        std::is_same_v<write_strategy_t<write_policy::write_evict>, write_strategies::write_evict>);
    using through_cache =
        basic_cache<memsub::replacement::lru, cache_options{.writes = write_policy::write_through}>;
    static_assert(std::is_same_v<through_cache::write_strategy, write_strategies::write_through>);
    CHECK(write_strategies::write_back::policy == write_policy::write_back);
    CHECK(write_strategies::write_through::policy == write_policy::write_through);
    CHECK(write_strategies::write_evict::policy == write_policy::write_evict);
}

TEST_CASE("write strategies: dirtiness, allocation and eviction rules") {
    using namespace write_strategies;
    CHECK(write_back::tracks_dirty);
    CHECK_FALSE(write_through::tracks_dirty);
    CHECK_FALSE(write_evict::tracks_dirty);
    CHECK(write_back::dirty_on_write(true));
    CHECK_FALSE(write_back::dirty_on_write(false));
    CHECK_FALSE(write_through::dirty_on_write(true));
    CHECK_FALSE(write_evict::dirty_on_write(true));
    CHECK(write_back::allocates_on_write_miss);
    CHECK_FALSE(write_through::allocates_on_write_miss);
    CHECK_FALSE(write_evict::allocates_on_write_miss);
    CHECK_FALSE(write_back::evicts_written_blocks);
    CHECK_FALSE(write_through::evicts_written_blocks);
    CHECK(write_evict::evicts_written_blocks);
    // on_write_hit is called only when the strategy acts on a store hit.
    CHECK_FALSE(write_back::acts_on_write_hit);
    CHECK(write_through::acts_on_write_hit);
    CHECK(write_evict::acts_on_write_hit);
}

TEST_CASE("write strategies: a store hit") {
    using namespace write_strategies;
    // Write-back marked the block dirty where it touched it (dirty_on_write): nothing more.
    CHECK(write_hit<write_back>(0b100, 32) == "");
    CHECK(write_hit<write_through>(0b100, 32) == "down(32)");
    CHECK(write_hit<write_evict>(0b110, 32) == "down(32)evict(6)");
}

TEST_CASE("write strategies: a store miss that allocated nothing") {
    using namespace write_strategies;
    CHECK(write_not_allocated<write_back>(0b1) == "");
    CHECK(write_not_allocated<write_through>(0b1) == "");
    // A partial store miss of a write-evict cache invalidates the resident blocks it touched.
    CHECK(write_not_allocated<write_evict>(0b1) == "evict(1)");
    CHECK(write_not_allocated<write_evict>(0) == "evict(0)");
}

TEST_CASE("write strategies: the write of a read-modify-write") {
    using namespace write_strategies;
    // Resident after the read: dirty and resized; not resident: the bytes go down.
    CHECK(read_modify_write<write_back>(0b1, 8) == "dirty(1)resize(1)");
    CHECK(read_modify_write<write_back>(0, 8) == "down(8)");
    // Always down; resized when resident.
    CHECK(read_modify_write<write_through>(0b10, 8) == "down(8)resize(2)");
    CHECK(read_modify_write<write_through>(0, 8) == "down(8)");
    // Always down; the resident blocks leave.
    CHECK(read_modify_write<write_evict>(0b10, 8) == "down(8)evict(2)");
    CHECK(read_modify_write<write_evict>(0, 8) == "down(8)evict(0)");
}
