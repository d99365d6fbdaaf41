// memsub — what the C interface's translation units share: how entry points report failure
// (memsub/host/memsub_host.h, "Status" and "Reasons") and the departed-block record.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <new>
#include <string_view>

#include <memsub/core/errors.hpp>
#include <memsub/core/evicted_block.hpp>
#include <memsub/host/memsub_host.h>

namespace memsub::host::detail {

/// Fills `error` (when not NULL) with `code` and `message`, cut at a UTF-8 character boundary to
/// fit; returns `code`.
inline memsub_status fail(memsub_error* error, memsub_status code,
                          std::string_view message) noexcept {
    if (error == nullptr) return code;
    error->code = code;
    std::size_t n = std::min<std::size_t>(message.size(), MEMSUB_ERROR_MESSAGE_BYTES - 1);
    if (n < message.size()) // do not leave half a character: drop its leading bytes too
        while (n > 0 && (static_cast<unsigned char>(message[n]) & 0xC0u) == 0x80u) --n;
    std::memcpy(error->message, message.data(), n);
    error->message[n] = '\0';
    return code;
}

/// Runs `body` (returning a memsub_status) and turns every exception into a status.
template <class Body>
memsub_status guarded(memsub_error* error, Body&& body) noexcept {
    try {
        return body();
    } catch (const memsub::config_error& e) {
        return fail(error, MEMSUB_CONFIG_ERROR, e.what());
    } catch (const std::bad_alloc&) {
        return fail(error, MEMSUB_OUT_OF_MEMORY, "memsub: out of memory");
    } catch (const std::exception& e) {
        return fail(error, MEMSUB_INTERNAL_ERROR, e.what());
    } catch (...) {
        return fail(error, MEMSUB_INTERNAL_ERROR, "memsub: an unknown exception");
    }
}

/// A block that left a cache, as the C interface reports it (memsub_evicted_block).
inline void to_c(const memsub::evicted_block& e, memsub_evicted_block& o) noexcept {
    o.address = e.address.value;
    o.bytes = e.bytes;
    o.stored_segments = e.stored_segments;
    o.dirty = e.dirty;
    o.reused = e.reused;
    o.reason = static_cast<std::uint8_t>(e.reason);
    std::memset(o.reserved, 0, sizeof o.reserved);
}

} // namespace memsub::host::detail
