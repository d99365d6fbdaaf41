# memsub's replacement policies as a gem5 replacement policy (memsub_rp.hh): copy this file,
# memsub_rp.hh, memsub_rp.cc and SConscript into src/mem/cache/replacement_policies/memsub/ of
# a gem5 checkout (memsub's docs/embedding/gem5.md).
from m5.objects.ReplacementPolicies import BaseReplacementPolicy
from m5.params import *
from m5.proxy import *


class MemsubRP(BaseReplacementPolicy):
    type = "MemsubRP"
    cxx_class = "gem5::replacement_policy::MemsubRP"
    cxx_header = "mem/cache/replacement_policies/memsub/memsub_rp.hh"

    policy = Param.String(
        "srrip",
        "memsub policy name (lru, srrip, drrip, ship, remap, ...; a wrong "
        "name is a fatal error that lists them)",
    )
    writeback_hits = Param.String(
        "promote",
        "a writeback hit from the level above: 'promote' (a hit, as memsub's "
        "own caches count it) or 'ignore' (the block keeps its position)",
    )
    # The cache's shape, as gem5's tags take it: memsub sizes its per-set
    # state once, when the object is built.
    size = Param.MemorySize(Parent.size, "capacity of the cache in bytes")
    assoc = Param.Int(Parent.assoc, "associativity of the cache")
    block_size = Param.Int(Parent.cache_line_size, "block size in bytes")
