// memsub — the bit-field address mapper: byte address → channel, rank, bank group, bank, row,
// column, by an ordered list of bit fields, with optional XOR bank/channel hashing.
//
// Fields are listed MSB → LSB above a byte-offset field (the bytes of one burst). A kind may
// appear several times; its pieces are concatenated with the MSB-most piece as the high bits —
// this expresses split columns (Kim et al.'s CLH … CLL) and composite channels (cluster, vault,
// local HMC). Unused kinds have 0 bits (count 1). Models `invertible_address_mapping`
// (memory/concept.hpp).
//
// Presets and strings:
//  * `from_order("rorabgbachco", timing)` — DRAMSim3's address-mapping strings (two-letter
//    tokens ro ra bg ba ch co, MSB first) and Ramulator-style names ("RoRaBaChCo",
//    "RoBaRaCoCh"; tokens are case-insensitive); widths come from the timing preset.
//  * `kim_multi_gpu(...)` — [MemNet] §III.C layout RW:CLH:BK:CT:VL:LC:CLL:BY: channel = CT:VL:LC
//    concatenated (cluster high). Decision: the paper gives the order but not the widths; memsub
//    derives them from the system: CLL + BY = log2(line bytes), LC = log2(HMCs per GPU), VL =
//    log2(vaults per HMC), CT = log2(GPUs), BK = log2(banks per vault), CLH = the remaining
//    column bits of a row, RW the rest. For 4 GPUs × 4 HMCs × 16 vaults × 16 banks and 128 B
//    lines the bits below CT total 13 ≥ 12, so a 4 KB page never spans two clusters, which the
//    paper's page-granularity cluster mapping needs.
// XOR hashing (params::xor_bank / xor_channel): permutation-based interleaving (Zhang, Zhu,
// Zhang, MICRO 2000): the bank index (bank group and bank bits together) is XORed with the low
// row bits, so row-conflicting lines of one bank spread over banks; the channel index is XORed
// with the row folded to the channel width. Both are bijections, so `unmap` inverts them.
// Hardware cost: wiring plus one XOR gate per hashed bit.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <boost/container/static_vector.hpp>

#include <memsub/config.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/types.hpp>
#include <memsub/memory/concept.hpp>
#include <memsub/memory/dram_timing.hpp>

namespace memsub::memory {

enum class field_kind : std::uint8_t { channel, rank, bank_group, bank, row, column };
inline constexpr std::size_t field_kind_count = 6;

[[nodiscard]] constexpr std::string_view to_string(field_kind k) noexcept {
    switch (k) {
    case field_kind::channel:
        return "channel";
    case field_kind::rank:
        return "rank";
    case field_kind::bank_group:
        return "bank_group";
    case field_kind::bank:
        return "bank";
    case field_kind::row:
        return "row";
    case field_kind::column:
        return "column";
    }
    return "?";
}

/// One bit field of an address.
struct address_field {
    field_kind kind = field_kind::row;
    std::uint32_t bits = 0;
};

class bit_field_mapping {
public:
    static constexpr std::string_view component = "memsub::memory::bit_field_mapping";
    static constexpr std::size_t max_fields = 16;
    /// Configuration only (copied into a fixed-size table at construction); more than
    /// max_fields entries are a config_error.
    using field_list = std::vector<address_field>;

    struct params {
        /// Fields MSB → LSB (above the byte offset).
        field_list fields{};
        /// Bytes within one burst: log2 of the burst size.
        std::uint32_t offset_bits = 6;
        /// Physical address width; the fields and the offset must fit in it.
        std::uint32_t address_bits = 48;
        /// XOR the bank index with the low row bits (permutation-based interleaving).
        bool xor_bank = false;
        /// XOR the channel index with the row folded to the channel width.
        bool xor_channel = false;
    };

