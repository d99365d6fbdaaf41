// memsub Python bindings: the extension module `memsub` (pybind11), one C++20 translation unit
// over memsub's headers. CMake builds it when pybind11 and NumPy are found (MEMSUB_PYTHON);
// docs/embedding/python.md is the guide.
//
// Every call that takes a stream takes whole NumPy arrays and runs its loop in C++ with the GIL
// released: no Python object is touched per access. Caches are the C interface's shapes (the
// same host::policy_choice, so the same names and results) behind one virtual call per batch.
// Decision: the same fixed set of compiled shapes as memsub_host.cpp rather than linking
// memsub::host. The C interface takes an array of 64-byte records; the columns a NumPy user
// holds (addresses, kinds, ...) are read here directly, with no record array to build.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <memsub/analysis/opt_curve.hpp>
#include <memsub/analysis/shards.hpp>
#include <memsub/analysis/stack_distance_lru.hpp>
#include <memsub/cache/access_result.hpp>
#include <memsub/cache/basic_cache.hpp>
#include <memsub/cache/fully_associative.hpp>
#include <memsub/cache/hierarchy.hpp>
#include <memsub/compression/all.hpp>
#include <memsub/compression/by_name.hpp>
#include <memsub/config.hpp>
#include <memsub/core/access.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/geometry.hpp>
#include <memsub/host/host_policies.hpp>
#include <memsub/replacement/next_use.hpp>
#include <memsub/trace/open.hpp>
#include <memsub/version.hpp>

namespace py = pybind11;
namespace mc = memsub::cache;
namespace mcomp = memsub::compression;

namespace {

// ---------------------------------------------------------------- errors

PyObject* config_error_type = nullptr;
PyObject* trace_error_type = nullptr;

/// Raises `type(message)` with the attributes given (names the parameter for ConfigError).
void raise_with(PyObject* type, const char* message,
                std::initializer_list<std::pair<const char*, std::string>> attributes) {
    py::object exc = py::reinterpret_steal<py::object>(PyObject_CallFunction(type, "s", message));
    if (!exc) return; // the call set its own error
    for (const auto& [name, value] : attributes) exc.attr(name) = py::str(value);
    PyErr_SetObject(type, exc.ptr());
}

/// A ConfigError thrown from the binding itself (same message shape as memsub::config_error).
[[noreturn]] void config_fail(std::string_view component, std::string_view parameter,
                              std::string_view value, std::string_view rule) {
    throw memsub::config_error(component, parameter, value, rule);
}

/// The array arguments' checks: TypeError for a wrong kind of data, ValueError for a wrong
/// shape or value. Both name the argument.
[[noreturn]] void type_fail(const std::string& message) {
    throw py::type_error(message);
}
[[noreturn]] void value_fail(const std::string& message) {
    throw py::value_error(message);
}

// ---------------------------------------------------------------- array arguments

py::module_ numpy() {
    return py::module_::import("numpy");
}

std::string dtype_name(const py::array& a) {
    return py::str(a.dtype()).cast<std::string>();
}

/// `obj` as a 1-D C-contiguous array of integer type `T`: the caller's array itself when it is
/// one already (no copy), else a converted copy of any integer array whose values fit.
template <class T>
py::array_t<T> integer_column(py::handle obj, const char* name) {
    // An array is taken as it is (numpy.asarray would cost a Python call on every batch).
    py::array a = py::isinstance<py::array>(obj) ? py::reinterpret_borrow<py::array>(obj)
                                                 : py::array(numpy().attr("asarray")(obj));
    if (a.ndim() != 1)
        value_fail(std::string(name) + " must be one-dimensional, got " + std::to_string(a.ndim()) +
                   " dimensions");
    const char kind = a.dtype().kind();
    if (kind != 'u' && kind != 'i')
        type_fail(std::string(name) + " must be an integer array (" +
                  dtype_name(py::array_t<T>(0)) + "), got dtype " + dtype_name(a));
    if (a.dtype().is(py::dtype::of<T>()) && (a.flags() & py::array::c_style) != 0)
        return py::reinterpret_borrow<py::array_t<T>>(a);
    if (a.size() > 0) {
        if (kind == 'i' && a.attr("min")().cast<std::int64_t>() < 0)
            value_fail(std::string(name) + " has a negative value");
        if (a.attr("max")().cast<std::uint64_t>() > std::numeric_limits<T>::max())
            value_fail(std::string(name) + " has a value above " +
                       std::to_string(std::numeric_limits<T>::max()));
    }
    return py::array_t<T>(numpy().attr("ascontiguousarray")(a, py::dtype::of<T>()));
}

constexpr std::array<std::string_view, memsub::access_kind_count> kind_names{
    "load", "store", "instruction_fetch", "prefetch", "writeback"};

std::uint8_t kind_of_name(const std::string& s, const char* argument) {
    for (std::size_t k = 0; k < kind_names.size(); ++k)
        if (s == kind_names[k]) return static_cast<std::uint8_t>(k);
    value_fail(std::string(argument) + ": '" + s +
               "' is not an access kind (load, store, instruction_fetch, prefetch, writeback)");
}

/// A stream of accesses borrowed from the caller's arrays (kept alive by the `owners`).
struct stream {
    const std::uint64_t* address = nullptr;
    std::size_t n = 0;
    const std::uint8_t* kind = nullptr; // nullptr: every access is `kind_all`
    std::uint8_t kind_all = 0;
    const std::uint64_t* pc = nullptr;
    const std::uint32_t* size = nullptr;
    const std::uint64_t* next_use = nullptr;
    std::vector<py::object> owners;

