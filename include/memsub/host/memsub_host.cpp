// memsub host ABI: the implementation of memsub/host/memsub_host.h, one C++20 translation unit.
// CMake builds it as the shared library memsub::host; a host with its own build compiles it
// with the include directory on its path (docs/embedding/c_abi.md).
//
// Every entry point is noexcept and catches every exception (guarded below): a C caller never
// sees one. Each handle is a C++ object behind an abstract base; the cache's whole access loop
// (memsub_cache_access_batch) runs inside the concrete class, so a batch costs one virtual call
// and the engine inlines into its loop as it does in a header-only host.
// Decision: type erasure by a virtual base at this boundary only. A C entry point is already an
// out-of-line call through the dynamic linker's table; choosing the compiled shape behind the
// handle costs one more indirect call per entry (a std::variant's visit costs the same jump),
// and nothing below it is virtual: the policy is a runtime_choice (a jump per hook) and the
// engine is the header-only one.
// Decision: a fixed set of compiled cache shapes (3 write policies, and for variable-block
// caches max_block_segments 2 or 4), each running host::policy_choice, rather than a shape per
// policy: 9 instantiations of the engine keep the library's build time and size moderate, and
// a policy chosen at run time costs one jump per hook (runtime_choice).
#include <memsub/host/memsub_host.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <memsub/cache/access_result.hpp>
#include <memsub/cache/basic_cache.hpp>
#include <memsub/cache/fully_associative.hpp>
#include <memsub/compression/all.hpp>
#include <memsub/compression/by_name.hpp>
#include <memsub/config.hpp>
#include <memsub/core/access.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/geometry.hpp>
#include <memsub/host/detail/status.hpp>
#include <memsub/host/host_policies.hpp>
#include <memsub/version.hpp>

// The C enums carry memsub's values, so records convert by a cast.
static_assert(MEMSUB_ACCESS_KIND_COUNT == memsub::access_kind_count);
static_assert(MEMSUB_ACCESS_WRITEBACK == static_cast<int>(memsub::access_kind::writeback));
static_assert(MEMSUB_ACCESS_PREFETCH == static_cast<int>(memsub::access_kind::prefetch));
static_assert(MEMSUB_ACCESS_INSTRUCTION_FETCH ==
              static_cast<int>(memsub::access_kind::instruction_fetch));
static_assert(MEMSUB_ACCESS_STORE == static_cast<int>(memsub::access_kind::store));
static_assert(MEMSUB_BYPASS_REASON_COUNT == memsub::cache::bypass_reason_count);
static_assert(MEMSUB_BYPASS_POLICY == static_cast<int>(memsub::cache::bypass_reason::policy));
static_assert(MEMSUB_EVICTION_REASON_COUNT == memsub::eviction_reason_count);
static_assert(MEMSUB_EVICTION_RETIRED == static_cast<int>(memsub::eviction_reason::retired));
static_assert(MEMSUB_WRITE_EVICT == static_cast<int>(memsub::cache::write_policy::write_evict));
static_assert(MEMSUB_MAX_PAYLOAD_BYTES == memsub::compression::max_payload_bytes);
static_assert(MEMSUB_MAX_LINE_BYTES == memsub::compression::max_line_bytes);
static_assert(
    MEMSUB_MAX_EVICTIONS ==
    memsub::cache::cache_options{.max_block_segments = MEMSUB_MAX_BLOCK_SEGMENTS}.max_evictions());

