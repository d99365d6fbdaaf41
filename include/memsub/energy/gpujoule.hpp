// memsub — GPUJoule: the top-down instruction/transaction energy model ([Dissertation] Eq. 6.4,
// [MM-Energy] Eq. 4; decisions G6.x in docs/mechanisms/energy.md):
//
//   E = Σ_c EPI_c·IC_c + Σ_m EPT_m·TC_m + EPStall·stalls + Const_Power·T_exec
//
// plus, for multi-module GPUs (energy/multi_module.hpp), the inter-module link term
// `link pJ/bit × bits × link traversals` and the switch term `switch pJ/bit × bits` (G6.9,
// G6.10). A monolithic GPU has no links: its link energies are 0 and so is that term.
//
// Units (derived from the table's figures): EPI is per thread-level (lane) operation, in nJ (G6.4;
// a host that counts warp instructions adds them with `activity::add_warp_instructions`, which
// multiplies by the active lanes). EPT is per transaction of `transaction_bytes` (128 B for
// shared→RF and L1→RF, 32 B sectors for L2→L1 and DRAM→L2), in nJ. Writes are charged by bits moved
// at the pJ/bit of the reverse read path (G6.7). EPStall is in nJ per lane stall in the unit the
// host calibrated it for (G6.2); constant power in W, time in s; energies in J.
//
// EPStall and the constant power are **not published** (G6.2, G6.3): they have no default. The
// parameters hold NaN until the host supplies them, and `gpujoule`'s constructor throws
// `config_error` while either is missing; `kepler_k40(stall, power)` takes both as arguments.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include <memsub/core/errors.hpp>

namespace memsub::energy {

/// Compute-instruction classes with a published K40 EPI (Table 6.1b / Ib), then the fallback
/// classes of G6.5 for instructions the table does not list.
enum class instruction_class : std::uint8_t {
    fp32_add,
    fp32_mul,
    fp32_fma,
    int32_add,
    int32_sub,
    and32,
    or32,
    xor32,
    fp32_sin,
    fp32_cos,
    int32_mul,
    int32_mad,
    fp64_add,
    fp64_mul,
    fp64_fma,
    fp32_sqrt,
    fp32_log2,
    fp32_exp2,
    fp32_rcp,
    int_other,  ///< G6.5 fallback: integer/logic-like (shifts, min/max, …) → INT32 ADD's EPI
    fp32_other, ///< G6.5 fallback: other FP32 → 0.06 nJ
    fp64_other, ///< G6.5 fallback: other FP64 → 0.15 nJ
    sfu_other,  ///< G6.5 fallback: other special-function ops (rsqrt, …) → 0.10 nJ
    misc,       ///< G6.5: mov / cvt / branches; user-set, defaults to INT32 ADD's EPI
};
inline constexpr std::size_t instruction_class_count = 24;
static_assert(static_cast<std::size_t>(instruction_class::misc) + 1 == instruction_class_count);

/// Memory transaction classes (Table 6.1b): data moved toward the register file.
enum class transaction_class : std::uint8_t { shared_to_rf, l1_to_rf, l2_to_l1, dram_to_l2 };
inline constexpr std::size_t transaction_class_count = 4;
static_assert(static_cast<std::size_t>(transaction_class::dram_to_l2) + 1 ==
              transaction_class_count);

[[nodiscard]] constexpr std::string_view to_string(transaction_class t) noexcept {
    switch (t) {
    case transaction_class::shared_to_rf:
        return "shared_to_rf";
    case transaction_class::l1_to_rf:
        return "l1_to_rf";
    case transaction_class::l2_to_l1:
        return "l2_to_l1";
    case transaction_class::dram_to_l2:
        return "dram_to_l2";
    }
    return "?";
}

/// The marker of a parameter the host must supply (EPStall, constant power).
inline constexpr double not_supplied = std::numeric_limits<double>::quiet_NaN();

/// The model's coefficients. Plain values; `gpujoule` validates them once.
struct gpujoule_params {
    /// nJ per thread-level operation, indexed by `instruction_class`.
    std::array<double, instruction_class_count> epi_nj{};
    /// nJ per transaction, indexed by `transaction_class`.
    std::array<double, transaction_class_count> ept_nj{};
    /// Bytes one transaction of each class moves (128, 128, 32, 32 on the K40, derived from
    /// [Dissertation] Table 6.1's nJ and pJ/bit columns).
    std::array<std::uint32_t, transaction_class_count> transaction_bytes{128, 128, 32, 32};
    /// EPStall, nJ per lane stall (G6.2). Required: NaN = not supplied.
    double stall_energy_nj = not_supplied;
    /// Const_Power, W (G6.3). Required: NaN = not supplied.
    double constant_power_w = not_supplied;
    /// Inter-module link energy per bit per link traversal (0 for a monolithic GPU; §2.3).
    double link_pj_per_bit = 0.0;
    /// Extra energy per bit for a transfer that goes through a switch (§2.3, G6.10).
    double switch_pj_per_bit = 0.0;

