// memsub::explorer — reading gzip- and xz-compressed trace files as they decompress, in
// constant memory: the form ChampSim's traces (`*.champsimtrace.xz`) and most captured traces
// are distributed in. A compressed file is recognised by its first bytes, not its name.
//
// The decompressors are zlib and liblzma (Debian's zlib1g-dev and liblzma-dev). They are used
// only when the program is built with MEMSUB_EXPLORER_COMPRESSED_TRACES defined to 1 and links
// both libraries, which the CMake target memsub::explorer does whenever it found them. Built
// without them, a compressed file is an input error that says how to read it (through a pipe
// from zcat or xz -dc).
//
// Errors: a file that ends inside a compressed stream, or corrupt compressed data, is a
// memsub::input_error naming the file and the byte offset in the compressed file where
// decoding stopped. The stream ends there (end of file) with every byte decoded before it, and
// the error is kept for `throw_if_failed()`, which the reader of the stream calls when its
// reading ends: an exception thrown inside std::istream::read would lose the bytes that read
// had already gathered. A truncation is found where the data stops, so every record before the
// cut has been passed on. Corruption is found
// when the decoder cannot go on or, at the latest, by the format's check at the end of the
// stream (gzip's CRC-32) or block (xz): bytes decoded before that may already be wrong, and a
// trace reader may report them first as a malformed record.
//
// Part of the explorer module (memsub::explorer).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <istream>
#include <memory>
#include <optional>
#include <streambuf>
#include <string>
#include <string_view>

#include <memsub/core/errors.hpp>
#include <memsub/trace/open.hpp>

#if defined(MEMSUB_EXPLORER_COMPRESSED_TRACES) && MEMSUB_EXPLORER_COMPRESSED_TRACES
#include <lzma.h>
#include <zlib.h>
#define MEMSUB_EXPLORER_HAS_DECOMPRESSORS 1
#else
#define MEMSUB_EXPLORER_HAS_DECOMPRESSORS 0
#endif

namespace memsub::explorer {

/// How a file's bytes are compressed.
enum class compression : std::uint8_t { none, gzip, xz };

[[nodiscard]] constexpr std::string_view to_string(compression c) noexcept {
    switch (c) {
    case compression::gzip:
        return "gzip";
    case compression::xz:
        return "xz";
    case compression::none:
        break;
    }
    return "none";
}

/// The compression whose magic number `head` starts with (gzip: 1f 8b; xz: fd '7zXZ' 00).
[[nodiscard]] inline compression compression_of(std::string_view head) noexcept {
    const std::string_view packed = memsub::trace::detail::compression_magic(head);
    return packed == "gzip" ? compression::gzip
           : packed == "xz" ? compression::xz
                            : compression::none;
}

/// The compression of the file `path` by its first bytes (none for a file shorter than a
/// magic number or that cannot be read: opening it reports that).
[[nodiscard]] inline compression compression_of_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::array<char, 6> head{};
    in.read(head.data(), head.size());
    return compression_of(std::string_view(head.data(), static_cast<std::size_t>(in.gcount())));
}

/// `path` without a trailing ".gz" or ".xz" (the name under which a trace format is known).
[[nodiscard]] inline std::filesystem::path
without_compression_suffix(const std::filesystem::path& path) {
    const std::string ext = path.extension().string();
    if (ext == ".gz" || ext == ".xz") return std::filesystem::path(path).replace_extension();
    return path;
}

/// A compressed file opened for reading as its decompressed bytes: `stream()` is an
/// std::istream over them, which ends early at a decoding error (see the header comment: call
/// `throw_if_failed()` once reading has ended). Not copyable or movable: readers borrow the
/// stream.
class compressed_file {
public:
    /// Opens `path`, compressed with `kind` (gzip or xz); `name` names it in errors. Throws
    /// input_error when the file cannot be opened, or when this build has no decompressor.
    compressed_file(const std::filesystem::path& path, compression kind, std::string name)
        : buffer_(path, kind, std::move(name))
        , stream_(&buffer_) {}
    compressed_file(const compressed_file&) = delete;
    compressed_file& operator=(const compressed_file&) = delete;

