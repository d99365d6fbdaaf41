// memsub — the `cta_scheduler` concept: which CTA (thread block) starts on which SM of a
// multi-module GPU, as SMs free up, with its call protocol. Mechanisms
// (docs/mechanisms/multi_module_gpu.md): C5.4 (centralised round robin), C5.5 (distributed
// contiguous batches), C5.7; C2.1–C2.4 (static chunks, fine-grain round robin, stealing); G5.3
// (balanced ranges), G5.4 (flattening).
//
// memsub decides, the host keeps time (design principle 3): a scheduler has no clock. The host
// launches a kernel, asks for CTAs to start when SMs have room, and reports completions; the
// order of those calls is the only time a scheduler sees, so its decisions are a function of
// that order (deterministic).
//
// Each requirement is a concept of its own (`ct1_params` … `ct6_observers`);
// `diagnose_cta_scheduler<S>()` names the broken ones (labels: testing/contract.hpp).
//
// cta_scheduler — a type S models it when:
//   CT1. `typename S::params` is a default-constructible aggregate holding at least the
//        machine shape (`modules`, `sms_per_module`); construction from it validates every rule
//        and throws `memsub::config_error`; `s.name()` -> std::string_view.
//   CT2. `s.launch(const kernel_launch&)` starts a kernel of `ctas` CTAs (ids 0 … ctas − 1, the
//        grid flattened, `flatten`) with at most `max_ctas_per_sm` resident CTAs per SM. A bad
//        launch (max_ctas_per_sm 0) throws config_error; a launch while CTAs of the previous
//        kernel still run throws std::logic_error (CTP2).
//   CT3. `s.dispatch()` noexcept -> std::optional<cta_assignment>: the policy starts one CTA on
//        an SM of its choice among those with a free slot, or returns nullopt when no SM with
//        a free slot has a CTA to take now. A host calls it until nullopt after a launch and
//        after completions (a scheduler-driven host loop).
//   CT4. `s.next_cta(sm)` noexcept -> std::uint32_t: SM `sm` asks for a CTA (an SM-driven host
//        loop: its own resource check said it has room); the CTA the policy gives it, started,
//        or `no_cta` if the SM's slots are full or the policy has nothing for it now.
//   CT5. `s.on_cta_complete(sm)` noexcept: a CTA running on `sm` finished, freeing a slot.
//        A completion on an SM with nothing running is ignored and counted
//        (stats().ignored_completions).
//   CT6. Observers, const noexcept: `modules()`, `sms()` (all modules), `unstarted()` (CTAs
//        of the kernel not yet started), `running()`, `running_on(sm)`, `finished()` (nothing
//        unstarted or running), `stats()` -> `const cta_stats&`.
//
// Call protocol:
//   CTP1. SM ids are global: sm = module · sms_per_module + local index (`module_of`).
//   CTP2. A kernel is launch → any interleaving of dispatch / next_cta / on_cta_complete →
//         finished(); the next launch comes after (a kernel boundary). Every CTA id of the
//         kernel is started exactly once.
//   CTP3. The same sequence of calls gives the same decisions (no hidden randomness or clock).
//   CTP4. launch, dispatch, next_cta and on_cta_complete never allocate; state is sized at
//         construction from the machine shape.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <string_view>