    explicit bit_field_mapping(const params& p) : p_(p) {
        require(p.address_bits >= 1 && p.address_bits <= 64, component, "address_bits",
                p.address_bits, "must be in 1..64");
        require(p.offset_bits <= 31, component, "offset_bits", p.offset_bits,
                "must be <= 31 (a burst of at most 2^31 bytes)");
        require(p.fields.size() <= max_fields, component, "fields", p.fields.size(),
                "at most " + std::to_string(max_fields) + " fields");
        for (const auto& f : p.fields)
            require(f.bits <= 31, component, to_string(f.kind), f.bits,
                    "a field may have at most 31 bits");
        std::uint32_t total = p.offset_bits;
        for (const auto& f : p.fields) total += f.bits;
        require(total <= p.address_bits, component, "fields", total,
                "the fields and the byte offset together (bits shown) must fit in address_bits "
                "(mapping wider than the address)");
        // Position of each piece: walk LSB → MSB.
        std::uint32_t pos = p.offset_bits;
        std::array<std::uint32_t, field_kind_count> filled{};
        for (std::size_t i = p.fields.size(); i-- > 0;) {
            const auto& f = p.fields[i];
            const auto k = static_cast<std::size_t>(f.kind);
            if (f.bits != 0) // zero-width fields decode to 0: no work at map time
                pieces_.push_back(piece{.addr_shift = pos,
                                        .dest_shift = filled[k],
                                        .mask = low_bits_mask(f.bits),
                                        .kind = f.kind});
            filled[k] += f.bits;
            pos += f.bits;
        }
        bits_ = filled;
        std::array<std::uint32_t, field_kind_count> pieces_of{};
        for (const piece& pc : pieces_) {
            const auto k = static_cast<std::size_t>(pc.kind);
            ++pieces_of[k];
            field_shift_[k] = pc.addr_shift;
            field_mask_[k] = pc.mask;
        }
        single_piece_ =
            std::all_of(pieces_of.begin(), pieces_of.end(), [](std::uint32_t n) { return n <= 1; });
        require(bits_[static_cast<std::size_t>(field_kind::row)] <= 32, component, "row bits",
                bits_[static_cast<std::size_t>(field_kind::row)], "must be <= 32");
        for (std::size_t k = 0; k < field_kind_count; ++k)
            require(bits_[k] <= 31, component, to_string(static_cast<field_kind>(k)), bits_[k],
                    "a field may have at most 31 bits");
        const std::uint32_t bank_bits = bank_index_bits();
        require(bank_bits + bits_[static_cast<std::size_t>(field_kind::rank)] <= 6, component,
                "rank+bank_group+bank bits", bank_bits, "a channel may have at most 64 banks");
        if (p.xor_bank)
            require(row_bits() >= bank_bits, component, "xor_bank", row_bits(),
                    "needs at least as many row bits as bank-group + bank bits");
        if (p.xor_channel) require(row_bits() >= 1, component, "xor_channel", 0, "needs row bits");
        org_ = dram_organisation{.channels = count(field_kind::channel),
                                 .ranks = count(field_kind::rank),
                                 .bank_groups = count(field_kind::bank_group),
                                 .banks_per_group = count(field_kind::bank),
                                 .rows = count(field_kind::row),
                                 .columns = count(field_kind::column),
                                 .burst_bytes = 1u << p.offset_bits};
    }

