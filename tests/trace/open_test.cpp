#include "trace_test_util.hpp"

#include <memsub/core/rng.hpp>
#include <memsub/trace/all.hpp>

#include <fmt/core.h>

#include <sys/stat.h> // mkfifo

#include <chrono>
#include <fstream>
#include <optional>
#include <sstream>
#include <streambuf>
#include <string>
#include <thread>
#include <vector>

using memsub::access_kind;
using memsub::byte_address;
using namespace memsub::trace;
using pk = memsub::input_error::position_kind;

static_assert(trace_reader<lackey_reader>);
static_assert(trace_reader<dinero_reader>);
static_assert(trace_reader<text_reader>);
static_assert(trace_reader<binary_u64_reader>);
static_assert(trace_reader<oracle_general_reader>);
static_assert(!trace_reader<int>);

namespace {
// Archetypes: a minimal model of the concept, and the same with one requirement missing each.
struct archetype_params {};
template <bool HasNext, bool HasPosition, bool NoexceptRecords>
struct archetype {
    using params = archetype_params;
    static constexpr std::string_view format_name = "archetype";
    archetype(const std::filesystem::path&, const params&) {}
    archetype(std::istream&, std::string, const params&) {}
    bool next(memsub::access&) requires HasNext { return false; }
    std::uint64_t records() const noexcept(NoexceptRecords) { return 0; }
    trace_position position() const noexcept requires HasPosition { return {}; }
    const std::string& name() const noexcept { return name_; }
    std::string name_;
};
} // namespace
static_assert(trace_reader<archetype<true, true, true>>);
static_assert(!trace_reader<archetype<false, true, true>>); // TR3
static_assert(!trace_reader<archetype<true, false, true>>); // TR6
static_assert(!trace_reader<archetype<true, true, false>>); // TR5 (noexcept)
static_assert(!std::copy_constructible<lackey_reader>);

TEST_CASE("format names") {
    CHECK(parse_format("lackey") == trace_format::lackey);
    CHECK(parse_format("din") == trace_format::din);
    CHECK(parse_format("dinero") == trace_format::din);
    CHECK(parse_format("text") == trace_format::text);
    CHECK(parse_format("u64") == trace_format::u64);
    CHECK(parse_format("bin") == trace_format::u64);
    CHECK(parse_format("oracleGeneral") == trace_format::oracle_general);
    CHECK_FALSE(parse_format("csv").has_value());
    for (const auto f : {trace_format::lackey, trace_format::din, trace_format::text,
                         trace_format::u64, trace_format::oracle_general, trace_format::champsim})
        CHECK(parse_format(to_string(f)) == f);
}

TEST_CASE("detection by file name") {
    const trace_test::temp_file og("t.oracleGeneral"), ogb("t.oracleGeneral.bin"),
        ogz("x.oracleGeneral.zst"), din("t.din"), u64("t.u64"), bin("t.bin"), lk("t.lackey");
    for (const auto* f : {&og, &ogb, &ogz, &din, &u64, &bin, &lk}) f->write("");
    CHECK(detect_format(og.path) == trace_format::oracle_general);
    CHECK(detect_format(ogb.path) == trace_format::oracle_general);
    CHECK(detect_format(ogz.path) == trace_format::oracle_general);
    CHECK(detect_format(din.path) == trace_format::din);
    CHECK(detect_format(u64.path) == trace_format::u64);
    CHECK(detect_format(bin.path) == trace_format::u64);
    CHECK(detect_format(lk.path) == trace_format::lackey);
}

TEST_CASE("detection by content") {
    const trace_test::temp_file f("sniff.txt");
    f.write("==5656== Lackey, an example Valgrind tool\n");
    CHECK(detect_format(f.path) == trace_format::lackey);
    f.write("\nI  0401ab70,3\n");
    CHECK(detect_format(f.path) == trace_format::lackey);
    f.write(" L 1fff000708,8\n");
    CHECK(detect_format(f.path) == trace_format::lackey);
    f.write("0 70f60888\n1 70f6088c\n");
    CHECK(detect_format(f.path) == trace_format::din);
    f.write("2 0x10 4\n");
    CHECK(detect_format(f.path) == trace_format::din);
    f.write("# addresses\n0x1000 R\n");
    CHECK(detect_format(f.path) == trace_format::text);
    f.write("4096\n8192\n");
    CHECK(detect_format(f.path) == trace_format::text);
    f.write("1 R\n");
    CHECK(detect_format(f.path) == trace_format::text);
    f.write("");
    CHECK(detect_format(f.path) == trace_format::text);
    f.write(std::string("\x10\x00\x00\x00\x00\x00\x00\x00", 8));
    CHECK_THROWS_AS((void)detect_format(f.path), memsub::input_error);
    CHECK_THROWS_AS((void)detect_format("/nonexistent/memsub/x.txt"), memsub::input_error);
}

