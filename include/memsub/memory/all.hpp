// memsub — every memory-side component (mappings, presets, controllers, MAC table).
#pragma once

#include <memsub/memory/bank_command_queues.hpp>
#include <memsub/memory/bit_field_mapping.hpp>
#include <memsub/memory/closed_page.hpp>
#include <memsub/memory/concept.hpp>
#include <memsub/memory/controller_parts_concept.hpp>
#include <memsub/memory/controller_stats.hpp>
#include <memsub/memory/dram_channel.hpp>
#include <memsub/memory/dram_controller.hpp>
#include <memsub/memory/dram_refresh.hpp>
#include <memsub/memory/dram_timing.hpp>
#include <memsub/memory/dramsim3_controller.hpp>
#include <memsub/memory/fcfs.hpp>
#include <memsub/memory/flat_memory.hpp>
#include <memsub/memory/fr_fcfs.hpp>
#include <memsub/memory/latency_histogram.hpp>
#include <memsub/memory/mac_table.hpp>
#include <memsub/memory/open_page.hpp>
#include <memsub/memory/partitioned_controller.hpp>
#include <memsub/memory/row_policy_concept.hpp>
#include <memsub/memory/scheduler_concept.hpp>
#include <memsub/memory/shared_queues.hpp>
#include <memsub/memory/timeout_adaptive.hpp>
#include <memsub/memory/watermark_write_drain.hpp>
