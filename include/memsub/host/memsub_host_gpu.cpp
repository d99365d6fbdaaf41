// memsub host ABI, GPU L1 part: the implementation of memsub/host/memsub_host_gpu.h, one C++20
// translation unit built into memsub::host beside memsub_host.cpp.
//
// Every entry point is noexcept and catches every exception: a C caller never sees one. Each
// organisation is one compiled L1 type behind a virtual base (as memsub_host.cpp's caches are),
// built as gpu_l1_explorer and latte_explorer build it.
// Decision: a fixed list of named organisations with their default parameters, not a
// configuration struct. The organisations are the dissertation's comparison points; their
// parameters (predictor tables, ALSI thresholds, selector schedule) have no C form yet, and a
// name is what a GPGPU-Sim configuration file can carry as one option.
#include <memsub/host/memsub_host_gpu.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <string_view>

#include <memsub/bypass/pc_divergence.hpp>
#include <memsub/bypass/pc_only.hpp>
#include <memsub/cache/access_result.hpp>
#include <memsub/compression/bdi.hpp>
#include <memsub/compression/sc2.hpp>
#include <memsub/core/access.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/gpu/baseline_l1.hpp>
#include <memsub/gpu/compressed_l1.hpp>
#include <memsub/gpu/id_cache.hpp>
#include <memsub/gpu/shared_code_book.hpp>
#include <memsub/gpu/timing.hpp>
#include <memsub/host/detail/status.hpp>
#include <memsub/linesize/alsi.hpp>
#include <memsub/linesize/static_size.hpp>
#include <memsub/selection/latte_cc.hpp>
#include <memsub/selection/static_mode.hpp>

static_assert(MEMSUB_GPU_MAX_MODES == memsub::selection::max_modes);
static_assert(MEMSUB_GPU_LINE_BYTES == memsub::gpu::l1_geometry::line_bytes);
static_assert(MEMSUB_GPU_SECTOR_BYTES == memsub::gpu::variable_l1_geometry::segment_bytes);
static_assert(MEMSUB_GPU_LINE_BYTES == memsub::gpu::compressed_l1_geometry::line_bytes);

