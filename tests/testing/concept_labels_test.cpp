// Every concept family has one sub-concept per labelled requirement, and a type that breaks one
// requirement fails exactly that sub-concept (the compiler diagnostic names it); `diagnose_X<T>()`
// of concept X is true for a good type. Labels: testing/contract.hpp.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <istream>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include <memsub/bypass/all.hpp>
#include <memsub/compression/none.hpp>
#include <memsub/linesize/all.hpp>
#include <memsub/memory/bit_field_mapping.hpp>
#include <memsub/memory/flat_memory.hpp>
#include <memsub/memory/fr_fcfs.hpp>
#include <memsub/memory/open_page.hpp>
#include <memsub/memory/timeout_adaptive.hpp>
#include <memsub/replacement/all.hpp>
#include <memsub/selection/all.hpp>
#include <memsub/testing/archetypes.hpp>
#include <memsub/trace/lackey_reader.hpp>

using namespace memsub;

namespace {

/// Bit n set = requirement n of the family does not hold.
constexpr unsigned bit(unsigned n) {
    return 1u << n;
}

// ------------------------------------------------------------------------------ replacement

template <class P>
constexpr unsigned r_failures() {
    using namespace replacement;
    return (r1_params<P> ? 0 : bit(1)) | (r2_constructible<P> ? 0 : bit(2)) |
           (r3_on_hit<P> ? 0 : bit(3)) | (r4_on_insert<P> ? 0 : bit(4)) |
           (r5_on_evict<P> ? 0 : bit(5)) | (r6_victim<P> ? 0 : bit(6)) | (r7_name<P> ? 0 : bit(7));
}

static_assert(r_failures<testing::replacement_archetype>() == 0);
static_assert(r_failures<replacement::lru>() == 0);
// R2 names P::params, so a type without params (R1) cannot meet R2 either.
static_assert(r_failures<testing::broken_policy_no_params>() == (bit(1) | bit(2)));
static_assert(r_failures<testing::broken_policy_no_constructor>() == bit(2));
static_assert(r_failures<testing::broken_policy_throwing_hit>() == bit(3));
static_assert(r_failures<testing::broken_policy_raw_insert>() == bit(4));
static_assert(r_failures<testing::broken_policy_no_evict>() == bit(5));
static_assert(r_failures<testing::broken_policy_raw_victim>() == bit(6));
static_assert(r_failures<testing::broken_policy_unnamed>() == bit(7));
static_assert(replacement::diagnose_replacement_policy<replacement::lru>());
static_assert(replacement::diagnose_replacement_policy<replacement::drrip>());
static_assert(replacement::diagnose_replacement_policy<testing::replacement_archetype>());

// ----------------------------------------------------------------------------------- bypass

template <class B>
constexpr unsigned b_failures() {
    using namespace bypass;
    return (b1_params<B> ? 0 : bit(1)) | (b2_constructible<B> ? 0 : bit(2)) |
           (b3_should_bypass<B> ? 0 : bit(3)) | (b4_name<B> ? 0 : bit(4));
}

static_assert(b_failures<testing::bypass_archetype>() == 0);
static_assert(b_failures<testing::broken_predictor_no_params>() == (bit(1) | bit(2)));
static_assert(b_failures<testing::broken_predictor_no_constructor>() == bit(2));
static_assert(b_failures<testing::broken_predictor_throwing>() == bit(3));
static_assert(b_failures<testing::broken_predictor_unnamed>() == bit(4));
static_assert(bypass::diagnose_bypass_predictor<bypass::never>());
static_assert(bypass::diagnose_bypass_predictor<bypass::any_of<bypass::never, bypass::always>>());
static_assert(bypass::diagnose_bypass_predictor<testing::bypass_archetype>());

// -------------------------------------------------------------------------------- line size

template <class S>
constexpr unsigned ls_failures() {
    using namespace linesize;
    return (ls1_params<S> ? 0 : bit(1)) | (ls2_constructible<S> ? 0 : bit(2)) |
           (ls3_block_bytes<S> ? 0 : bit(3)) | (ls4_name<S> ? 0 : bit(4));
}

static_assert(ls_failures<testing::linesize_archetype>() == 0);
// LS2 names S::params, so a type without params (LS1) cannot meet LS2 either.
static_assert(ls_failures<testing::broken_sizer_no_params>() == (bit(1) | bit(2)));
static_assert(ls_failures<testing::broken_sizer_no_geometry>() == bit(2));
static_assert(ls_failures<testing::broken_sizer_throwing>() == bit(3));
static_assert(ls_failures<testing::broken_sizer_unnamed>() == bit(4));
static_assert(linesize::diagnose_line_size_predictor<linesize::alsi>());
static_assert(linesize::diagnose_line_size_predictor<linesize::static_size<64>>());
static_assert(linesize::diagnose_line_size_predictor<testing::linesize_archetype>());

// ---------------------------------------------------------------------------- mode selectors

template <class S>
constexpr unsigned se_failures() {
    using namespace selection;
    return (se1_params<S> ? 0 : bit(1)) | (se2_constructible<S> ? 0 : bit(2)) |
           (se3_insertion_mode<S> ? 0 : bit(3)) | (se4_on_access<S> ? 0 : bit(4)) |
           (se5_name<S> ? 0 : bit(5));
}

static_assert(se_failures<testing::selector_archetype>() == 0);
// SE2 names S::params, so a type without params (SE1) cannot meet SE2 either.
static_assert(se_failures<testing::broken_selector_no_params>() == (bit(1) | bit(2)));
static_assert(se_failures<testing::broken_selector_no_shape>() == bit(2));
static_assert(se_failures<testing::broken_selector_throwing>() == bit(3));
static_assert(se_failures<testing::broken_selector_deaf>() == bit(4));
static_assert(se_failures<testing::broken_selector_unnamed>() == bit(5));
static_assert(selection::diagnose_mode_selector<selection::static_mode>());
static_assert(selection::diagnose_mode_selector<selection::latte_cc>());
static_assert(selection::diagnose_mode_selector<selection::adaptive_hit_count>());
static_assert(selection::diagnose_mode_selector<selection::adaptive_cmp>());
static_assert(selection::diagnose_mode_selector<testing::selector_archetype>());

// ------------------------------------------------------------------------------ compression

/// A compressor that breaks requirement `Broken` (C1–C7 = 1–7, CI1 = 8, CI2 = 9; 0 = none).
template <int Broken>
struct compressor_t {
    struct with_line_bytes {
        std::uint32_t line_bytes = 64;
    };
    struct without_line_bytes {};
    using params = std::conditional_t<Broken == 1, without_line_bytes, with_line_bytes>;

