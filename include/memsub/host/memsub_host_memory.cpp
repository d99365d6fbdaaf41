// memsub host ABI: the DRAM controllers of memsub/host/memsub_host.h (memsub_dram_*), a
// translation unit of the memsub::host library beside memsub_host.cpp.
//
// Decision: a controller is built from parts (scheduler, row policy, preset, mapping) rather
// than from the memory explorer's nine named configurations: a host composes what it models,
// and each part's name is the one the C++ type reports. The compiled shapes are the
// scheduler x row policy products (fcfs, fr_fcfs, partitioned x open, closed, timeout), the
// HMC vault controller and the flat memory: eleven instantiations behind one virtual base.
#include <memsub/host/memsub_host.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <memsub/core/errors.hpp>
#include <memsub/host/detail/status.hpp>
#include <memsub/memory/all.hpp>

namespace mm = memsub::memory;

/// The handle behind `memsub_dram*`: one controller of a compiled shape.
struct memsub_dram {
    memsub_dram() = default;
    memsub_dram(const memsub_dram&) = delete;
    memsub_dram& operator=(const memsub_dram&) = delete;
    virtual ~memsub_dram() = default;
    virtual mm::enqueue_result enqueue(const mm::mem_request& r) noexcept = 0;
    virtual void advance_to(std::uint64_t cycle) noexcept = 0;
    virtual std::uint64_t drain(memsub_completion_fn fn, void* context) = 0;
    [[nodiscard]] virtual std::uint64_t next_event_cycle() const noexcept = 0;
    [[nodiscard]] virtual std::uint64_t pending() const noexcept = 0;
    [[nodiscard]] virtual const mm::controller_stats& stats() const noexcept = 0;

    // The host's side of MP2 and MP3, checked here so a C caller gets a status, not UB.
    std::uint64_t last_arrival = 0;
    std::uint64_t last_advance = 0;
    double tck_ns = 1.0;
    double peak_gb_per_s = 0.0;
    std::uint32_t channels = 1;
};

namespace {

using memsub::host::detail::fail;
using memsub::host::detail::guarded;

constexpr std::string_view component = "memsub_dram_create";

template <class Controller>
class dram_of final : public memsub_dram {
public:
    explicit dram_of(Controller c) : controller_(std::move(c)) {}

