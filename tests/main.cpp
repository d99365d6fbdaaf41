#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "support/data_dir.hpp"

const char* memsub_test::data_dir() noexcept {
    return MEMSUB_TEST_DATA_DIR;
}
