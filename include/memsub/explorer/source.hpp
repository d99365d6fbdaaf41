// memsub::explorer — the tools' input: a trace (any memsub::trace format, "-" for standard
// input; a gzip or xz file is decompressed as it is read, explorer/compressed_input.hpp) or,
// without one, the explorer's built-in workload (a zipf + loop + scan mix sized for a cache),
// delivered in chunks (chunked_source). The explorer and mrc_explorer read their input through
// open_explorer_source, so both read the same accesses from the same options.
//
// Part of the explorer module (memsub::explorer; needs {fmt}).
#pragma once

#include <memsub/core/access.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/explorer/cli.hpp>
#include <memsub/explorer/compressed_input.hpp>
#include <memsub/trace/open.hpp>
#include <memsub/workload/synthetic.hpp>

#include <fmt/core.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace memsub::explorer {

/// Accesses per chunk a source delivers: 4 Ki records (320 KiB) stay in the core's L2 between
/// being decoded and being simulated; a chunk of 64 Ki (5 MiB) went out to memory and back and
/// cost the explorer about a fifth of its end-to-end time on a 10 M-record oracleGeneral file.
inline constexpr std::size_t chunk_accesses = std::size_t{1} << 12;

/// Delivers accesses in chunks from a trace file or, without one, from `Generator` (any type
/// with `memsub::access next()`), stopping after `limit` accesses (0 = no limit; the generator
/// always stops after `generated`).
template <class Generator>
class chunked_source {
public:
    /// Reads `file` (format detected unless given); "-" is standard input. A gzip or xz file
    /// is decompressed as it is read; its format is then detected from its name without the
    /// ".gz" / ".xz" suffix, else from its decompressed content.
    chunked_source(const std::string& file, std::optional<memsub::trace::trace_format> format,
                   std::uint64_t limit, const memsub::trace::open_options& options = {})
        : compressed_(open_compressed(file))
        , reader_(open(file, format, options, compressed_.get()))
        , label_(input_label(file))
        , cap_(limit != 0 ? limit : ~std::uint64_t{0}) {
        std::error_code ec;
        const auto size = std::filesystem::file_size(file, ec);
        if (!ec && file != stdin_name) file_bytes_ = size; // unknown for a pipe or a device
    }

    /// Draws `generated` accesses (capped by `limit`) from `generator`.
    chunked_source(Generator generator, std::string label, std::uint64_t generated,
                   std::uint64_t limit)
        : generator_(std::move(generator))
        , label_(std::move(label))
        , cap_(limit != 0 ? std::min(limit, generated) : generated) {}

    /// Fills `chunk` (its old content is replaced); false when the source is exhausted. The
    /// records are decoded in place, a batch per call (trace::next_batch). A malformed trace
    /// delivers every record before the bad one, then throws memsub::input_error from the next
    /// call with `chunk` empty.
    bool next_chunk(std::vector<memsub::access>& chunk) {
        const auto want =
            static_cast<std::size_t>(std::min<std::uint64_t>(chunk_accesses, cap_ - produced_));
        if (generator_) {
            chunk.clear();
            for (std::size_t i = 0; i < want; ++i) chunk.push_back(generator_->next());
        } else {
            chunk.resize(want); // no work when the last chunk was full
            try {
                chunk.resize(memsub::trace::next_batch(*reader_, chunk));
            } catch (...) {
                chunk.clear();
                // A decoding error ended the decompressed bytes early: that is the cause (a
                // reader sees only a cut record, if any).
                if (compressed_) compressed_->throw_if_failed();
                throw;
            }
            if (chunk.empty() && compressed_) compressed_->throw_if_failed();
        }
        produced_ += chunk.size();
        return !chunk.empty();
    }

    /// How far through its input the source is, in [0, 1], when that is known: a generated
    /// source, a trace file of known size, or a `limit`; nullopt otherwise (a pipe).
    [[nodiscard]] std::optional<double> fraction_done() const noexcept {
        std::optional<double> f;
        if (cap_ != ~std::uint64_t{0})
            f = static_cast<double>(produced_) /
                static_cast<double>(std::max<std::uint64_t>(cap_, 1));
        if (reader_ && file_bytes_ && *file_bytes_ > 0) {
            const std::uint64_t consumed = compressed_ ? compressed_->compressed_bytes_read()
                                                       : memsub::trace::bytes_consumed(*reader_);
            const double by_bytes =
                static_cast<double>(consumed) / static_cast<double>(*file_bytes_);
            f = f ? std::max(*f, by_bytes) : by_bytes;
        }
        if (f) f = std::min(*f, 1.0);
        return f;
    }

