// Compressor throughput benchmarks: size-only, compress and decompress, in 64-byte lines per
// second (items_per_second), on three data sets (binary code, zero-heavy, integer/pointer arrays),
// with the achieved compression ratio (§2 stored-size rules: 64B lines, the CS3 default of 8-byte
// segments, lines that save nothing stored raw) and the speed as a fraction of memcpy of the same
// buffer in the same run (`vs_memcpy`; BM_memcpy/<data set> shows the baseline itself).
//
// Decompression reads the lines as a host stores them: each payload in its run of 8-byte
// segments (zero-padded to the segment boundary), the runs back to back; the view a decoder gets
// is the line's own run, so it may read the padding but nothing beyond its segments.
//
// Targets (one core, size-only, 64B lines): BDI ≥ 50 M, FPC ≥ 50 M, C-PACK ≥ 20 M, BPC ≥ 10 M,
// SC² ≥ 10 M lines/s; decompression at least as fast as compression.
#include <benchmark/benchmark.h>

#include "run_benchmarks.hpp"
#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <memsub/compression/all.hpp>
#include <memsub/core/rng.hpp>
#include <memsub/explorer/sample_data.hpp>

#include "../tests/compression/line_generators.hpp"
#include "../tests/compression/sc2_reference.hpp"

namespace mc = memsub::compression;