    [[nodiscard]] constexpr double epi(instruction_class c) const noexcept {
        return epi_nj[static_cast<std::size_t>(c)];
    }
    [[nodiscard]] constexpr double ept(transaction_class t) const noexcept {
        return ept_nj[static_cast<std::size_t>(t)];
    }
    /// The EPT expressed per bit, in pJ (the table's second column).
    [[nodiscard]] constexpr double pj_per_bit(transaction_class t) const noexcept {
        const auto i = static_cast<std::size_t>(t);
        return ept_nj[i] * 1000.0 / (8.0 * transaction_bytes[i]);
    }
};

/// The Kepler Tesla K40 preset (Table 6.1b / Ib), values stored exactly as published. G6.6:
/// SQRT 0.02 nJ (below FADD) and RCP 0.31 nJ look suspicious; they are kept as data, not
/// corrected. EPStall and constant power are required arguments (not published, G6.2/G6.3).
[[nodiscard]] inline gpujoule_params kepler_k40(double stall_energy_nj, double constant_power_w) {
    gpujoule_params p;
    p.epi_nj = {
        0.06, 0.05, 0.05,       // FP32 ADD / MUL / FMA
        0.07, 0.07,             // INT32 ADD / SUB
        0.06, 0.06, 0.06,       // 32-bit AND / OR / XOR
        0.10, 0.10,             // FP32 SIN / COS
        0.13, 0.15,             // INT32 MUL / MAD
        0.15, 0.13, 0.16,       // FP64 ADD / MUL / FMA
        0.02, 0.03, 0.08, 0.31, // FP32 SQRT / LOG2 / EXP2 / RCP (as published, G6.6)
        0.07,                   // int_other  → INT32 ADD (G6.5)
        0.06,                   // fp32_other (G6.5)
        0.15,                   // fp64_other (G6.5)
        0.10,                   // sfu_other (G6.5)
        0.07,                   // misc → INT32 ADD by default (G6.5)
    };
    p.ept_nj = {5.45, 5.99, 3.96, 7.82}; // shared→RF, L1→RF (128 B); L2→L1, DRAM→L2 (32 B)
    p.transaction_bytes = {128, 128, 32, 32};
    p.stall_energy_nj = stall_energy_nj;
    p.constant_power_w = constant_power_w;
    return p;
}

/// What a run did: the counters GPUJoule multiplies by its coefficients. Totals over all modules.
struct activity {
    /// Thread-level instruction counts per class.
    std::array<std::uint64_t, instruction_class_count> instructions{};
    /// Read transactions per class (in that class's transaction size).
    std::array<std::uint64_t, transaction_class_count> transactions{};
    /// Bytes written down the reverse path of each class (RF→shared, RF→L1, L1→L2, L2→DRAM),
    /// charged per bit at that class's pJ/bit (G6.7).
    std::array<std::uint64_t, transaction_class_count> write_bytes{};
    /// Lane stalls (G6.2's unit).
    std::uint64_t stalls = 0;
    /// Inter-module payload bytes × link traversals (G6.9): a 128 B transfer over 3 hops adds 384.
    std::uint64_t link_byte_hops = 0;
    /// Inter-module payload bytes that went through a switch (G6.10).
    std::uint64_t switch_bytes = 0;

    void add(instruction_class c, std::uint64_t thread_ops) noexcept {
        instructions[static_cast<std::size_t>(c)] += thread_ops;
    }
    /// G6.4: a warp instruction counts as one operation per active lane.
    void add_warp_instructions(instruction_class c, std::uint64_t warp_instructions,
                               std::uint32_t active_lanes) noexcept {
        instructions[static_cast<std::size_t>(c)] += warp_instructions * active_lanes;
    }
    void add(transaction_class t, std::uint64_t count) noexcept {
        transactions[static_cast<std::size_t>(t)] += count;
    }
    void add_write(transaction_class t, std::uint64_t bytes) noexcept {
        write_bytes[static_cast<std::size_t>(t)] += bytes;
    }
};

/// Energy by the categories of the papers' breakdown stacks (§2.3), in joules.
struct energy_breakdown {
    double compute = 0;      ///< Σ EPI·IC
    double l1_shared = 0;    ///< shared→RF and L1→RF transactions (and their writes)
    double l2_to_l1 = 0;     ///< L2→L1 sectors (and L1→L2 writes)
    double dram_to_l2 = 0;   ///< DRAM→L2 sectors (and L2→DRAM writes)
    double inter_module = 0; ///< link traversals and switch traversals
    double stall = 0;        ///< EPStall·stalls
    double constant = 0;     ///< Const_Power·T