    [[nodiscard]] std::istream& stream() noexcept { return stream_; }
    /// Bytes of the compressed file consumed so far (with its size, a progress fraction).
    [[nodiscard]] std::uint64_t compressed_bytes_read() const noexcept {
        return buffer_.compressed_bytes_read();
    }
    /// For a text trace: deliver whole lines only, so that a decoding error cannot leave a cut
    /// last line that a reader would take for a record (the last line of a stream that ends
    /// cleanly is delivered whether or not it ends with a newline).
    void hold_partial_lines(bool on) noexcept { buffer_.hold_partial_lines(on); }
    /// Throws the input_error that ended the decompressed stream early, if one did.
    void throw_if_failed() const {
        if (buffer_.failure()) throw *buffer_.failure();
    }

private:
    class decompressing_buffer : public std::streambuf {
    public:
        decompressing_buffer(const std::filesystem::path& path, compression kind, std::string name)
            : kind_(kind)
            , name_(std::move(name)) {
#if MEMSUB_EXPLORER_HAS_DECOMPRESSORS
            file_.open(path, std::ios::binary);
            if (!file_) fail(0, "cannot open the file");
            bool ok = false;
            if (kind_ == compression::gzip) {
                // 15 + 32: any window size, gzip or zlib header detected.
                ok = inflateInit2(&z_, 15 + 32) == Z_OK;
                z_ready_ = ok;
            } else if (kind_ == compression::xz) {
                ok = lzma_stream_decoder(&x_, UINT64_MAX, LZMA_CONCATENATED) == LZMA_OK;
                x_ready_ = ok;
            }
            if (!ok) fail(0, "cannot start the " + std::string(to_string(kind_)) + " decoder");
#else
            (void)path;
            fail(0, std::string(to_string(kind_)) +
                        "-compressed data: this program was built without the decompressors "
                        "(MEMSUB_EXPLORER_COMPRESSED_TRACES, zlib and liblzma); read it through "
                        "a pipe: zcat FILE | PROGRAM -   or   xz -dc FILE | PROGRAM -");
#endif
        }
        ~decompressing_buffer() override {
#if MEMSUB_EXPLORER_HAS_DECOMPRESSORS
            if (z_ready_) inflateEnd(&z_);
            if (x_ready_) lzma_end(&x_);
#endif
        }
        decompressing_buffer(const decompressing_buffer&) = delete;
        decompressing_buffer& operator=(const decompressing_buffer&) = delete;

        [[nodiscard]] std::uint64_t compressed_bytes_read() const noexcept {
            return consumed_;
        }
        [[nodiscard]] const std::optional<input_error>& failure() const noexcept {
            return failure_;
        }
        void hold_partial_lines(bool on) noexcept {
            hold_partial_lines_ = on;
        }

    protected:
        int_type underflow() override {
            if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
            // The bytes held back behind the last delivered ones move to the front.
            if (held_ > 0) std::memmove(out_.data(), out_.data() + delivered_, held_);
            for (;;) {
                if (failure_) return traits_type::eof();
                std::size_t n = 0;
                try {
                    n = decode(out_.data() + held_, out_.size() - held_);
                } catch (const input_error& e) { // kept, not thrown through std::istream::read
                    failure_ = e;
                    held_ = 0; // a cut line is dropped, never read as a record
                    return traits_type::eof();
                }
                const std::size_t total = held_ + n;
                if (total == 0) return traits_type::eof();
                delivered_ = total;
                if (n != 0 && hold_partial_lines_) {
                    const char* end = out_.data() + total;
                    const char* p = end;
                    while (p != out_.data() && p[-1] != '\n') --p;
                    if (p == out_.data() && total < out_.size()) { // no line ends yet
                        held_ = total;
                        continue;
                    }
                    if (p != out_.data()) delivered_ = static_cast<std::size_t>(p - out_.data());
                }
                held_ = total - delivered_;
                setg(out_.data(), out_.data(), out_.data() + delivered_);
                return traits_type::to_int_type(*gptr());
            }
        }

    private:
        static constexpr std::size_t chunk_bytes = std::size_t{1} << 16;

        [[noreturn]] void fail(std::uint64_t offset, const std::string& problem) const {
            throw input_error(name_, input_error::position_kind::byte_offset, offset, problem);
        }

#if MEMSUB_EXPLORER_HAS_DECOMPRESSORS
        /// Reads more compressed bytes; false at the end of the file.
        bool refill() {
            file_.read(in_.data(), static_cast<std::streamsize>(in_.size()));
            in_len_ = static_cast<std::size_t>(file_.gcount());
            in_pos_ = 0;
            if (in_len_ == 0 && file_.bad()) fail(read_, "read error");
            read_ += in_len_;
            return in_len_ != 0;
        }