namespace {

constexpr std::uint32_t line_bytes = 64;
constexpr std::size_t dataset_bytes = std::size_t{8} << 20; // 131072 lines: beyond L2

struct dataset {
    int id = 0;
    std::string name;
    std::vector<std::byte> bytes;
    [[nodiscard]] std::size_t lines() const { return bytes.size() / line_bytes; }
    [[nodiscard]] std::span<const std::byte> line(std::size_t i) const {
        return {bytes.data() + i * line_bytes, line_bytes};
    }
};

void put32(std::byte* p, std::uint32_t v) {
    std::memcpy(p, &v, 4);
}
void put64(std::byte* p, std::uint64_t v) {
    std::memcpy(p, &v, 8);
}

// Binary code: the largest shared library of the machine, else generated code-like bytes.
std::vector<std::byte> binary_code() {
    std::string library; // which one is not reported: the benchmark names the data set only
    return memsub::explorer::binary_code_sample(dataset_bytes, 11, library);
}

std::vector<std::byte> zero_heavy() {
    std::vector<std::byte> out(dataset_bytes);
    memsub::xoshiro256ss rng(12);
    for (std::size_t l = 0; l < out.size() / line_bytes; ++l) {
        std::byte* p = &out[l * line_bytes];
        if (rng.below(10) < 6) continue; // 60 % zero lines
        for (std::uint32_t w = 0; w < line_bytes / 4; ++w)
            if (rng.below(5) == 0)
                put32(p + 4 * w, static_cast<std::uint32_t>(rng()) >> (rng.below(4) * 8));
    }
    return out;
}

std::vector<std::byte> int_ptr_arrays() {
    std::vector<std::byte> out(dataset_bytes);
    memsub::xoshiro256ss rng(13);
    for (std::size_t region = 0; region < out.size(); region += 4096) {
        const auto kind = rng.below(4);
        const std::uint64_t base = 0x00007F0000000000ULL + (rng() & 0xFFFFFFF000ULL);
        std::int64_t acc = static_cast<std::int64_t>(rng.below(1000));
        for (std::size_t o = region; o < region + 4096 && o < out.size();) {
            switch (kind) {
            case 0: // pointers into one heap region
                put64(&out[o], base + 16 * rng.below(1 << 14));
                o += 8;
                break;
            case 1: // sorted 32-bit indices
                acc += static_cast<std::int64_t>(rng.below(40));
                put32(&out[o], static_cast<std::uint32_t>(acc));
                o += 4;
                break;
            case 2: // small counters
                put32(&out[o], static_cast<std::uint32_t>(rng.below(rng.below(2) ? 16 : 70000)));
                o += 4;
                break;
            default: // 64-bit integers with a common high part
                put64(&out[o], (std::uint64_t{0x1234} << 32) + rng.below(1 << 20));
                o += 8;
                break;
            }
        }
    }
    return out;
}

// CPU time of this thread over the timed loop — the clock Google Benchmark uses for
// items_per_second — measured beside it so that the speed can be divided by memcpy's (a rate
// counter would print "/s"). CPU time keeps the figures meaningful on a shared machine.
struct cpu_clock {
    static double now() {
        timespec ts{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
    }
    double t0 = now();
    [[nodiscard]] double seconds() const { return now() - t0; }
};

// memcpy of the whole buffer in lines per second, for a filtered run that has no BM_memcpy:
// the median copy time of at least 31 copies and 0.25 s of CPU time (a few copies of an 8 MiB
// buffer vary by 2x on a shared machine; the median of many does not).
double measure_memcpy(const std::vector<std::byte>& src) {
    std::vector<std::byte> dst(src.size());
    std::memcpy(dst.data(), src.data(), src.size()); // fault the pages in
    std::vector<double> t;
    const cpu_clock total;
    while (t.size() < 31 || total.seconds() < 0.25) {
        const cpu_clock clock;
        std::memcpy(dst.data(), src.data(), src.size());
        benchmark::DoNotOptimize(dst.data());
        benchmark::ClobberMemory();
        t.push_back(clock.seconds());
    }
    std::nth_element(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(t.size() / 2), t.end());
    return static_cast<double>(src.size() / line_bytes) / t[t.size() / 2];
}

const dataset& get_dataset(int id) {
    static std::vector<std::unique_ptr<dataset>> sets(3);
    auto& d = sets[static_cast<std::size_t>(id)];
    if (!d) {
        d = std::make_unique<dataset>();
        d->id = id;
        if (id == 0) d->name = "binary", d->bytes = binary_code();
        if (id == 1) d->name = "zero_heavy", d->bytes = zero_heavy();
        if (id == 2) d->name = "int_ptr", d->bytes = int_ptr_arrays();
    }
    return *d;
}

// SC² needs a code book: sample the first 10 % of the data set's lines.
std::shared_ptr<const mc::huffman_code_book> sc2_book(const dataset& d) {
    mc::value_frequency_table vft;
    for (std::size_t i = 0; i < d.lines() / 10; ++i) vft.on_insert(d.line(i));
    return vft.build_code_book();
}

template <class C>
C make(const dataset& d) {
    if constexpr (std::is_same_v<C, mc::sc2>) {
        return mc::sc2(mc::sc2::params{.line_bytes = line_bytes, .code_book = sc2_book(d)});
    } else if constexpr (std::is_same_v<C, mc::best_of_all>) {
        mc::best_of_all::params p;
        std::get<mc::sc2::params>(p.members).code_book = sc2_book(d);
        return mc::best_of_all(p);
    } else {
        return C{};
    }
}

// Compressed lines as a host stores them (see the file comment): each payload zero-padded to
// whole segments, the segment runs back to back.
struct packed {
    std::vector<std::byte> bytes;
    std::vector<std::uint32_t> offset, slot, bits; // slot: bytes of the line's segment run
    std::vector<mc::compressed_line> meta_only;    // payload unused: tag metadata per line
    double ratio = 1;
};

template <class C>
packed pack(const C& c, const dataset& d) {
    packed p;
    const mc::storage_rule rule = mc::default_storage_rule(line_bytes); // 8-byte segments (CS3)
    mc::ratio_accumulator acc(rule);
    for (std::size_t i = 0; i < d.lines(); ++i) {
        const mc::compressed_line z = c.compress(d.line(i));
        const std::uint32_t S = rule.segment();
        const std::uint32_t run = (z.bytes() + S - 1) / S * S; // compress() zero-fills the rest
        p.offset.push_back(static_cast<std::uint32_t>(p.bytes.size()));
        p.slot.push_back(run);
        p.bits.push_back(z.bits);
        p.bytes.insert(p.bytes.end(), z.payload.begin(), z.payload.begin() + run);
        mc::compressed_line m;
        m.encoding = z.encoding;
        m.member = z.member;
        m.codebook = z.codebook;
        m.tag_data = z.tag_data;
        p.meta_only.push_back(m);
        acc.add(mc::stored_size_of(z.bits, rule), rule);
    }
    p.ratio = acc.ratio();
    return p;
}

// memcpy rate per data set from BM_memcpy (registered first, so it runs before the others),
// timed exactly like the compressors; a filtered run without it measures memcpy directly.
std::array<double, 3> memcpy_rate{};

void finish(benchmark::State& st, const dataset& d, double ratio, double seconds) {
    const auto lines = static_cast<double>(st.iterations()) * static_cast<double>(d.lines());
    st.SetItemsProcessed(static_cast<std::int64_t>(lines));
    st.SetBytesProcessed(static_cast<std::int64_t>(lines * line_bytes));
    st.counters["ratio"] = ratio;
    double& base = memcpy_rate[static_cast<std::size_t>(d.id)];
    if (base == 0) base = measure_memcpy(d.bytes);
    st.counters["vs_memcpy"] = seconds > 0 ? lines / seconds / base : 0.0;
}

template <class C>
void bm_size(benchmark::State& st, int ds) {
    const dataset& d = get_dataset(ds);
    const C c = make<C>(d);
    const double ratio = pack(c, d).ratio;
    const cpu_clock clock;
    for (auto _ : st) {
        std::uint64_t sum = 0;
        for (std::size_t i = 0; i < d.lines(); ++i) sum += c.size_bits(d.line(i));
        benchmark::DoNotOptimize(sum);
    }
    finish(st, d, ratio, clock.seconds());
}

template <class C>
void bm_compress(benchmark::State& st, int ds) {
    const dataset& d = get_dataset(ds);
    const C c = make<C>(d);
    const double ratio = pack(c, d).ratio;
    const cpu_clock clock;
    for (auto _ : st) {
        for (std::size_t i = 0; i < d.lines(); ++i) {
            mc::compressed_line z = c.compress(d.line(i));
            benchmark::DoNotOptimize(z);
        }
    }
    finish(st, d, ratio, clock.seconds());
}

template <class C>
void bm_decompress(benchmark::State& st, int ds) {
    const dataset& d = get_dataset(ds);
    const C c = make<C>(d);
    const packed p = pack(c, d);
    std::vector<std::byte> out(d.bytes.size());
    const cpu_clock clock;
    for (auto _ : st) {
        for (std::size_t i = 0; i < d.lines(); ++i) {
            mc::compressed_view v = p.meta_only[i];
            v.payload = std::span<const std::byte>(p.bytes.data() + p.offset[i], p.slot[i]);
            v.bits = p.bits[i];
            const auto r =
                c.decompress(v, std::span<std::byte>(out.data() + i * line_bytes, line_bytes));
            benchmark::DoNotOptimize(r);
        }
        benchmark::ClobberMemory();
    }
    const double seconds = clock.seconds();
    if (!std::equal(out.begin(), out.end(), d.bytes.begin())) st.SkipWithError("round trip failed");
    finish(st, d, p.ratio, seconds);
}

void bm_memcpy(benchmark::State& st, int ds) {
    const dataset& d = get_dataset(ds);
    std::vector<std::byte> dst(d.bytes.size());
    const cpu_clock clock;
    for (auto _ : st) {
        std::memcpy(dst.data(), d.bytes.data(), d.bytes.size());
        benchmark::DoNotOptimize(dst.data());
        benchmark::ClobberMemory();
    }
    memcpy_rate[static_cast<std::size_t>(ds)] =
        static_cast<double>(st.iterations()) * static_cast<double>(d.lines()) / clock.seconds();
    finish(st, d, 1.0, clock.seconds());
}

// ---- SC² on 128-byte GPU lines: the VFT, the book build and the size path -------------------
//
// LATTE-CC ([Dissertation] §4.3.3) samples every inserted 128 B L1 line into one GPU-wide VFT
// and rebuilds the code book every period, so these three paths run per access or per period.
// Each is timed beside the reference implementation (tests/compression/sc2_reference.hpp: the
// code these replaced, kept as the baseline) on the same lines in the same run: `vs_reference`
// is the speed of today's code over the reference's. `vft_lookup_floor` is a floor for
// `vft_insert`: each run's set found and its 16 ways compared, nothing updated (see the class);
// its `vs_reference` is against vft_insert's reference. `size_lookup_floor` is one for `size`
// (a hash and one table load per word, no key compared). Data: the three data sets above read as
// 128 B lines, and `gpu_arrays`, the test suite's generated program arrays (sorted indices,
// prefix sums, pointers, float and double arrays, a zero-heavy matrix) laid end to end.

constexpr std::uint32_t gpu_line_bytes = 128;
constexpr int sc2_dataset_count = 4;

const std::vector<std::byte>& sc2_data(int id) {
    static std::vector<std::vector<std::byte>> sets(sc2_dataset_count);
    auto& d = sets[static_cast<std::size_t>(id)];
    if (d.empty()) {
        if (id < 3) {
            d = get_dataset(id).bytes;
        } else {
            for (const auto& a : memsub_test::generated_arrays(dataset_bytes / 6))
                d.insert(d.end(), a.bytes.begin(), a.bytes.end());
        }
        d.resize(d.size() / gpu_line_bytes * gpu_line_bytes);
    }
    return d;
}
const char* sc2_dataset_name(int id) {
    static constexpr std::array<const char*, sc2_dataset_count> names{"binary", "zero_heavy",
                                                                      "int_ptr", "gpu_arrays"};
    return names[static_cast<std::size_t>(id)];
}
std::span<const std::byte> gpu_line(const std::vector<std::byte>& d, std::size_t i) {
    return {d.data() + i * gpu_line_bytes, gpu_line_bytes};
}

// Lines per second of each path's reference, per data set, from its `…_reference` row (run
// first), else measured on demand by the same loop.
enum class sc2_path { vft_insert, book_build, size };
std::array<std::array<double, sc2_dataset_count>, 3> sc2_reference_rate{};

// The CPU seconds of `rounds` runs of `body`, at least 0.2 s in all.
template <class F>
double timed_rate(F&& body, double items_per_round) {
    const cpu_clock clock;
    std::uint64_t rounds = 0;
    do {
        body();
        ++rounds;
    } while (clock.seconds() < 0.2);
    return static_cast<double>(rounds) * items_per_round / clock.seconds();
}

namespace ref = memsub_test::sc2_reference;

// The VFT sampled from the first 10 % of a data set's lines (the book benchmarks' input).
template <class Table>
Table trained_table(const std::vector<std::byte>& d) {
    Table t;
    for (std::size_t i = 0; i < d.size() / gpu_line_bytes / 10; ++i) t.on_insert(gpu_line(d, i));
    return t;
}

void reference_vft_round(ref::value_frequency_table_v0& t, const std::vector<std::byte>& d) {
    for (std::size_t i = 0; i < d.size() / gpu_line_bytes; ++i) t.on_insert(gpu_line(d, i));
    benchmark::DoNotOptimize(t);
}
void reference_size_round(const ref::huffman_code_book_v0& book, const std::vector<std::byte>& d) {
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < d.size() / gpu_line_bytes; ++i)
        sum += ref::size_bits_v0(book, gpu_line(d, i));
    benchmark::DoNotOptimize(sum);
}

double reference_rate(sc2_path path, int ds) {
    double& rate = sc2_reference_rate[static_cast<std::size_t>(path)][static_cast<std::size_t>(ds)];
    if (rate != 0) return rate;
    const auto& d = sc2_data(ds);
    const double lines = static_cast<double>(d.size() / gpu_line_bytes);
    if (path == sc2_path::vft_insert) {
        ref::value_frequency_table_v0 t;
        rate = timed_rate([&] { reference_vft_round(t, d); }, lines);
    } else if (path == sc2_path::book_build) {
        const auto t = trained_table<ref::value_frequency_table_v0>(d);
        rate = timed_rate([&] { benchmark::DoNotOptimize(t.build_code_book()); }, 1.0);
    } else {
        const auto book = trained_table<ref::value_frequency_table_v0>(d).build_code_book();
        rate = timed_rate([&] { reference_size_round(*book, d); }, lines);
    }
    return rate;
}

void sc2_finish(benchmark::State& st, sc2_path path, int ds, double items_per_iteration,
                double seconds) {
    const double items = static_cast<double>(st.iterations()) * items_per_iteration;
    st.SetItemsProcessed(static_cast<std::int64_t>(items));
    if (path != sc2_path::book_build)
        st.SetBytesProcessed(static_cast<std::int64_t>(items * gpu_line_bytes));
    if (path == sc2_path::book_build) st.counters["us_per_build"] = seconds / items * 1e6;
    st.counters["vs_reference"] = seconds > 0 ? items / seconds / reference_rate(path, ds) : 0.0;
}

void bm_sc2_vft_insert(benchmark::State& st, int ds, bool reference) {
    const auto& d = sc2_data(ds);
    const double lines = static_cast<double>(d.size() / gpu_line_bytes);
    ref::value_frequency_table_v0 old_table;
    mc::value_frequency_table table;
    const cpu_clock clock;
    for (auto _ : st) {
        if (reference) {
            reference_vft_round(old_table, d);
        } else {
            for (std::size_t i = 0; i < d.size() / gpu_line_bytes; ++i)
                table.on_insert(gpu_line(d, i));
            benchmark::DoNotOptimize(table);
        }
    }
    const double seconds = clock.seconds();
    auto& rate = sc2_reference_rate[0][static_cast<std::size_t>(ds)];
    if (reference) rate = static_cast<double>(st.iterations()) * lines / seconds;
    sc2_finish(st, sc2_path::vft_insert, ds, lines, seconds);
}

// The VFT's lookup alone: per run of equal words, found as the table finds them, the run's set
// (the table's hash) and one compare of its 16 ways (the table's compare), the first matching
// way summed; nothing updated. A floor for `vft_insert` (what any exact table of this design
// pays before it changes anything), not a table: it samples nothing.
class vft_lookup_floor {
public:
    static constexpr std::uint32_t sets = 64, ways = 16, set_shift = 26;