    [[nodiscard]] const std::string& label() const noexcept { return label_; }
    /// Instructions counted by the trace reader, when its format carries them.
    [[nodiscard]] std::optional<std::uint64_t> instructions() const noexcept {
        return reader_ ? memsub::trace::instructions(*reader_) : std::nullopt;
    }

private:
    /// Opens `file`; a directory is named as one (reading it would fail with a read error at
    /// offset 0, which does not say what is wrong).
    static memsub::trace::any_reader open(const std::string& file,
                                          std::optional<memsub::trace::trace_format> format,
                                          const memsub::trace::open_options& options,
                                          compressed_file* compressed) {
        if (compressed != nullptr) {
            if (!format)
                format = memsub::trace::format_from_file_name(without_compression_suffix(file));
            // Whole lines while the format is unknown or text; a binary reader takes every
            // decoded byte (its records do not end with a newline).
            compressed->hold_partial_lines(true);
            auto reader =
                format ? memsub::trace::open_trace(compressed->stream(), file, *format, options)
                       : memsub::trace::open_trace(compressed->stream(), file, options);
            compressed->hold_partial_lines(std::visit(
                [](const auto& r) {
                    return std::decay_t<decltype(r)>::position_kind ==
                           memsub::input_error::position_kind::line_number;
                },
                reader));
            return reader;
        }
        if (file == stdin_name) {
            std::ios::sync_with_stdio(false); // cin reads in blocks, not through stdio
            const std::string name(stdin_label);
            return format ? memsub::trace::open_trace(std::cin, name, *format, options)
                          : memsub::trace::open_trace(std::cin, name, options);
        }
        std::error_code ec;
        if (std::filesystem::is_directory(file, ec))
            throw memsub::input_error(file, memsub::input_error::position_kind::byte_offset, 0,
                                      "is a directory, not a trace file");
        return format ? memsub::trace::open_trace(file, *format, options)
                      : memsub::trace::open_trace(file, options);
    }

    /// A gzip or xz file (before reader_, which borrows its stream and must go first).
    static std::unique_ptr<compressed_file> open_compressed(const std::string& file) {
        std::error_code ec;
        if (file == stdin_name || !std::filesystem::is_regular_file(file, ec)) return nullptr;
        const compression kind = compression_of_file(file);
        if (kind == compression::none) return nullptr;
        return std::make_unique<compressed_file>(file, kind, file);
    }

    std::unique_ptr<compressed_file> compressed_;
    std::optional<memsub::trace::any_reader> reader_;
    std::optional<Generator> generator_;
    std::string label_;
    std::uint64_t cap_;
    std::uint64_t produced_ = 0;
    std::optional<std::uint64_t> file_bytes_;
};

using explorer_source = chunked_source<memsub::workload::mixed_stream>;

/// What an explorer's input depends on (its --format, --limit, --object-bytes, --accesses and
/// --seed, and the cache the built-in workload is sized for).
struct explorer_source_settings {
    std::optional<memsub::trace::trace_format> format;
    std::uint64_t limit = 0; ///< 0 = the whole trace
    /// oracleGeneral: address = obj_id x this.
    std::uint64_t object_bytes = 64;
    /// The built-in workload: the capacity (lines) its footprints are scaled to, its line size,
    /// length and seed.
    std::uint64_t workload_lines = 32768;
    std::uint32_t line_bytes = 64;
    std::uint64_t accesses = 5'000'000;
    std::uint64_t seed = 2026;
};

/// Opens `file`, or the built-in workload when there is none. Throws memsub::input_error when
/// the trace cannot be opened or its format detected.
inline explorer_source open_explorer_source(const explorer_source_settings& s,
                                            const std::optional<std::string>& file) {
    if (file) {
        memsub::trace::open_options options;
        options.oracle_general.address_scale_bytes = s.object_bytes;
        return explorer_source(*file, s.format, s.limit, options);
    }
    return explorer_source(
        memsub::workload::mixed_stream(memsub::workload::mixed_stream::params{
            .cache_lines = s.workload_lines, .line_bytes = s.line_bytes, .seed = s.seed}),
        fmt::format("built-in mix (zipf 55% / loop 30% / scan 15%, seed {})", s.seed), s.accesses,
        s.limit);
}

} // namespace memsub::explorer
