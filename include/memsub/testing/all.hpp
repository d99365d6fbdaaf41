// memsub::testing — archetypes, the protocol recorder and contract checks.
#pragma once
#include <memsub/testing/archetypes.hpp>
#include <memsub/testing/contract.hpp>
#include <memsub/testing/recording_policy.hpp>