    explicit vft_lookup_floor(const mc::value_frequency_table& trained) {
        std::array<std::uint32_t, sets> used{};
        for (const auto& vc : trained.counts()) {
            const std::size_t set = set_of(vc.value);
            if (used[set] < ways) values_[set * ways + used[set]++] = vc.value;
        }
    }
    [[nodiscard]] std::uint64_t line(std::span<const std::byte> l) const noexcept {
        std::uint64_t sum = 0;
        mc::detail::for_each_word_run(l, [&](std::uint32_t v, std::uint32_t) {
            sum += static_cast<std::uint64_t>(std::countr_zero(match(v)));
        });
        return sum;
    }

private:
    [[nodiscard]] static std::size_t set_of(std::uint32_t v) noexcept {
        return mc::detail::vft_set_index(v, set_shift);
    }
    [[nodiscard]] std::uint64_t match(std::uint32_t v) const noexcept {
        return mc::detail::match16_ways(values_.data() + set_of(v) * ways, v);
    }
    alignas(64) std::array<std::uint32_t, sets * ways> values_{};
};

// A floor row: `floor.line` over every line of the data set, timed as `path`'s rows are.
template <class Floor>
void time_floor(benchmark::State& st, int ds, const Floor& floor, sc2_path path) {
    const auto& d = sc2_data(ds);
    const double lines = static_cast<double>(d.size() / gpu_line_bytes);
    const cpu_clock clock;
    for (auto _ : st) {
        std::uint64_t sum = 0;
        for (std::size_t i = 0; i < d.size() / gpu_line_bytes; ++i)
            sum += floor.line(gpu_line(d, i));
        benchmark::DoNotOptimize(sum);
    }
    sc2_finish(st, path, ds, lines, clock.seconds());
}

void bm_sc2_vft_lookup_floor(benchmark::State& st, int ds) {
    const vft_lookup_floor floor(trained_table<mc::value_frequency_table>(sc2_data(ds)));
    time_floor(st, ds, floor, sc2_path::vft_insert);
}

void bm_sc2_book_build(benchmark::State& st, int ds, bool reference) {
    const auto& d = sc2_data(ds);
    const auto old_table = trained_table<ref::value_frequency_table_v0>(d);
    auto table = trained_table<mc::value_frequency_table>(d);
    // Today's rebuild reuses one book's tables (as sc2_shared_state does).
    mc::huffman_code_book book = mc::huffman_code_book::escape_only();
    table.build_code_book_into(book);
    st.counters["symbols"] = static_cast<double>(book.symbol_count());
    const cpu_clock clock;
    for (auto _ : st) {
        if (reference) {
            benchmark::DoNotOptimize(old_table.build_code_book());
        } else {
            table.build_code_book_into(book);
            benchmark::DoNotOptimize(book);
        }
    }
    const double seconds = clock.seconds();
    auto& rate = sc2_reference_rate[1][static_cast<std::size_t>(ds)];
    if (reference) rate = static_cast<double>(st.iterations()) / seconds;
    sc2_finish(st, sc2_path::book_build, ds, 1.0, seconds);
}

void bm_sc2_size(benchmark::State& st, int ds, bool reference) {
    const auto& d = sc2_data(ds);
    const double lines = static_cast<double>(d.size() / gpu_line_bytes);
    const auto old_book = trained_table<ref::value_frequency_table_v0>(d).build_code_book();
    const mc::sc2 c(mc::sc2::params{
        .line_bytes = gpu_line_bytes,
        .code_book = trained_table<mc::value_frequency_table>(d).build_code_book()});
    // Compression ratio: exact bits (SC² is byte-aligned) over all lines, raw when no gain.
    std::uint64_t raw = 0, stored = 0;
    for (std::size_t i = 0; i < d.size() / gpu_line_bytes; ++i) {
        raw += gpu_line_bytes;
        stored += std::min<std::uint64_t>((c.size_bits(gpu_line(d, i)) + 7) / 8, gpu_line_bytes);
    }
    st.counters["ratio"] = static_cast<double>(raw) / static_cast<double>(stored);
    const cpu_clock clock;
    for (auto _ : st) {
        if (reference) {
            reference_size_round(*old_book, d);
        } else {
            std::uint64_t sum = 0;
            for (std::size_t i = 0; i < d.size() / gpu_line_bytes; ++i)
                sum += c.size_bits(gpu_line(d, i));
            benchmark::DoNotOptimize(sum);
        }
    }
    const double seconds = clock.seconds();
    auto& rate = sc2_reference_rate[2][static_cast<std::size_t>(ds)];
    if (reference) rate = static_cast<double>(st.iterations()) * lines / seconds;
    sc2_finish(st, sc2_path::size, ds, lines, seconds);
}

// The size path's floor: per word its hash and one load of a code length from a table of the
// size the book's encoder table starts at (two slots a symbol, a power of two), summed; no key
// compared, so no word is ever priced as an escape. What any size path that finds a word's code
// length by hashing pays at least (not a size: it is wrong for every word outside the book). A
// floor for `size`; its `vs_reference` is against size's reference.
class size_lookup_floor {
public:
    explicit size_lookup_floor(const mc::huffman_code_book& book) {
        std::size_t slots = 16;
        while (slots < 2 * book.symbol_count()) slots *= 2;
        shift_ = 32 - static_cast<std::uint32_t>(std::countr_zero(slots));
        cost_.resize(slots);
        for (std::size_t i = 0; i < slots; ++i) cost_[i] = static_cast<std::uint8_t>(1 + i % 16);
    }
    [[nodiscard]] std::uint32_t line(std::span<const std::byte> l) const noexcept {
        std::uint32_t bits = 0;
        for (std::size_t i = 0; i < l.size(); i += 4) {
            std::uint32_t v;
            std::memcpy(&v, l.data() + i, 4);
            bits += cost_[(v * 0x9E3779B1u) >> shift_];
        }
        return bits;
    }

private:
    std::vector<std::uint8_t> cost_;
    std::uint32_t shift_ = 28;
};

void bm_sc2_size_lookup_floor(benchmark::State& st, int ds) {
    const auto book = trained_table<mc::value_frequency_table>(sc2_data(ds)).build_code_book();
    time_floor(st, ds, size_lookup_floor(*book), sc2_path::size);
}

void register_sc2_gpu() {
    using bm = void (*)(benchmark::State&, int, bool);
    const std::array<std::pair<const char*, bm>, 3> paths{{{"vft_insert", bm_sc2_vft_insert},
                                                           {"book_build", bm_sc2_book_build},
                                                           {"size", bm_sc2_size}}};
    for (const auto& [path, fn] : paths)
        for (int ds = 0; ds < sc2_dataset_count; ++ds)
            for (const bool reference : {true, false})
                benchmark::RegisterBenchmark(fmt::format("sc2_128B/{}{}/{}", path,
                                                         reference ? "_reference" : "",
                                                         sc2_dataset_name(ds))
                                                 .c_str(),
                                             fn, ds, reference)
                    ->Unit(path == std::string_view("book_build") ? benchmark::kMicrosecond
                                                                  : benchmark::kMillisecond);
    // After vft_insert's rows, so `vs_reference` uses their reference rate.
    for (int ds = 0; ds < sc2_dataset_count; ++ds)
        benchmark::RegisterBenchmark(
            fmt::format("sc2_128B/vft_lookup_floor/{}", sc2_dataset_name(ds)).c_str(),
            bm_sc2_vft_lookup_floor, ds)
            ->Unit(benchmark::kMillisecond);
    for (int ds = 0; ds < sc2_dataset_count; ++ds)
        benchmark::RegisterBenchmark(
            fmt::format("sc2_128B/size_lookup_floor/{}", sc2_dataset_name(ds)).c_str(),
            bm_sc2_size_lookup_floor, ds)
            ->Unit(benchmark::kMillisecond);
}

template <class C>
void register_algorithm(const char* name) {
    for (int ds = 0; ds < 3; ++ds) {
        const std::string set = ds == 0 ? "binary" : (ds == 1 ? "zero_heavy" : "int_ptr");
        benchmark::RegisterBenchmark(fmt::format("{}/size/{}", name, set).c_str(), bm_size<C>, ds)
            ->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark(fmt::format("{}/compress/{}", name, set).c_str(),
                                     bm_compress<C>, ds)
            ->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark(fmt::format("{}/decompress/{}", name, set).c_str(),
                                     bm_decompress<C>, ds)
            ->Unit(benchmark::kMillisecond);
    }
}

const bool registered = [] {
    for (int ds = 0; ds < 3; ++ds) {
        const std::string set = ds == 0 ? "binary" : (ds == 1 ? "zero_heavy" : "int_ptr");
        benchmark::RegisterBenchmark(fmt::format("memcpy/{}", set).c_str(), bm_memcpy, ds)
            ->Unit(benchmark::kMillisecond);
    }
    register_algorithm<mc::bdi>("bdi");
    register_algorithm<mc::fpc>("fpc");
    register_algorithm<mc::cpack>("cpack");
    register_algorithm<mc::cpack_z>("cpack_z");
    register_algorithm<mc::bpc>("bpc");
    register_algorithm<mc::sc2>("sc2");
    register_algorithm<mc::best_of_all>("best_of_all");
    register_sc2_gpu();
    return true;
}();

} // namespace

int main(int argc, char** argv) {
    return memsub_bench::run_benchmarks(argc, argv);
}