TEST_CASE("open_trace + for_each_access on every format") {
    const auto src = trace_test::random_accesses(1000, 99, false, (1ULL << 47) - 64);
    const trace_test::temp_file lk("rt.txt"), din("rt.din"), txt("rt_addr.txt"), u64("rt.u64"),
        og("rt.oracleGeneral.bin");
    {
        std::ofstream a(lk.path), b(din.path), c(txt.path), d(u64.path, std::ios::binary),
            e(og.path, std::ios::binary);
        lackey_writer wa(a);
        wa.write_banner(1, "Lackey");
        dinero_writer wb(b);
        text_writer wc(c);
        binary_u64_writer wd(d);
        oracle_general_writer we(e);
        for (const auto& x : src) {
            wa.write(x);
            wb.write(x);
            wc.write(x);
            wd.write(x);
            we.write(x);
        }
    }
    struct expect {
        const trace_test::temp_file* f;
        trace_format fmt;
        bool kinds;
    };
    for (const auto& x :
         {expect{&lk, trace_format::lackey, true}, expect{&din, trace_format::din, true},
          expect{&txt, trace_format::text, true}, expect{&u64, trace_format::u64, false},
          expect{&og, trace_format::oracle_general, false}}) {
        CAPTURE(to_string(x.fmt));
        CHECK(detect_format(x.f->path) == x.fmt);
        any_reader r = open_trace(x.f->path);
        CHECK(r.index() == static_cast<std::size_t>(x.fmt));
        std::size_t i = 0;
        const auto n = for_each_access(r, [&](const memsub::access& a) {
            if (i < src.size()) {
                // oracleGeneral stores obj_id = address / 64: line granularity.
                const auto want = x.fmt == trace_format::oracle_general
                                      ? src[i].address.value / 64 * 64
                                      : src[i].address.value;
                CHECK(a.address.value == want);
                if (x.kinds) CHECK(a.kind == src[i].kind);
            }
            ++i;
        });
        CHECK(n == src.size());
        CHECK(records(r) == src.size());
        CHECK(name(r) == x.f->path.string());
        const bool counts_instructions =
            x.fmt == trace_format::lackey || x.fmt == trace_format::din;
        CHECK(instructions(r).has_value() == counts_instructions);
    }
    // Explicit format overrides detection; options reach the reader.
    open_options o;
    o.text.base = number_base::hex;
    any_reader r = open_trace(din.path, trace_format::text, o);
    CHECK_THROWS_AS(for_each_access(r, [](const memsub::access&) {}), memsub::input_error);
}

namespace {
#ifdef __linux__
std::uint64_t resident_kib() {
    std::ifstream s("/proc/self/status");
    std::string key;
    while (s >> key) {
        if (key == "VmRSS:") {
            std::uint64_t kib = 0;
            s >> kib;
            return kib;
        }
        std::getline(s, key);
    }
    return 0;
}
#endif
} // namespace

TEST_CASE("streaming: 5M records from a 40 MB file in constant memory") {
    constexpr std::uint64_t n = 5'000'000;
    const trace_test::temp_file f("big.u64");
    {
        // Write in 64 KiB chunks (the writers are per record; this keeps the test fast).
        std::ofstream os(f.path, std::ios::binary);
        std::vector<char> chunk(8 * 8192);
        for (std::uint64_t i = 0; i < n; i += 8192) {
            std::size_t bytes = 0;
            for (std::uint64_t j = i; j < i + 8192 && j < n; ++j) {
                const std::uint64_t addr = j * 64;
                for (int b = 0; b < 8; ++b) chunk[bytes++] = static_cast<char>(addr >> (8 * b));
            }
            os.write(chunk.data(), static_cast<std::streamsize>(bytes));
        }
    }
    REQUIRE(std::filesystem::file_size(f.path) == n * 8);
#ifdef __linux__
    const auto before = resident_kib();
#endif
    const auto t0 = std::chrono::steady_clock::now();
    any_reader r = open_trace(f.path);
    std::uint64_t count = 0, mismatches = 0;
    for_each_access(r, [&](const memsub::access& a) {
        mismatches += a.address.value != count * 64;
        ++count;
    });
    const auto secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK(count == n);
    CHECK(mismatches == 0);
    MESSAGE("read 5M u64 records in " << secs << " s");
#ifdef __linux__
    const auto after = resident_kib();
    // The reader holds one 1 MiB buffer; reading 40 MB must not grow the process by more than
    // a few MiB (the whole file would be ~39 000 KiB).
    CHECK(after < before + 4096);
#endif
}

