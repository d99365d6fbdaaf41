// memsub — every filter: the Bloom filter and ReMAP's cascaded victim buffer.
#pragma once

#include <memsub/filter/bloom_filter.hpp>
#include <memsub/filter/cascaded_victim_buffer.hpp>
