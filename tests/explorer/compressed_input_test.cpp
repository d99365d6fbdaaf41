// The tools' compressed traces: a gzip or xz file reads as the same accesses as the plain file
// (format found from the name without its suffix, or from the decompressed content), progress
// counts compressed bytes, and damaged data is an input error at its compressed byte offset after
// every record before it. The files are compressed here with zlib and liblzma themselves.
#include <doctest/doctest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include <memsub/core/errors.hpp>
#include <memsub/explorer/compressed_input.hpp>
#include <memsub/explorer/source.hpp>
#include <memsub/trace/open.hpp>

namespace {

namespace ex = memsub::explorer;

struct temp_path {
    std::filesystem::path path;
    explicit temp_path(std::string_view leaf)
        : path(std::filesystem::temp_directory_path() /
               ("memsub_compressed_test_" + std::to_string(::getpid()) + "_" + std::string(leaf))) {
    }
    temp_path(const temp_path&) = delete;
    temp_path& operator=(const temp_path&) = delete;
    ~temp_path() {
        std::error_code ec;
        std::filesystem::remove(path, ec);
    }
    void write(const std::string& bytes) const {
        std::ofstream os(path, std::ios::binary);
        os.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
};

/// A lackey trace of `n` loads and stores (text that compresses well).
[[maybe_unused]] std::string lackey_text(int n) {
    std::string s;
    for (int i = 0; i < n; ++i) {
        s += "I  0400" + std::to_string(1000 + i % 7000) + ",4\n";
        s += (i % 3 == 0 ? " S " : " L ") + std::to_string(0x10000 + 64 * ((i * 7919) % 50000)) +
             ",8\n";
    }
    return s;
}

/// Every access of `file` through the tools' source, and the last progress fraction.
std::vector<memsub::access> read_source(const std::filesystem::path& file,
                                        double* fraction = nullptr,
                                        std::optional<memsub::trace::trace_format> format = {}) {
    auto src = ex::open_explorer_source({.format = format}, file.string());
    std::vector<memsub::access> all, chunk;
    while (src.next_chunk(chunk)) all.insert(all.end(), chunk.begin(), chunk.end());
    if (fraction != nullptr) *fraction = src.fraction_done().value_or(-1);
    return all;
}

[[maybe_unused]] bool same(const std::vector<memsub::access>& a,
                           const std::vector<memsub::access>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].address != b[i].address || a[i].kind != b[i].kind || a[i].size != b[i].size)
            return false;
    return true;
}

} // namespace

TEST_CASE("compressed input: magic numbers and names") {
    CHECK(ex::compression_of(std::string_view("\x1f\x8b\x08", 3)) == ex::compression::gzip);
    CHECK(ex::compression_of(std::string_view("\xfd"
                                              "7zXZ\0",
                                              6)) == ex::compression::xz);
    CHECK(ex::compression_of(std::string_view("\xfd"
                                              "7zX",
                                              4)) == ex::compression::none);
    CHECK(ex::compression_of("I  0400,4") == ex::compression::none);
    CHECK(ex::without_compression_suffix("a/t.champsimtrace.xz") == "a/t.champsimtrace");
    CHECK(ex::without_compression_suffix("t.lackey.gz") == "t.lackey");
    CHECK(ex::without_compression_suffix("t.lackey") == "t.lackey");
    // The trace library itself names compressed content rather than misreading it.
    std::istringstream gz(std::string("\x1f\x8b\x08\x00", 4) + std::string(100, 'x'));
    CHECK_THROWS_WITH_AS((void)memsub::trace::open_trace(gz, "pipe"),
                         doctest::Contains("gzip-compressed data"), memsub::input_error);
}

#if MEMSUB_EXPLORER_HAS_DECOMPRESSORS

