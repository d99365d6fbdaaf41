// memsub — DRAM organisation and timing presets, as plain values.
//
// A `dram_timing` describes one memory device/channel type: its organisation (channels, ranks,
// bank groups, banks, rows, row size, data bus) and its timing constraints in controller cycles.
// memsub's controllers run at the DRAM command clock (one controller cycle = one tCK); a host
// with a different clock converts with `tck_ns` (see `to_cycles`).
//
// Presets and where each number comes from ([S] the cited paper states it, [X] an outside
// source, [D] derived):
//   * ddr3_1600_remap — [Dissertation] Table 2.3 (ReMAP): DDR3, 1 channel, 8 banks, 8 KB row
//   buffers,
//     tRP = tCL = tRCD = 13.75 ns [S]. 13.75 ns is 11 cycles at tCK = 1.25 ns, i.e. JEDEC
//     DDR3-1600K (11-11-11); the rest of the timing is that bin's JEDEC values [X] (x8 devices,
//     1 KB device page, 4 Gb density).
//   * ddr4_2400 — JEDEC DDR4-2400R, CL16-16-16 (tCK = 0.833 ns), x8 devices (1 KB page),
//     8 Gb density, 4 bank groups × 4 banks, one rank, 64-bit channel [X].
//   * hbm2_4gb_x128 — [DRAMSim3] `HBM2_4Gb_x128.ini` [X]: 8 channels × 128 bit,
//     4 bank groups × 4 banks, 16384 rows, 64 columns of 16 B (1 KB rows), BL4, tCK = 1 ns.
//     Decision: [HTA] §3.1 cites only "4GB HBM2 [DRAMSim3]"; DRAMSim3's own HBM2 4 Gb x128
//     configuration is the closest stated source, so this preset is labelled assumed.
//     Refresh is all-bank (DRAMSim3's default): it stops a channel for tRFC = 260 of every
//     3900 cycles (6.7 %). Per-bank refresh (HBM2 REFSB, refresh_mode::per_bank, tRFCsb =
//     tRFC [X, pessimistic]) lets the other 15 banks keep the data bus busy.
//   * hmc_vault — [MemNet] Table I: tCK 1.25 ns, tRP 11, tCCD 4, tRCD 11, tCL 11,
//     tWR 12, tRAS 22 [S]; 16 banks per vault, 16 vaults × 4 HMCs × 4 clusters = 256 vault
//     channels for the 4GPU-16HMC system; 256 B rows and closed page [X]; 32-bit vault
//     data bus with BL8 (32 B bursts, so tCCD = burst cycles) [X]; tRRD/tFAW/tRTP/tWTR from an
//     HMC-like device [X]; no refresh (0 disables a constraint). Decision: the timings the
//     paper leaves out come from an HMC-like device (DRAMSim3 ships an HMC_4GB_4Lx16
//     configuration), marked [X]; refresh is off because the paper models none and its
//     figures compare networks, not DRAM refresh.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string_view>

#include <memsub/core/errors.hpp>

namespace memsub::memory {

/// How refresh is issued (the `refresh` field of `dram_timing`).
enum class refresh_mode : std::uint8_t {
    /// One REF per rank every tREFI; all banks of the rank are precharged and blocked for tRFC.
    /// Ranks are staggered: rank r's refreshes fall at tREFI·(r+1)/ranks + k·tREFI.
    all_bank,
    /// Per-bank refresh (HBM2 REFSB, JESD235; LPDDR4 REFpb): every bank is refreshed once per
    /// tREFI, the banks of a rank in turn, one every tREFI / banks_per_rank cycles; only the
    /// refreshed bank is precharged and blocked, for tRFCsb. The other banks keep working.
    per_bank,
};

/// Organisation and timing of one DRAM type. Timing fields are in controller cycles (tCK);
/// 0 disables a constraint (tREFI = 0 disables refresh).
struct dram_timing {
    std::string_view name = "custom";
    /// Command clock period in ns (documentation and host clock conversion).
    double tck_ns = 1.0;

