// Where the test data lives (tests/data of the source tree). The path is compiled into one
// unit, tests/main.cpp, and not into every test unit: an absolute path in each unit's command
// line would make a build of another checkout of the same sources miss the compiler cache.
#pragma once

namespace memsub_test {

/// The absolute path of tests/data (no trailing slash).
const char* data_dir() noexcept;

} // namespace memsub_test
