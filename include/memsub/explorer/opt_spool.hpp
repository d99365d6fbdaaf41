// The line stream the explorer's Belady OPT rows replay, in bounded memory: kept in memory up to
// a budget (--opt-memory), then spilled to an unnamed temporary file, so a trace of any length
// can have its OPT bound. Part of the explorer module (memsub::explorer; needs {fmt}).
//
// One 64-bit word per line a reference touches, in order: the line address in bits 0..61 (a
// line address has at least 2 zero top bits: lines are at least 4 bytes) and two flags,
//   bit 63  the reference writes (a store, or a read-modify-write),
//   bit 62  a further line of the reference before it (a line-crossing reference).
// OPT needs the position of every line's next use, found by a backward pass
// (replacement::next_use_tracker: one hash-map entry per distinct line). In memory the words and
// their next uses take 16 bytes per line; spilled, the words go to one temporary file, the next
// uses to another (written backwards a block at a time, read forwards), and memory holds two
// blocks and the distinct lines' map. The files live in $TMPDIR (else /tmp), are unlinked at
// once, and vanish when the explorer exits, however it exits.
#pragma once

#include <memsub/core/access.hpp>
#include <memsub/core/types.hpp>
#include <memsub/replacement/next_use.hpp>

#include <fmt/core.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fcntl.h>  // POSIX: open flags
#include <unistd.h> // POSIX: pread, pwrite, close, unlink

namespace memsub::explorer {

/// An unnamed temporary file of 64-bit words (mkstemp in $TMPDIR or /tmp, unlinked at once).
class spill_file {
public:
    spill_file() {
        const char* dir = std::getenv("TMPDIR");
        std::string path = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") +
                           "/memsub-explorer-opt-XXXXXX";
        fd_ = ::mkstemp(path.data());
        if (fd_ < 0)
            throw std::runtime_error(fmt::format("cannot create a temporary file for the OPT "
                                                 "bound in {}: {} (set TMPDIR, or --no-opt)",
                                                 path.substr(0, path.rfind('/')),
                                                 std::strerror(errno)));
        ::unlink(path.c_str());
    }
    spill_file(const spill_file&) = delete;
    spill_file& operator=(const spill_file&) = delete;
    ~spill_file() {
        if (fd_ >= 0) ::close(fd_);
    }

    void write_at(std::uint64_t word_index, std::span<const std::uint64_t> words) {
        transfer(word_index, const_cast<std::uint64_t*>(words.data()), words.size(), true);
    }
    void read_at(std::uint64_t word_index, std::span<std::uint64_t> words) {
        transfer(word_index, words.data(), words.size(), false);
    }

private:
    void transfer(std::uint64_t word_index, std::uint64_t* words, std::size_t count, bool write) {
        auto* bytes = reinterpret_cast<char*>(words);
        std::size_t left = count * sizeof(std::uint64_t);
        auto offset = static_cast<off_t>(word_index * sizeof(std::uint64_t));
        while (left > 0) {
            const ssize_t n =
                write ? ::pwrite(fd_, bytes, left, offset) : ::pread(fd_, bytes, left, offset);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0)
                throw std::runtime_error(fmt::format(
                    "the OPT bound's temporary file: {} failed: {} (set TMPDIR to a disk with "
                    "room, or --no-opt)",
                    write ? "write" : "read", n < 0 ? std::strerror(errno) : "end of file"));
            bytes += n;
            left -= static_cast<std::size_t>(n);
            offset += n;
        }
    }

    int fd_ = -1;
};

class opt_spool {
public:
    static constexpr std::uint64_t write_flag = std::uint64_t{1} << 63;
    static constexpr std::uint64_t continues_flag = std::uint64_t{1} << 62;
    static constexpr std::uint64_t line_mask = continues_flag - 1;
    /// Words per block of a spilled pass (8 MiB).
    static constexpr std::size_t block_words = std::size_t{1} << 20;

    /// Keeps up to `memory_bytes` in memory (16 bytes per line with the next uses), then spills.
    explicit opt_spool(std::uint64_t memory_bytes)
        : memory_lines_(std::max<std::uint64_t>(memory_bytes / 16, block_words)) {}

    /// Records every line `a` touches (`line_shift` = log2 of the line size).
    void add(const memsub::access& a, std::uint32_t line_shift) {
        const std::uint64_t first = a.address.value >> line_shift;
        const std::uint64_t end = a.address.value + std::max<std::uint64_t>(a.size, 1) - 1;
        const std::uint64_t last = end < a.address.value ? first : end >> line_shift;
        const std::uint64_t flags = memsub::is_write(a.kind) ? write_flag : 0;
        for (std::uint64_t l = first; l <= last; ++l)
            push(l | flags | (l != first ? continues_flag : 0));
        ++references_;
    }