    // -------- organisation
    std::uint32_t channels = 1;
    std::uint32_t ranks = 1;
    std::uint32_t bank_groups = 1;
    std::uint32_t banks_per_group = 8;
    std::uint32_t rows = 65536;
    /// Row buffer size of a rank in bytes (all devices of the rank together).
    std::uint32_t row_bytes = 8192;
    /// Data bus width of a channel in bytes.
    std::uint32_t bus_bytes = 8;
    /// Beats per burst (BL); data moves on both clock edges, so a burst takes BL/2 cycles.
    std::uint32_t burst_length = 8;

    // -------- timing (cycles)
    std::uint32_t tCL = 11;     ///< read column command → first data beat
    std::uint32_t tCWL = 8;     ///< write column command → first data beat
    std::uint32_t tRCD = 11;    ///< ACT → column command
    std::uint32_t tRP = 11;     ///< PRE → ACT
    std::uint32_t tRAS = 28;    ///< ACT → PRE
    std::uint32_t tWR = 12;     ///< end of write data → PRE
    std::uint32_t tRTP = 6;     ///< read column command → PRE
    std::uint32_t tCCD_S = 4;   ///< column → column, different bank group (or no groups)
    std::uint32_t tCCD_L = 4;   ///< column → column, same bank group
    std::uint32_t tRRD_S = 5;   ///< ACT → ACT, different bank group
    std::uint32_t tRRD_L = 5;   ///< ACT → ACT, same bank group
    std::uint32_t tFAW = 24;    ///< window holding at most four ACTs of a rank
    std::uint32_t tWTR_S = 6;   ///< end of write data → read column command, other bank group
    std::uint32_t tWTR_L = 6;   ///< end of write data → read column command, same bank group
    std::uint32_t tRTRS = 2;    ///< data-bus turnaround between reads and writes / ranks
    std::uint32_t tREFI = 6240; ///< refresh interval (0 = no refresh)
    std::uint32_t tRFC = 208;   ///< refresh cycle time (all-bank REF)
    /// Refresh command the controller uses.
    refresh_mode refresh = refresh_mode::all_bank;
    std::uint32_t tRFCsb = 0; ///< per-bank refresh cycle time (refresh_mode::per_bank)

    /// Cycles one burst occupies the data bus.
    [[nodiscard]] constexpr std::uint32_t burst_cycles() const noexcept {
        return burst_length / 2 > 0 ? burst_length / 2 : 1;
    }
    /// Bytes one burst moves: the access granularity of a request.
    [[nodiscard]] constexpr std::uint32_t burst_bytes() const noexcept {
        return bus_bytes * burst_length;
    }
    /// Bursts (column addresses of burst granularity) in a row.
    [[nodiscard]] constexpr std::uint32_t columns() const noexcept {
        return row_bytes / burst_bytes();
    }
    [[nodiscard]] constexpr std::uint32_t banks_per_rank() const noexcept {
        return bank_groups * banks_per_group;
    }
    [[nodiscard]] constexpr std::uint32_t banks_per_channel() const noexcept {
        return ranks * banks_per_rank();
    }
    /// Peak data-bus bytes per cycle of one channel (double data rate).
    [[nodiscard]] constexpr double peak_bytes_per_cycle() const noexcept { return 2.0 * bus_bytes; }
    /// Peak bandwidth of one channel in GB/s (10^9 B/s).
    [[nodiscard]] double peak_gb_per_s() const noexcept { return peak_bytes_per_cycle() / tck_ns; }
    /// Converts nanoseconds to cycles of this clock, rounding up (JEDEC rounding).
    [[nodiscard]] std::uint32_t to_cycles(double ns) const noexcept {
        return static_cast<std::uint32_t>(std::ceil(ns / tck_ns - 1e-9));
    }

