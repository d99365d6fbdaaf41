// memsub — the buffered byte source every trace reader streams through.
//
// A `stream_source` reads its input through one fixed-size buffer allocated at construction, so
// a reader's memory does not grow with the trace (constant memory, however long the file). It
// either owns a `std::ifstream` opened from a path or borrows an already-open `std::istream`
// (tests use `std::istringstream`; hosts may pass `std::cin`), or takes a `read_ahead_input`:
// a stream whose first bytes were already read to detect its format, delivered first, so that
// detection loses nothing on an input that cannot be read twice (a pipe). It offers two views
// of the bytes:
//   * lines (`next_line`): text formats; a line ends at '\n', a trailing '\r' is dropped, the last
//     line may lack its '\n'. Lines longer than `max_line_bytes` are an `input_error` (naming the
//     line number), never a buffer overrun;
//   * raw bytes (`read`): binary formats; the byte offset of everything consumed is tracked.
// Failures to open or read are `input_error`s naming the source.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <istream>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include <memsub/core/errors.hpp>

namespace memsub::trace::detail {

/// Validated buffer sizes shared by the readers' `params`.
inline void validate_buffers(std::string_view component, std::size_t buffer_bytes,
                             std::size_t max_line_bytes) {
    memsub::require(buffer_bytes >= 64, component, "buffer_bytes", buffer_bytes,
                    "must be at least 64");
    memsub::require(max_line_bytes >= 16, component, "max_line_bytes", max_line_bytes,
                    "must be at least 16");
    memsub::require(max_line_bytes < buffer_bytes, component, "max_line_bytes", max_line_bytes,
                    "must be smaller than buffer_bytes");
}

/// Validated buffer size of the binary readers' `params`.
inline void validate_binary_buffer(std::string_view component, std::size_t buffer_bytes) {
    memsub::require(buffer_bytes >= 64, component, "buffer_bytes", buffer_bytes,
                    "must be at least 64");
}

/// An input opened once whose first bytes (`head`) were read ahead, to detect its format: a
/// `stream_source` built from it delivers `head`, then the rest of the stream. A pipe or a
/// terminal cannot be rewound or opened a second time, so detection must not consume.
struct read_ahead_input {
    std::unique_ptr<std::istream> owned; ///< the stream, when the input owns it
    std::istream* in = nullptr;          ///< the stream read (owned.get() or a borrowed one)
    std::string name;                    ///< for error messages
    std::string head;                    ///< bytes already read from `in`, in order

    /// `file` opened for binary reading (not read yet); input_error when it cannot be opened.
    static read_ahead_input open(const std::filesystem::path& file) {
        read_ahead_input input;
        auto stream = std::make_unique<std::ifstream>(file, std::ios::binary);
        if (!stream->is_open())
            throw input_error(file.string(), input_error::position_kind::byte_offset, 0,
                              "cannot open file for reading");
        input.in = stream.get();
        input.owned = std::move(stream);
        input.name = file.string();
        return input;
    }
    /// `in`, borrowed (it must outlive the reader), not read yet.
    static read_ahead_input borrow(std::istream& in, std::string name) {
        read_ahead_input input;
        input.in = &in;
        input.name = std::move(name);
        return input;
    }
};

class stream_source {
public:
    /// Opens `file` for binary reading; `input_error` (byte offset 0) when it cannot be opened.
    stream_source(const std::filesystem::path& file, std::size_t buffer_bytes)
        : owned_(std::make_unique<std::ifstream>(file, std::ios::binary))
        , in_(owned_.get())
        , name_(file.string())
        , buffer_(std::make_unique_for_overwrite<char[]>(buffer_bytes))
        , capacity_(buffer_bytes) {
        if (!static_cast<std::ifstream&>(*owned_).is_open())
            throw input_error(name_, input_error::position_kind::byte_offset, 0,
                              "cannot open file for reading");
    }

    /// Borrows `in` (which must outlive this source); `name` is used in error messages.
    stream_source(std::istream& in, std::string name, std::size_t buffer_bytes)
        : in_(&in)
        , name_(std::move(name))
        , buffer_(std::make_unique_for_overwrite<char[]>(buffer_bytes))
        , capacity_(buffer_bytes) {}

    /// Takes `input` (its stream owned or borrowed as `input` says): `input.head` first.
    stream_source(read_ahead_input&& input, std::size_t buffer_bytes)
        : owned_(std::move(input.owned))
        , in_(input.in)
        , name_(std::move(input.name))
        , buffer_(std::make_unique_for_overwrite<char[]>(buffer_bytes))
        , capacity_(buffer_bytes)
        , head_(std::move(input.head)) {}

    stream_source(stream_source&&) noexcept = default;
    stream_source& operator=(stream_source&&) noexcept = default;

    [[nodiscard]] const std::string& name() const noexcept { return name_; }

    /// 1-based number of the line most recently returned by `next_line` (0 before the first).
    [[nodiscard]] std::uint64_t line_number() const noexcept { return line_; }