namespace {

namespace mc = memsub::cache;
namespace sel = memsub::selection;
namespace cmp = memsub::compression;
namespace gpu = memsub::gpu;

constexpr std::uint32_t sectors_per_line = MEMSUB_GPU_LINE_BYTES / MEMSUB_GPU_SECTOR_BYTES;
constexpr std::uint32_t all_sectors = (1u << sectors_per_line) - 1u;

using memsub::host::detail::fail;
using memsub::host::detail::guarded;

[[nodiscard]] bool valid_request(const memsub_access& c) noexcept {
    return c.kind < MEMSUB_ACCESS_KIND_COUNT && c.reserved == 0 &&
           (c.sector_mask & ~all_sectors) == 0;
}

/// The memsub::access of a line request (valid_request holds) of a warp of divergence `d`.
[[nodiscard]] memsub::access to_access(const memsub_access& c, std::uint32_t d) noexcept {
    memsub::access a;
    a.address = memsub::byte_address{c.address};
    a.pc = c.pc;
    a.kind = static_cast<memsub::access_kind>(c.kind);
    a.read_modify_write = c.read_modify_write != 0;
    a.sector_mask = c.sector_mask;
    a.requester = c.requester;
    a.size = c.size;
    a.divergence = d == 0 ? 1 : d;
    a.hints.no_allocate = c.no_allocate != 0;
    return a;
}

/// Sectors of a block's line that the evicted/fetched block covers.
template <std::size_t M>
void engine_to_c(const mc::access_result<M>& r, bool whole_lines, memsub_gpu_result& out) noexcept {
    out.hit = r.hit;
    out.partial = r.partial;
    out.bypass_reason = static_cast<std::uint8_t>(r.bypass);
    out.bypassed = !r.hit && r.bypass != mc::bypass_reason::none;
    out.epoch_ended = 0;
    std::memset(out.reserved, 0, sizeof out.reserved);
    out.blocks_filled = r.blocks_filled;
    out.bytes_fetched = r.bytes_fetched;
    out.bytes_written_down = r.bytes_written_down;
    out.mode = 0;
    out.stored_segments = 0;
    out.hit_latency = 0;
    out.extra_hit_cycles = 0;
    // A whole-line cache reports a missing line as segment 0: all four sectors.
    out.missing_sectors =
        whole_lines ? (r.missing_segments != 0 ? all_sectors : 0) : r.missing_segments;
    static_assert(M <= MEMSUB_MAX_EVICTIONS);
    out.eviction_count = static_cast<std::uint32_t>(r.evictions.size());
    out.reserved2 = 0;
    for (std::size_t i = 0; i < r.evictions.size(); ++i)
        memsub::host::detail::to_c(r.evictions[i], out.evictions[i]);
}

void engine_stats(const mc::cache_stats& s, memsub_gpu_l1_stats& out) noexcept {
    const auto load = static_cast<std::size_t>(memsub::access_kind::load);
    const auto store = static_cast<std::size_t>(memsub::access_kind::store);
    out.accesses = s.accesses();
    out.hits = s.hits();
    out.misses = s.misses();
    out.partial_misses = s.partial_misses;
    out.loads = s.by_kind[load].accesses;
    out.load_misses = s.by_kind[load].misses;
    out.load_hits = out.loads - out.load_misses;
    out.stores = s.by_kind[store].accesses;
    out.fills = s.fills;
    out.bypasses = s.bypasses();
    out.predictor_bypasses =
        s.bypasses_by_reason[static_cast<std::size_t>(mc::bypass_reason::predictor)];
    out.evictions = s.evictions;
    out.invalidations = s.invalidations;
    out.bytes_fetched = s.bytes_fetched;
    out.bytes_written_down = s.bytes_written_down;
}

} // namespace

/// The handle behind `memsub_gpu_l1*`: one compiled L1 organisation.
struct memsub_gpu_l1 {
    memsub_gpu_l1() = default;
    memsub_gpu_l1(const memsub_gpu_l1&) = delete;
    memsub_gpu_l1& operator=(const memsub_gpu_l1&) = delete;
    virtual ~memsub_gpu_l1() = default;
    /// One line request of a valid record.
    virtual void access(const memsub::access& a, const memsub_gpu_request& r,
                        memsub_gpu_result* out) noexcept = 0;
    /// The resident sectors of `address`'s line, and its set.
    virtual std::uint32_t resident_sectors(std::uint64_t address,
                                           std::uint32_t& set) const noexcept = 0;
    virtual void stats(memsub_gpu_l1_stats& out) const noexcept = 0;
    /// false when the organisation takes no tolerance.
    virtual bool set_latency_tolerance(std::uint32_t) noexcept { return false; }

    std::string name;
    memsub_gpu_l1_info info{};
};

namespace {

/// An organisation on the set engine (baseline, bypass, variable line sizes).
template <class Cache>
class engine_l1 final : public memsub_gpu_l1 {
public:
    static constexpr bool whole_lines = !Cache::variable_blocks;