namespace {

namespace mc = memsub::cache;
namespace mcomp = memsub::compression;

// ---------------------------------------------------------------- errors

using memsub::host::detail::fail;
using memsub::host::detail::guarded;

/// Writes `names` joined by commas into buffer[0 .. bytes) (see memsub_cache_policy_names).
memsub_status write_names(const std::vector<std::string>& names, char* buffer, std::size_t bytes,
                          std::size_t* needed) {
    std::string joined;
    for (const auto& n : names) {
        if (!joined.empty()) joined += ',';
        joined += n;
    }
    if (needed != nullptr) *needed = joined.size() + 1;
    if (joined.size() < bytes) {
        std::memcpy(buffer, joined.c_str(), joined.size() + 1);
        return MEMSUB_OK;
    }
    if (bytes > 0) { // the whole names that fit before the NUL
        std::size_t cut = 0;
        for (std::size_t i = 0; i < bytes && i < joined.size(); ++i)
            if (joined[i] == ',') cut = i;
        std::memcpy(buffer, joined.data(), cut);
        buffer[cut] = '\0';
    }
    return MEMSUB_BUFFER_TOO_SMALL;
}

/// The list functions' common part: the buffer checked, the list `make()` returns written
/// with write_names, and a status naming `what` when it does not fit.
template <class MakeList>
memsub_status write_list(char* buffer, std::size_t bytes, std::size_t* needed, memsub_error* error,
                         const char* what, MakeList&& make) {
    if (buffer == nullptr && bytes > 0)
        return fail(error, MEMSUB_INVALID_ARGUMENT, "buffer is NULL and buffer_bytes > 0");
    const memsub_status s = write_names(make(), buffer, bytes, needed);
    return s == MEMSUB_OK
               ? s
               : fail(error, s, std::string("the ") + what + " do not fit in the buffer");
}

// ---------------------------------------------------------------- records

[[nodiscard]] bool valid_record(const memsub_access& c) noexcept {
    return c.kind < MEMSUB_ACCESS_KIND_COUNT && c.reserved == 0;
}

/// The memsub::access of a C record (valid_record holds).
[[nodiscard]] MEMSUB_ALWAYS_INLINE memsub::access to_access(const memsub_access& c) noexcept {
    memsub::access a;
    a.address = memsub::byte_address{c.address};
    a.pc = c.pc;
    a.kind = static_cast<memsub::access_kind>(c.kind);
    a.read_modify_write = c.read_modify_write != 0;
    a.sector_mask = c.sector_mask;
    a.requester = c.requester;
    a.size = c.size;
    a.hints.next_use = (c.hints & MEMSUB_HINT_NEXT_USE) != 0 ? c.next_use : memsub::never;
    a.hints.memory_cost_class = (c.hints & MEMSUB_HINT_MEMORY_COST_CLASS) != 0
                                    ? c.memory_cost_class
                                    : memsub::host_hints::unknown_class;
    a.hints.miss_cost_cycles = c.miss_cost_cycles;
    a.hints.no_allocate = c.no_allocate != 0;
    return a;
}

template <std::size_t M>
void to_c(const mc::access_result<M>& r, memsub_access_result& out) noexcept {
    // Field by field: the unused eviction slots are left as they are (the header says so), so a
    // call that evicts nothing writes 40 bytes, not the whole 256-byte result.
    out.hit = r.hit;
    out.partial = r.partial;
    out.bypass_reason = static_cast<std::uint8_t>(r.bypass);
    out.hit_block_left = r.hit_block_left;
    out.blocks_filled = r.blocks_filled;
    out.bytes_fetched = r.bytes_fetched;
    out.bytes_written_down = r.bytes_written_down;
    out.missing_segments = r.missing_segments;
    static_assert(M <= MEMSUB_MAX_EVICTIONS);
    out.eviction_count = static_cast<std::uint32_t>(r.evictions.size());
    out.reserved = 0;
    for (std::size_t i = 0; i < r.evictions.size(); ++i)
        memsub::host::detail::to_c(r.evictions[i], out.evictions[i]);
}

void to_c(const mc::cache_stats& s, memsub_cache_stats& out) noexcept {
    out = memsub_cache_stats{};
    out.accesses = s.accesses();
    out.misses = s.misses();
    out.hits = s.hits();
    for (std::size_t k = 0; k < MEMSUB_ACCESS_KIND_COUNT; ++k)
        out.by_kind[k] = {s.by_kind[k].accesses, s.by_kind[k].misses};
    out.fills = s.fills;
    out.partial_misses = s.partial_misses;
    out.evictions = s.evictions;
    out.writebacks = s.writebacks;
    out.bypasses = s.bypasses();
    for (std::size_t r = 0; r < MEMSUB_BYPASS_REASON_COUNT; ++r)
        out.bypasses_by_reason[r] = s.bypasses_by_reason[r];
    out.invalidations = s.invalidations;
    for (std::size_t r = 0; r < MEMSUB_EVICTION_REASON_COUNT; ++r)
        out.invalidations_by_reason[r] = s.invalidations_by_reason[r];
    out.resizes = s.resizes;
    out.resizes_refused = s.resizes_refused;
    out.specs_clamped = s.specs_clamped;
    out.bytes_fetched = s.bytes_fetched;
    out.bytes_written_down = s.bytes_written_down;
    out.bytes_written_back = s.bytes_written_back;
}

} // namespace

// ---------------------------------------------------------------- cache handles

/// The handle behind `memsub_cache*`: one concrete cache per compiled shape.
struct memsub_cache {
    memsub_cache() = default;
    memsub_cache(const memsub_cache&) = delete;
    memsub_cache& operator=(const memsub_cache&) = delete;
    virtual ~memsub_cache() = default;
    /// One access of a valid record.
    virtual void access(const memsub_access& c, memsub_access_result* out) noexcept = 0;
    /// The batch loop; returns how many records were made (< n: records[made] is invalid).
    virtual std::size_t access_batch(const memsub_access* records, std::size_t n,
                                     std::uint64_t& hits, std::uint8_t* hit_flags) noexcept = 0;
    virtual void stats(memsub_cache_stats& out) const noexcept = 0;
    /// false when the engine keeps no reset.
    virtual bool reset_stats() noexcept = 0;
};

namespace {

/// A set-engine cache (set-associative or variable-block) of shape `Cache`.
template <class Cache>
class engine_cache final : public memsub_cache {
public:
    engine_cache(const memsub::geometry& g, const typename Cache::policy_params& p)
        : cache_(g, p) {}

    void access(const memsub_access& c, memsub_access_result* out) noexcept override {
        const auto r = one(c);
        if (out != nullptr) to_c(r, *out);
    }

    std::size_t access_batch(const memsub_access* records, std::size_t n, std::uint64_t& hits,
                             std::uint8_t* hit_flags) noexcept override {
        // basic_cache::access_all's loop: the metadata of the record `distance` ahead is
        // prefetched, which hides the memory latency of large caches.
        constexpr std::size_t distance = 8;
        std::uint64_t h = 0;
        std::size_t i = 0;
        for (; i < n; ++i) {
            if (i + distance < n)
                cache_.prefetch(memsub::byte_address{records[i + distance].address});
            if (MEMSUB_UNLIKELY(!valid_record(records[i]))) break;
            const bool hit = one(records[i]).hit;
            h += hit;
            if (hit_flags != nullptr) hit_flags[i] = hit;
        }
        hits = h;
        return i;
    }