    MEMSUB_ALWAYS_INLINE memsub::access at(std::size_t i) const noexcept {
        memsub::access a;
        a.address = memsub::byte_address{address[i]};
        a.kind = static_cast<memsub::access_kind>(kind != nullptr ? kind[i] : kind_all);
        if (pc != nullptr) a.pc = pc[i];
        if (size != nullptr) a.size = size[i];
        if (next_use != nullptr) a.hints.next_use = next_use[i];
        return a;
    }
};

/// Checks and borrows the arrays of an access call.
stream make_stream(py::handle addresses, py::handle kinds, py::handle pcs, py::handle sizes) {
    stream s;
    auto addr = integer_column<std::uint64_t>(addresses, "addresses");
    s.address = addr.data();
    s.n = static_cast<std::size_t>(addr.size());
    s.owners.push_back(addr);
    auto same_length = [&](const py::array& a, const char* name) {
        if (static_cast<std::size_t>(a.size()) != s.n)
            value_fail(std::string(name) + " has " + std::to_string(a.size()) +
                       " elements, addresses has " + std::to_string(s.n));
    };
    if (!kinds.is_none()) {
        if (py::isinstance<py::str>(kinds)) {
            s.kind_all = kind_of_name(kinds.cast<std::string>(), "kinds");
        } else if (py::isinstance<py::int_>(kinds)) {
            const auto k = kinds.cast<long long>();
            if (k < 0 || k >= static_cast<long long>(memsub::access_kind_count))
                value_fail("kinds = " + std::to_string(k) + " is not an access kind (0 .. 4)");
            s.kind_all = static_cast<std::uint8_t>(k);
        } else {
            py::array a = py::isinstance<py::array>(kinds)
                              ? py::reinterpret_borrow<py::array>(kinds)
                              : py::array(numpy().attr("asarray")(kinds));
            const char dk = a.dtype().kind();
            py::array_t<std::uint8_t> codes;
            if (dk == 'U' || dk == 'S' || dk == 'O') { // names: one look-up per distinct name
                if (a.ndim() != 1) value_fail("kinds must be one-dimensional");
                py::tuple u = numpy().attr("unique")(a, py::arg("return_inverse") = true);
                py::list names = u[0].attr("tolist")();
                std::vector<std::uint8_t> code_of;
                for (py::handle n : names) {
                    std::string name = py::isinstance<py::bytes>(n)
                                           ? n.cast<py::bytes>().cast<std::string>()
                                           : py::str(n).cast<std::string>();
                    code_of.push_back(kind_of_name(name, "kinds"));
                }
                py::array table = py::array_t<std::uint8_t>(
                    static_cast<py::ssize_t>(code_of.size()), code_of.data());
                const py::object picked = table.attr("__getitem__")(u[1]);
                codes = integer_column<std::uint8_t>(picked, "kinds");
            } else {
                codes = integer_column<std::uint8_t>(a, "kinds");
                // The largest code, in C++: a Python call to .max() would be most of the cost
                // of a small batch.
                std::uint8_t largest = 0;
                const std::uint8_t* c = codes.data();
                for (py::ssize_t i = 0, n = codes.size(); i < n; ++i)
                    largest = std::max(largest, c[i]);
                if (largest >= memsub::access_kind_count)
                    value_fail("kinds has a value above 4 (writeback); the kinds are "
                               "memsub.LOAD .. memsub.WRITEBACK");
            }
            same_length(codes, "kinds");
            s.kind = codes.data();
            s.owners.push_back(codes);
        }
    }
    if (!pcs.is_none()) {
        auto p = integer_column<std::uint64_t>(pcs, "pcs");
        same_length(p, "pcs");
        s.pc = p.data();
        s.owners.push_back(p);
    }
    if (!sizes.is_none()) {
        auto z = integer_column<std::uint32_t>(sizes, "sizes");
        same_length(z, "sizes");
        s.size = z.data();
        s.owners.push_back(z);
    }
    return s;
}

/// The position of the next access to each access's line within `s` (memsub::never if none),
/// plus `offset`: OPT's hint for this call only.
std::vector<std::uint64_t> next_uses(const stream& s, std::uint32_t line_bytes,
                                     std::uint64_t offset) {
    const std::uint32_t shift = static_cast<std::uint32_t>(std::countr_zero(line_bytes));
    std::vector<memsub::line_address> lines(s.n);
    for (std::size_t i = 0; i < s.n; ++i) lines[i] = memsub::line_address{s.address[i] >> shift};
    std::vector<std::uint64_t> next = memsub::replacement::next_use_positions(lines);
    for (auto& v : next)
        if (v != memsub::never) v += offset;
    return next;
}

// ---------------------------------------------------------------- statistics

py::dict stats_dict(const mc::cache_stats& s) {
    py::dict d;
    d["accesses"] = s.accesses();
    d["misses"] = s.misses();
    d["hits"] = s.hits();
    d["miss_ratio"] = s.miss_ratio();
    py::dict by_kind;
    for (std::size_t k = 0; k < memsub::access_kind_count; ++k) {
        py::dict one;
        one["accesses"] = s.by_kind[k].accesses;
        one["misses"] = s.by_kind[k].misses;
        by_kind[py::str(std::string(kind_names[k]))] = one;
    }
    d["by_kind"] = by_kind;
    d["fills"] = s.fills;
    d["partial_misses"] = s.partial_misses;
    d["evictions"] = s.evictions;
    d["writebacks"] = s.writebacks;
    d["bypasses"] = s.bypasses();
    d["invalidations"] = s.invalidations;
    d["bytes_fetched"] = s.bytes_fetched;
    d["bytes_written_down"] = s.bytes_written_down;
    d["bytes_written_back"] = s.bytes_written_back;
    return d;
}

/// a - b, counter by counter (a fully associative cache keeps no reset: its counters are read
/// against the snapshot taken at reset_stats).
mc::cache_stats minus(mc::cache_stats a, const mc::cache_stats& b) noexcept {
    a.fills -= b.fills;
    a.partial_misses -= b.partial_misses;
    a.evictions -= b.evictions;
    for (std::size_t r = 0; r < a.bypasses_by_reason.size(); ++r)
        a.bypasses_by_reason[r] -= b.bypasses_by_reason[r];
    a.writebacks -= b.writebacks;
    a.invalidations -= b.invalidations;
    a.resizes -= b.resizes;
    a.bytes_fetched -= b.bytes_fetched;
    a.bytes_written_down -= b.bytes_written_down;
    a.bytes_written_back -= b.bytes_written_back;
    for (std::size_t k = 0; k < a.by_kind.size(); ++k) {
        a.by_kind[k].accesses -= b.by_kind[k].accesses;
        a.by_kind[k].misses -= b.by_kind[k].misses;
    }
    for (std::size_t r = 0; r < a.invalidations_by_reason.size(); ++r)
        a.invalidations_by_reason[r] -= b.invalidations_by_reason[r];
    a.resizes_refused -= b.resizes_refused;
    a.specs_clamped -= b.specs_clamped;
    return a;
}

// ---------------------------------------------------------------- caches

/// Runs `f` without the GIL and holding `m`: the loops run unlocked, and two Python threads
/// sharing one cache take turns instead of racing on it. The GIL is released before `m` is
/// taken, so a thread waiting for `m` never holds the GIL the holder needs to return.
template <class F>
decltype(auto) exclusive(std::mutex& m, F&& f) {
    py::gil_scoped_release unlocked;
    const std::lock_guard<std::mutex> hold(m);
    return f();
}

constexpr std::string_view cache_component = "memsub.Cache";

/// A cache of one compiled shape; `run` is the whole access loop (one virtual call per batch).
class cache_base {
public:
    cache_base() = default;
    cache_base(const cache_base&) = delete;
    cache_base& operator=(const cache_base&) = delete;
    virtual ~cache_base() = default;
    /// Runs `s` in order, writes hit flags, returns the hits.
    virtual std::uint64_t run(const stream& s, std::uint8_t* flags) noexcept = 0;
    [[nodiscard]] virtual mc::cache_stats stats() const noexcept = 0;
    virtual void reset_stats() noexcept = 0;
};

template <class Cache>
class engine_cache final : public cache_base {
public:
    engine_cache(const memsub::geometry& g, const typename Cache::policy_params& p)
        : cache_(g, p) {}

    std::uint64_t run(const stream& s, std::uint8_t* flags) noexcept override {
        // basic_cache::access_all's loop: the metadata of the access `distance` ahead is
        // prefetched, which hides the memory latency of large caches.
        constexpr std::size_t distance = 8;
        std::uint64_t hits = 0;
        for (std::size_t i = 0; i < s.n; ++i) {
            if (i + distance < s.n) cache_.prefetch(memsub::byte_address{s.address[i + distance]});
            const bool hit = cache_.access(s.at(i)).hit;
            hits += hit;
            flags[i] = hit;
        }
        return hits;
    }
    mc::cache_stats stats() const noexcept override { return cache_.stats(); }
    void reset_stats() noexcept override { cache_.reset_stats(); }

private:
    Cache cache_;
};

template <class Order>
class fa_cache final : public cache_base {
public:
    fa_cache(std::uint64_t lines, std::uint32_t line_bytes) : cache_(lines, line_bytes) {}