    /// Throws `config_error` naming `component` when a rule is broken.
    void validate(std::string_view component = "memsub::memory::dram_timing") const {
        auto pow2 = [&](std::uint64_t v, std::string_view what) {
            require(v >= 1 && std::has_single_bit(v), component, what, v,
                    "must be a power of two >= 1");
        };
        pow2(channels, "channels");
        pow2(ranks, "ranks");
        pow2(bank_groups, "bank_groups");
        pow2(banks_per_group, "banks_per_group");
        pow2(rows, "rows");
        pow2(row_bytes, "row_bytes");
        pow2(bus_bytes, "bus_bytes");
        pow2(burst_length, "burst_length");
        require(burst_length >= 2, component, "burst_length", burst_length, "must be >= 2");
        require(burst_bytes() <= row_bytes, component, "row_bytes", row_bytes,
                "must hold at least one burst (bus_bytes * burst_length)");
        require(banks_per_channel() <= 64, component, "banks_per_group", banks_per_group,
                "a channel may have at most 64 banks (ranks * bank_groups * banks_per_group)");
        require(tCL >= 1, component, "tCL", tCL, "must be >= 1");
        require(tRCD >= 1, component, "tRCD", tRCD, "must be >= 1");
        require(tRP >= 1, component, "tRP", tRP, "must be >= 1");
        require(tCCD_L >= tCCD_S, component, "tCCD_L", tCCD_L, "must be >= tCCD_S");
        require(tRRD_L >= tRRD_S, component, "tRRD_L", tRRD_L, "must be >= tRRD_S");
        require(tWTR_L >= tWTR_S, component, "tWTR_L", tWTR_L, "must be >= tWTR_S");
        require(tREFI == 0 || tRFC < tREFI, component, "tRFC", tRFC, "must be < tREFI");
        if (tREFI != 0 && refresh == refresh_mode::per_bank) {
            require(tRFCsb >= 1 && tRFCsb < tREFI, component, "tRFCsb", tRFCsb,
                    "per-bank refresh needs 1 <= tRFCsb < tREFI");
            require(tREFI >= banks_per_rank(), component, "tREFI", tREFI,
                    "per-bank refresh needs tREFI >= banks per rank (one REFSB per cycle at most)");
        }
        if (!(tck_ns > 0.0 && std::isfinite(tck_ns))) {
            // The real value in the message (a config_error's integer form would print 0).
            char value[32];
            std::snprintf(value, sizeof value, "%g", tck_ns);
            throw config_error(component, "tck_ns", value, "must be a finite number > 0");
        }
    }