    void stats(memsub_cache_stats& out) const noexcept override { to_c(cache_.stats(), out); }
    bool reset_stats() noexcept override {
        cache_.reset_stats();
        return true;
    }

private:
    MEMSUB_ALWAYS_INLINE typename Cache::result_type one(const memsub_access& c) noexcept {
        const memsub::access a = to_access(c);
        if constexpr (Cache::variable_blocks) {
            if (c.span_segments != 0)
                return cache_.access(a, mc::block_spec{c.span_segments, c.stored_segments, 0});
        }
        return cache_.access(a);
    }

    Cache cache_;
};

/// A fully associative cache replacing in `Order`.
template <class Order>
class fa_cache final : public memsub_cache {
public:
    fa_cache(std::uint64_t lines, std::uint32_t line_bytes) : cache_(lines, line_bytes) {}

    void access(const memsub_access& c, memsub_access_result* out) noexcept override {
        const mc::fa_result r = cache_.access(to_access(c));
        if (out == nullptr) return;
        // As to_c: the fields, and the eviction slot in use, are written.
        out->hit = r.hit;
        out->partial = 0;
        out->bypass_reason = MEMSUB_BYPASS_NONE;
        out->hit_block_left = 0;
        // A miss always fills; a writeback from above fetches nothing.
        out->blocks_filled = r.hit ? 0 : 1;
        out->missing_segments = r.hit ? 0 : 1;
        out->bytes_fetched = r.hit || c.kind == MEMSUB_ACCESS_WRITEBACK ? 0 : cache_.line_bytes();
        out->bytes_written_down = 0;
        out->eviction_count = r.evicted ? 1 : 0;
        out->reserved = 0;
        if (r.evicted) {
            memsub_evicted_block& e = out->evictions[0];
            e = memsub_evicted_block{};
            e.address = r.evicted_line.value * cache_.line_bytes();
            e.bytes = cache_.line_bytes();
            e.stored_segments = 1;
            e.dirty = r.writeback;
            e.reason = MEMSUB_EVICTION_REPLACEMENT;
        }
    }

    std::size_t access_batch(const memsub_access* records, std::size_t n, std::uint64_t& hits,
                             std::uint8_t* hit_flags) noexcept override {
        std::uint64_t h = 0;
        std::size_t i = 0;
        for (; i < n; ++i) {
            if (MEMSUB_UNLIKELY(!valid_record(records[i]))) break;
            const bool hit = cache_.access(to_access(records[i])).hit;
            h += hit;
            if (hit_flags != nullptr) hit_flags[i] = hit;
        }
        hits = h;
        return i;
    }