        /// Decodes into [dst, dst + capacity); returns the bytes produced (0 only at the end of
        /// the data).
        std::size_t decode(char* dst, std::size_t capacity) {
            if (finished_) return 0;
            for (;;) {
                if (in_pos_ == in_len_ && !at_eof_) at_eof_ = !refill();
                std::size_t produced = 0;
                bool stream_end = false;
                const std::size_t before = in_len_ - in_pos_;
                if (kind_ == compression::gzip) {
                    z_.next_in = reinterpret_cast<Bytef*>(in_.data() + in_pos_);
                    z_.avail_in = static_cast<uInt>(before);
                    z_.next_out = reinterpret_cast<Bytef*>(dst);
                    z_.avail_out = static_cast<uInt>(capacity);
                    const int rc = inflate(&z_, Z_NO_FLUSH);
                    in_pos_ += before - z_.avail_in;
                    produced = capacity - z_.avail_out;
                    if (rc == Z_STREAM_END) {
                        stream_end = true;
                    } else if (rc != Z_OK && !(rc == Z_BUF_ERROR && produced == 0 && before == 0)) {
                        fail(position(),
                             "corrupt gzip data (" +
                                 std::string(z_.msg != nullptr ? z_.msg : "zlib error") + ")");
                    }
                } else {
                    x_.next_in = reinterpret_cast<const std::uint8_t*>(in_.data() + in_pos_);
                    x_.avail_in = before;
                    x_.next_out = reinterpret_cast<std::uint8_t*>(dst);
                    x_.avail_out = capacity;
                    const lzma_ret rc =
                        lzma_code(&x_, at_eof_ && before == 0 ? LZMA_FINISH : LZMA_RUN);
                    in_pos_ += before - x_.avail_in;
                    produced = capacity - x_.avail_out;
                    if (rc == LZMA_STREAM_END)
                        stream_end = true;
                    else if (rc != LZMA_OK)
                        fail(position(), xz_problem(rc));
                }
                consumed_ = read_ - (in_len_ - in_pos_);
                if (stream_end) {
                    if (kind_ == compression::gzip) {
                        // Concatenated members (what `cat a.gz b.gz` makes) decode as one.
                        if (in_pos_ == in_len_ && !at_eof_) at_eof_ = !refill();
                        if (in_pos_ < in_len_) {
                            inflateReset(&z_);
                        } else {
                            finished_ = true;
                        }
                    } else {
                        finished_ = true;
                    }
                }
                if (produced != 0) return produced;
                if (finished_) return 0;
                if (at_eof_ && in_pos_ == in_len_ && kind_ == compression::gzip)
                    fail(position(), "truncated gzip data: the file ends inside a compressed "
                                     "stream");
            }
        }

        [[nodiscard]] std::uint64_t position() const noexcept {
            return read_ - (in_len_ - in_pos_);
        }

        [[nodiscard]] static std::string xz_problem(lzma_ret rc) {
            switch (rc) {
            case LZMA_BUF_ERROR:
                return "truncated xz data: the file ends inside a compressed stream";
            case LZMA_FORMAT_ERROR:
                return "not xz data";
            case LZMA_OPTIONS_ERROR:
                return "xz data with unsupported options";
            case LZMA_DATA_ERROR:
                return "corrupt xz data";
            case LZMA_MEM_ERROR:
                return "out of memory while decoding xz data";
            default:
                return "xz decoding error " + std::to_string(static_cast<int>(rc));
            }
        }

        std::ifstream file_;
        z_stream z_{};
        lzma_stream x_ = LZMA_STREAM_INIT;
        bool z_ready_ = false, x_ready_ = false;
        std::unique_ptr<std::array<char, chunk_bytes>> in_storage_ =
            std::make_unique<std::array<char, chunk_bytes>>();
        std::array<char, chunk_bytes>& in_ = *in_storage_;
        std::size_t in_len_ = 0, in_pos_ = 0;
        std::uint64_t read_ = 0; ///< compressed bytes read from the file
        bool at_eof_ = false, finished_ = false;
#else
        std::size_t decode(char*, std::size_t) {
            return 0;
        }
#endif
        compression kind_;
        std::string name_;
        std::uint64_t consumed_ = 0;
        std::optional<input_error> failure_;
        bool hold_partial_lines_ = false;
        std::size_t delivered_ = 0, held_ = 0; ///< in out_: bytes delivered, then held back
        std::unique_ptr<std::array<char, chunk_bytes>> out_storage_ =
            std::make_unique<std::array<char, chunk_bytes>>();
        std::array<char, chunk_bytes>& out_ = *out_storage_;
    };

    decompressing_buffer buffer_;
    std::istream stream_;
};

} // namespace memsub::explorer