    void access(const memsub::access& a, const memsub_gpu_request&,
                memsub_gpu_result* out) noexcept override {
        const auto r = cache_.access(a);
        if (out != nullptr) engine_to_c(r, whole_lines, *out);
    }
    std::uint32_t resident_sectors(std::uint64_t address,
                                   std::uint32_t& set) const noexcept override {
        const memsub::byte_address b{address};
        set = cache_.set_of(b).value;
        const std::uint64_t r = cache_.resident_segments(cache_.line_of(b));
        if constexpr (whole_lines) return r != 0 ? all_sectors : 0;
        return static_cast<std::uint32_t>(r);
    }
    void stats(memsub_gpu_l1_stats& out) const noexcept override {
        engine_stats(cache_.stats(), out);
    }

private:
    Cache cache_{};
};

/// The line bytes a compressed L1 reads on a fill: the request's, or zeros.
struct line_bytes_of {
    const std::uint8_t* data;
    void read(std::uint64_t, std::span<std::byte> out) const noexcept {
        if (data == nullptr)
            std::fill(out.begin(), out.end(), std::byte{0});
        else
            std::memcpy(out.data(), data, std::min<std::size_t>(out.size(), MEMSUB_GPU_LINE_BYTES));
    }
};

/// The L1 parameters latte_explorer runs its compressed L1s with.
gpu::compressed_l1_params compressed_params() {
    const gpu::latency_params l{};
    return {.base_hit_latency = l.l1_hit_cycles, .miss_latency = l.l2_hit_cycles};
}

/// LATTE-CC's code book for one L1 (latte_explorer's schedule: 256-access EPs, 10 per period).
gpu::shared_code_book::params book_params() {
    return {.l1s = 1, .ep_accesses = 256, .eps_per_period = 10};
}

/// A compressed L1 (modes none / BDI / SC²) with selector `Selector`, and its code book.
template <class Selector>
class compressed_l1_handle final : public memsub_gpu_l1 {
public:
    using l1_type = gpu::compressed_l1<Selector, cmp::bdi, cmp::sc2>;

    explicit compressed_l1_handle(const typename Selector::params& p)
        : book_(book_params())
        , l1_(compressed_params(), p, &book_) {}