    void stats(memsub_cache_stats& out) const noexcept override { to_c(cache_.stats(), out); }
    bool reset_stats() noexcept override { return false; }

private:
    mc::fully_associative_cache<Order> cache_;
};

constexpr std::string_view create_component = "memsub_cache_create";

template <mc::write_policy W, std::uint32_t MaxBlockSegments>
using engine_shape =
    mc::basic_cache<memsub::host::policy_choice,
                    mc::cache_options{.writes = W, .max_block_segments = MaxBlockSegments}>;

template <std::uint32_t MaxBlockSegments>
std::unique_ptr<memsub_cache> make_engine(std::uint32_t writes, const memsub::geometry& g,
                                          const memsub::host::policy_choice::params& p) {
    switch (writes) {
    case MEMSUB_WRITE_BACK:
        return std::make_unique<
            engine_cache<engine_shape<mc::write_policy::write_back, MaxBlockSegments>>>(g, p);
    case MEMSUB_WRITE_THROUGH:
        return std::make_unique<
            engine_cache<engine_shape<mc::write_policy::write_through, MaxBlockSegments>>>(g, p);
    default:
        return std::make_unique<
            engine_cache<engine_shape<mc::write_policy::write_evict, MaxBlockSegments>>>(g, p);
    }
}

/// The geometry of a set-associative or variable-block config.
memsub::geometry geometry_of(const memsub_cache_config& c) {
    return memsub::geometry{.sets = c.sets,
                            .ways = c.ways,
                            .line_bytes = c.line_bytes,
                            .segment_bytes = c.segment_bytes,
                            .tags_per_set = c.tags_per_set};
}

/// The compiled max_block_segments a variable-block config asks for (0 = the smaller of 2 and
/// 4 that holds the line's segments); throws config_error.
std::uint32_t max_block_segments_of(const memsub_cache_config& c, const memsub::geometry& g) {
    if (c.max_block_segments != 0) {
        memsub::require(c.max_block_segments == 2 || c.max_block_segments == 4, create_component,
                        "max_block_segments", c.max_block_segments,
                        "must be 0 (the smallest that fits), 2 or 4");
        return c.max_block_segments;
    }
    memsub::require(g.segments_per_line() <= MEMSUB_MAX_BLOCK_SEGMENTS, create_component,
                    "segment_bytes", g.segment_size(),
                    "a variable-block cache here holds at most 4 segments per line");
    return g.segments_per_line() <= 2 ? 2 : 4;
}

constexpr std::array<std::string_view, 3> fa_orders{"lru", "fifo", "opt"};

/// A policy spec ("name" or "name:key=value,...") with a missing name read as "lru".
std::string named_spec(std::string_view spec) {
    std::string s(spec);
    if (s.empty() || s.front() == ':') s.insert(0, "lru");
    return s;
}

/// "key=value" for every setting of the policy a spec names, its own settings applied over
/// the defaults (see memsub_cache_policy_params).
std::vector<std::string> settings_of(const memsub::geometry& g, std::string_view spec) {
    std::vector<std::string> out;
    for (const auto& f : memsub::host::policy_choice::param_fields_of(g, named_spec(spec)))
        out.push_back(f.key + '=' + f.value);
    return out;
}

/// The params of the policy a spec names ("name" or "name:key=value,..."; a missing name is
/// "lru") on a validated geometry.
memsub::host::policy_choice::params choice_params(const memsub::geometry& g,
                                                  std::string_view spec) {
    return memsub::host::policy_choice::params_for(g, named_spec(spec));
}

/// A fully associative order named by a spec: its name (its settings must be empty).
std::string_view fa_order_of(std::string_view spec) {
    if (!memsub::spec_settings(spec).empty())
        throw memsub::config_error(create_component, "policy", spec,
                                   "a fully associative cache's orders (lru, fifo, opt) take no "
                                   "parameters");
    return memsub::spec_policy_name(spec);
}

std::unique_ptr<memsub_cache> make_cache(memsub_cache_kind kind, std::string_view policy,
                                         const memsub_cache_config& c) {
    if (kind == MEMSUB_CACHE_FULLY_ASSOCIATIVE) {
        memsub::require(c.write_policy == MEMSUB_WRITE_BACK, create_component, "write_policy",
                        c.write_policy, "a fully associative cache is write-back only (0)");
        policy = fa_order_of(policy);
        if (policy.empty() || policy == "lru")
            return std::make_unique<fa_cache<mc::fa_lru>>(c.lines, c.line_bytes);
        if (policy == "fifo") return std::make_unique<fa_cache<mc::fa_fifo>>(c.lines, c.line_bytes);
        if (policy == "opt") return std::make_unique<fa_cache<mc::fa_opt>>(c.lines, c.line_bytes);
        throw memsub::config_error(create_component, "policy", policy,
                                   "must name a fully associative order (built: lru, fifo, opt)");
    }
    const memsub::geometry g = geometry_of(c);
    g.validate(create_component);
    const auto p = choice_params(g, policy);
    if (kind == MEMSUB_CACHE_SET_ASSOCIATIVE) return make_engine<1>(c.write_policy, g, p);
    return max_block_segments_of(c, g) == 2 ? make_engine<2>(c.write_policy, g, p)
                                            : make_engine<4>(c.write_policy, g, p);
}

/// MEMSUB_OK, or the status (and message) of a config a cache cannot be made of.
memsub_status check_config(memsub_cache_kind kind, const memsub_cache_config* c,
                           memsub_error* error) noexcept {
    if (c == nullptr) return fail(error, MEMSUB_INVALID_ARGUMENT, "config is NULL");
    if (kind != MEMSUB_CACHE_SET_ASSOCIATIVE && kind != MEMSUB_CACHE_FULLY_ASSOCIATIVE &&
        kind != MEMSUB_CACHE_VARIABLE_BLOCK)
        return fail(error, MEMSUB_INVALID_ARGUMENT, "kind is not a memsub_cache_kind");
    if (c->write_policy > MEMSUB_WRITE_EVICT)
        return fail(error, MEMSUB_INVALID_ARGUMENT,
                    "config->write_policy is not a memsub_write_policy");
    if (c->reserved != 0) return fail(error, MEMSUB_INVALID_ARGUMENT, "config->reserved is not 0");
    return MEMSUB_OK;
}

// ---------------------------------------------------------------- compressors

} // namespace

/// The handle behind `memsub_compressor*`.
struct memsub_compressor {
    memsub_compressor() = default;
    memsub_compressor(const memsub_compressor&) = delete;
    memsub_compressor& operator=(const memsub_compressor&) = delete;
    virtual ~memsub_compressor() = default;
    [[nodiscard]] virtual std::string_view name() const noexcept = 0;
    [[nodiscard]] virtual std::uint32_t line_bytes() const noexcept = 0;
    [[nodiscard]] virtual std::uint32_t metadata_bits() const noexcept = 0;
    [[nodiscard]] virtual std::uint32_t
    size_bits(std::span<const std::byte> line) const noexcept = 0;
    [[nodiscard]] virtual mcomp::compressed_line
    compress(std::span<const std::byte> line) const noexcept = 0;
    [[nodiscard]] virtual mcomp::decode_result
    decompress(const mcomp::compressed_view& in, std::span<std::byte> out) const noexcept = 0;
};

namespace {

template <class C>
class compressor_of final : public memsub_compressor {
public:
    explicit compressor_of(std::uint32_t line_bytes)
        : c_(mcomp::default_params_for<C>(line_bytes)) {}