namespace {

std::string gzip(const std::string& plain) {
    z_stream z{};
    REQUIRE(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
    std::string out(deflateBound(&z, static_cast<uLong>(plain.size())) + 64, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(plain.data()));
    z.avail_in = static_cast<uInt>(plain.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

std::string xz(const std::string& plain) {
    std::string out(lzma_stream_buffer_bound(plain.size()), '\0');
    std::size_t pos = 0;
    REQUIRE(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, nullptr,
                                    reinterpret_cast<const std::uint8_t*>(plain.data()),
                                    plain.size(), reinterpret_cast<std::uint8_t*>(out.data()), &pos,
                                    out.size()) == LZMA_OK);
    out.resize(pos);
    return out;
}

/// Every byte `packed` decodes to before its decoder stops (at its end, or where it is cut).
std::string decoded_prefix(const std::string& packed, bool is_xz) {
    std::string out;
    std::array<char, 4096> buf{};
    if (!is_xz) {
        z_stream z{};
        REQUIRE(inflateInit2(&z, 15 + 32) == Z_OK);
        z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(packed.data()));
        z.avail_in = static_cast<uInt>(packed.size());
        for (;;) {
            z.next_out = reinterpret_cast<Bytef*>(buf.data());
            z.avail_out = static_cast<uInt>(buf.size());
            const int rc = inflate(&z, Z_NO_FLUSH);
            out.append(buf.data(), buf.size() - z.avail_out);
            if (rc != Z_OK) break;
        }
        inflateEnd(&z);
    } else {
        lzma_stream x = LZMA_STREAM_INIT;
        REQUIRE(lzma_stream_decoder(&x, UINT64_MAX, 0) == LZMA_OK);
        x.next_in = reinterpret_cast<const std::uint8_t*>(packed.data());
        x.avail_in = packed.size();
        for (;;) {
            x.next_out = reinterpret_cast<std::uint8_t*>(buf.data());
            x.avail_out = buf.size();
            const lzma_ret rc = lzma_code(&x, LZMA_FINISH);
            out.append(buf.data(), buf.size() - x.avail_out);
            if (rc != LZMA_OK) break;
        }
        lzma_end(&x);
    }
    return out;
}

/// One ChampSim record: ip, no branch, one load.
std::string champsim_record(std::uint64_t ip, std::uint64_t load) {
    std::string s(64, '\0');
    for (int i = 0; i < 8; ++i) {
        s[static_cast<std::size_t>(i)] = static_cast<char>((ip >> (8 * i)) & 0xff);
        s[static_cast<std::size_t>(32 + i)] = static_cast<char>((load >> (8 * i)) & 0xff);
    }
    return s;
}

} // namespace

TEST_CASE("compressed input: gzip and xz read as the plain trace, by name or by content") {
    const std::string plain = lackey_text(60000); // about 2 MB: many decoder refills
    temp_path raw("t.lackey"), gz("t.lackey.gz"), x("t.lackey.xz"), anonymous("t.gz");
    raw.write(plain);
    gz.write(gzip(plain));
    x.write(xz(plain));
    anonymous.write(gzip(plain)); // no format in the name: detected from the content
    const auto want = read_source(raw.path);
    REQUIRE(want.size() == 60000);
    for (const auto* f : {&gz, &x, &anonymous}) {
        CAPTURE(f->path.string());
        double fraction = 0;
        CHECK(same(read_source(f->path, &fraction), want));
        CHECK(fraction == doctest::Approx(1.0)); // by compressed bytes, not decoded ones
    }
}

TEST_CASE("compressed input: concatenated gzip members are one trace") {
    const std::string a = lackey_text(1000), b = lackey_text(500);
    temp_path both("cat.lackey.gz"), raw("cat.lackey");
    both.write(gzip(a) + gzip(b));
    raw.write(a + b);
    CHECK(same(read_source(both.path), read_source(raw.path)));
}

TEST_CASE("compressed input: a truncated file is an error after every record before the cut") {
    // Text (lackey, addresses) and binary (ChampSim) traces, each gzip and xz, cut at several
    // places: the accesses delivered are exactly those of the whole records the cut file decodes to
    // (a cut last line is never read as a record), then the decoder's error.
    std::string champsim;
    for (std::uint64_t i = 0; i < 40000; ++i)
        champsim +=
            champsim_record(0x400000 + 4 * (i % 500), 0x10000000 + 64 * ((i * 7919) % 90000));
    const std::string lackey = lackey_text(60000);
    std::string addresses; // text: one address per line, where any cut line still parses
    for (std::uint64_t i = 0; i < 150000; ++i)
        addresses += std::to_string(0x10000000 + 64 * ((i * 7919) % 90000)) + "\n";
    for (const int kind : {0, 1, 2}) {
        const bool binary = kind == 1;
        const std::string& plain = kind == 0 ? lackey : kind == 1 ? champsim : addresses;
        for (const bool use_xz : {false, true}) {
            const std::string packed = use_xz ? xz(plain) : gzip(plain);
            for (const std::size_t num : {std::size_t{1}, std::size_t{2}, std::size_t{5}}) {
                CAPTURE(kind);
                CAPTURE(use_xz);
                CAPTURE(num);
                const std::string cut = packed.substr(0, packed.size() * num / 6);
                std::string prefix = decoded_prefix(cut, use_xz);
                REQUIRE(prefix.size() < plain.size());
                if (binary)
                    prefix.resize(prefix.size() / 64 * 64);
                else
                    prefix.resize(prefix.rfind('\n') + 1);
                const std::string leaf = kind == 0   ? "cut.lackey"
                                         : kind == 1 ? "cut.champsimtrace"
                                                     : "cut.txt";
                temp_path whole_prefix(leaf), f(leaf + (use_xz ? ".xz" : ".gz"));
                whole_prefix.write(prefix);
                f.write(cut);
                const auto want = read_source(whole_prefix.path);
                auto src = ex::open_explorer_source({}, f.path.string());
                std::vector<memsub::access> got, chunk;
                bool threw = false;
                try {
                    while (src.next_chunk(chunk)) got.insert(got.end(), chunk.begin(), chunk.end());
                } catch (const memsub::input_error& e) {
                    threw = true;
                    CHECK(e.source() == f.path.string());
                    CHECK(e.position() <= cut.size());
                    CHECK(std::string(e.what()).find("truncated") != std::string::npos);
                }
                CHECK(threw);
                CHECK(got.size() == want.size());
                CHECK(same(got, want));
            }
        }
    }
}

TEST_CASE("compressed input: corrupt data is an input error, never a crash") {
    const std::string plain = lackey_text(20000);
    for (const bool use_xz : {false, true}) {
        for (const std::size_t at : {std::size_t{20}, std::size_t{400}, std::size_t{5000}}) {
            CAPTURE(use_xz);
            CAPTURE(at);
            std::string packed = use_xz ? xz(plain) : gzip(plain);
            REQUIRE(at < packed.size());
            packed[at] = static_cast<char>(packed[at] ^ 0x5a);
            temp_path f(use_xz ? "bad.lackey.xz" : "bad.lackey.gz");
            f.write(packed);
            // Found by the decoder, by its checksum at the end, or by the trace reader when the
            // damaged bytes decode to text that is not a record.
            CHECK_THROWS_AS(read_source(f.path), memsub::input_error);
        }
    }
}

#else

TEST_CASE("compressed input: without decompressors a compressed file says how to read it") {
    temp_path f("t.lackey.gz");
    f.write(std::string("\x1f\x8b\x08\x00", 4) + std::string(64, '\0'));
    CHECK_THROWS_WITH_AS(read_source(f.path), doctest::Contains("zcat FILE | PROGRAM -"),
                         memsub::input_error);
}

#endif