    void access(const memsub::access& a, const memsub_gpu_request& r,
                memsub_gpu_result* out) noexcept override {
        const auto res = l1_.access(a, r.cycle, line_bytes_of{r.line_data});
        if (out == nullptr) return;
        engine_to_c(res.engine, false, *out);
        out->epoch_ended = res.epoch_ended;
        out->mode = res.mode;
        out->stored_segments = res.stored_segments;
        out->hit_latency = res.hit_latency;
        out->extra_hit_cycles = res.extra_hit_cycles;
    }
    std::uint32_t resident_sectors(std::uint64_t address,
                                   std::uint32_t& set) const noexcept override {
        const auto& e = l1_.engine();
        const memsub::byte_address b{address};
        set = e.set_of(b).value;
        // A compressed line is one block spanning the line, whatever its stored size. An SC²
        // line of an older code book is resident until the next access retires it: the probe
        // answers what that access will find.
        if constexpr (l1_type::shares_code_book) {
            if (const auto loc = e.find(b)) {
                const std::uint32_t payload = e.block(loc->set, loc->entry).payload;
                if (l1_type::is_sc2_mode(l1_type::mode_of(payload)) &&
                    l1_type::generation_of(payload) != book_.generation())
                    return 0;
            }
        }
        return static_cast<std::uint32_t>(e.resident_segments(e.line_of(b)));
    }
    void stats(memsub_gpu_l1_stats& out) const noexcept override {
        engine_stats(l1_.engine().stats(), out);
        const gpu::compressed_l1_stats& s = l1_.stats();
        out.loads = s.load_hits + s.load_misses;
        out.load_hits = s.load_hits;
        out.load_misses = s.load_misses;
        out.stores = s.stores;
        out.modes = l1_type::mode_count;
        const Selector& sl = l1_.selector();
        if constexpr (requires { sl.follower_mode(); }) {
            out.current_mode = sl.follower_mode();
            out.epochs = sl.eps();
            out.periods = sl.periods();
            out.decisions = sl.decisions();
            for (std::size_t m = 0; m < MEMSUB_GPU_MAX_MODES; ++m)
                out.mode_accesses[m] = sl.mode_accesses()[m];
        } else {
            out.current_mode = sl.mode();
            out.mode_accesses[sl.mode()] = s.accesses;
        }
        for (std::size_t m = 0; m < MEMSUB_GPU_MAX_MODES; ++m) {
            out.fills_by_mode[m] = s.fills_by_mode[m];
            out.hits_by_mode[m] = s.hits_by_mode[m];
            out.filled_segments_by_mode[m] = s.filled_segments[m];
        }
        out.hit_latency_cycles = s.hit_latency_cycles;
        out.resident_line_accesses = s.resident_line_accesses;
        out.code_book_builds = book_.build_count();
        out.retired_lines = s.retired;
    }
    bool set_latency_tolerance(std::uint32_t cycles) noexcept override {
        if constexpr (!sel::needs_latency_tolerance<Selector>) return false;
        l1_.set_latency_tolerance(cycles);
        return true;
    }

private:
    gpu::shared_code_book book_; // before l1_, which keeps a pointer to it
    l1_type l1_;
};

struct organisation {
    std::string_view name;
    std::unique_ptr<memsub_gpu_l1> (*make)();
};

template <class Cache>
std::unique_ptr<memsub_gpu_l1> make_engine() {
    auto l1 = std::make_unique<engine_l1<Cache>>();
    using g = typename Cache::geometry_type;
    l1->info.sets = g::sets;
    l1->info.lines_per_set = g::ways; // the data budget in lines, tags apart
    l1->info.tags_per_set = g::tags_per_set;
    l1->info.line_bytes = g::line_bytes;
    l1->info.segment_bytes = g::segment_bytes;
    return l1;
}

template <class Selector, std::uint32_t Mode = 0>
std::unique_ptr<memsub_gpu_l1> make_compressed() {
    typename Selector::params p{};
    if constexpr (requires { p.mode; }) p.mode = Mode;
    auto l1 = std::make_unique<compressed_l1_handle<Selector>>(p);
    using g = gpu::compressed_l1_geometry;
    l1->info.sets = g::sets;
    l1->info.lines_per_set = g::ways;
    l1->info.tags_per_set = g::tags_per_set;
    l1->info.line_bytes = g::line_bytes;
    l1->info.segment_bytes = g::segment_bytes;
    l1->info.modes = compressed_l1_handle<Selector>::l1_type::mode_count;
    l1->info.needs_line_data = 1;
    l1->info.takes_latency_tolerance = sel::needs_latency_tolerance<Selector> ? 1 : 0;
    return l1;
}

constexpr std::array<organisation, 10> organisations{{
    {"baseline", &make_engine<gpu::baseline_l1>},
    {"pc_only", &make_engine<gpu::baseline_l1_with<memsub::bypass::pc_only>>},
    {"pc_divergence", &make_engine<gpu::baseline_l1_with<memsub::bypass::pc_divergence>>},
    {"alsi", &make_engine<gpu::variable_line_l1<memsub::linesize::alsi>>},
    {"static_32", &make_engine<gpu::variable_line_l1<memsub::linesize::static_size<32>>>},
    {"static_64", &make_engine<gpu::variable_line_l1<memsub::linesize::static_size<64>>>},
    {"id_cache", &make_engine<gpu::id_cache>},
    {"latte_cc", &make_compressed<sel::latte_cc>},
    {"bdi", &make_compressed<sel::static_mode, 1>},
    {"sc2", &make_compressed<sel::static_mode, 2>},
}};

std::string joined_names(std::string_view separator) {
    std::string out;
    for (const auto& o : organisations) {
        if (!out.empty()) out += separator;
        out += o.name;
    }
    return out;
}

} // namespace

