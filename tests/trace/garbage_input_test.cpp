// Property test: any byte sequence fed to any reader ends cleanly or with memsub::input_error —
// never another exception, a crash or (under the sanitizer build) undefined behaviour — and the
// reported position is never past the input.
#include "trace_test_util.hpp"

#include <memsub/core/rng.hpp>
#include <memsub/trace/all.hpp>

#include <algorithm>
#include <sstream>
#include <string>

using namespace memsub::trace;

namespace {
/// Random input biased towards the characters the text formats use, so parsers go deep.
std::string random_input(memsub::xoshiro256ss& rng) {
    static constexpr char alphabet[] = "0123456789abcdefxX ILSMRW,#=-\n\n\n\t\r\xff";
    const std::size_t n = rng() % 300;
    std::string s(n, '\0');
    for (auto& c : s)
        c = rng() % 8 == 0 ? static_cast<char>(rng() & 0xff)
                           : alphabet[rng() % (sizeof alphabet - 1)];
    return s;
}

template <class R, class P>
void drain(const std::string& bytes, const P& p, bool binary) {
    std::istringstream in(bytes);
    R r(in, "garbage", p);
    memsub::access a{};
    std::uint64_t n = 0;
    try {
        while (r.next(a)) ++n;
    } catch (const memsub::input_error& e) {
        CHECK(e.source() == "garbage");
        if (binary)
            CHECK(e.position() <= bytes.size());
        else
            CHECK(e.position() <=
                  static_cast<std::uint64_t>(std::count(bytes.begin(), bytes.end(), '\n')) + 1);
    }
    CHECK(r.records() == n);
}
} // namespace

TEST_CASE("garbage input: every reader fails cleanly") {
    memsub::xoshiro256ss rng(2024);
    for (int iter = 0; iter < 3000; ++iter) {
        const std::string s = random_input(rng);
        drain<lackey_reader>(s, lackey_reader::params{.buffer_bytes = 64, .max_line_bytes = 32},
                             false);
        drain<lackey_reader>(s, lackey_reader::params{.skip_unknown_lines = true}, false);
        drain<dinero_reader>(s, dinero_reader::params{.buffer_bytes = 64, .max_line_bytes = 32},
                             false);
        drain<text_reader>(
            s,
            text_reader::params{.base = number_base::hex, .buffer_bytes = 64, .max_line_bytes = 40},
            false);
        drain<text_reader>(s, text_reader::params{}, false);
        drain<binary_u64_reader>(s, binary_u64_reader::params{.buffer_bytes = 64}, true);
        drain<oracle_general_reader>(
            s, oracle_general_reader::params{.address_scale_bytes = 4096, .buffer_bytes = 64},
            true);
    }
}
