// memsub — every trace reader, the writers and the opening helpers.
#pragma once

#include <memsub/trace/binary_u64_reader.hpp>
#include <memsub/trace/champsim_reader.hpp>
#include <memsub/trace/concept.hpp>
#include <memsub/trace/dinero_reader.hpp>
#include <memsub/trace/lackey_reader.hpp>
#include <memsub/trace/open.hpp>
#include <memsub/trace/oracle_general_reader.hpp>
#include <memsub/trace/page_allocator.hpp>
#include <memsub/trace/text_reader.hpp>
#include <memsub/trace/writers.hpp>
