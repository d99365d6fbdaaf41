// memsub — version information.
#pragma once

#define MEMSUB_VERSION_MAJOR 0
#define MEMSUB_VERSION_MINOR 1
#define MEMSUB_VERSION_PATCH 0

namespace memsub {
inline constexpr int version_major = MEMSUB_VERSION_MAJOR;
inline constexpr int version_minor = MEMSUB_VERSION_MINOR;
inline constexpr int version_patch = MEMSUB_VERSION_PATCH;
inline constexpr const char* version_string = "0.1.0";
} // namespace memsub
