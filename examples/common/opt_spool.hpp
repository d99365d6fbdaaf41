// The line stream the explorer's Belady OPT rows replay, in bounded memory: kept in memory up to
// a budget (--opt-memory), then spilled to an unnamed temporary file, so a trace of any length
// can have its OPT bound. Examples only — not part of the library.
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

namespace memsub_examples {

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

    /// Replays the words `keep(word)` selects, in order, as `replay(word, next_use)`, where
    /// next_use is the position (among the kept words) of the next kept word of the same line,
    /// or memsub::never. `kept` is how many words `keep` selects.
    template <class Keep, class Replay>
    void replay(std::uint64_t kept, Keep&& keep, Replay&& replay) {
        flush();
        memsub::replacement::next_use_tracker tracker;
        if (!spilled()) {
            std::vector<std::uint64_t> next(kept, memsub::never);
            std::uint64_t pos = kept;
            for (std::size_t i = words_.size(); i-- > 0;)
                if (keep(words_[i])) {
                    --pos;
                    next[pos] = tracker.observe(memsub::line_address{words_[i] & line_mask}, pos);
                }
            pos = 0;
            for (const std::uint64_t w : words_)
                if (keep(w)) replay(w, next[pos++]);
            return;
        }
        // Spilled: backwards a block at a time, the next uses of each block written to a second
        // file at their kept positions; then forwards through both.
        spill_file next_file;
        std::vector<std::uint64_t> block(block_words), next_block;
        next_block.reserve(block_words);
        std::uint64_t pos = kept;
        for (std::uint64_t end = spilled_; end > 0;) {
            const std::uint64_t begin = end > block_words ? end - block_words : 0;
            const std::span<std::uint64_t> b(block.data(), end - begin);
            file_->read_at(begin, b);
            next_block.clear();
            for (std::size_t i = b.size(); i-- > 0;)
                if (keep(b[i])) {
                    --pos;
                    next_block.push_back(
                        tracker.observe(memsub::line_address{b[i] & line_mask}, pos));
                }
            std::reverse(next_block.begin(), next_block.end());
            next_file.write_at(pos, next_block);
            end = begin;
        }
        std::uint64_t next_pos = 0;
        for (std::uint64_t begin = 0; begin < spilled_; begin += block_words) {
            const std::span<std::uint64_t> b(
                block.data(), std::min<std::uint64_t>(block_words, spilled_ - begin));
            file_->read_at(begin, b);
            std::size_t k = 0;
            for (const std::uint64_t w : b) k += keep(w) ? 1 : 0;
            next_block.resize(k);
            next_file.read_at(next_pos, next_block);
            next_pos += k;
            k = 0;
            for (const std::uint64_t w : b)
                if (keep(w)) replay(w, next_block[k++]);
        }
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

} // namespace memsub_examples