TEST_CASE("stream_source: lines equal a naive split, for every buffer size") {
    memsub::xoshiro256ss rng(17);
    std::string text;
    std::vector<std::string> lines;
    for (int i = 0; i < 300; ++i) {
        std::string l(rng() % 40, 'a');
        for (auto& c : l) c = static_cast<char>('a' + rng() % 26);
        if (rng() % 5 == 0) l.clear();
        lines.push_back(l);
        text += l;
        text += rng() % 3 == 0 ? "\r\n" : "\n";
    }
    for (std::size_t buffer = 41; buffer < 140; buffer += 7) {
        CAPTURE(buffer);
        std::istringstream in(text);
        detail::stream_source src(in, "s", buffer);
        std::string_view line;
        std::size_t i = 0;
        while (src.next_line(line, 40)) {
            REQUIRE(i < lines.size());
            CHECK(line == lines[i]);
            ++i;
            CHECK(src.line_number() == i);
        }
        CHECK(i == lines.size());
        CHECK(src.byte_offset() == text.size());
    }
}

namespace {
/// A stream that cannot seek and hands out at most `piece` bytes per read, as a pipe does.
class trickle_buf : public std::streambuf {
public:
    trickle_buf(std::string bytes, std::size_t piece) : bytes_(std::move(bytes)), piece_(piece) {}

protected:
    int_type underflow() override {
        if (at_ >= bytes_.size()) return traits_type::eof();
        const std::size_t n = std::min(piece_, bytes_.size() - at_);
        char* p = bytes_.data() + at_;
        setg(p, p, p + n);
        at_ += n;
        return traits_type::to_int_type(*p);
    }

private:
    std::string bytes_;
    std::size_t piece_;
    std::size_t at_ = 0;
};

std::string lackey_text(std::size_t records) {
    std::string s = "==1== Lackey, an example Valgrind tool\n";
    for (std::size_t i = 0; i < records; ++i)
        s += fmt::format("I  {:08x},3\n {} {:09x},8\n", 0x400000 + 4 * i, i % 3 ? 'L' : 'S',
                         0x7ff000000 + 64 * i);
    return s;
}
} // namespace

TEST_CASE("detection by content consumes nothing: a stream that cannot be rewound") {
    // Every record of each format must arrive, the ones in the first detection window too
    // (they were once read by detection and lost by the reader, which opened the input again).
    const std::string lackey = lackey_text(3000); // well beyond the 4 KiB detection window
    const std::string din = [] {
        std::string s;
        for (int i = 0; i < 5000; ++i) s += fmt::format("{} {:x}\n", i % 2, 0x1000 + 64 * i);
        return s;
    }();
    for (const std::size_t piece : {std::size_t{1}, std::size_t{100}, std::size_t{1} << 16}) {
        CAPTURE(piece);
        trickle_buf lb(lackey, piece), db(din, piece);
        std::istream ls(&lb), ds(&db);
        any_reader lr = open_trace(ls, "lackey pipe");
        CHECK(lr.index() == static_cast<std::size_t>(trace_format::lackey));
        CHECK(for_each_access(lr, [](const memsub::access&) {}) == 3000);
        CHECK(instructions(lr) == std::optional<std::uint64_t>(3000));
        any_reader dr = open_trace(ds, "din pipe");
        CHECK(dr.index() == static_cast<std::size_t>(trace_format::din));
        std::uint64_t expect = 0x1000;
        bool in_order = true;
        CHECK(for_each_access(dr, [&](const memsub::access& a) {
                  in_order = in_order && a.address.value == expect;
                  expect += 64;
              }) == 5000);
        CHECK(in_order);
    }
}

#ifdef __unix__
TEST_CASE("open_trace on a FIFO delivers the same records as on the file") {
    const trace_test::temp_file fifo("pipe_fifo");
    const std::string text = lackey_text(2500);
    REQUIRE(::mkfifo(fifo.path.c_str(), 0600) == 0);
    std::thread writer([&] {
        std::ofstream out(fifo.path, std::ios::binary);
        out.write(text.data(), static_cast<std::streamsize>(text.size()));
    });
    any_reader r = open_trace(fifo.path); // no extension: detected from the content
    std::uint64_t stores = 0;
    const auto n = for_each_access(
        r, [&](const memsub::access& a) { stores += a.kind == access_kind::store; });
    writer.join();
    CHECK(n == 2500);
    CHECK(stores == 834); // records 0, 3, 6, ... are stores
}
#endif

TEST_CASE("an Accel-Sim SASS trace is named as one, not misread as text") {
    const trace_test::temp_file by_name("kernel-1.traceg"), by_content("kernel_dump.txt");
    by_name.write("-kernel name = k\n");
    by_content.write("\n-kernel name = _Z6kernelPf\n-kernel id = 1\n#BEGIN_TB\n");
    for (const auto* f : {&by_name, &by_content}) {
        CAPTURE(f->path);
        try {
            (void)open_trace(f->path);
            FAIL("no error");
        } catch (const memsub::input_error& e) {
            CHECK(e.problem() == memsub::trace::detail::accel_sim_trace_problem);
        }
    }
}