    /// Bytes consumed so far (returned as lines, including their terminators, or by `read`).
    [[nodiscard]] std::uint64_t byte_offset() const noexcept { return consumed_; }

    /// The next line without its terminator; false at the end of input. The view stays valid
    /// until the next call. Throws `input_error` (line number) when a line exceeds
    /// `max_line_bytes` (which must be < the buffer size), or on a read error.
    bool next_line(std::string_view& line, std::size_t max_line_bytes) {
        std::size_t scanned = 0; // bytes after begin_ already known to hold no '\n'
        for (;;) {
            const char* base = buffer_.get() + begin_;
            const std::size_t avail = end_ - begin_;
            const void* nl =
                avail > scanned ? std::memchr(base + scanned, '\n', avail - scanned) : nullptr;
            if (nl != nullptr) {
                const auto len = static_cast<std::size_t>(static_cast<const char*>(nl) - base);
                check_length(len, max_line_bytes);
                take_line(base, len, len + 1, line);
                return true;
            }
            scanned = avail;
            check_length(avail, max_line_bytes);
            if (eof_) {
                if (avail == 0) return false;
                take_line(base, avail, avail, line); // last line without '\n'
                return true;
            }
            fill();
        }
    }

    /// The next `n` bytes (n ≤ the buffer size), consumed, in place in the buffer: valid until
    /// the next call. nullptr when fewer than `n` bytes remain (read() then says how many).
    /// Fixed-size binary records decode from here without a copy.
    const std::byte* take(std::size_t n) {
        if (end_ - begin_ < n) {
            if (eof_) return nullptr;
            fill();
            if (end_ - begin_ < n) return nullptr;
        }
        const auto* p = reinterpret_cast<const std::byte*>(buffer_.get() + begin_);
        begin_ += n;
        consumed_ += n;
        return p;
    }

    /// The bytes already buffered and not yet consumed (no read happens): a reader of fixed-size
    /// records decodes the whole records among them in place, then consumes them with `skip`.
    [[nodiscard]] std::span<const std::byte> buffered() const noexcept {
        return {reinterpret_cast<const std::byte*>(buffer_.get() + begin_), end_ - begin_};
    }

    /// Consumes `n` ≤ buffered().size() bytes.
    void skip(std::size_t n) noexcept {
        begin_ += n;
        consumed_ += n;
    }

    /// Copies up to `n` bytes into `dst`; returns how many (fewer only at the end of input).
    std::size_t read(std::byte* dst, std::size_t n) {
        std::size_t done = 0;
        while (done < n) {
            if (begin_ == end_) {
                if (eof_) break;
                fill();
                continue;
            }
            const std::size_t k = std::min(n - done, end_ - begin_);
            std::memcpy(dst + done, buffer_.get() + begin_, k);
            begin_ += k;
            done += k;
        }
        consumed_ += done;
        return done;
    }

private:
    void check_length(std::size_t len, std::size_t max_line_bytes) const {
        if (len > max_line_bytes)
            throw input_error(name_, input_error::position_kind::line_number, line_ + 1,
                              "line longer than max_line_bytes (" + std::to_string(max_line_bytes) +
                                  ")");
    }

    void take_line(const char* base, std::size_t len, std::size_t advance, std::string_view& line) {
        std::size_t l = len;
        if (l > 0 && base[l - 1] == '\r') --l;
        line = std::string_view(base, l);
        begin_ += advance;
        consumed_ += advance;
        ++line_;
    }

    /// Moves the unconsumed tail to the front and reads more bytes behind it.
    void fill() {
        if (begin_ > 0) {
            const std::size_t avail = end_ - begin_;
            if (avail > 0) std::memmove(buffer_.get(), buffer_.get() + begin_, avail);
            begin_ = 0;
            end_ = avail;
        }
        if (end_ == capacity_) return;    // caller guarantees progress (line limit < capacity)
        if (head_taken_ < head_.size()) { // the bytes read ahead come first
            const std::size_t k = std::min(capacity_ - end_, head_.size() - head_taken_);
            std::memcpy(buffer_.get() + end_, head_.data() + head_taken_, k);
            head_taken_ += k;
            end_ += k;
            return;
        }
        in_->read(buffer_.get() + end_, static_cast<std::streamsize>(capacity_ - end_));
        const auto got = static_cast<std::size_t>(in_->gcount());
        end_ += got;
        if (in_->bad())
            throw input_error(name_, input_error::position_kind::byte_offset,
                              consumed_ + (end_ - begin_), "read error");
        if (!*in_) eof_ = true; // eof (and fail) after a short read: no more input
    }

    std::unique_ptr<std::istream> owned_;
    std::istream* in_;
    std::string name_;
    std::unique_ptr<char[]> buffer_;
    std::size_t capacity_;
    std::size_t begin_ = 0, end_ = 0;
    std::string head_;           // read_ahead_input's bytes, delivered before the stream's
    std::size_t head_taken_ = 0; // how many of them are in the buffer already
    bool eof_ = false;
    std::uint64_t line_ = 0;
    std::uint64_t consumed_ = 0;
};

} // namespace memsub::trace::detail