    mm::enqueue_result enqueue(const mm::mem_request& r) noexcept override {
        return controller_.enqueue(r);
    }
    void advance_to(std::uint64_t cycle) noexcept override { controller_.advance_to(cycle); }
    std::uint64_t drain(memsub_completion_fn fn, void* context) override {
        std::uint64_t n = 0;
        controller_.drain([&](const mm::completion& c) {
            memsub_completion out{};
            out.id = c.id;
            out.address = c.address.value;
            out.arrival_cycle = c.arrival_cycle;
            out.selected_cycle = c.selected_cycle;
            out.data_cycle = c.data_cycle;
            out.done_cycle = c.done_cycle;
            out.requester = c.requester;
            out.channel = c.channel;
            out.bank = c.bank;
            out.is_write = c.is_write ? 1 : 0;
            out.row_class = static_cast<std::uint8_t>(c.kind);
            out.from_queue = c.from_queue ? 1 : 0;
            fn(context, &out);
            ++n;
        });
        return n;
    }
    [[nodiscard]] std::uint64_t next_event_cycle() const noexcept override {
        return controller_.next_event_cycle();
    }
    [[nodiscard]] std::uint64_t pending() const noexcept override { return controller_.pending(); }
    [[nodiscard]] const mm::controller_stats& stats() const noexcept override {
        return controller_.stats();
    }

private:
    Controller controller_;
};

std::string_view or_default(const char* s, std::string_view fallback) {
    return s == nullptr || *s == '\0' ? fallback : std::string_view(s);
}

mm::dram_timing preset_named(std::string_view name) {
    if (name == "ddr4_2400") return mm::presets::ddr4_2400;
    if (name == "ddr3_1600") return mm::presets::ddr3_1600_remap;
    if (name == "hbm2") return mm::presets::hbm2_4gb_x128;
    if (name == "hmc_vault") return mm::presets::hmc_vault;
    throw memsub::config_error(component, "timing", std::string(name),
                               "must name a preset: ddr4_2400, ddr3_1600, hbm2, hmc_vault");
}

/// A scheduler's controller with the row policy named; `configure` sets its params (each row
/// policy's controller has a params type of its own).
template <template <class, class> class Controller, class Configure>
std::unique_ptr<memsub_dram> with_row_policy(std::string_view row, const mm::bit_field_mapping& m,
                                             Configure&& configure) {
    auto make = [&]<class RowPolicy>() -> std::unique_ptr<memsub_dram> {
        using controller = Controller<RowPolicy, mm::bit_field_mapping>;
        typename controller::params p{};
        configure(p);
        return std::make_unique<dram_of<controller>>(controller(m, p));
    };
    if (row == "open") return make.template operator()<mm::open_page>();
    if (row == "closed") return make.template operator()<mm::closed_page>();
    if (row == "timeout") return make.template operator()<mm::timeout_adaptive>();
    throw memsub::config_error(component, "row_policy", std::string(row),
                               "must be open, closed or timeout");
}

template <class RowPolicy, class Mapping>
using fcfs_of = mm::fcfs_controller<RowPolicy, Mapping>;
template <class RowPolicy, class Mapping>
using fr_fcfs_of = mm::fr_fcfs_controller<RowPolicy, Mapping>;
template <class RowPolicy, class Mapping>
using partitioned_of = mm::partitioned_controller<RowPolicy, Mapping>;

std::unique_ptr<memsub_dram> make_dram(const memsub_dram_config& c) {
    const std::string_view controller = or_default(c.controller, "fr_fcfs");
    const bool takes_row_policy =
        controller == "fr_fcfs" || controller == "fcfs" || controller == "partitioned";
    if (!takes_row_policy && c.row_policy != nullptr && *c.row_policy != '\0')
        throw memsub::config_error(component, "row_policy", c.row_policy,
                                   "only fr_fcfs, fcfs and partitioned take a row policy");
    mm::dram_timing t =
        preset_named(or_default(c.timing, controller == "hmc_vault" ? "hmc_vault" : "ddr4_2400"));
    if (c.channels != 0) t.channels = c.channels;
    t.validate(component);
    const double peak = t.channels * t.peak_gb_per_s();

    std::unique_ptr<memsub_dram> d;
    if (controller == "flat") {
        const std::uint32_t latency = c.flat_latency_cycles != 0 ? c.flat_latency_cycles : 100;
        d = std::make_unique<dram_of<mm::flat_memory>>(
            mm::flat_memory(mm::flat_memory::params{.latency_cycles = latency,
                                                    .bytes_per_cycle = peak * t.tck_ns,
                                                    .request_bytes = t.burst_bytes()}));
    } else {
        const std::string_view order =
            or_default(c.mapping, t.bank_groups > 1 ? "rorabgbachco" : "rorabachco");
        const auto m = mm::bit_field_mapping::from_order(order, t, 48, c.xor_bank_hash != 0);
        const std::string_view row = or_default(c.row_policy, "open");
        const auto timing_only = [&](auto& p) { p.timing = t; };
        if (controller == "fr_fcfs") {
            d = with_row_policy<fr_fcfs_of>(row, m, timing_only);
        } else if (controller == "fcfs") {
            d = with_row_policy<fcfs_of>(row, m, timing_only);
        } else if (controller == "partitioned") {
            d = with_row_policy<partitioned_of>(row, m, [&](auto& p) {
                p.timing = t;
                if (c.requesters != 0) p.requesters = c.requesters;
            });
        } else if (controller == "hmc_vault") {
            d = std::make_unique<dram_of<mm::hmc_vault_controller<>>>(
                mm::hmc_vault_controller<>(m, mm::hmc_vault_params(t)));
        } else {
            throw memsub::config_error(
                component, "controller", std::string(controller),
                "must name a controller: fr_fcfs, fcfs, partitioned, hmc_vault, flat");
        }
    }
    d->tck_ns = t.tck_ns;
    d->peak_gb_per_s = peak;
    d->channels = controller == "flat" ? 1 : t.channels;
    return d;
}

} // namespace

MEMSUB_HOST_API memsub_status memsub_dram_create(const memsub_dram_config* config,
                                                 memsub_dram** out, memsub_error* error) {
    return guarded(error, [&] {
        if (out == nullptr) return fail(error, MEMSUB_INVALID_ARGUMENT, "out is NULL");
        const memsub_dram_config c = config != nullptr ? *config : memsub_dram_config{};
        for (const std::uint8_t r : c.reserved)
            if (r != 0) return fail(error, MEMSUB_INVALID_ARGUMENT, "config->reserved is not 0");
        *out = make_dram(c).release();
        return MEMSUB_OK;
    });
}