    std::uint64_t run(const stream& s, std::uint8_t* flags) noexcept override {
        std::uint64_t hits = 0;
        for (std::size_t i = 0; i < s.n; ++i) {
            const bool hit = cache_.access(s.at(i)).hit;
            hits += hit;
            flags[i] = hit;
        }
        return hits;
    }
    mc::cache_stats stats() const noexcept override { return minus(cache_.stats(), since_); }
    void reset_stats() noexcept override { since_ = cache_.stats(); }

private:
    mc::fully_associative_cache<Order> cache_;
    mc::cache_stats since_{};
};

template <mc::write_policy W, std::uint32_t MaxBlockSegments>
using engine_shape =
    mc::basic_cache<memsub::host::policy_choice,
                    mc::cache_options{.writes = W, .max_block_segments = MaxBlockSegments}>;

template <std::uint32_t MaxBlockSegments>
std::unique_ptr<cache_base> make_engine(mc::write_policy writes, const memsub::geometry& g,
                                        const memsub::host::policy_choice::params& p) {
    using W = mc::write_policy;
    switch (writes) {
    case W::write_back:
        return std::make_unique<engine_cache<engine_shape<W::write_back, MaxBlockSegments>>>(g, p);
    case W::write_through:
        return std::make_unique<engine_cache<engine_shape<W::write_through, MaxBlockSegments>>>(g,
                                                                                                p);
    default:
        return std::make_unique<engine_cache<engine_shape<W::write_evict, MaxBlockSegments>>>(g, p);
    }
}

enum class cache_kind { set_associative, fully_associative, variable_block };

cache_kind parse_kind(const std::string& kind) {
    if (kind == "set_associative") return cache_kind::set_associative;
    if (kind == "fully_associative") return cache_kind::fully_associative;
    if (kind == "variable_block") return cache_kind::variable_block;
    config_fail(cache_component, "kind", kind,
                "must be set_associative, fully_associative or variable_block");
}

mc::write_policy parse_write_policy(const std::string& w) {
    if (w == "write_back") return mc::write_policy::write_back;
    if (w == "write_through") return mc::write_policy::write_through;
    if (w == "write_evict") return mc::write_policy::write_evict;
    config_fail(cache_component, "write_policy", w,
                "must be write_back, write_through or write_evict");
}

constexpr std::array<std::string_view, 3> fa_orders{"lru", "fifo", "opt"};

/// A policy spec with `params` (a dict of setting -> value, or None) appended as its settings:
/// ("srrip", {"rrpv_bits": 3}) is "srrip:rrpv_bits=3". Booleans are written true/false.
std::string spec_with(const std::string& policy, const py::object& params) {
    std::string spec = policy.empty() ? "lru" : policy;
    if (params.is_none()) return spec;
    if (!py::isinstance<py::dict>(params)) type_fail("params must be a dict or None");
    bool first = spec.find(':') == std::string::npos;
    for (auto [key, value] : params.cast<py::dict>()) {
        spec += first ? ':' : ',';
        first = false;
        spec += py::str(key).cast<std::string>();
        spec += '=';
        if (py::isinstance<py::bool_>(value))
            spec += value.cast<bool>() ? "true" : "false";
        else
            spec += py::str(value).cast<std::string>();
    }
    return spec;
}

/// The Python class memsub.Cache.
class py_cache {
public:
    py_cache(const std::string& policy, std::uint32_t sets, std::uint32_t ways,
             std::uint32_t line_bytes, const std::string& kind_name,
             const std::string& write_policy_name, std::optional<std::uint64_t> lines,
             std::uint32_t segment_bytes, std::uint32_t tags_per_set,
             std::uint32_t max_block_segments, const py::object& params)
        : policy_(spec_with(policy, params))
        , line_bytes_(line_bytes) {
        const cache_kind kind = parse_kind(kind_name);
        const mc::write_policy writes = parse_write_policy(write_policy_name);
        if (kind == cache_kind::fully_associative) {
            if (writes != mc::write_policy::write_back)
                config_fail(cache_component, "write_policy", write_policy_name,
                            "a fully associative cache is write_back only");
            const std::uint64_t n = lines.value_or(std::uint64_t{sets} * ways);
            if (!memsub::spec_settings(policy_).empty())
                config_fail(cache_component, "policy", policy_,
                            "a fully associative cache's orders (lru, fifo, opt) take no "
                            "parameters");
            const std::string_view order = memsub::spec_policy_name(policy_);
            if (order == "lru")
                cache_ = std::make_unique<fa_cache<mc::fa_lru>>(n, line_bytes);
            else if (order == "fifo")
                cache_ = std::make_unique<fa_cache<mc::fa_fifo>>(n, line_bytes);
            else if (order == "opt")
                cache_ = std::make_unique<fa_cache<mc::fa_opt>>(n, line_bytes);
            else
                config_fail(cache_component, "policy", policy_,
                            "must name a fully associative order (built: lru, fifo, opt)");
            return;
        }
        if (lines.has_value())
            config_fail(cache_component, "lines", std::to_string(*lines),
                        "is for fully associative caches only (use sets and ways)");
        const memsub::geometry g{.sets = sets,
                                 .ways = ways,
                                 .line_bytes = line_bytes,
                                 .segment_bytes = segment_bytes,
                                 .tags_per_set = tags_per_set};
        g.validate(cache_component);
        const auto p = memsub::host::policy_choice::params_for(g, policy_);
        if (kind == cache_kind::set_associative) {
            cache_ = make_engine<1>(writes, g, p);
            return;
        }
        std::uint32_t m = max_block_segments;
        if (m == 0) {
            memsub::require(g.segments_per_line() <= 4, cache_component, "segment_bytes",
                            g.segment_size(),
                            "a variable-block cache here holds at most 4 segments per line");
            m = g.segments_per_line() <= 2 ? 2 : 4;
        }
        memsub::require(m == 2 || m == 4, cache_component, "max_block_segments", m,
                        "must be 0 (the smallest that fits), 2 or 4");
        cache_ = m == 2 ? make_engine<2>(writes, g, p) : make_engine<4>(writes, g, p);
    }

    py::array_t<std::uint8_t> access(py::handle addresses, py::handle kinds, py::handle pcs,
                                     py::handle sizes) {
        stream s = make_stream(addresses, kinds, pcs, sizes);
        py::array_t<std::uint8_t> flags(static_cast<py::ssize_t>(s.n));
        std::uint8_t* out = flags.mutable_data();
        exclusive(mutex_, [&] {
            std::vector<std::uint64_t> next;
            if (memsub::spec_policy_name(policy_) ==
                "opt") { // OPT sees this call's array only (documented)
                next = next_uses(s, line_bytes_, position_);
                s.next_use = next.data();
            }
            cache_->run(s, out);
            position_ += s.n;
        });
        return flags;
    }

