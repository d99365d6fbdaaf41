// Helpers shared by the example programs: command-line parsing and a chunked access source that
// reads a trace (any memsub::trace format) or draws from a built-in generator. Examples only —
// not part of the library.
#pragma once

#include <memsub/core/access.hpp>
#include <memsub/trace/open.hpp>

#include <fmt/core.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace memsub_examples {

/// A decimal integer option value; exits with status 2 and a message naming the option if it
/// is not one.
inline std::uint64_t parse_number(std::string_view program, std::string_view flag,
                                  std::string_view text) {
    std::uint64_t v = 0;
    bool ok = !text.empty();
    for (const char c : text) {
        if (c < '0' || c > '9' || v > (~std::uint64_t{0} - 9) / 10) {
            ok = false;
            break;
        }
        v = v * 10 + static_cast<std::uint64_t>(c - '0');
    }
    if (!ok) {
        fmt::print(stderr, "{}: {} expects a number, got '{}'\n", program, flag, text);
        std::exit(2);
    }
    return v;
}

/// A positive real option value; exits with status 2 otherwise.
inline double parse_positive_real(std::string_view program, std::string_view flag,
                                  const char* text) {
    char* end = nullptr;
    const double v = std::strtod(text, &end);
    if (end == text || *end != '\0' || !(v > 0.0) || !std::isfinite(v)) {
        fmt::print(stderr, "{}: {} expects a positive number, got '{}'\n", program, flag, text);
        std::exit(2);
    }
    return v;
}

/// "a,b,c" → {"a", "b", "c"}.
inline std::vector<std::string> split_list(std::string_view s) {
    std::vector<std::string> out;
    while (!s.empty()) {
        const auto comma = s.find(',');
        out.emplace_back(s.substr(0, comma));
        s = comma == std::string_view::npos ? std::string_view{} : s.substr(comma + 1);
    }
    return out;
}

/// Accesses per chunk a source delivers (about 5 MiB of records).
inline constexpr std::size_t chunk_accesses = std::size_t{1} << 16;

/// Delivers accesses in chunks from a trace file or, without one, from `Generator` (any type
/// with `memsub::access next()`), stopping after `limit` accesses (0 = no limit; the generator
/// always stops after `generated`).
template <class Generator>
class chunked_source {
public:
    /// Reads `file` (format detected unless given).
    chunked_source(const std::string& file, std::optional<memsub::trace::trace_format> format,
                   std::uint64_t limit)
        : reader_(format ? memsub::trace::open_trace(file, *format)
                         : memsub::trace::open_trace(file))
        , label_(file)
        , cap_(limit != 0 ? limit : ~std::uint64_t{0}) {}

    /// Draws `generated` accesses (capped by `limit`) from `generator`.
    chunked_source(Generator generator, std::string label, std::uint64_t generated,
                   std::uint64_t limit)
        : generator_(std::move(generator))
        , label_(std::move(label))
        , cap_(limit != 0 ? std::min(limit, generated) : generated) {}

    /// Fills `chunk` (cleared first); false when the source is exhausted. A malformed trace
    /// throws memsub::input_error after `chunk` has received every record before the bad one.
    bool next_chunk(std::vector<memsub::access>& chunk) {
        chunk.clear();
        if (generator_) {
            while (chunk.size() < chunk_accesses && produced_ < cap_) {
                chunk.push_back(generator_->next());
                ++produced_;
            }
        } else {
            memsub::access a{};
            while (chunk.size() < chunk_accesses && produced_ < cap_ &&
                   std::visit([&](auto& r) { return r.next(a); }, *reader_)) {
                chunk.push_back(a);
                ++produced_;
            }
        }
        return !chunk.empty();
    }

    [[nodiscard]] const std::string& label() const noexcept { return label_; }
    /// The number of accesses a generated source will deliver; 0 for traces (unknown).
    [[nodiscard]] std::uint64_t expected() const noexcept { return generator_ ? cap_ : 0; }
    /// Instructions counted by the trace reader, when its format carries them.
    [[nodiscard]] std::optional<std::uint64_t> instructions() const noexcept {
        return reader_ ? memsub::trace::instructions(*reader_) : std::nullopt;
    }

private:
    std::optional<memsub::trace::any_reader> reader_;
    std::optional<Generator> generator_;
    std::string label_;
    std::uint64_t cap_;
    std::uint64_t produced_ = 0;
};

} // namespace memsub_examples