MEMSUB_HOST_API memsub_status memsub_dram_destroy(memsub_dram* dram) {
    delete dram;
    return MEMSUB_OK;
}

MEMSUB_HOST_API memsub_status memsub_dram_enqueue(memsub_dram* dram,
                                                  const memsub_mem_request* request,
                                                  uint8_t* result) {
    if (dram == nullptr || request == nullptr || request->reserved[0] != 0 ||
        request->reserved[1] != 0 || request->reserved[2] != 0 ||
        request->arrival_cycle < dram->last_arrival)
        return MEMSUB_INVALID_ARGUMENT;
    dram->last_arrival = request->arrival_cycle;
    const mm::enqueue_result r =
        dram->enqueue(mm::mem_request{.id = request->id,
                                      .address = memsub::byte_address{request->address},
                                      .is_write = request->is_write != 0,
                                      .requester = request->requester,
                                      .arrival_cycle = request->arrival_cycle});
    if (result != nullptr) *result = static_cast<std::uint8_t>(r);
    return MEMSUB_OK;
}

MEMSUB_HOST_API memsub_status memsub_dram_advance_to(memsub_dram* dram, uint64_t cycle) {
    if (dram == nullptr || cycle < dram->last_advance) return MEMSUB_INVALID_ARGUMENT;
    dram->last_advance = cycle;
    dram->advance_to(cycle);
    return MEMSUB_OK;
}

MEMSUB_HOST_API memsub_status memsub_dram_drain(memsub_dram* dram, memsub_completion_fn fn,
                                                void* context, uint64_t* drained) {
    if (dram == nullptr || fn == nullptr) return MEMSUB_INVALID_ARGUMENT;
    // A C callback cannot throw; a C++ host's callback that does is caught here.
    return guarded(nullptr, [&] {
        const std::uint64_t n = dram->drain(fn, context);
        if (drained != nullptr) *drained = n;
        return MEMSUB_OK;
    });
}

MEMSUB_HOST_API memsub_status memsub_dram_next_event_cycle(const memsub_dram* dram,
                                                           uint64_t* cycle) {
    if (dram == nullptr || cycle == nullptr) return MEMSUB_INVALID_ARGUMENT;
    *cycle = dram->next_event_cycle();
    return MEMSUB_OK;
}

MEMSUB_HOST_API memsub_status memsub_dram_pending(const memsub_dram* dram, uint64_t* pending) {
    if (dram == nullptr || pending == nullptr) return MEMSUB_INVALID_ARGUMENT;
    *pending = dram->pending();
    return MEMSUB_OK;
}

MEMSUB_HOST_API memsub_status memsub_dram_get_stats(const memsub_dram* dram,
                                                    memsub_dram_stats* stats) {
    if (dram == nullptr || stats == nullptr) return MEMSUB_INVALID_ARGUMENT;
    const mm::controller_stats& s = dram->stats();
    memsub_dram_stats o{};
    o.reads = s.reads;
    o.writes = s.writes;
    for (std::size_t i = 0; i < 3; ++i) o.by_row_class[i] = s.by_class[i];
    o.refused = s.refused;
    o.rejected = s.rejected;
    o.refreshes = s.refreshes;
    o.bus_turnarounds = s.bus_turnarounds;
    o.write_drains = s.write_drains;
    o.drained_writes = s.drained_writes;
    o.forwarded_reads = s.forwarded_reads;
    o.merged_writes = s.merged_writes;
    o.bytes = s.bytes;
    o.data_bus_cycles = s.data_bus_cycles;
    o.first_arrival = s.first_arrival;
    o.last_done = s.last_done;
    o.latency_mean = s.latency.mean();
    o.latency_p99 = s.latency.percentile(0.99);
    o.latency_max = s.latency.max();
    o.read_latency_mean = s.read_latency.mean();
    o.read_latency_p99 = s.read_latency.percentile(0.99);
    o.read_latency_max = s.read_latency.max();
    *stats = o;
    return MEMSUB_OK;
}

MEMSUB_HOST_API memsub_status memsub_dram_info(const memsub_dram* dram, double* tck_ns,
                                               double* peak_gb_per_s, uint32_t* channels) {
    if (dram == nullptr) return MEMSUB_INVALID_ARGUMENT;
    if (tck_ns != nullptr) *tck_ns = dram->tck_ns;
    if (peak_gb_per_s != nullptr) *peak_gb_per_s = dram->peak_gb_per_s;
    if (channels != nullptr) *channels = dram->channels;
    return MEMSUB_OK;
}