    /// Builds a mapping from an order string (DRAMSim3 "rorabgbachco", Ramulator "RoBaRaCoCh";
    /// MSB first) with field widths from `t`'s organisation. Every field with more than one
    /// value must appear exactly once.
    [[nodiscard]] static bit_field_mapping from_order(std::string_view order, const dram_timing& t,
                                                      std::uint32_t address_bits = 48,
                                                      bool xor_bank = false,
                                                      bool xor_channel = false) {
        t.validate(component);
        params p;
        p.offset_bits = log2_exact(t.burst_bytes());
        p.address_bits = address_bits;
        p.xor_bank = xor_bank;
        p.xor_channel = xor_channel;
        std::array<bool, field_kind_count> seen{};
        if (order.size() % 2 != 0 || order.empty())
            throw config_error(component, "order", std::string(order),
                               "must be a sequence of two-letter tokens (ro ra bg ba ch co)");
        for (std::size_t i = 0; i < order.size(); i += 2) {
            const char a = static_cast<char>(std::tolower(static_cast<unsigned char>(order[i])));
            const char b =
                static_cast<char>(std::tolower(static_cast<unsigned char>(order[i + 1])));
            field_kind k{};
            std::uint32_t n = 0;
            if (a == 'r' && b == 'o')
                k = field_kind::row, n = t.rows;
            else if (a == 'r' && b == 'a')
                k = field_kind::rank, n = t.ranks;
            else if (a == 'b' && b == 'g')
                k = field_kind::bank_group, n = t.bank_groups;
            else if (a == 'b' && b == 'a')
                k = field_kind::bank, n = t.banks_per_group;
            else if (a == 'c' && b == 'h')
                k = field_kind::channel, n = t.channels;
            else if (a == 'c' && b == 'o')
                k = field_kind::column, n = t.columns();
            else
                throw config_error(component, "order", std::string(order),
                                   "unknown token '" + std::string(order.substr(i, 2)) +
                                       "' (use ro ra bg ba ch co)");
            if (seen[static_cast<std::size_t>(k)])
                throw config_error(component, "order", std::string(order),
                                   "token '" + std::string(order.substr(i, 2)) + "' appears twice");
            seen[static_cast<std::size_t>(k)] = true;
            p.fields.push_back(address_field{k, log2_exact(n)});
        }
        const std::array<std::uint32_t, field_kind_count> counts{
            t.channels, t.ranks, t.bank_groups, t.banks_per_group, t.rows, t.columns()};
        for (std::size_t k = 0; k < field_kind_count; ++k)
            if (!seen[k] && counts[k] > 1)
                throw config_error(component, "order", std::string(order),
                                   "misses the " +
                                       std::string(to_string(static_cast<field_kind>(k))) +
                                       " field (the preset has " + std::to_string(counts[k]) + ")");
        return bit_field_mapping(p);
    }

    /// [MemNet] §III.C: RW : CLH : BK : CT : VL : LC : CLL : BY, for `gpus` clusters
    /// of `hmcs_per_gpu` HMCs with `t.channels / (gpus·hmcs)` vaults each, lines of
    /// `line_bytes` interleaved across the local HMCs. Channel = (CT·vaults + VL)·hmcs + LC.
    [[nodiscard]] static bit_field_mapping kim_multi_gpu(const dram_timing& t = presets::hmc_vault,
                                                         std::uint32_t gpus = 4,
                                                         std::uint32_t hmcs_per_gpu = 4,
                                                         std::uint32_t line_bytes = 128,
                                                         std::uint32_t address_bits = 48) {
        t.validate(component);
        require(gpus >= 1 && std::has_single_bit(gpus), component, "gpus", gpus,
                "must be a power of two");
        require(hmcs_per_gpu >= 1 && std::has_single_bit(hmcs_per_gpu), component, "hmcs_per_gpu",
                hmcs_per_gpu, "must be a power of two");
        require(line_bytes >= t.burst_bytes() && std::has_single_bit(line_bytes) &&
                    line_bytes <= t.row_bytes,
                component, "line_bytes", line_bytes,
                "must be a power of two between the burst size and the row size");
        require(t.channels % (gpus * hmcs_per_gpu) == 0 && t.channels >= gpus * hmcs_per_gpu,
                component, "channels", t.channels, "must be a multiple of gpus * hmcs_per_gpu");
        const std::uint32_t vaults = t.channels / (gpus * hmcs_per_gpu);
        const std::uint32_t cll = log2_exact(line_bytes / t.burst_bytes());
        const std::uint32_t col = log2_exact(t.columns());
        params p;
        p.offset_bits = log2_exact(t.burst_bytes());
        p.address_bits = address_bits;
        p.fields = {address_field{field_kind::row, log2_exact(t.rows)},
                    address_field{field_kind::column, col - cll},
                    address_field{field_kind::bank, log2_exact(t.banks_per_group)},
                    address_field{field_kind::channel, log2_exact(gpus)},
                    address_field{field_kind::channel, log2_exact(vaults)},
                    address_field{field_kind::channel, log2_exact(hmcs_per_gpu)},
                    address_field{field_kind::column, cll}};
        return bit_field_mapping(p);
    }

