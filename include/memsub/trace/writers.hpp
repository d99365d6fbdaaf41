// memsub — writers for the trace formats memsub reads (round trips, conversions).
//
// Each writer appends records to a borrowed `std::ostream` (open it in binary mode for the binary
// formats) in exactly the layout the matching reader documents; the caller checks the stream's
// state. Writers never allocate per record.
//   lackey_writer          I/L/S/M lines as Valgrind Lackey prints them ("I  %08x,%u")
//   dinero_writer          "label address size" din lines (hex, size in hex)
//   text_writer            "0x<hex> R|W|I" or decimal lines
//   binary_u64_writer      little-endian u64 addresses
//   oracle_general_writer  libCacheSim oracleGeneral 24-byte records
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <ostream>

#include <memsub/core/access.hpp>
#include <memsub/core/errors.hpp>
#include <memsub/core/types.hpp>

namespace memsub::trace {

namespace detail {
/// Appends `v` in lowercase hex, zero-padded to at least `min_digits`; returns the new end.
inline char* put_hex(char* p, std::uint64_t v, int min_digits = 1) noexcept {
    char tmp[16];
    int n = 0;
    do {
        tmp[n++] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v != 0);
    while (n < min_digits && n < 16) tmp[n++] = '0';
    while (n > 0) *p++ = tmp[--n];
    return p;
}

inline char* put_decimal(char* p, std::uint64_t v) noexcept {
    char tmp[20];
    int n = 0;
    do {
        tmp[n++] = static_cast<char>('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (n > 0) *p++ = tmp[--n];
    return p;
}

inline void put_le(std::ostream& os, std::uint64_t v, int bytes) {
    std::array<char, 8> b{};
    for (int i = 0; i < bytes; ++i)
        b[static_cast<std::size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
    os.write(b.data(), bytes);
}
} // namespace detail

/// Writes Lackey lines. Loads and prefetches → L (M when `read_modify_write` is set), stores
/// and writebacks → S, instruction fetches → I; `write_modify` writes an M record.
class lackey_writer {
public:
    explicit lackey_writer(std::ostream& os) : os_(&os) {}

    void write(const memsub::access& a) {
        switch (a.kind) {
        case access_kind::instruction_fetch:
            line("I  ", a.address.value, a.size);
            break;
        case access_kind::store:
        case access_kind::writeback:
            line(" S ", a.address.value, a.size);
            break;
        case access_kind::load:
        case access_kind::prefetch:
            line(a.read_modify_write ? " M " : " L ", a.address.value, a.size);
            break;
        }
    }
    void write_modify(std::uint64_t address, std::uint32_t size) { line(" M ", address, size); }
    /// A Valgrind message line ("==pid== text"), skipped by the reader.
    void write_banner(std::uint32_t pid, const char* text) {
        *os_ << "==" << pid << "== " << text << '\n';
    }

private:
    void line(const char* tag, std::uint64_t address, std::uint32_t size) {
        char buf[64];
        char* p = buf;
        for (int i = 0; i < 3; ++i) *p++ = tag[i];
        p = detail::put_hex(p, address, 8);
        *p++ = ',';
        p = detail::put_decimal(p, size);
        *p++ = '\n';
        os_->write(buf, p - buf);
    }
    std::ostream* os_;
};

/// Writes din lines "label address size" (label 0 load/prefetch, 1 store/writeback, 2 ifetch);
/// `write_label` writes any label 0–5 (e.g. 4, a flush).
class dinero_writer {
public:
    explicit dinero_writer(std::ostream& os) : os_(&os) {}

    void write(const memsub::access& a) {
        unsigned label = 0;
        if (is_write(a.kind)) label = 1;
        if (a.kind == access_kind::instruction_fetch) label = 2;
        write_label(label, a.address.value, a.size);
    }
    void write_label(unsigned label, std::uint64_t address, std::uint32_t size) {
        char buf[64];
        char* p = buf;
        p = detail::put_hex(p, label);
        *p++ = ' ';
        p = detail::put_hex(p, address);
        *p++ = ' ';
        p = detail::put_hex(p, size);
        *p++ = '\n';
        os_->write(buf, p - buf);
    }

private:
    std::ostream* os_;
};

/// Writes plain-text lines: "0x<hex>" (or decimal) followed by " R", " W" or " I".
class text_writer {
public:
    struct options {
        bool hex = true;       ///< "0x"-prefixed hex; false → decimal
        bool with_kind = true; ///< append the R/W/I column
    };
    explicit text_writer(std::ostream& os) : text_writer(os, options{true, true}) {}
    text_writer(std::ostream& os, options o) : os_(&os), o_(o) {}

    void write(const memsub::access& a) {
        char buf[64];
        char* p = buf;
        if (o_.hex) {
            *p++ = '0';
            *p++ = 'x';
            p = detail::put_hex(p, a.address.value);
        } else {
            p = detail::put_decimal(p, a.address.value);
        }
        if (o_.with_kind) {
            *p++ = ' ';
            *p++ = a.kind == access_kind::instruction_fetch ? 'I' : is_write(a.kind) ? 'W' : 'R';
        }
        *p++ = '\n';
        os_->write(buf, p - buf);
    }

private:
    std::ostream* os_;
    options o_;
};

/// Writes little-endian u64 addresses.
class binary_u64_writer {
public:
    explicit binary_u64_writer(std::ostream& os) : os_(&os) {}
    void write(const memsub::access& a) { write_address(a.address.value); }
    void write_address(std::uint64_t address) { detail::put_le(*os_, address, 8); }

private:
    std::ostream* os_;
};

/// Writes libCacheSim oracleGeneral records. `write(access)` stores obj_id = address /
/// address_scale_bytes, obj_size = size, clock_time = hints.cycle (low 32 bits) and
/// next_access_vtime = hints.next_use (-1 for `memsub::never`).
class oracle_general_writer {
public:
    explicit oracle_general_writer(std::ostream& os, std::uint64_t address_scale_bytes = 64)
        : os_(&os)
        , scale_(address_scale_bytes) {
        memsub::require(scale_ >= 1, "memsub::trace::oracle_general_writer", "address_scale_bytes",
                        scale_, "must be at least 1");
    }

    void write(const memsub::access& a) {
        const std::int64_t next =
            a.hints.next_use == never ? -1 : static_cast<std::int64_t>(a.hints.next_use);
        write_record(static_cast<std::uint32_t>(a.hints.cycle), a.address.value / scale_, a.size,
                     next);
    }
    void write_record(std::uint32_t clock_time, std::uint64_t obj_id, std::uint32_t obj_size,
                      std::int64_t next_access_vtime) {
        detail::put_le(*os_, clock_time, 4);
        detail::put_le(*os_, obj_id, 8);
        detail::put_le(*os_, obj_size, 4);
        detail::put_le(*os_, static_cast<std::uint64_t>(next_access_vtime), 8);
    }

private:
    std::ostream* os_;
    std::uint64_t scale_;
};

} // namespace memsub::trace