extern "C" {

MEMSUB_HOST_API memsub_status memsub_gpu_l1_create(const char* name, memsub_gpu_l1** out,
                                                   memsub_error* error) {
    return guarded(error, [&] {
        if (name == nullptr) return fail(error, MEMSUB_INVALID_ARGUMENT, "name is NULL");
        if (out == nullptr) return fail(error, MEMSUB_INVALID_ARGUMENT, "out is NULL");
        for (const auto& o : organisations) {
            if (o.name != name) continue;
            std::unique_ptr<memsub_gpu_l1> l1 = o.make();
            l1->name = o.name;
            l1->info.name = l1->name.c_str();
            *out = l1.release();
            return MEMSUB_OK;
        }
        throw memsub::config_error("memsub_gpu_l1_create", "name", name,
                                   "must name a GPU L1 organisation (built: " + joined_names(", ") +
                                       ")");
    });
}

MEMSUB_HOST_API memsub_status memsub_gpu_l1_destroy(memsub_gpu_l1* l1) {
    delete l1;
    return MEMSUB_OK;
}

MEMSUB_HOST_API memsub_status memsub_gpu_l1_names(char* buffer, size_t buffer_bytes,
                                                  size_t* needed) {
    return guarded(nullptr, [&] {
        if (buffer == nullptr && buffer_bytes > 0) return MEMSUB_INVALID_ARGUMENT;
        const std::string joined = joined_names(",");
        if (needed != nullptr) *needed = joined.size() + 1;
        if (joined.size() < buffer_bytes) {
            std::memcpy(buffer, joined.c_str(), joined.size() + 1);
            return MEMSUB_OK;
        }
        if (buffer_bytes > 0) { // the whole names that fit before the NUL
            std::size_t cut = 0;
            for (std::size_t i = 0; i < buffer_bytes && i < joined.size(); ++i)
                if (joined[i] == ',') cut = i;
            std::memcpy(buffer, joined.data(), cut);
            buffer[cut] = '\0';
        }
        return MEMSUB_BUFFER_TOO_SMALL;
    });
}

MEMSUB_HOST_API memsub_status memsub_gpu_l1_get_info(const memsub_gpu_l1* l1,
                                                     memsub_gpu_l1_info* info) {
    if (l1 == nullptr || info == nullptr) return MEMSUB_INVALID_ARGUMENT;
    *info = l1->info;
    return MEMSUB_OK;
}

MEMSUB_HOST_API memsub_status memsub_gpu_l1_access(memsub_gpu_l1* l1, const memsub_access* access,
                                                   const memsub_gpu_request* request,
                                                   memsub_gpu_result* result) {
    return guarded(nullptr, [&] {
        if (l1 == nullptr || access == nullptr || !valid_request(*access))
            return MEMSUB_INVALID_ARGUMENT;
        const memsub_gpu_request none{};
        const memsub_gpu_request& r = request != nullptr ? *request : none;
        if (r.reserved != 0) return MEMSUB_INVALID_ARGUMENT;
        l1->access(to_access(*access, r.divergence), r, result);
        return MEMSUB_OK;
    });
}

MEMSUB_HOST_API memsub_status memsub_gpu_l1_probe(const memsub_gpu_l1* l1, uint64_t address,
                                                  uint32_t* sectors, uint32_t* set) {
    if (l1 == nullptr) return MEMSUB_INVALID_ARGUMENT;
    std::uint32_t s = 0;
    const std::uint32_t r = l1->resident_sectors(address, s);
    if (sectors != nullptr) *sectors = r;
    if (set != nullptr) *set = s;
    return MEMSUB_OK;
}

MEMSUB_HOST_API memsub_status memsub_gpu_l1_set_latency_tolerance(memsub_gpu_l1* l1,
                                                                  uint32_t cycles) {
    if (l1 == nullptr) return MEMSUB_INVALID_ARGUMENT;
    return l1->set_latency_tolerance(cycles) ? MEMSUB_OK : MEMSUB_UNSUPPORTED;
}

MEMSUB_HOST_API memsub_status memsub_gpu_l1_get_stats(const memsub_gpu_l1* l1,
                                                      memsub_gpu_l1_stats* stats) {
    if (l1 == nullptr || stats == nullptr) return MEMSUB_INVALID_ARGUMENT;
    *stats = memsub_gpu_l1_stats{};
    l1->stats(*stats);
    return MEMSUB_OK;
}

} // extern "C"