    // ------------------------------------------------------------------ address_mapping

    [[nodiscard]] dram_address map(byte_address a) const noexcept {
        std::array<std::uint32_t, field_kind_count> v{};
        if (MEMSUB_LIKELY(single_piece_)) {
            // Every kind is one contiguous field (or absent: mask 0).
            for (std::size_t k = 0; k < field_kind_count; ++k)
                v[k] = static_cast<std::uint32_t>((a.value >> field_shift_[k]) & field_mask_[k]);
        } else {
            for (const piece& pc : pieces_)
                v[static_cast<std::size_t>(pc.kind)] |= static_cast<std::uint32_t>(
                    ((a.value >> pc.addr_shift) & pc.mask) << pc.dest_shift);
        }
        dram_address d{.channel = v[0],
                       .rank = v[1],
                       .bank_group = v[2],
                       .bank = v[3],
                       .row = v[4],
                       .column = v[5]};
        apply_xor(d);
        return d;
    }

    [[nodiscard]] byte_address unmap(const dram_address& in) const noexcept {
        dram_address d = in;
        apply_xor(d); // XOR hashing is an involution given the row
        const std::array<std::uint32_t, field_kind_count> v{d.channel, d.rank, d.bank_group,
                                                            d.bank,    d.row,  d.column};
        std::uint64_t a = 0;
        for (const piece& pc : pieces_)
            a |= ((std::uint64_t{v[static_cast<std::size_t>(pc.kind)]} >> pc.dest_shift) & pc.mask)
                 << pc.addr_shift;
        return byte_address{a};
    }

    [[nodiscard]] const dram_organisation& organisation() const noexcept { return org_; }
    [[nodiscard]] const params& parameters() const noexcept { return p_; }
    /// Total bits of one kind.
    [[nodiscard]] std::uint32_t bits(field_kind k) const noexcept {
        return bits_[static_cast<std::size_t>(k)];
    }

private:
    struct piece {
        std::uint32_t addr_shift;
        std::uint32_t dest_shift;
        std::uint64_t mask;
        field_kind kind;
    };

    [[nodiscard]] std::uint32_t count(field_kind k) const noexcept {
        return 1u << bits_[static_cast<std::size_t>(k)];
    }
    [[nodiscard]] std::uint32_t row_bits() const noexcept { return bits(field_kind::row); }
    [[nodiscard]] std::uint32_t bank_index_bits() const noexcept {
        return bits(field_kind::bank_group) + bits(field_kind::bank);
    }

    void apply_xor(dram_address& d) const noexcept {
        if (p_.xor_bank) {
            const std::uint32_t bb = bits(field_kind::bank);
            std::uint32_t idx = (d.bank_group << bb) | d.bank;
            idx ^= d.row & static_cast<std::uint32_t>(low_bits_mask(bank_index_bits()));
            d.bank = idx & static_cast<std::uint32_t>(low_bits_mask(bb));
            d.bank_group = idx >> bb;
        }
        if (p_.xor_channel) {
            const std::uint32_t cb = bits(field_kind::channel);
            if (cb > 0) {
                std::uint32_t fold = 0;
                for (std::uint32_t r = d.row; r != 0; r >>= cb)
                    fold ^= r & static_cast<std::uint32_t>(low_bits_mask(cb));
                d.channel ^= fold;
            }
        }
    }

    params p_;
    boost::container::static_vector<piece, max_fields> pieces_;
    std::array<std::uint32_t, field_kind_count> bits_{};
    /// Fast path of `map` when every kind is a single field: its shift and mask (0 if absent).
    bool single_piece_ = false;
    std::array<std::uint32_t, field_kind_count> field_shift_{};
    std::array<std::uint64_t, field_kind_count> field_mask_{};
    dram_organisation org_{};
};

static_assert(invertible_address_mapping<bit_field_mapping>);

} // namespace memsub::memory