    std::string_view name() const noexcept override { return c_.name(); }
    std::uint32_t line_bytes() const noexcept override { return c_.line_bytes(); }
    std::uint32_t metadata_bits() const noexcept override { return c_.metadata_bits(); }
    std::uint32_t size_bits(std::span<const std::byte> line) const noexcept override {
        return c_.size_bits(line);
    }
    mcomp::compressed_line compress(std::span<const std::byte> line) const noexcept override {
        return c_.compress(line);
    }
    mcomp::decode_result decompress(const mcomp::compressed_view& in,
                                    std::span<std::byte> out) const noexcept override {
        return c_.decompress(in, out);
    }

private:
    C c_;
};

std::vector<std::string> compressor_names() {
    return {mcomp::offered_names.begin(), mcomp::offered_names.end()};
}

std::span<const std::byte> bytes_of(const std::uint8_t* p, std::size_t n) noexcept {
    return {reinterpret_cast<const std::byte*>(p), n};
}

/// MEMSUB_OK when `c`, `line` and `bytes` are a line the compressor takes.
memsub_status check_line(const memsub_compressor* c, const std::uint8_t* line, std::size_t bytes,
                         const void* out, memsub_error* error) noexcept {
    if (c == nullptr) return fail(error, MEMSUB_INVALID_ARGUMENT, "compressor is NULL");
    if (line == nullptr) return fail(error, MEMSUB_INVALID_ARGUMENT, "line is NULL");
    if (out == nullptr) return fail(error, MEMSUB_INVALID_ARGUMENT, "the output pointer is NULL");
    if (bytes != c->line_bytes()) {
        char m[128];
        std::snprintf(m, sizeof m, "bytes = %zu is not the compressor's line size (%u)", bytes,
                      static_cast<unsigned>(c->line_bytes()));
        return fail(error, MEMSUB_INVALID_ARGUMENT, m);
    }
    return MEMSUB_OK;
}

} // namespace

// ---------------------------------------------------------------- the C entry points