    py::dict stats() {
        return stats_dict(exclusive(mutex_, [&] { return cache_->stats(); }));
    }
    void reset_stats() {
        exclusive(mutex_, [&] { cache_->reset_stats(); });
    }
    const std::string& policy() const noexcept { return policy_; }

private:
    std::string policy_;
    std::uint32_t line_bytes_;
    std::unique_ptr<cache_base> cache_;
    std::uint64_t position_ = 0; // accesses so far: OPT's positions increase across calls
    std::mutex mutex_;
};

std::vector<std::string> policy_names(const std::string& kind_name, std::uint32_t sets,
                                      std::uint32_t ways, std::uint32_t line_bytes,
                                      std::uint32_t segment_bytes, std::uint32_t tags_per_set) {
    if (parse_kind(kind_name) == cache_kind::fully_associative)
        return {fa_orders.begin(), fa_orders.end()};
    const memsub::geometry g{.sets = sets,
                             .ways = ways,
                             .line_bytes = line_bytes,
                             .segment_bytes = segment_bytes,
                             .tags_per_set = tags_per_set};
    g.validate("memsub.policy_names");
    return memsub::host::policy_choice::names(g, {});
}

/// memsub.policy_params: the settings of a policy spec on a geometry, as a dict of Python values.
py::dict policy_params(const std::string& policy, std::uint32_t sets, std::uint32_t ways,
                       std::uint32_t line_bytes, const py::object& params) {
    const memsub::geometry g{.sets = sets, .ways = ways, .line_bytes = line_bytes};
    g.validate("memsub.policy_params");
    py::dict out;
    for (const auto& f :
         memsub::host::policy_choice::param_fields_of(g, spec_with(policy, params))) {
        if (f.takes == "bool")
            out[py::str(f.key)] = py::bool_(f.value == "true");
        else if (f.takes == "unsigned" || f.takes == "integer")
            out[py::str(f.key)] = py::int_(py::str(f.value));
        else if (f.takes == "real")
            out[py::str(f.key)] = py::float_(std::stod(f.value));
        else
            out[py::str(f.key)] = py::str(f.value);
    }
    return out;
}

// ---------------------------------------------------------------- hierarchy

constexpr std::string_view hierarchy_component = "memsub.Hierarchy";
using level_cache = mc::set_associative_cache<memsub::host::policy_choice>;
using level_type = mc::level<level_cache>;
constexpr std::size_t max_depth = 3;

struct level_spec {
    std::string policy = "lru";
    memsub::geometry g{};
};

class hierarchy_base {
public:
    hierarchy_base() = default;
    hierarchy_base(const hierarchy_base&) = delete;
    hierarchy_base& operator=(const hierarchy_base&) = delete;
    virtual ~hierarchy_base() = default;
    virtual void run(const stream& s, std::uint8_t* served) noexcept = 0;
    [[nodiscard]] virtual std::size_t depth() const noexcept = 0;
    [[nodiscard]] virtual mc::cache_stats level_stats(std::size_t k) const noexcept = 0;
    [[nodiscard]] virtual mc::level_counters counters(std::size_t k) const noexcept = 0;
    [[nodiscard]] virtual mc::memory_counters memory() const noexcept = 0;
    virtual void reset_stats() noexcept = 0;
};

template <std::size_t... K>
class hierarchy_of final : public hierarchy_base {
    template <std::size_t>
    struct level_at {
        using type = level_type;
    };

public:
    explicit hierarchy_of(const std::vector<level_spec>& specs) : h_(1, make(specs[K])...) {}

    void run(const stream& s, std::uint8_t* served) noexcept override {
        for (std::size_t i = 0; i < s.n; ++i)
            served[i] = static_cast<std::uint8_t>(h_.access(s.at(i)).served_by);
    }
    std::size_t depth() const noexcept override { return sizeof...(K); }
    mc::cache_stats level_stats(std::size_t k) const noexcept override { return h_.level_stats(k); }
    mc::level_counters counters(std::size_t k) const noexcept override { return h_.counters(k); }
    mc::memory_counters memory() const noexcept override { return h_.memory_stats(); }
    void reset_stats() noexcept override { h_.reset_stats(); }

private:
    static level_type make(const level_spec& l) {
        return mc::make_level<level_cache>(1, l.g, mc::route::shared{},
                                           memsub::host::policy_choice::params_for(l.g, l.policy));
    }
    mc::hierarchy<typename level_at<K>::type...> h_;
};

template <std::size_t... K>
std::unique_ptr<hierarchy_base> make_hierarchy(const std::vector<level_spec>& specs,
                                               std::index_sequence<K...>) {
    return std::make_unique<hierarchy_of<K...>>(specs);
}

/// The Python class memsub.Hierarchy.
class py_hierarchy {
public:
    explicit py_hierarchy(const py::list& levels) {
        if (levels.empty() || levels.size() > max_depth)
            config_fail(hierarchy_component, "levels", std::to_string(levels.size()),
                        "must list 1 to 3 levels");
        std::vector<level_spec> specs;
        for (std::size_t k = 0; k < levels.size(); ++k) {
            const py::object item = levels[k];
            if (!py::isinstance<py::dict>(item))
                type_fail("levels[" + std::to_string(k) + "] must be a dict");
            const auto d = item.cast<py::dict>();
            level_spec l;
            l.g.line_bytes = 64;
            const std::string component =
                std::string(hierarchy_component) + " level " + std::to_string(k);
            for (auto [key, value] : d) {
                const auto name = py::str(key).cast<std::string>();
                if (name == "policy")
                    l.policy = value.cast<std::string>();
                else if (name == "sets")
                    l.g.sets = value.cast<std::uint32_t>();
                else if (name == "ways")
                    l.g.ways = value.cast<std::uint32_t>();
                else if (name == "line_bytes")
                    l.g.line_bytes = value.cast<std::uint32_t>();
                else
                    config_fail(component, name, py::str(value).cast<std::string>(),
                                "is not a level parameter (policy, sets, ways, line_bytes)");
            }
            if (memsub::spec_policy_name(l.policy) == "opt")
                config_fail(component, "policy", l.policy,
                            "OPT needs the next uses of each level's own stream; use "
                            "memsub.Cache(policy='opt') for one level");
            l.g.validate(component);
            const memsub::host::policy_choice check( // names the policy in the error
                l.g, memsub::host::policy_choice::params_for(l.g, l.policy));
            (void)check;
            specs.push_back(l);
        }
        switch (specs.size()) {
        case 1:
            h_ = make_hierarchy(specs, std::make_index_sequence<1>{});
            break;
        case 2:
            h_ = make_hierarchy(specs, std::make_index_sequence<2>{});
            break;
        default:
            h_ = make_hierarchy(specs, std::make_index_sequence<3>{});
            break;
        }
    }

    py::array_t<std::uint8_t> access(py::handle addresses, py::handle kinds, py::handle pcs,
                                     py::handle sizes) {
        const stream s = make_stream(addresses, kinds, pcs, sizes);
        py::array_t<std::uint8_t> served(static_cast<py::ssize_t>(s.n));
        std::uint8_t* out = served.mutable_data();
        exclusive(mutex_, [&] { h_->run(s, out); });
        return served;
    }

    py::list stats() {
        std::vector<std::pair<mc::cache_stats, mc::level_counters>> levels;
        exclusive(mutex_, [&] {
            for (std::size_t k = 0; k < h_->depth(); ++k)
                levels.emplace_back(h_->level_stats(k), h_->counters(k));
        });
        py::list out;
        for (const auto& [stats, counters] : levels) {
            py::dict d = stats_dict(stats);
            d["served"] = counters.served;
            d["back_invalidated"] = counters.back_invalidated;
            out.append(d);
        }
        return out;
    }

