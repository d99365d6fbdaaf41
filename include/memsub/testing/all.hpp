// memsub::testing — archetypes, the protocol recorders and the contract checks.
#pragma once
#include <memsub/testing/archetypes.hpp>
#include <memsub/testing/compressor_contract.hpp>
#include <memsub/testing/contract.hpp>
#include <memsub/testing/contract_report.hpp>
#include <memsub/testing/cta_contract.hpp>
#include <memsub/testing/line_size_contract.hpp>
#include <memsub/testing/placement_contract.hpp>
#include <memsub/testing/recording_policy.hpp>
#include <memsub/testing/recording_predictor.hpp>
#include <memsub/testing/scheduler_contract.hpp>
#include <memsub/testing/selector_contract.hpp>
