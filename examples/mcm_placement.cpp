// Placing pages on the modules of a multi-module GPU: four modules, each with its own DRAM
// partition, run two kernels on a 16 MiB array: the first initialises it, module m writing the
// m-th quarter; the second works on the same quarters, one access in eight reaching into a
// neighbour's quarter (a halo). Fine-grain interleave
// spreads every 128 B over the four partitions regardless of who uses it; first touch puts
// each 4 KiB page in the partition of the module that touches it first. Prints, per placement,
// the share of accesses served by the requesting module's own partition (local) and by the
// others (remote, over the inter-module links), and the pages each partition holds.
#include <memsub/core/types.hpp>
#include <memsub/placement/fine_grain_interleave.hpp>
#include <memsub/placement/first_touch.hpp>

#include <fmt/core.h>

#include <array>
#include <cstdint>
#include <random>
#include <string_view>

namespace {

constexpr std::uint32_t modules = 4;
constexpr std::uint64_t array_bytes = std::uint64_t{16} << 20;
constexpr std::uint64_t quarter = array_bytes / modules;

/// The two kernels' accesses, as (module, address), in the order the modules issue them.
template <class Visit>
void kernels(Visit&& visit) {
    for (std::uint64_t offset = 0; offset < quarter; offset += 128) // initialisation
        for (std::uint32_t m = 0; m < modules; ++m)
            visit(m, memsub::byte_address{m * quarter + offset});
    std::mt19937_64 random(11);
    for (std::uint64_t offset = 0; offset < quarter; offset += 128) // the work, with halos
        for (std::uint32_t m = 0; m < modules; ++m) {
            std::uint64_t address = m * quarter + offset;
            if (random() % 8 == 0) // the halo: the neighbouring module's quarter
                address = ((m + 1) % modules) * quarter + random() % quarter;
            visit(m, memsub::byte_address{address & ~std::uint64_t{127}});
        }
}

/// Runs the kernels through placement `p`, prints the local and remote shares, and returns the
/// local share.
template <class Placement>
double show(std::string_view label, Placement& p) {
    std::uint64_t local = 0, remote = 0;
    std::array<std::uint64_t, modules> accesses_per_partition{};
    kernels([&](std::uint32_t module, memsub::byte_address a) {
        const auto where = p.place(a, module);
        ++(where.partition == module ? local : remote);
        ++accesses_per_partition[where.partition];
    });
    const double total = static_cast<double>(local + remote);
    fmt::print("{:<22} local {:5.1f}%  remote {:5.1f}%  accesses per partition {} {} {} {}\n",
               label, 100.0 * static_cast<double>(local) / total,
               100.0 * static_cast<double>(remote) / total, accesses_per_partition[0],
               accesses_per_partition[1], accesses_per_partition[2], accesses_per_partition[3]);
    return static_cast<double>(local) / total;
}

} // namespace

int main() {
    namespace pl = memsub::placement;
    pl::fine_grain_interleave interleave(
        pl::fine_grain_interleave::params{.partitions = modules, .granule_bytes = 128});
    pl::first_touch first_touch(pl::first_touch::params{
        .partitions = modules, .page_bytes = 4096, .footprint_bytes = array_bytes});
    const double interleaved = show("fine-grain interleave", interleave);
    const double touched = show("first touch (4 KiB)", first_touch);
    fmt::print("first touch: pages per partition");
    for (std::uint32_t m = 0; m < modules; ++m) fmt::print(" {}", first_touch.pages_in(m));
    fmt::print("\n");
    // Interleave serves a quarter locally whoever uses the data; first touch puts each quarter
    // in its user's partition, so only the halo is remote.
    return touched > interleaved ? 0 : 1;
}