    py::dict memory_stats() {
        const mc::memory_counters m = exclusive(mutex_, [&] { return h_->memory(); });
        py::dict d;
        d["served"] = m.served;
        d["reads"] = m.reads;
        d["writes"] = m.writes;
        d["writebacks"] = m.writebacks;
        d["bytes_read"] = m.bytes_read;
        d["bytes_written"] = m.bytes_written;
        return d;
    }

    void reset_stats() {
        exclusive(mutex_, [&] { h_->reset_stats(); });
    }
    std::size_t depth() const { return h_->depth(); }

private:
    std::unique_ptr<hierarchy_base> h_;
    std::mutex mutex_;
};

// ---------------------------------------------------------------- miss-ratio curves

constexpr std::string_view curve_component = "memsub.miss_ratio_curve";

py::dict miss_ratio_curve(py::handle addresses, std::uint32_t line_bytes, py::handle sizes_arg,
                          const std::string& method, std::optional<std::uint64_t> max_lines,
                          double rate, std::size_t max_sampled_lines, std::uint64_t seed) {
    auto addr = integer_column<std::uint64_t>(addresses, "addresses");
    if (line_bytes < 4 || !std::has_single_bit(line_bytes))
        config_fail(curve_component, "line_bytes", std::to_string(line_bytes),
                    "must be a power of two >= 4");
    if (method != "lru_stack" && method != "shards" && method != "opt")
        config_fail(curve_component, "method", method, "must be lru_stack, shards or opt");
    std::vector<std::uint64_t> sizes;
    if (!sizes_arg.is_none()) {
        auto z = integer_column<std::uint64_t>(sizes_arg, "sizes");
        sizes.assign(z.data(), z.data() + z.size());
        if (sizes.empty()) value_fail("sizes is empty");
    }
    const std::uint64_t default_bound =
        method == "opt" ? std::uint64_t{1} << 16 : std::uint64_t{1} << 20;
    const std::uint64_t bound = max_lines.value_or(
        sizes.empty() ? default_bound
                      : std::max<std::uint64_t>(1, *std::max_element(sizes.begin(), sizes.end())));
    for (const std::uint64_t c : sizes)
        if (c > bound)
            config_fail(curve_component, "sizes", std::to_string(c),
                        "must be <= max_lines (" + std::to_string(bound) + ")");

    const std::uint64_t* a = addr.data();
    const std::size_t n = static_cast<std::size_t>(addr.size());
    const std::uint32_t shift = static_cast<std::uint32_t>(std::countr_zero(line_bytes));
    std::vector<double> ratio_at; // index = capacity in lines
    std::vector<std::uint64_t> miss_at;
    std::uint64_t accesses = 0, cold = 0;
    double footprint = 0; // distinct lines (estimated for SHARDS)
    {
        // The analysis classes validate their params (config_error) before the loop.
        if (method == "lru_stack") {
            memsub::analysis::stack_distance_lru curve(
                {.line_bytes = line_bytes, .max_capacity_lines = bound, .expected_lines = 0});
            py::gil_scoped_release unlocked;
            for (std::size_t i = 0; i < n; ++i)
                (void)curve.access_line(memsub::line_address{a[i] >> shift});
            miss_at = curve.miss_curve();
            accesses = curve.accesses();
            cold = curve.cold_misses();
            footprint = static_cast<double>(curve.distinct_lines());
        } else if (method == "opt") {
            memsub::analysis::opt_curve curve(
                {.line_bytes = line_bytes, .max_capacity_lines = bound});
            py::gil_scoped_release unlocked;
            std::vector<memsub::line_address> lines(n);
            for (std::size_t i = 0; i < n; ++i) lines[i] = memsub::line_address{a[i] >> shift};
            const std::vector<std::uint64_t> next = memsub::replacement::next_use_positions(lines);
            for (std::size_t i = 0; i < n; ++i) (void)curve.access_line(lines[i], next[i]);
            miss_at = curve.miss_curve();
            accesses = curve.accesses();
            cold = curve.cold_misses();
            footprint = static_cast<double>(curve.distinct_lines());
        } else {
            memsub::analysis::shards curve({.line_bytes = line_bytes,
                                            .max_capacity_lines = bound,
                                            .rate = rate,
                                            .max_sampled_lines = max_sampled_lines,
                                            .adjust = true,
                                            .seed = seed});
            py::gil_scoped_release unlocked;
            for (std::size_t i = 0; i < n; ++i)
                curve.access_line(memsub::line_address{a[i] >> shift});
            ratio_at = curve.miss_ratio_curve();
            accesses = n;
            footprint = static_cast<double>(curve.sampled_lines()) / curve.rate();
        }
    }
    if (sizes.empty()) // powers of two up to the footprint (the curve is flat beyond it)
        for (std::uint64_t c = 1; c <= bound; c *= 2) {
            sizes.push_back(c);
            if (static_cast<double>(c) >= footprint) break;
        }
    const auto m = static_cast<py::ssize_t>(sizes.size());
    py::array_t<std::uint64_t> lines_out(m), bytes_out(m);
    py::array_t<double> ratio_out(m), misses_out(m);
    for (py::ssize_t i = 0; i < m; ++i) {
        const std::uint64_t c = sizes[static_cast<std::size_t>(i)];
        lines_out.mutable_at(i) = c;
        bytes_out.mutable_at(i) = c * line_bytes;
        if (method == "shards") {
            ratio_out.mutable_at(i) = ratio_at[c];
            misses_out.mutable_at(i) = ratio_at[c] * static_cast<double>(accesses);
        } else {
            misses_out.mutable_at(i) = static_cast<double>(miss_at[c]);
            ratio_out.mutable_at(i) =
                accesses == 0 ? 0.0
                              : static_cast<double>(miss_at[c]) / static_cast<double>(accesses);
        }
    }
    py::dict out;
    out["lines"] = lines_out;
    out["bytes"] = bytes_out;
    out["miss_ratio"] = ratio_out;
    if (method == "shards") {
        out["misses"] = misses_out;
    } else {
        out["misses"] = misses_out.attr("astype")(py::dtype::of<std::uint64_t>());
        out["cold_misses"] = cold;
    }
    out["accesses"] = accesses;
    out["method"] = method;
    out["line_bytes"] = line_bytes;
    return out;
}

// ---------------------------------------------------------------- compression

constexpr std::string_view compression_component = "memsub.compression";

class compressor_base {
public:
    compressor_base() = default;
    compressor_base(const compressor_base&) = delete;
    compressor_base& operator=(const compressor_base&) = delete;
    virtual ~compressor_base() = default;
    /// Sizes in bits of each line of `data` (whole lines), into `bits`.
    virtual void sizes(const std::uint8_t* data, std::size_t lines,
                       std::uint32_t* bits) const noexcept = 0;
    [[nodiscard]] virtual mcomp::compressed_line
    compress(std::span<const std::byte> line) const noexcept = 0;
    [[nodiscard]] virtual mcomp::decode_result
    decompress(const mcomp::compressed_view& in, std::span<std::byte> out) const noexcept = 0;
};

template <class C>
class compressor_of final : public compressor_base {
public:
    explicit compressor_of(std::uint32_t line_bytes)
        : c_(mcomp::default_params_for<C>(line_bytes))
        , line_bytes_(line_bytes) {}