extern "C" {

MEMSUB_HOST_API const char* memsub_status_name(memsub_status status) {
    switch (status) {
    case MEMSUB_OK:
        return "MEMSUB_OK";
    case MEMSUB_INVALID_ARGUMENT:
        return "MEMSUB_INVALID_ARGUMENT";
    case MEMSUB_CONFIG_ERROR:
        return "MEMSUB_CONFIG_ERROR";
    case MEMSUB_OUT_OF_MEMORY:
        return "MEMSUB_OUT_OF_MEMORY";
    case MEMSUB_BUFFER_TOO_SMALL:
        return "MEMSUB_BUFFER_TOO_SMALL";
    case MEMSUB_UNSUPPORTED:
        return "MEMSUB_UNSUPPORTED";
    case MEMSUB_DECODE_ERROR:
        return "MEMSUB_DECODE_ERROR";
    case MEMSUB_INTERNAL_ERROR:
        return "MEMSUB_INTERNAL_ERROR";
    case MEMSUB_STATUS_MAX_ENUM:
        break;
    }
    return "MEMSUB_UNKNOWN_STATUS";
}

MEMSUB_HOST_API memsub_status memsub_host_version(uint32_t* abi_version,
                                                  const char** library_version) {
    if (abi_version != nullptr) *abi_version = MEMSUB_HOST_ABI_VERSION;
    if (library_version != nullptr) *library_version = memsub::version_string;
    return MEMSUB_OK;
}

MEMSUB_HOST_API memsub_status memsub_cache_create(memsub_cache_kind kind, const char* policy_name,
                                                  const memsub_cache_config* config,
                                                  memsub_cache** out, memsub_error* error) {
    return guarded(error, [&] {
        if (out == nullptr) return fail(error, MEMSUB_INVALID_ARGUMENT, "out is NULL");
        if (const memsub_status s = check_config(kind, config, error); s != MEMSUB_OK) return s;
        *out = make_cache(kind, policy_name == nullptr ? "" : policy_name, *config).release();
        return MEMSUB_OK;
    });
}

MEMSUB_HOST_API memsub_status memsub_cache_destroy(memsub_cache* cache) {
    delete cache; // destructors do not throw
    return MEMSUB_OK;
}

MEMSUB_HOST_API memsub_status memsub_cache_policy_names(memsub_cache_kind kind,
                                                        const memsub_cache_config* config,
                                                        char* buffer, size_t buffer_bytes,
                                                        size_t* needed, memsub_error* error) {
    return guarded(error, [&] {
        if (const memsub_status s = check_config(kind, config, error); s != MEMSUB_OK) return s;
        return write_list(buffer, buffer_bytes, needed, error, "policy names", [&] {
            std::vector<std::string> names;
            if (kind == MEMSUB_CACHE_FULLY_ASSOCIATIVE) {
                for (const auto n : fa_orders) names.emplace_back(n);
                return names;
            }
            const memsub::geometry g = geometry_of(*config);
            g.validate(create_component);
            return memsub::host::policy_choice::names(g, {});
        });
    });
}

MEMSUB_HOST_API memsub_status memsub_cache_policy_params(memsub_cache_kind kind,
                                                         const char* policy_name,
                                                         const memsub_cache_config* config,
                                                         char* buffer, size_t buffer_bytes,
                                                         size_t* needed, memsub_error* error) {
    return guarded(error, [&] {
        if (const memsub_status s = check_config(kind, config, error); s != MEMSUB_OK) return s;
        const std::string_view spec = policy_name == nullptr ? "" : policy_name;
        return write_list(buffer, buffer_bytes, needed, error, "settings", [&] {
            if (kind == MEMSUB_CACHE_FULLY_ASSOCIATIVE) { // the orders have none
                const std::string_view order = fa_order_of(spec);
                if (!order.empty() &&
                    std::find(fa_orders.begin(), fa_orders.end(), order) == fa_orders.end())
                    throw memsub::config_error(create_component, "policy", order,
                                               "must name a fully associative order (built: "
                                               "lru, fifo, opt)");
                return std::vector<std::string>{};
            }
            const memsub::geometry g = geometry_of(*config);
            g.validate(create_component);
            return settings_of(g, spec);
        });
    });
}

MEMSUB_HOST_API memsub_status memsub_cache_access(memsub_cache* cache, const memsub_access* access,
                                                  memsub_access_result* result) {
    return guarded(nullptr, [&] {
        if (cache == nullptr || access == nullptr || !valid_record(*access))
            return MEMSUB_INVALID_ARGUMENT;
        cache->access(*access, result);
        return MEMSUB_OK;
    });
}

MEMSUB_HOST_API memsub_status memsub_cache_access_batch(memsub_cache* cache,
                                                        const memsub_access* records, size_t n,
                                                        uint64_t* hits_out, uint8_t* hit_flags) {
    return guarded(nullptr, [&] {
        if (cache == nullptr || (records == nullptr && n > 0)) return MEMSUB_INVALID_ARGUMENT;
        std::uint64_t hits = 0;
        const std::size_t made = n == 0 ? 0 : cache->access_batch(records, n, hits, hit_flags);
        if (hits_out != nullptr) *hits_out = hits;
        return made == n ? MEMSUB_OK : MEMSUB_INVALID_ARGUMENT;
    });
}

MEMSUB_HOST_API memsub_status memsub_cache_get_stats(const memsub_cache* cache,
                                                     memsub_cache_stats* stats) {
    if (cache == nullptr || stats == nullptr) return MEMSUB_INVALID_ARGUMENT;
    cache->stats(*stats);
    return MEMSUB_OK;
}

MEMSUB_HOST_API memsub_status memsub_cache_reset_stats(memsub_cache* cache) {
    if (cache == nullptr) return MEMSUB_INVALID_ARGUMENT;
    return cache->reset_stats() ? MEMSUB_OK : MEMSUB_UNSUPPORTED;
}

// ---------------------------------------------------------------- replacement policies alone

/// The handle behind `memsub_policy*`: the chosen policy and the valid ways it orders (the
/// host keeps tags and data; this mask is what lets a call that breaks the protocol be refused).
struct memsub_policy {
    memsub_policy(const memsub::geometry& g, const memsub::host::policy_choice::params& p)
        : policy(g, p)
        , valid(g.sets, 0)
        , sets(g.sets)
        , ways(g.ways)
        , line_bytes(g.line_bytes)
        , all_ways(memsub::low_bits_mask(g.ways))
        , name(policy.name()) {}

    memsub::host::policy_choice policy;
    std::vector<std::uint64_t> valid; // per set, bit w = way w holds a line
    std::uint32_t sets;
    std::uint32_t ways;
    std::uint32_t line_bytes;
    std::uint64_t all_ways;
    std::string name; // NUL-terminated copy of policy.name() for memsub_policy_name
};

namespace {

constexpr std::string_view policy_component = "memsub_policy_create";

memsub_status check_policy_config(const memsub_policy_config* c, memsub_error* error) noexcept {
    if (c == nullptr) return fail(error, MEMSUB_INVALID_ARGUMENT, "config is NULL");
    if (c->reserved != 0) return fail(error, MEMSUB_INVALID_ARGUMENT, "config->reserved is not 0");
    return MEMSUB_OK;
}

memsub::geometry geometry_of(const memsub_policy_config& c) {
    const memsub::geometry g{.sets = c.sets, .ways = c.ways, .line_bytes = c.line_bytes};
    g.validate(policy_component);
    return g;
}

/// The checks every hook shares: handle, record, set and way in range.
[[nodiscard]] bool hook_ok(const memsub_policy* p, std::uint32_t set, std::uint32_t way,
                           const memsub_access* a) noexcept {
    return p != nullptr && a != nullptr && valid_record(*a) && set < p->sets && way < p->ways;
}

[[nodiscard]] bool way_valid(const memsub_policy& p, std::uint32_t set,
                             std::uint32_t way) noexcept {
    return (p.valid[set] >> way & 1u) != 0;
}

} // namespace

MEMSUB_HOST_API memsub_status memsub_host_abi_revision(uint32_t* abi_revision) {
    if (abi_revision != nullptr) *abi_revision = MEMSUB_HOST_ABI_REVISION;
    return MEMSUB_OK;
}

MEMSUB_HOST_API memsub_status memsub_policy_create(const char* policy_name,
                                                   const memsub_policy_config* config,
                                                   memsub_policy** out, memsub_error* error) {
    return guarded(error, [&] {
        if (out == nullptr) return fail(error, MEMSUB_INVALID_ARGUMENT, "out is NULL");
        if (const memsub_status s = check_policy_config(config, error); s != MEMSUB_OK) return s;
        const memsub::geometry g = geometry_of(*config);
        *out = new memsub_policy(g, choice_params(g, policy_name == nullptr ? "" : policy_name));
        return MEMSUB_OK;
    });
}

MEMSUB_HOST_API memsub_status memsub_policy_destroy(memsub_policy* policy) {
    delete policy;
    return MEMSUB_OK;
}

MEMSUB_HOST_API memsub_status memsub_policy_names(const memsub_policy_config* config, char* buffer,
                                                  size_t buffer_bytes, size_t* needed,
                                                  memsub_error* error) {
    return guarded(error, [&] {
        if (const memsub_status s = check_policy_config(config, error); s != MEMSUB_OK) return s;
        return write_list(buffer, buffer_bytes, needed, error, "policy names", [&] {
            return memsub::host::policy_choice::names(geometry_of(*config), {});
        });
    });
}

MEMSUB_HOST_API memsub_status memsub_policy_params(const char* policy_name,
                                                   const memsub_policy_config* config, char* buffer,
                                                   size_t buffer_bytes, size_t* needed,
                                                   memsub_error* error) {
    return guarded(error, [&] {
        if (const memsub_status s = check_policy_config(config, error); s != MEMSUB_OK) return s;
        return write_list(buffer, buffer_bytes, needed, error, "settings", [&] {
            return settings_of(geometry_of(*config), policy_name == nullptr ? "" : policy_name);
        });
    });
}

MEMSUB_HOST_API memsub_status memsub_policy_name(const memsub_policy* policy, const char** name) {
    if (policy == nullptr || name == nullptr) return MEMSUB_INVALID_ARGUMENT;
    *name = policy->name.c_str();
    return MEMSUB_OK;
}

MEMSUB_HOST_API memsub_status memsub_policy_on_hit(memsub_policy* policy, uint32_t set,
                                                   uint32_t way, const memsub_access* access) {
    if (!hook_ok(policy, set, way, access) || !way_valid(*policy, set, way))
        return MEMSUB_INVALID_ARGUMENT;
    policy->policy.on_hit(memsub::set_index{set}, memsub::entry_index{way}, to_access(*access));
    return MEMSUB_OK;
}

MEMSUB_HOST_API memsub_status memsub_policy_on_miss(memsub_policy* policy, uint32_t set,
                                                    const memsub_access* access) {
    if (!hook_ok(policy, set, 0, access)) return MEMSUB_INVALID_ARGUMENT;
    policy->policy.on_miss(memsub::set_index{set}, to_access(*access));
    return MEMSUB_OK;
}

MEMSUB_HOST_API memsub_status memsub_policy_should_bypass(memsub_policy* policy, uint32_t set,
                                                          const memsub_access* access,
                                                          uint8_t* bypass) {
    if (!hook_ok(policy, set, 0, access) || bypass == nullptr) return MEMSUB_INVALID_ARGUMENT;
    *bypass = policy->policy.should_bypass(memsub::set_index{set}, to_access(*access)) ? 1 : 0;
    return MEMSUB_OK;
}

MEMSUB_HOST_API memsub_status memsub_policy_victim(memsub_policy* policy, uint32_t set,
                                                   uint64_t eligible, const memsub_access* access,
                                                   uint32_t* way) {
    if (!hook_ok(policy, set, 0, access) || way == nullptr || eligible == 0 ||
        (eligible & ~policy->valid[set]) != 0)
        return MEMSUB_INVALID_ARGUMENT;
    const memsub::access a = to_access(*access);
    // A whole line needs one entry: the size-aware form with what the engine would pass.
    const memsub::replacement::room_request need{.entries_needed = 1,
                                                 .segments_needed = 0,
                                                 .incoming_bytes = policy->line_bytes,
                                                 .incoming_segments = 1};
    *way =
        policy->policy.victim(memsub::set_index{set}, memsub::entry_mask{eligible}, a, need).value;
    return MEMSUB_OK;
}

MEMSUB_HOST_API memsub_status memsub_policy_on_insert(memsub_policy* policy, uint32_t set,
                                                      uint32_t way, const memsub_access* access) {
    if (!hook_ok(policy, set, way, access) || way_valid(*policy, set, way))
        return MEMSUB_INVALID_ARGUMENT;
    const memsub::access a = to_access(*access);
    const std::uint64_t line_first = access->address & ~std::uint64_t{policy->line_bytes - 1};
    const memsub::replacement::insert_info info{.address = memsub::byte_address{line_first},
                                                .bytes = policy->line_bytes,
                                                .stored_segments = 1,
                                                .payload = 0};
    policy->policy.on_insert(memsub::set_index{set}, memsub::entry_index{way}, a, info);
    policy->valid[set] |= std::uint64_t{1} << way;
    return MEMSUB_OK;
}

MEMSUB_HOST_API memsub_status memsub_policy_on_evict(memsub_policy* policy, uint32_t set,
                                                     uint32_t way,
                                                     const memsub_evicted_block* block) {
    if (policy == nullptr || block == nullptr || set >= policy->sets || way >= policy->ways ||
        !way_valid(*policy, set, way) || block->reason >= MEMSUB_EVICTION_REASON_COUNT)
        return MEMSUB_INVALID_ARGUMENT;
    const std::uint32_t line_bytes = policy->line_bytes;
    memsub::evicted_block b;
    b.address = memsub::byte_address{block->address};
    b.line = memsub::line_address{block->address / line_bytes};
    b.bytes = block->bytes != 0 ? block->bytes : line_bytes;
    b.stored_segments = block->stored_segments != 0 ? block->stored_segments : 1;
    b.set = memsub::set_index{set};
    b.entry = memsub::entry_index{way};
    b.dirty = block->dirty != 0;
    b.reused = block->reused != 0;
    b.reason = static_cast<memsub::eviction_reason>(block->reason);
    b.touched_segments = 1;
    policy->policy.on_evict(memsub::set_index{set}, memsub::entry_index{way}, b);
    policy->valid[set] &= ~(std::uint64_t{1} << way);
    return MEMSUB_OK;
}

MEMSUB_HOST_API memsub_status memsub_policy_valid_ways(const memsub_policy* policy, uint32_t set,
                                                       uint64_t* valid) {
    if (policy == nullptr || valid == nullptr || set >= policy->sets)
        return MEMSUB_INVALID_ARGUMENT;
    *valid = policy->valid[set];
    return MEMSUB_OK;
}

MEMSUB_HOST_API memsub_status memsub_policy_storage_bits(const memsub_policy* policy,
                                                         uint64_t* bits) {
    if (policy == nullptr || bits == nullptr) return MEMSUB_INVALID_ARGUMENT;
    *bits = policy->policy.storage_bits();
    return MEMSUB_OK;
}

MEMSUB_HOST_API memsub_status memsub_compressor_create(const char* name, uint32_t line_bytes,
                                                       memsub_compressor** out,
                                                       memsub_error* error) {
    return guarded(error, [&] {
        if (name == nullptr) return fail(error, MEMSUB_INVALID_ARGUMENT, "name is NULL");
        if (out == nullptr) return fail(error, MEMSUB_INVALID_ARGUMENT, "out is NULL");
        std::unique_ptr<memsub_compressor> made;
        if (mcomp::visit_by_name(
                name, [&]<class C>() { made = std::make_unique<compressor_of<C>>(line_bytes); })) {
            *out = made.release();
            return MEMSUB_OK;
        }
        std::string built;
        for (const auto& n : compressor_names()) built += (built.empty() ? "" : ", ") + n;
        throw memsub::config_error("memsub_compressor_create", "name", name,
                                   "must name a compressor (built: " + built + ")");
    });
}

MEMSUB_HOST_API memsub_status memsub_compressor_destroy(memsub_compressor* compressor) {
    delete compressor;
    return MEMSUB_OK;
}

MEMSUB_HOST_API memsub_status memsub_compressor_names(char* buffer, size_t buffer_bytes,
                                                      size_t* needed) {
    return guarded(nullptr, [&] {
        if (buffer == nullptr && buffer_bytes > 0) return MEMSUB_INVALID_ARGUMENT;
        return write_names(compressor_names(), buffer, buffer_bytes, needed);
    });
}

MEMSUB_HOST_API memsub_status memsub_compressor_size_bits(const memsub_compressor* compressor,
                                                          const uint8_t* line, size_t bytes,
                                                          uint32_t* bits, memsub_error* error) {
    return guarded(error, [&] {
        if (const memsub_status s = check_line(compressor, line, bytes, bits, error);
            s != MEMSUB_OK)
            return s;
        *bits = compressor->size_bits(bytes_of(line, bytes));
        return MEMSUB_OK;
    });
}

MEMSUB_HOST_API memsub_status memsub_compressor_compress(const memsub_compressor* compressor,
                                                         const uint8_t* line, size_t bytes,
                                                         memsub_compressed_line* out,
                                                         memsub_error* error) {
    return guarded(error, [&] {
        if (const memsub_status s = check_line(compressor, line, bytes, out, error); s != MEMSUB_OK)
            return s;
        const mcomp::compressed_line c = compressor->compress(bytes_of(line, bytes));
        *out = memsub_compressed_line{};
        out->bits = c.bits;
        out->codebook = c.codebook;
        out->tag_data = c.tag_data;
        out->member = c.member;
        out->encoding = c.encoding;
        std::memcpy(out->payload, c.payload.data(), sizeof out->payload);
        return MEMSUB_OK;
    });
}

MEMSUB_HOST_API memsub_status memsub_compressor_decompress(const memsub_compressor* compressor,
                                                           const memsub_compressed_line* in,
                                                           uint8_t* out, size_t out_bytes,
                                                           memsub_error* error) {
    return guarded(error, [&] {
        if (in == nullptr) return fail(error, MEMSUB_INVALID_ARGUMENT, "in is NULL");
        if (const memsub_status s = check_line(compressor, out, out_bytes, out, error);
            s != MEMSUB_OK)
            return s;
        const mcomp::compressed_view view{bytes_of(in->payload, sizeof in->payload),
                                          in->bits,
                                          in->encoding,
                                          in->member,
                                          in->codebook,
                                          in->tag_data};
        const mcomp::decode_result r =
            compressor->decompress(view, {reinterpret_cast<std::byte*>(out), out_bytes});
        if (r.ok()) return MEMSUB_OK;
        char m[MEMSUB_ERROR_MESSAGE_BYTES];
        const std::string_view name = compressor->name();
        const std::string_view problem = r.message();
        std::snprintf(m, sizeof m, "%.*s: at bit offset %u: %.*s", static_cast<int>(name.size()),
                      name.data(), static_cast<unsigned>(r.bit_offset),
                      static_cast<int>(problem.size()), problem.data());
        return fail(error, MEMSUB_DECODE_ERROR, m);
    });
}

MEMSUB_HOST_API memsub_status memsub_compressor_info(const memsub_compressor* compressor,
                                                     uint32_t* line_bytes,
                                                     uint32_t* metadata_bits) {
    if (compressor == nullptr) return MEMSUB_INVALID_ARGUMENT;
    if (line_bytes != nullptr) *line_bytes = compressor->line_bytes();
    if (metadata_bits != nullptr) *metadata_bits = compressor->metadata_bits();
    return MEMSUB_OK;
}

} // extern "C"