    compressor_t() = default;
    explicit compressor_t(const params&) requires(Broken != 2) {}
    std::string_view name() const requires(Broken != 3) { return "t"; }
    int name() const requires(Broken == 3) { return 0; }
    std::uint32_t line_bytes() const requires(Broken != 4) { return 64; }
    std::uint32_t size_bits(std::span<const std::byte>) const noexcept(Broken != 5) { return 0; }
    std::uint32_t metadata_bits() const noexcept(Broken != 6) { return 0; }
    std::uint32_t compress_latency_cycles() const noexcept { return 0; }
    std::uint32_t decompress_latency_cycles() const noexcept { return 0; }
    double compress_energy_nj() const noexcept { return 0; }
    double decompress_energy_nj() const noexcept(Broken != 7) { return 0; }
    compression::compressed_line compress(std::span<const std::byte>) const noexcept
        requires(Broken != 8) {
        return {};
    }
    std::uint32_t compress(std::span<const std::byte>) const noexcept requires(Broken == 8) {
        return 0;
    }
    compression::decode_result decompress(compression::compressed_view, std::span<std::byte>) const
        noexcept(Broken != 9) {
        return {};
    }
};

template <class C>
constexpr unsigned c_failures() {
    using namespace compression;
    return (c1_params<C> ? 0 : bit(1)) | (c2_constructible<C> ? 0 : bit(2)) |
           (c3_name<C> ? 0 : bit(3)) | (c4_line_bytes<C> ? 0 : bit(4)) |
           (c5_size_bits<C> ? 0 : bit(5)) | (c6_metadata_bits<C> ? 0 : bit(6)) |
           (c7_costs<C> ? 0 : bit(7)) | (ci1_compress<C> ? 0 : bit(8)) |
           (ci2_decompress<C> ? 0 : bit(9));
}

static_assert(c_failures<compressor_t<0>>() == 0);
static_assert(compression::invertible_compressor<compressor_t<0>>);
static_assert(c_failures<compressor_t<1>>() == bit(1));
static_assert(c_failures<compressor_t<2>>() == bit(2));
static_assert(c_failures<compressor_t<3>>() == bit(3));
static_assert(c_failures<compressor_t<4>>() == bit(4));
static_assert(c_failures<compressor_t<5>>() == bit(5));
static_assert(c_failures<compressor_t<6>>() == bit(6));
static_assert(c_failures<compressor_t<7>>() == bit(7));
static_assert(c_failures<compressor_t<8>>() == bit(8));
static_assert(c_failures<compressor_t<9>>() == bit(9));
static_assert(compression::compressor<compressor_t<8>>); // CI1/CI2 concern only the refinement
static_assert(!compression::invertible_compressor<compressor_t<8>>);
static_assert(compression::diagnose_compressor<compression::none>());
static_assert(compression::diagnose_invertible_compressor<compression::none>());
static_assert(compression::diagnose_invertible_compressor<compressor_t<0>>());

// ----------------------------------------------------------------------------------- memory

/// An address mapping that breaks requirement `Broken` (M1 = 1, M2 = 2, MI1 = 3).
template <int Broken>
struct mapping_t {
    memory::dram_address map(byte_address) const noexcept(Broken != 1) { return {}; }
    const memory::dram_organisation& organisation() const requires(Broken != 2) { return o; }
    byte_address unmap(const memory::dram_address&) const noexcept requires(Broken != 3) {
        return {};
    }
    memory::dram_organisation o;
};

template <class M>
constexpr unsigned m_failures() {
    using namespace memory;
    return (m1_map<M> ? 0 : bit(1)) | (m2_organisation<M> ? 0 : bit(2)) |
           (mi1_unmap<M> ? 0 : bit(3));
}

static_assert(m_failures<mapping_t<0>>() == 0);
static_assert(m_failures<mapping_t<1>>() == bit(1));
static_assert(m_failures<mapping_t<2>>() == bit(2));
static_assert(m_failures<mapping_t<3>>() == bit(3));
static_assert(memory::diagnose_address_mapping<memory::bit_field_mapping>());
static_assert(memory::diagnose_invertible_address_mapping<memory::bit_field_mapping>());
// MI1 concerns only the refinement: a mapping without unmap still serves a controller.
static_assert(memory::address_mapping<mapping_t<3>>);
static_assert(!memory::invertible_address_mapping<mapping_t<3>>);
static_assert(memory::invertible_address_mapping<mapping_t<0>>);
static_assert(!memory::address_mapping<mapping_t<1>> && !memory::address_mapping<mapping_t<2>>);

/// A memory controller that breaks requirement `Broken` (MC1–MC7 = 1–7).
template <int Broken>
struct controller_t {
    struct some_params {};
    struct no_default {
        explicit no_default(int) {}
    };
    using params = std::conditional_t<Broken == 1, no_default, some_params>;
    memory::enqueue_result enqueue(const memory::mem_request&) noexcept(Broken != 2) {
        return memory::enqueue_result::accepted;
    }
    int can_accept(const memory::mem_request&) const noexcept requires(Broken == 3) { return 1; }
    bool can_accept(const memory::mem_request&) const noexcept requires(Broken != 3) {
        return true;
    }
    void advance_to(std::uint64_t) noexcept(Broken != 4) {}
    std::uint64_t next_event_cycle() const noexcept requires(Broken != 5) { return never; }
    template <class Sink>
    std::size_t drain(Sink&&) {
        return 0;
    }
    std::size_t drain(std::span<memory::completion>) noexcept(Broken != 6) { return 0; }
    const memory::controller_stats& stats() const noexcept { return s; }
    std::size_t pending() const noexcept { return 0; }
    std::string_view name() const requires(Broken != 7) { return "t"; }
    memory::controller_stats s;
};

template <class C>
constexpr unsigned mc_failures() {
    using namespace memory;
    return (mc1_params<C> ? 0 : bit(1)) | (mc2_enqueue<C> ? 0 : bit(2)) |
           (mc3_can_accept<C> ? 0 : bit(3)) | (mc4_advance_to<C> ? 0 : bit(4)) |
           (mc5_next_event_cycle<C> ? 0 : bit(5)) | (mc6_drain<C> ? 0 : bit(6)) |
           (mc7_observers<C> ? 0 : bit(7));
}

static_assert(mc_failures<controller_t<0>>() == 0);
static_assert(mc_failures<controller_t<1>>() == bit(1));
static_assert(mc_failures<controller_t<2>>() == bit(2));
static_assert(mc_failures<controller_t<3>>() == bit(3));
static_assert(mc_failures<controller_t<4>>() == bit(4));
static_assert(mc_failures<controller_t<5>>() == bit(5));
static_assert(mc_failures<controller_t<6>>() == bit(6));
static_assert(mc_failures<controller_t<7>>() == bit(7));
static_assert(memory::diagnose_memory_controller<memory::flat_memory>());
static_assert(memory::diagnose_memory_controller<controller_t<0>>());

// ------------------------------------------------------------------------------------ trace

/// A trace reader that breaks requirement `Broken` (TR1–TR7 = 1–7; TR4 is behaviour).
template <int Broken>
struct reader_t {
    struct some_params {};
    struct no_default {
        explicit no_default(int) {}
    };
    using params = std::conditional_t<Broken == 1, no_default, some_params>;
    static constexpr std::string_view format_name = "t";
    reader_t(const std::filesystem::path&, const params&) {}
    reader_t(std::istream&, std::string, const params&) requires(Broken != 2) {}
    bool next(memsub::access&) requires(Broken != 3) { return false; }
    void next(memsub::access&) requires(Broken == 3) {}
    std::uint64_t records() const noexcept(Broken != 5) { return 0; }
    trace::trace_position position() const noexcept requires(Broken != 6) { return {}; }
    int position() const noexcept requires(Broken == 6) { return 0; }
    const std::string& name() const noexcept(Broken != 7) { return name_; }
    std::string name_;
};

template <class R>
constexpr unsigned tr_failures() {
    using namespace trace;
    return (tr1_params<R> ? 0 : bit(1)) | (tr2_construction<R> ? 0 : bit(2)) |
           (tr3_next<R> ? 0 : bit(3)) | (tr5_records<R> ? 0 : bit(5)) |
           (tr6_position<R> ? 0 : bit(6)) | (tr7_names<R> ? 0 : bit(7));
}

static_assert(tr_failures<reader_t<0>>() == 0);
static_assert(tr_failures<reader_t<1>>() == bit(1));
static_assert(tr_failures<reader_t<2>>() == bit(2));
static_assert(tr_failures<reader_t<3>>() == bit(3));
static_assert(tr_failures<reader_t<5>>() == bit(5));
static_assert(tr_failures<reader_t<6>>() == bit(6));
static_assert(tr_failures<reader_t<7>>() == bit(7));
static_assert(trace::diagnose_trace_reader<trace::lackey_reader>());
static_assert(trace::diagnose_trace_reader<reader_t<0>>());

// ------------------------------------------------------------------ memory: MS and RP

/// A request scheduler that breaks requirement `Broken` (MS1–MS4 = 1–4).
template <int Broken>
struct scheduler_t {
    struct params {};
    scheduler_t(const params&, std::uint32_t) requires(Broken != 1) {}
    template <class View>
    memory::selection select(std::size_t, const View&) noexcept(Broken != 2) {
        return {};
    }
    template <class View>
    void on_selected(const View&, std::size_t) noexcept(Broken != 3) {}
    std::string_view name() const requires(Broken != 4) { return "t"; }
};

template <class S>
constexpr unsigned ms_failures() {
    using namespace memory;
    return (ms1_params<S> ? 0 : bit(1)) | (ms2_select<S> ? 0 : bit(2)) |
           (ms3_on_selected<S> ? 0 : bit(3)) | (ms4_name<S> ? 0 : bit(4));
}

static_assert(ms_failures<scheduler_t<0>>() == 0);
static_assert(ms_failures<scheduler_t<1>>() == bit(1));
static_assert(ms_failures<scheduler_t<2>>() == bit(2));
static_assert(ms_failures<scheduler_t<3>>() == bit(3));
static_assert(ms_failures<scheduler_t<4>>() == bit(4));
static_assert(memory::diagnose_request_scheduler<scheduler_t<0>>());

/// A row policy that breaks requirement `Broken` (RP1–RP4 = 1–4).
template <int Broken>
struct row_policy_t {
    struct some_params {};
    struct no_default {
        explicit no_default(int) {}
    };
    using params = std::conditional_t<Broken == 1, no_default, some_params>;
    row_policy_t(const params&, std::uint32_t) {}
    std::uint64_t close_at(std::uint32_t, std::uint64_t) noexcept requires(Broken != 2) {
        return never;
    }
    int close_at(std::uint32_t, std::uint64_t) noexcept requires(Broken == 2) { return 0; }
    void observe(std::uint32_t, memory::row_class, bool) noexcept(Broken != 3) {}
    std::string_view name() const requires(Broken != 4) { return "t"; }
};

template <class P>
constexpr unsigned rp_failures() {
    using namespace memory;
    return (rp1_params<P> ? 0 : bit(1)) | (rp2_close_at<P> ? 0 : bit(2)) |
           (rp3_observe<P> ? 0 : bit(3)) | (rp4_name<P> ? 0 : bit(4));
}

static_assert(rp_failures<row_policy_t<0>>() == 0);
static_assert(rp_failures<row_policy_t<1>>() == bit(1));
static_assert(rp_failures<row_policy_t<2>>() == bit(2));
static_assert(rp_failures<row_policy_t<3>>() == bit(3));
static_assert(rp_failures<row_policy_t<4>>() == bit(4));
static_assert(memory::diagnose_row_policy<memory::open_page>());
static_assert(memory::diagnose_row_policy<memory::timeout_adaptive>());

// ------------------------------------------------------------------ dueling candidates (D)

/// A dueling candidate that breaks requirement `Broken` (D1–D7 = 1–7).
template <int Broken>
struct dual_t {
    struct some_params {};
    struct no_default {
        explicit no_default(int) {}
    };
    using params = std::conditional_t<Broken == 1, no_default, some_params>;
    dual_t(const geometry&, const params&) requires(Broken != 2) {}
    void on_hit(set_index, entry_index, const memsub::access&,
                std::uint32_t) noexcept(Broken != 3) {}
    void on_insert(set_index, entry_index, const memsub::access&,
                   std::uint32_t) noexcept(Broken != 4) {}
    void on_evict(set_index, entry_index, const memsub::evicted_block&) noexcept(Broken != 5) {}
    entry_index victim(set_index, entry_mask, const memsub::access&, std::uint32_t) noexcept
        requires(Broken != 6) {
        return entry_index{0};
    }
    std::string_view name() const requires(Broken != 7) { return "t"; }
};

template <class D>
constexpr unsigned d_failures() {
    using namespace replacement;
    return (d1_params<D> ? 0 : bit(1)) | (d2_constructible<D> ? 0 : bit(2)) |
           (d3_on_hit<D> ? 0 : bit(3)) | (d4_on_insert<D> ? 0 : bit(4)) |
           (d5_on_evict<D> ? 0 : bit(5)) | (d6_victim<D> ? 0 : bit(6)) | (d7_name<D> ? 0 : bit(7));
}

static_assert(d_failures<dual_t<0>>() == 0);
static_assert(d_failures<dual_t<1>>() == bit(1));
static_assert(d_failures<dual_t<2>>() == bit(2));
static_assert(d_failures<dual_t<3>>() == bit(3));
static_assert(d_failures<dual_t<4>>() == bit(4));
static_assert(d_failures<dual_t<5>>() == bit(5));
static_assert(d_failures<dual_t<6>>() == bit(6));
static_assert(d_failures<dual_t<7>>() == bit(7));
static_assert(replacement::diagnose_dueling_candidate<replacement::rrip_dual>());
static_assert(replacement::diagnose_dueling_candidate<dual_t<0>>());

} // namespace

TEST_CASE("concept labels: each broken archetype fails exactly its sub-concept") {
    CHECK(ms_failures<scheduler_t<2>>() == bit(2));
    CHECK(rp_failures<row_policy_t<3>>() == bit(3));
    CHECK(d_failures<dual_t<6>>() == bit(6));
    // The checks are the static_asserts above; this case records that they compiled.
    CHECK(r_failures<testing::broken_policy_no_evict>() == bit(5));
    CHECK(b_failures<testing::broken_predictor_throwing>() == bit(3));
    CHECK(c_failures<compressor_t<5>>() == bit(5));
    CHECK(mc_failures<controller_t<2>>() == bit(2));
    CHECK(tr_failures<reader_t<7>>() == bit(7));
    CHECK(se_failures<testing::broken_selector_deaf>() == bit(4));
}
