// memsub — read-modify-write accesses (`access::read_modify_write`, a Valgrind Lackey `M`
// record): the read is performed as a read of `a.kind` (counted, looked up, allocated as a
// read would be); the write then applies, as a store hit would, to the requested bytes the read
// left resident, as the write strategy says (write_strategy.hpp, `on_read_modify_write`): a
// write-back cache marks their blocks dirty; a write-through cache sends the bytes down (and,
// given a spec, resizes as a store hit does, P8 of replacement/concept.hpp); a write-evict cache
// sends them down and evicts the blocks. A write-evict cache does not allocate for a
// read-modify-write (its write would evict the line at once, as for a store miss:
// `write_no_allocate`). A read that did not allocate sends the written bytes down. No second
// access or miss is counted (cachegrind counts a modify as one data read). A layer of
// basic_cache over both access paths.
#pragma once

#include <cstddef>
#include <cstdint>

#include <memsub/cache/access_result.hpp>
#include <memsub/cache/detail/cache_core.hpp>
#include <memsub/config.hpp>
#include <memsub/core/access.hpp>
#include <memsub/core/bits.hpp>
#include <memsub/core/types.hpp>

namespace memsub::cache::detail {

template <class Core>
class read_modify_write : public Core {
protected:
    using Core::access_conventional;
    using Core::access_variable;
    using Core::checked_spec;
    using Core::layout_;
    using Core::line_blocks;
    using Core::narrow_to_mask;
    using Core::request_bytes;
    using Core::resize_touched;
    using Core::segments_of;
    using Core::segments_per_line;
    using Core::slot;
    using Core::stats_;
    using Core::variable_blocks;
    using typename Core::layout_type;
    using typename Core::line_view;
    using typename Core::result_type;
    using typename Core::whole_line_spec;
    using typename Core::write_port;
    using typename Core::writes;

    using Core::Core;

    /// The write port of a read-modify-write's write: a resize takes the access's spec, when
    /// it has one (variable-block caches).
    template <class SpecFn>
    struct read_modify_write_port : write_port {
        read_modify_write& self;
        const memsub::access& a;
        SpecFn* spec_of;

        void resize(entry_mask blocks) noexcept {
            if constexpr (variable_blocks)
                if (spec_of != nullptr)
                    self.resize_touched(this->s, blocks, self.checked_spec((*spec_of)(a)), a,
                                        this->r, this->L);
            (void)blocks;
        }
    };

    // Out of line: the plain access path stays as small as it was. `spec_of` is null for an
    // access without a spec.
    template <class SpecFn>
    [[gnu::noinline, gnu::cold]] result_type access_read_modify_write(const memsub::access& a,
                                                                      SpecFn* spec_of) noexcept {
        memsub::access read = a;
        bool evict_rule = false; // the write strategy's no-allocate rule declines, not the host
        if constexpr (writes::evicts_written_blocks) {
            evict_rule = !a.hints.no_allocate && !is_write(a.kind);
            read.hints.no_allocate = true;
        }
        result_type r;
        if constexpr (variable_blocks) {
            whole_line_spec whole{segments_per_line(layout_)};
            r = spec_of != nullptr ? access_variable(read, *spec_of, true)
                                   : access_variable(read, whole, false);
        } else {
            r = access_conventional(read);
        }
        if (evict_rule && r.bypass == bypass_reason::host_no_allocate) {
            r.bypass = bypass_reason::write_no_allocate;
            --stats_.bypasses_by_reason[static_cast<std::size_t>(bypass_reason::host_no_allocate)];
            ++stats_.bypasses_by_reason[static_cast<std::size_t>(bypass_reason::write_no_allocate)];
        }
        write_after_read(a, r, spec_of);
        return r;
    }

    template <class SpecFn>
    void write_after_read(const memsub::access& a, result_type& r, SpecFn* spec_of) noexcept {
        if (is_write(a.kind)) return; // a store or writeback has written already
        const layout_type L = layout_;
        entry_mask blocks = 0; // the blocks holding the requested bytes
        std::uint32_t bytes = request_bytes(a, L);
        if constexpr (variable_blocks) {
            const std::uint32_t spl = segments_per_line(L);
            const std::uint32_t line_bytes = 1u << L.line_shift;
            const std::uint64_t line_key = (a.address.value >> L.line_shift) * spl;
            const auto offset = static_cast<std::uint32_t>(a.address.value & (line_bytes - 1));
            std::uint32_t lo = a.size == 0 ? 0u : offset;
            std::uint32_t hi = a.size == 0 ? line_bytes : offset + bytes;
            bytes = hi - lo;
            std::uint32_t first_seg = lo >> L.segment_shift;
            std::uint32_t last_seg = (hi - 1) >> L.segment_shift;
            std::uint64_t requested = low_bits_mask(last_seg - first_seg + 1) << first_seg;
            std::uint32_t home_seg = 0; // unused here
            if (a.sector_mask != 0)
                narrow_to_mask(a, spl, 1u << L.segment_shift, requested, lo, hi, first_seg,
                               last_seg, bytes, home_seg);
            if (r.hit || r.filled()) {
                const line_view line = line_blocks(r.set, line_key, L);
                if ((requested & ~line.resident) == 0) {
                    const std::size_t base = slot(r.set, entry_index{0}, L);
                    for (entry_mask m = line.blocks; m != 0; m &= m - 1) {
                        const entry_index e = lowest_entry(m);
                        if ((segments_of(base + e.value, line_key) & requested) != 0)
                            blocks |= bit_of(e);
                    }
                }
            }
        } else if (r.hit || r.filled()) {
            blocks = bit_of(r.entry);
        }
        read_modify_write_port<SpecFn> port{{*this, r, r.set, L}, *this, a, spec_of};
        writes::on_read_modify_write(port, blocks, bytes);
    }
};

} // namespace memsub::cache::detail