    [[nodiscard]] std::uint64_t lines() const noexcept { return spilled_ + words_.size(); }
    [[nodiscard]] std::uint64_t references() const noexcept { return references_; }
    [[nodiscard]] bool spilled() const noexcept { return file_ != nullptr; }

    /// Words between two calls of replay()'s `tick`.
    static constexpr std::size_t tick_words = std::size_t{1} << 16;

    /// Replays every word, in order, as `replay(word, next_use)`, where next_use is the
    /// position of the next word of the same line, or memsub::never. Every tick_words words of
    /// its two passes (next uses backwards, then the replay) it calls `tick(fraction_done)`;
    /// when that returns false the replay stops and returns false (a stop signal: the replay
    /// is incomplete, so its result must be dropped). True when every word was replayed.
    template <class Replay, class Tick>
    bool replay(Replay&& replay, Tick&& tick) {
        flush();
        memsub::replacement::next_use_tracker tracker;
        const std::uint64_t n = lines();
        const double total = 2.0 * static_cast<double>(std::max<std::uint64_t>(n, 1));
        std::uint64_t seen = 0; // words of both passes gone through
        const auto ticked = [&](std::uint64_t words) {
            seen += words;
            return tick(static_cast<double>(seen) / total);
        };
        if (!spilled()) {
            std::vector<std::uint64_t> next(n);
            for (std::size_t end = n; end > 0;) { // a tick's words at a time
                const std::size_t begin = end > tick_words ? end - tick_words : 0;
                for (std::size_t i = end; i-- > begin;)
                    next[i] = tracker.observe(memsub::line_address{words_[i] & line_mask}, i);
                if (!ticked(end - begin)) return false;
                end = begin;
            }
            for (std::size_t begin = 0; begin < n; begin += tick_words) {
                const std::size_t end = std::min<std::size_t>(n, begin + tick_words);
                for (std::size_t i = begin; i < end; ++i) replay(words_[i], next[i]);
                if (!ticked(end - begin)) return false;
            }
            return true;
        }
        // Spilled: backwards a block at a time, the next uses of each block written to a second
        // file at their positions; then forwards through both.
        spill_file next_file;
        std::vector<std::uint64_t> block(block_words), next_block(block_words);
        for (std::uint64_t end = n; end > 0;) {
            const std::uint64_t begin = end > block_words ? end - block_words : 0;
            const std::span<std::uint64_t> b(block.data(), end - begin);
            const std::span<std::uint64_t> next(next_block.data(), b.size());
            file_->read_at(begin, b);
            for (std::size_t i = b.size(); i-- > 0;)
                next[i] = tracker.observe(memsub::line_address{b[i] & line_mask}, begin + i);
            next_file.write_at(begin, next);
            if (!ticked(b.size())) return false;
            end = begin;
        }
        for (std::uint64_t begin = 0; begin < n; begin += block_words) {
            const std::size_t count = std::min<std::uint64_t>(block_words, n - begin);
            const std::span<std::uint64_t> b(block.data(), count);
            const std::span<std::uint64_t> next(next_block.data(), count);
            file_->read_at(begin, b);
            next_file.read_at(begin, next);
            for (std::size_t i = 0; i < count; ++i) replay(b[i], next[i]);
            if (!ticked(count)) return false;
        }
        return true;
    }

private:
    void push(std::uint64_t word) {
        words_.push_back(word);
        if (spilled() ? words_.size() >= block_words : words_.size() > memory_lines_)
            flush_to_file();
    }
    /// In spilled mode, writes the pending words out (in memory mode, nothing to do).
    void flush() {
        if (spilled() && !words_.empty()) flush_to_file();
    }
    void flush_to_file() {
        const bool first = !file_;
        if (first) file_ = std::make_unique<spill_file>();
        file_->write_at(spilled_, words_);
        spilled_ += words_.size();
        words_.clear();
        if (first) { // give the in-memory stream's capacity back; blocks from now on
            std::vector<std::uint64_t>().swap(words_);
            words_.reserve(block_words);
        }
    }

    std::uint64_t memory_lines_;
    std::vector<std::uint64_t> words_; ///< every word (in memory), or the words not yet written
    std::unique_ptr<spill_file> file_;
    std::uint64_t spilled_ = 0; ///< words in the file
    std::uint64_t references_ = 0;
};

} // namespace memsub::explorer
