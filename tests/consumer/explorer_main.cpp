// Uses the installed explorer module (memsub::explorer): the explorer's command line run on a
// policy written here, next to memsub's LRU.
#include <memsub/explorer/run_explorer.hpp>
#include <memsub/replacement/concept.hpp>
#include <memsub/replacement/lru.hpp>

#include <cstdint>
#include <string_view>
#include <tuple>
#include <vector>

namespace {

/// Evicts the most recently used entry of a set: the policy that keeps the oldest lines, which
/// beats LRU on a loop larger than the cache.
class mru_victim {
public:
    struct params {};

    mru_victim(const memsub::geometry& g, const params&) : last_used_(g.sets, 0) {}

    [[nodiscard]] std::string_view name() const noexcept { return "mru_victim"; }

    void on_hit(memsub::set_index s, memsub::entry_index e, const memsub::access&) noexcept {
        last_used_[s.value] = e.value;
    }
    void on_insert(memsub::set_index s, memsub::entry_index e, const memsub::access&) noexcept {
        last_used_[s.value] = e.value;
    }
    void on_evict(memsub::set_index, memsub::entry_index, const memsub::evicted_block&) noexcept {}
    [[nodiscard]] memsub::entry_index victim(memsub::set_index s, memsub::entry_mask eligible,
                                             const memsub::access&) noexcept {
        const std::uint32_t last = last_used_[s.value];
        if (((eligible >> last) & 1u) != 0) return memsub::entry_index{last};
        std::uint32_t e = 0;
        while (((eligible >> e) & 1u) == 0) ++e; // the lowest eligible entry
        return memsub::entry_index{e};
    }

private:
    std::vector<std::uint32_t> last_used_;
};

static_assert(memsub::replacement::replacement_policy<mru_victim>);

} // namespace

int main(int argc, char** argv) {
    return memsub::explorer::run_explorer<std::tuple<memsub::replacement::lru, mru_victim>>(argc,
                                                                                            argv);
}