    void sizes(const std::uint8_t* data, std::size_t lines,
               std::uint32_t* bits) const noexcept override {
        for (std::size_t i = 0; i < lines; ++i)
            bits[i] = c_.size_bits(std::span<const std::byte>(
                reinterpret_cast<const std::byte*>(data) + i * line_bytes_, line_bytes_));
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
    std::uint32_t line_bytes_;
};

std::vector<std::string> compressor_names() {
    return {mcomp::offered_names.begin(), mcomp::offered_names.end()};
}

std::unique_ptr<compressor_base> make_named(const std::string& name, std::uint32_t line_bytes) {
    std::unique_ptr<compressor_base> made; // config_error for a bad line size
    if (mcomp::visit_by_name(
            name, [&]<class C>() { made = std::make_unique<compressor_of<C>>(line_bytes); }))
        return made;
    std::string built;
    for (const auto& n : compressor_names()) built += (built.empty() ? "" : ", ") + n;
    config_fail(compression_component, "compressor", name,
                "must name a compressor (built: " + built + ")");
}

/// `obj` (bytes, bytearray, memoryview or a uint8 array) as a C-contiguous uint8 array.
py::array_t<std::uint8_t> byte_buffer(py::handle obj, const char* name) {
    py::array a;
    if (py::isinstance<py::bytes>(obj) || py::isinstance<py::bytearray>(obj) ||
        py::isinstance<py::memoryview>(obj))
        a = numpy().attr("frombuffer")(obj, py::dtype::of<std::uint8_t>());
    else
        a = numpy().attr("asarray")(obj);
    if (!a.dtype().is(py::dtype::of<std::uint8_t>()))
        type_fail(std::string(name) + " must be bytes or a uint8 array, got dtype " +
                  dtype_name(a));
    return py::array_t<std::uint8_t>(numpy().attr("ascontiguousarray")(a).attr("reshape")(-1));
}

/// The Python class memsub.CompressedLine: one line's compressed form.
struct compressed {
    std::string compressor;
    std::uint32_t line_bytes = 0;
    mcomp::compressed_line line;
};

py::array_t<std::uint32_t> compressed_sizes(py::handle buffer, const std::string& name,
                                            std::uint32_t line_bytes, const std::string& unit) {
    if (unit != "bytes" && unit != "bits")
        config_fail(compression_component, "unit", unit, "must be bytes or bits");
    const auto c = make_named(name, line_bytes);
    const auto data = byte_buffer(buffer, "buffer");
    const auto n = static_cast<std::size_t>(data.size());
    if (n % line_bytes != 0)
        value_fail("buffer has " + std::to_string(n) + " bytes, not a multiple of line_bytes (" +
                   std::to_string(line_bytes) + ")");
    py::array_t<std::uint32_t> out(static_cast<py::ssize_t>(n / line_bytes));
    std::uint32_t* o = out.mutable_data();
    {
        py::gil_scoped_release unlocked;
        c->sizes(data.data(), n / line_bytes, o);
        if (unit == "bytes")
            for (std::size_t i = 0; i < n / line_bytes; ++i) o[i] = (o[i] + 7) / 8;
    }
    return out;
}

compressed compress(py::handle line, const std::string& name) {
    const auto data = byte_buffer(line, "line");
    const auto c = make_named(name, static_cast<std::uint32_t>(data.size()));
    compressed out{name, static_cast<std::uint32_t>(data.size()), {}};
    out.line = c->compress(
        {reinterpret_cast<const std::byte*>(data.data()), static_cast<std::size_t>(data.size())});
    return out;
}

py::array_t<std::uint8_t> decompress(const compressed& in) {
    const auto c = make_named(in.compressor, in.line_bytes);
    py::array_t<std::uint8_t> out(static_cast<py::ssize_t>(in.line_bytes));
    const mcomp::decode_result r = c->decompress(
        in.line.view(), {reinterpret_cast<std::byte*>(out.mutable_data()), in.line_bytes});
    if (!r.ok())
        value_fail(in.compressor + ": the line does not decode at bit offset " +
                   std::to_string(r.bit_offset) + ": " + std::string(r.message()));
    return out;
}

// ---------------------------------------------------------------- traces

template <class T>
py::array_t<T> to_numpy(const std::vector<T>& v) {
    return py::array_t<T>(static_cast<py::ssize_t>(v.size()), v.data());
}

py::dict read_trace(const std::string& path, std::optional<std::string> format,
                    std::optional<std::uint64_t> limit, bool instruction_fetches) {
    std::optional<memsub::trace::trace_format> f;
    if (format) {
        f = memsub::trace::parse_format(*format);
        if (!f)
            config_fail("memsub.read_trace", "format", *format,
                        "must be lackey, din, text, u64, oracleGeneral or champsim");
    }
    std::vector<std::uint64_t> address, pc, next_use;
    std::vector<std::uint8_t> kind, rmw;
    std::vector<std::uint32_t> size, requester;
    std::string format_name;
    {
        py::gil_scoped_release unlocked;
        memsub::trace::open_options options;
        options.lackey.emit_instruction_fetches = instruction_fetches;
        memsub::trace::any_reader r = f ? memsub::trace::open_trace(path, *f, options)
                                        : memsub::trace::open_trace(path, options);
        format_name =
            std::visit([](const auto& reader) { return std::string(reader.format_name); }, r);
        std::vector<memsub::access> batch(4096);
        const std::uint64_t wanted = limit.value_or(memsub::never);
        while (address.size() < wanted) {
            const std::size_t room = static_cast<std::size_t>(
                std::min<std::uint64_t>(batch.size(), wanted - address.size()));
            const std::size_t got =
                memsub::trace::next_batch(r, std::span<memsub::access>(batch.data(), room));
            if (got == 0) break;
            for (std::size_t i = 0; i < got; ++i) {
                const memsub::access& a = batch[i];
                address.push_back(a.address.value);
                kind.push_back(static_cast<std::uint8_t>(a.kind));
                pc.push_back(a.pc);
                size.push_back(a.size);
                requester.push_back(a.requester);
                rmw.push_back(a.read_modify_write);
                next_use.push_back(a.hints.next_use);
            }
        }
    }
    py::dict out;
    out["address"] = to_numpy(address);
    out["kind"] = to_numpy(kind);
    out["pc"] = to_numpy(pc);
    out["size"] = to_numpy(size);
    out["requester"] = to_numpy(requester);
    out["read_modify_write"] = to_numpy(rmw).attr("astype")(py::dtype("bool"));
    out["next_use"] = to_numpy(next_use);
    out["format"] = format_name;
    return out;
}

// ---------------------------------------------------------------- the C++ baseline

/// The loop a C++20 host runs on the same stream: the records are memsub::access values built
/// before the clock starts, and basic_cache::access_all runs them (hit flags written by the
/// sink, as memsub.Cache.access writes them). Returns the seconds of the loop alone.
py::dict baseline_access_loop(const std::string& policy, std::uint32_t sets, std::uint32_t ways,
                              std::uint32_t line_bytes, py::handle addresses, py::handle kinds,
                              const std::string& layout) {
    if (layout != "records" && layout != "columns")
        config_fail("memsub.baseline", "layout", layout, "must be records or columns");
    const stream s = make_stream(addresses, kinds, py::none(), py::none());
    const memsub::geometry g{.sets = sets, .ways = ways, .line_bytes = line_bytes};
    g.validate("memsub.baseline");
    const auto p = memsub::host::policy_choice::params_for(g, policy);
    std::uint64_t hits = 0;
    double seconds = 0;
    {
        py::gil_scoped_release unlocked;
        std::vector<std::uint8_t> flags(s.n);
        if (layout == "columns") { // memsub.Cache.access's own loop, without the Python call
            engine_cache<engine_shape<mc::write_policy::write_back, 1>> cache(g, p);
            const auto start = std::chrono::steady_clock::now();
            hits = cache.run(s, flags.data());
            seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        } else {
            std::vector<memsub::access> records(s.n);
            for (std::size_t i = 0; i < s.n; ++i) records[i] = s.at(i);
            engine_shape<mc::write_policy::write_back, 1> cache(g, p);
            const auto start = std::chrono::steady_clock::now();
            std::uint8_t* f = flags.data();
            cache.access_all(records, [&](const memsub::access&, const auto& r) noexcept {
                hits += r.hit;
                *f++ = r.hit;
            });
            seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        }
    }
    py::dict out;
    out["seconds"] = seconds;
    out["hits"] = hits;
    out["misses"] = s.n - hits;
    return out;
}

} // namespace

PYBIND11_MODULE(memsub, m) {
    m.doc() = "memsub: cache and memory policies (C++20, header-only) from Python.\n\n"
              "Streams are NumPy arrays; every loop runs in C++ with the GIL released. "
              "Guide: docs/embedding/python.md.";
    m.attr("__version__") = std::string(memsub::version_string);

    // Exceptions: ConfigError is a ValueError naming the parameter (attributes component,
    // parameter, value, rule); TraceError is raised for unreadable or malformed traces.
    static py::exception<memsub::config_error> config_error_exc(m, "ConfigError", PyExc_ValueError);
    static py::exception<memsub::input_error> trace_error_exc(m, "TraceError", PyExc_RuntimeError);
    config_error_type = config_error_exc.ptr();
    trace_error_type = trace_error_exc.ptr();
    config_error_exc.doc() = "A configuration memsub refuses (a ValueError). The message and the "
                             "attribute `parameter` name the parameter; `component`, `value` "
                             "and `rule` say where and why.";
    trace_error_exc.doc() = "A trace that cannot be opened or is malformed (a RuntimeError); "
                            "the message names the file and the line or byte offset.";
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const memsub::config_error& e) {
            raise_with(config_error_type, e.what(),
                       {{"component", e.component()},
                        {"parameter", e.parameter()},
                        {"value", e.value()},
                        {"rule", e.rule()}});
        } catch (const memsub::input_error& e) {
            raise_with(trace_error_type, e.what(), {});
        }
    });

    for (std::size_t k = 0; k < kind_names.size(); ++k) {
        std::string upper(kind_names[k]);
        std::transform(upper.begin(), upper.end(), upper.begin(),
                       [](char c) { return static_cast<char>(c - ('a' <= c && c <= 'z') * 32); });
        m.attr(upper.c_str()) = k;
    }
    m.attr("KIND_NAMES") = py::cast(std::vector<std::string>(kind_names.begin(), kind_names.end()));

    m.def("policy_names", &policy_names, py::arg("kind") = "set_associative",
          py::arg("sets") = 2048, py::arg("ways") = 16, py::arg("line_bytes") = 64,
          py::arg("segment_bytes") = 0, py::arg("tags_per_set") = 0,
          "The replacement policies a cache of this kind and geometry can run, by name (a "
          "policy that refuses the geometry is left out). Set-associative and variable-block "
          "caches: every policy of memsub's replacement::all_policies, then 'opt'; fully "
          "associative: lru, fifo, opt.");
    m.def("policy_params", &policy_params, py::arg("policy"), py::arg("sets") = 2048,
          py::arg("ways") = 16, py::arg("line_bytes") = 64, py::arg("params") = py::none(),
          "The settings a set-associative policy takes, as a dict of setting -> default value "
          "(bool, int or str). `policy` may carry settings after a colon "
          "('srrip:rrpv_bits=3') and `params` more (a dict); the dict then shows them applied. "
          "An unknown policy or setting raises ConfigError.");

    py::class_<py_cache>(m, "Cache", R"doc(A memsub cache: the caches of the C interface.

kind='set_associative' (sets x ways of line_bytes), 'variable_block' (as set-associative,
with segment_bytes, tags_per_set and max_block_segments 0, 2 or 4: whole lines are inserted)
or 'fully_associative' (`lines` lines; lru, fifo or opt; write_back only; lines defaults to
sets * ways). Set-associative and variable-block caches run memsub::host::policy_choice, the
run-time choice of the C interface; policy_names() lists the names. A policy's own settings go
after a colon ('srrip:rrpv_bits=3,promotion=frequency_priority') or in `params`, a dict
({'rrpv_bits': 3}); policy_params() lists them with their defaults; the rest keep theirs.
write_policy: 'write_back', 'write_through' or 'write_evict'.

policy='opt' (Belady's MIN) needs each access's next use: access() computes it from the
array passed in that call only, so OPT sees no access beyond the end of the array (lines
still resident from earlier calls count as never used again unless this array uses them).
Pass the whole stream in one call for the true bound.

Raises ConfigError (naming the parameter) for a geometry, policy or option memsub refuses.)doc")
        .def(py::init<const std::string&, std::uint32_t, std::uint32_t, std::uint32_t,
                      const std::string&, const std::string&, std::optional<std::uint64_t>,
                      std::uint32_t, std::uint32_t, std::uint32_t, const py::object&>(),
             py::arg("policy") = "lru", py::arg("sets") = 2048, py::arg("ways") = 16,
             py::arg("line_bytes") = 64, py::arg("kind") = "set_associative",
             py::arg("write_policy") = "write_back", py::arg("lines") = py::none(),
             py::arg("segment_bytes") = 0, py::arg("tags_per_set") = 0,
             py::arg("max_block_segments") = 0, py::arg("params") = py::none())
        .def("access", &py_cache::access, py::arg("addresses"), py::arg("kinds") = py::none(),
             py::arg("pcs") = py::none(), py::arg("sizes") = py::none(),
             R"doc(Runs a stream of accesses in order; returns a uint8 array of hit flags.

addresses: 1-D integer array of byte addresses (uint64 is used as is, without a copy).
kinds: None (all loads), one kind for every access (memsub.LOAD ... or a name), a uint8
array of memsub.LOAD/STORE/INSTRUCTION_FETCH/PREFETCH/WRITEBACK, or an array of names
('load', 'store', 'instruction_fetch', 'prefetch', 'writeback').
pcs: None or a 1-D integer array (uint64) of program counters (SHiP and others read them).
sizes: None (whole line) or a 1-D integer array (uint32) of the bytes each access touches.
The loop runs in C++ with the GIL released. TypeError / ValueError name a bad argument.)doc")
        .def("stats", &py_cache::stats,
             "The counters since creation or reset_stats(): accesses, misses, hits, "
             "miss_ratio, by_kind (per access kind: accesses, misses), fills, partial_misses, "
             "evictions, writebacks, bypasses, invalidations, bytes_fetched, "
             "bytes_written_down, bytes_written_back.")
        .def("reset_stats", &py_cache::reset_stats,
             "Zeroes the counters; the cache's contents stay.")
        .def_property_readonly("policy", &py_cache::policy,
                               "The policy as given: its name, then its settings after a colon.");

    py::class_<py_hierarchy>(m, "Hierarchy", R"doc(A cache hierarchy of 1 to 3 levels.

levels: a list of dicts, level 0 (closest to the requester) first, each with policy (default
'lru'), sets, ways and line_bytes (default 64; a level's line is at least the one above).
This is memsub's cache::hierarchy (one instance per level, shared, non-inclusive) of
write-back set-associative caches running host::policy_choice, compiled for depths 1, 2 and
3: a miss fills every level it passes through and dirty victims go down as writebacks.
'opt' is not offered (each level would need its own stream's next uses). Inclusive and
exclusive levels, private or sliced instances and other write policies need the C++ API.)doc")
        .def(py::init<const py::list&>(), py::arg("levels"))
        .def("access", &py_hierarchy::access, py::arg("addresses"), py::arg("kinds") = py::none(),
             py::arg("pcs") = py::none(), py::arg("sizes") = py::none(),
             "Runs a stream (arguments as Cache.access); returns a uint8 array: the level "
             "that served each access (0 = level 0), or depth when memory served it.")
        .def("stats", &py_hierarchy::stats,
             "A list of per-level dicts: Cache.stats()'s counters, plus served (host "
             "accesses this level served) and back_invalidated.")
        .def("memory_stats", &py_hierarchy::memory_stats,
             "The requests that left the last level: served (accesses no level served), "
             "reads, writes, writebacks, bytes_read, bytes_written.")
        .def("reset_stats", &py_hierarchy::reset_stats, "Zeroes every counter.")
        .def_property_readonly("depth", &py_hierarchy::depth, "The number of levels.");

    m.def("miss_ratio_curve", &miss_ratio_curve, py::arg("addresses"), py::arg("line_bytes") = 64,
          py::arg("sizes") = py::none(), py::arg("method") = "lru_stack",
          py::arg("max_lines") = py::none(), py::arg("rate") = 0.01,
          py::arg("max_sampled_lines") = 0, py::arg("seed") = 0,
          R"doc(Fully associative miss ratios for many cache sizes in one pass over `addresses`.

method: 'lru_stack' (exact LRU, Mattson's stack distances: analysis::stack_distance_lru),
'opt' (exact Belady MIN for every size: analysis::opt_curve, next uses computed from the
array) or 'shards' (an estimate of LRU from a hashed sample of the lines: analysis::shards
with `rate`, `max_sampled_lines` (0 = fixed rate) and `seed`).
sizes: cache sizes in lines (default: powers of two up to the footprint); max_lines: the
largest size the pass keeps (default max(sizes), else 2^20, 2^16 for opt).
Returns a dict of arrays: lines, bytes, miss_ratio, misses (float estimates for shards), and
accesses, cold_misses (exact methods), method, line_bytes.)doc");

    py::class_<compressed>(m, "CompressedLine",
                           "One line compressed by memsub.compress(): compressor, line_bytes, "
                           "bits, bytes, encoding, member, codebook, tag_data and payload.")
        .def_readonly("compressor", &compressed::compressor, "The compressor's name.")
        .def_readonly("line_bytes", &compressed::line_bytes, "The uncompressed line's bytes.")
        .def_property_readonly(
            "bits", [](const compressed& c) { return c.line.bits; }, "Payload length in bits.")
        .def_property_readonly(
            "bytes", [](const compressed& c) { return c.line.bytes(); },
            "Payload length in bytes (bits rounded up).")
        .def_property_readonly(
            "encoding", [](const compressed& c) { return c.line.encoding; },
            "The algorithm's encoding id (kept in the tag).")
        .def_property_readonly(
            "member", [](const compressed& c) { return c.line.member; },
            "best_of_all: which member compressed the line.")
        .def_property_readonly(
            "codebook", [](const compressed& c) { return c.line.codebook; },
            "SC2's code-book version (0 for the others).")
        .def_property_readonly(
            "tag_data", [](const compressed& c) { return c.line.tag_data; },
            "Further tag metadata.")
        .def_property_readonly(
            "payload",
            [](const compressed& c) {
                const auto d = c.line.data();
                return py::bytes(reinterpret_cast<const char*>(d.data()), d.size());
            },
            "The payload bytes in use.")
        .def("__repr__", [](const compressed& c) {
            return "<memsub.CompressedLine " + c.compressor + " " + std::to_string(c.line.bits) +
                   " bits of " + std::to_string(c.line_bytes) + " bytes>";
        });

    m.def("compressor_names", &compressor_names,
          "The compressors offered: bdi, fpc, cpack, cpack_z, bpc, sc2, best_of_all, none, "
          "zero (default parameters; SC2 with its escape-only code book).");
    m.def("compressed_sizes", &compressed_sizes, py::arg("buffer"), py::arg("compressor") = "bdi",
          py::arg("line_bytes") = 64, py::arg("unit") = "bytes",
          "The compressed size of each line of `buffer` (bytes or a uint8 array whose length "
          "is a multiple of line_bytes): a uint32 array in bytes (unit='bytes', bits rounded "
          "up) or exact bits (unit='bits'). Runs in C++ with the GIL released.");
    m.def("compress", &compress, py::arg("line"), py::arg("compressor") = "bdi",
          "Compresses one line (bytes or a uint8 array of 32, 64 or 128 bytes) into a "
          "CompressedLine.");
    m.def("decompress", &decompress, py::arg("compressed"),
          "Decodes a CompressedLine; returns the line as a uint8 array.");

    m.def("read_trace", &read_trace, py::arg("path"), py::arg("format") = py::none(),
          py::arg("limit") = py::none(), py::arg("instruction_fetches") = false,
          R"doc(Reads a trace file through memsub::trace::open into a dict of NumPy arrays.

format: None (from the name, else the content), or lackey, din, text, u64, oracleGeneral,
champsim. limit: at most this many records. instruction_fetches: Lackey's I records are
delivered as accesses (else only counted; each data access's pc is its instruction). Returns address (uint64), kind (uint8:
memsub.LOAD ...), pc (uint64), size (uint32), requester (uint32), read_modify_write (bool),
next_use (uint64; oracleGeneral carries it, 2**64-1 = never) and format (the reader's name).
Raises TraceError for a file that cannot be opened or is malformed, ConfigError for an
unknown format. Compressed (.gz, .xz) traces must be decompressed first.)doc");

    auto baseline = m.def_submodule(
        "baseline", "Reference loops in C++ alone, for measuring the binding's overhead.");
    baseline.def("access_loop", &baseline_access_loop, py::arg("policy"), py::arg("sets"),
                 py::arg("ways"), py::arg("line_bytes"), py::arg("addresses"),
                 py::arg("kinds") = py::none(), py::arg("layout") = "records",
                 "The baseline: a fresh write-back set-associative cache running "
                 "host::policy_choice on `addresses` (and kinds). layout='records': "
                 "memsub::access records built before the clock starts, run by "
                 "basic_cache::access_all, the loop a C++20 host runs; layout='columns': "
                 "memsub.Cache.access's own loop over the arrays, without the Python call. "
                 "Returns seconds (the loop alone), hits and misses.");
    baseline.attr("access_record_bytes") = sizeof(memsub::access);
}