/// CTA (thread block) scheduling on a multi-module GPU: the `cta_scheduler` concept (CT1–CT6,
/// call protocol CTP1–CTP4) and the schedulers.
namespace memsub::cta {

/// `next_cta` found nothing for the SM.
inline constexpr std::uint32_t no_cta = 0xffffffffu;

/// One kernel launch.
struct kernel_launch {
    /// Grid size, flattened (`flatten`).
    std::uint32_t ctas = 0;
    /// Resident CTAs an SM holds at once for this kernel (its occupancy limit).
    std::uint32_t max_ctas_per_sm = 8;
    /// Identifies the kernel across launches (the adaptive batch scheduler learns per kernel).
    std::uint64_t kernel_id = 0;
};

/// A CTA started on an SM.
struct cta_assignment {
    /// The CTA id, 0 … ctas − 1 of the current launch.
    std::uint32_t cta = 0;
    /// The global SM id it started on (CTP1).
    std::uint32_t sm = 0;
    /// The module that SM belongs to: sm / sms_per_module (CTP1).
    std::uint32_t module = 0;
    /// Equal when CTA, SM and module are equal.
    friend constexpr bool operator==(const cta_assignment&, const cta_assignment&) = default;
};

/// A CTA scheduler's counters since construction (CT6's `stats()`).
struct cta_stats {
    /// CTAs started since construction.
    std::uint64_t started = 0;
    /// CTAs an SM of one module took from another module's batch (stealing, C2.4).
    std::uint64_t stolen = 0;
    /// on_cta_complete calls on an SM with nothing running (CT5).
    std::uint64_t ignored_completions = 0;
};

/// Row-major flattening, x fastest (G5.4, docs/mechanisms/multi_module_gpu.md, as [MemNet] states):
/// id = x + y·Gx + z·Gx·Gy.
[[nodiscard]] constexpr std::uint32_t flatten(std::uint32_t x, std::uint32_t y, std::uint32_t z,
                                              std::uint32_t grid_x, std::uint32_t grid_y) noexcept {
    return x + grid_x * (y + grid_y * z);
}

// ------------------------------------------------------------ one concept per requirement

/// CT1: `S::params` is a default-constructible aggregate holding the machine shape, `S` is
/// constructible from it (validating every rule) and `s.name()` names it.
template <class S>
concept ct1_params = std::default_initializable<typename S::params> &&
    std::constructible_from<S, const typename S::params&> && requires(const S& s) {
    { s.name() } -> std::convertible_to<std::string_view>;
};

/// CT2: `s.launch(kernel)` starts a kernel of `ctas` CTAs with an occupancy limit per SM.
template <class S>
concept ct2_launch = requires(S& s, const kernel_launch& k) {
    s.launch(k);
};

/// CT3: `s.dispatch()` noexcept starts one CTA on an SM of the policy's choice, or returns
/// nullopt when none can start now (a scheduler-driven host).
template <class S>
concept ct3_dispatch = requires(S& s) {
    { s.dispatch() }
    noexcept->std::same_as<std::optional<cta_assignment>>;
};

/// CT4: `s.next_cta(sm)` noexcept gives SM `sm` a CTA, started, or `no_cta` (an SM-driven
/// host).
template <class S>
concept ct4_next_cta = requires(S& s, std::uint32_t sm) {
    { s.next_cta(sm) }
    noexcept->std::same_as<std::uint32_t>;
};

/// CT5: `s.on_cta_complete(sm)` noexcept frees a slot of `sm`; a completion on an idle SM is
/// ignored and counted.
template <class S>
concept ct5_complete = requires(S& s, std::uint32_t sm) {
    { s.on_cta_complete(sm) }
    noexcept;
};

/// CT6: the const noexcept observers `modules()`, `sms()`, `unstarted()`, `running()`,
/// `running_on(sm)`, `finished()` and `stats()`.
template <class S>
concept ct6_observers = requires(const S& s, std::uint32_t sm) {
    { s.modules() }
    noexcept->std::convertible_to<std::uint32_t>;
    { s.sms() }
    noexcept->std::convertible_to<std::uint32_t>;
    { s.unstarted() }
    noexcept->std::convertible_to<std::uint32_t>;
    { s.running() }
    noexcept->std::convertible_to<std::uint32_t>;
    { s.running_on(sm) }
    noexcept->std::convertible_to<std::uint32_t>;
    { s.finished() }
    noexcept->std::same_as<bool>;
    { s.stats() } -> std::convertible_to<const cta_stats&>;
};

/// A CTA scheduler (CT1–CT6): which CTA starts on which SM as SMs free up. It has no clock: its
/// decisions depend only on the order of the host's calls (CTP3), and it never allocates
/// after construction (CTP4).
template <class S>
concept cta_scheduler = ct1_params<S> && ct2_launch<S> && ct3_dispatch<S> && ct4_next_cta<S> &&
    ct5_complete<S> && ct6_observers<S>;

/// Fails to compile with one message per broken requirement (CT1–CT6).
template <class S>
consteval bool diagnose_cta_scheduler() {
    static_assert(ct1_params<S>, "CT1: S::params must be a default-constructible aggregate, S "
                                 "constructible from it, and s.name() const must exist");
    static_assert(ct2_launch<S>, "CT2: s.launch(const kernel_launch&) must exist");
    static_assert(ct3_dispatch<S>, "CT3: s.dispatch() must be noexcept and return "
                                   "std::optional<cta_assignment>");
    static_assert(ct4_next_cta<S>, "CT4: s.next_cta(std::uint32_t sm) must be noexcept and "
                                   "return std::uint32_t (a CTA id or no_cta)");
    static_assert(ct5_complete<S>, "CT5: s.on_cta_complete(std::uint32_t sm) must be noexcept");
    static_assert(ct6_observers<S>, "CT6: modules(), sms(), unstarted(), running(), "
                                    "running_on(sm), finished() (noexcept) and stats() const "
                                    "must exist");
    return cta_scheduler<S>;
}

} // namespace memsub::cta