    [[nodiscard]] constexpr double total() const noexcept {
        return compute + l1_shared + l2_to_l1 + dram_to_l2 + inter_module + stall + constant;
    }
    /// Everything but the constant term.
    [[nodiscard]] constexpr double dynamic() const noexcept { return total() - constant; }
    /// Sums another run's breakdown (e.g. per kernel into a whole program).
    constexpr energy_breakdown& operator+=(const energy_breakdown& o) noexcept {
        compute += o.compute;
        l1_shared += o.l1_shared;
        l2_to_l1 += o.l2_to_l1;
        dram_to_l2 += o.dram_to_l2;
        inter_module += o.inter_module;
        stall += o.stall;
        constant += o.constant;
        return *this;
    }
};

namespace detail {
inline void require_energy(std::string_view component, std::string_view parameter, double value,
                           bool allow_zero = true) {
    if (std::isnan(value))
        throw config_error(component, parameter, "not supplied",
                           "must be supplied by the host (not published in the cited papers)");
    if (!std::isfinite(value) || value < 0.0 || (!allow_zero && value == 0.0))
        throw config_error(component, parameter, std::to_string(value),
                           allow_zero ? "must be finite and >= 0" : "must be finite and > 0");
}
} // namespace detail

/// The GPUJoule model: validated coefficients and `energy(activity, seconds)`.
class gpujoule {
public:
    explicit gpujoule(const gpujoule_params& p) : p_(p) {
        constexpr std::string_view who = "memsub::energy::gpujoule";
        for (std::size_t i = 0; i < instruction_class_count; ++i)
            detail::require_energy(who, "epi_nj[" + std::to_string(i) + "]", p.epi_nj[i]);
        for (std::size_t i = 0; i < transaction_class_count; ++i) {
            detail::require_energy(who, "ept_nj[" + std::to_string(i) + "]", p.ept_nj[i]);
            if (p.transaction_bytes[i] == 0)
                throw config_error(who, "transaction_bytes[" + std::to_string(i) + "]", 0,
                                   "must be > 0");
        }
        detail::require_energy(who, "stall_energy_nj", p.stall_energy_nj);
        detail::require_energy(who, "constant_power_w", p.constant_power_w);
        detail::require_energy(who, "link_pj_per_bit", p.link_pj_per_bit);
        detail::require_energy(who, "switch_pj_per_bit", p.switch_pj_per_bit);
    }

    [[nodiscard]] const gpujoule_params& params() const noexcept { return p_; }

    /// The energy of a run with counters `a` lasting `seconds` (Eq 6.4). Throws `config_error`
    /// for a negative or non-finite time (an input the host computed, checked once per call).
    [[nodiscard]] energy_breakdown energy(const activity& a, double seconds) const {
        if (!std::isfinite(seconds) || seconds < 0.0)
            throw config_error("memsub::energy::gpujoule::energy", "seconds",
                               std::to_string(seconds), "must be finite and >= 0");
        constexpr double nj = 1e-9, pj = 1e-12;
        energy_breakdown e;
        for (std::size_t i = 0; i < instruction_class_count; ++i)
            e.compute += p_.epi_nj[i] * nj * static_cast<double>(a.instructions[i]);
        const auto movement = [&](transaction_class t) {
            const auto i = static_cast<std::size_t>(t);
            return p_.ept_nj[i] * nj * static_cast<double>(a.transactions[i]) +
                   p_.pj_per_bit(t) * pj * 8.0 * static_cast<double>(a.write_bytes[i]);
        };
        e.l1_shared =
            movement(transaction_class::shared_to_rf) + movement(transaction_class::l1_to_rf);
        e.l2_to_l1 = movement(transaction_class::l2_to_l1);
        e.dram_to_l2 = movement(transaction_class::dram_to_l2);
        e.inter_module = p_.link_pj_per_bit * pj * 8.0 * static_cast<double>(a.link_byte_hops) +
                         p_.switch_pj_per_bit * pj * 8.0 * static_cast<double>(a.switch_bytes);
        e.stall = p_.stall_energy_nj * nj * static_cast<double>(a.stalls);
        e.constant = p_.constant_power_w * seconds;
        return e;
    }

private:
    gpujoule_params p_;
};

} // namespace memsub::energy