    friend constexpr bool operator==(const dram_timing&, const dram_timing&) = default;
};

namespace presets {

/// [Dissertation] Table 2.3 (ReMAP): DDR3, tRP = tCL = tRCD = 13.75 ns, 8 banks, 8 KB rows, 1
/// channel.
/// JEDEC DDR3-1600K (11-11-11) for everything the table leaves out [X].
inline constexpr dram_timing ddr3_1600_remap{
    .name = "DDR3-1600K (ReMAP Table 2.3)",
    .tck_ns = 1.25,
    .channels = 1,
    .ranks = 1,
    .bank_groups = 1,
    .banks_per_group = 8,
    .rows = 65536,
    .row_bytes = 8192,
    .bus_bytes = 8,
    .burst_length = 8,
    .tCL = 11,   // 13.75 ns [S]
    .tCWL = 8,   // DDR3-1600 [X]
    .tRCD = 11,  // 13.75 ns [S]
    .tRP = 11,   // 13.75 ns [S]
    .tRAS = 28,  // 35 ns [X]
    .tWR = 12,   // 15 ns [X]
    .tRTP = 6,   // max(4 nCK, 7.5 ns) [X]
    .tCCD_S = 4, // 4 nCK [X]
    .tCCD_L = 4,
    .tRRD_S = 5, // max(4 nCK, 6 ns), 1 KB page [X]
    .tRRD_L = 5,
    .tFAW = 24,  // 30 ns, 1 KB page [X]
    .tWTR_S = 6, // max(4 nCK, 7.5 ns) [X]
    .tWTR_L = 6,
    .tRTRS = 2,
    .tREFI = 6240, // 7.8 us [X]
    .tRFC = 208,   // 260 ns, 4 Gb [X]
};

/// JEDEC DDR4-2400R (CL16-16-16, tCK 0.833 ns), x8 devices, 8 Gb, one rank of a 64-bit channel [X].
inline constexpr dram_timing ddr4_2400{
    .name = "DDR4-2400R 16-16-16",
    .tck_ns = 0.833,
    .channels = 1,
    .ranks = 1,
    .bank_groups = 4,
    .banks_per_group = 4,
    .rows = 65536,
    .row_bytes = 8192,
    .bus_bytes = 8,
    .burst_length = 8,
    .tCL = 16,
    .tCWL = 12,
    .tRCD = 16,
    .tRP = 16,
    .tRAS = 39, // 32 ns
    .tWR = 18,  // 15 ns
    .tRTP = 9,  // max(4 nCK, 7.5 ns)
    .tCCD_S = 4,
    .tCCD_L = 6, // max(5 nCK, 5 ns)
    .tRRD_S = 4, // max(4 nCK, 3.3 ns), 1 KB page
    .tRRD_L = 6, // max(4 nCK, 4.9 ns)
    .tFAW = 26,  // 21 ns, 1 KB page
    .tWTR_S = 3, // max(2 nCK, 2.5 ns)
    .tWTR_L = 9, // max(4 nCK, 7.5 ns)
    .tRTRS = 2,
    .tREFI = 9363, // 7.8 us
    .tRFC = 420,   // 350 ns, 8 Gb
};

/// [DRAMSim3] `HBM2_4Gb_x128` [X; assumed for [HTA]]. tRTP uses the _L value.
/// Capacity note: 16 banks × 16384 rows × 1 KB = 256 MB per channel where DRAMSim3 states
/// 512 MB; capacity does not affect timing, so memsub keeps the geometry and not the size.
inline constexpr dram_timing hbm2_4gb_x128{
    .name = "HBM2 4Gb x128 (DRAMSim3)",
    .tck_ns = 1.0,
    .channels = 8,
    .ranks = 1,
    .bank_groups = 4,
    .banks_per_group = 4,
    .rows = 16384,
    .row_bytes = 1024, // 64 columns × 16 B
    .bus_bytes = 16,
    .burst_length = 4,
    .tCL = 14,
    .tCWL = 4,
    .tRCD = 14,
    .tRP = 14,
    .tRAS = 34,
    .tWR = 16,
    .tRTP = 6,
    .tCCD_S = 1,
    .tCCD_L = 2,
    .tRRD_S = 4,
    .tRRD_L = 6,
    .tFAW = 30,
    .tWTR_S = 6,
    .tWTR_L = 8,
    .tRTRS = 2,
    .tREFI = 3900,
    .tRFC = 260,
    // All-bank refresh, as DRAMSim3 does by default. JEDEC HBM2 also offers single-bank
    // refresh (REFSB, JESD235): set `.refresh = refresh_mode::per_bank`. DRAMSim3's file gives
    // its interval (tREFIb) but no duration, so tRFCsb takes the all-bank tRFC, as Ramulator's
    // HBM model does for REFSB [X] — pessimistic (JEDEC's tRFCSB is shorter).
    .refresh = refresh_mode::all_bank,
    .tRFCsb = 260,
};

/// HMC vault of [MemNet] Table I: one channel per vault; `channels` = 256 covers
/// 4 clusters × 4 HMCs × 16 vaults (the 4GPU-16HMC system).
inline constexpr dram_timing hmc_vault{
    .name = "HMC vault (Kim et al.)",
    .tck_ns = 1.25,
    .channels = 256,
    .ranks = 1,
    .bank_groups = 1,
    .banks_per_group = 16,
    .rows = 65536,
    .row_bytes = 256,  // [X]: the paper gives none; HMC rows are 256 B
    .bus_bytes = 4,    // 32-bit vault data path [X]
    .burst_length = 8, // 32 B bursts [X]
    .tCL = 11,         // [S]
    .tCWL = 11,        // [X] = tCL
    .tRCD = 11,        // [S]
    .tRP = 11,         // [S]
    .tRAS = 22,        // [S]; tRC = tRAS + tRP = 33 [D]
    .tWR = 12,         // [S]
    .tRTP = 4,         // [X]
    .tCCD_S = 4,       // [S]
    .tCCD_L = 4,       // [S]
    .tRRD_S = 4,       // [X]
    .tRRD_L = 4,
    .tFAW = 0,   // [X] not constrained within a vault
    .tWTR_S = 6, // [X]
    .tWTR_L = 6,
    .tRTRS = 2,
    .tREFI = 0, // refresh not modelled (header comment)
    .tRFC = 0,
};

} // namespace presets
} // namespace memsub::memory
