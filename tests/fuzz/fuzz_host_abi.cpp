// Fuzz target: the C interface (memsub/host/memsub_host.h) on arbitrary input, as a C host
// could call it. Four parts, chosen by the first byte:
//   0: decompressing an arbitrary memsub_compressed_line (any bits, code book, member,
//      encoding, tag data, payload) with every compressor at every line size: it returns
//      MEMSUB_OK or a status, never reads past the payload; a line compressed from the input
//      decodes back to itself.
//   1: the replacement-policy handle driven by arbitrary hook calls (any set, way, mask, kind):
//      a call that breaks the protocol is refused, the valid ways stay what the accepted
//      calls made them.
//   2: a DRAM controller fed arbitrary requests, arrivals and advances: every accepted request
//      is drained exactly once.
//   3: a policy named with arbitrary settings text ("name:" + the input): creating it returns
//      MEMSUB_OK or MEMSUB_CONFIG_ERROR, and when it is created its settings listing is a
//      settings text that creates it again and lists the same.
// The library's translation units are compiled into the fuzzer (tests/fuzz/CMakeLists.txt), so
// they run instrumented.
#include <memsub/host/memsub_host.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct reader {
    const std::uint8_t* data;
    std::size_t size;
    std::size_t at = 0;
    std::uint64_t take(unsigned bytes) {
        std::uint64_t v = 0;
        for (unsigned i = 0; i < bytes; ++i) v = v << 8 | (at < size ? data[at++] : 0);
        return v;
    }
    [[nodiscard]] bool more() const { return at < size; }
};

void check(bool ok) {
    if (!ok) std::abort();
}

std::vector<std::string> compressor_names() {
    std::size_t needed = 0;
    memsub_compressor_names(nullptr, 0, &needed);
    std::string joined(needed, '\0');
    check(memsub_compressor_names(joined.data(), joined.size(), nullptr) == MEMSUB_OK);
    std::vector<std::string> names;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= joined.size(); ++i)
        if (i == joined.size() || joined[i] == ',' || joined[i] == '\0') {
            if (i > start) names.push_back(joined.substr(start, i - start));
            start = i + 1;
            if (i < joined.size() && joined[i] == '\0') break;
        }
    return names;
}

void decompress(reader& in) {
    static const std::vector<std::string> names = compressor_names();
    const std::string& name = names[in.take(1) % names.size()];
    const std::uint32_t line_bytes = 32u << (in.take(1) % 3);
    memsub_compressor* c = nullptr;
    check(memsub_compressor_create(name.c_str(), line_bytes, &c, nullptr) == MEMSUB_OK);
    memsub_compressed_line line{};
    line.bits = static_cast<std::uint32_t>(in.take(2));
    line.codebook = static_cast<std::uint32_t>(in.take(1));
    line.tag_data = in.take(8);
    line.member = static_cast<std::uint16_t>(in.take(1));
    line.encoding = static_cast<std::uint8_t>(in.take(1));
    for (auto& b : line.payload) b = static_cast<std::uint8_t>(in.take(1));
    std::uint8_t out[MEMSUB_MAX_LINE_BYTES];
    memsub_error error{};
    const memsub_status s = memsub_compressor_decompress(c, &line, out, line_bytes, &error);
    check(s == MEMSUB_OK || s == MEMSUB_DECODE_ERROR || s == MEMSUB_INVALID_ARGUMENT);
    // The rest of the input as a line: its round trip is exact.
    std::uint8_t original[MEMSUB_MAX_LINE_BYTES];
    for (std::uint32_t i = 0; i < line_bytes; ++i)
        original[i] = static_cast<std::uint8_t>(in.take(1));
    memsub_compressed_line packed{};
    check(memsub_compressor_compress(c, original, line_bytes, &packed, nullptr) == MEMSUB_OK);
    std::uint32_t bits = 0;
    check(memsub_compressor_size_bits(c, original, line_bytes, &bits, nullptr) == MEMSUB_OK);
    check(bits == packed.bits);
    check(memsub_compressor_decompress(c, &packed, out, line_bytes, nullptr) == MEMSUB_OK);
    check(std::memcmp(out, original, line_bytes) == 0);
    memsub_compressor_destroy(c);
}

/// The policy names a policy of `config` can be created with.
std::vector<std::string> policy_names(const memsub_policy_config& config) {
    std::size_t needed = 0;
    memsub_policy_names(&config, nullptr, 0, &needed, nullptr);
    std::string joined(needed, '\0');
    memsub_policy_names(&config, joined.data(), joined.size(), nullptr, nullptr);
    std::vector<std::string> names;
    for (std::size_t start = 0, i = 0; i <= joined.size(); ++i)
        if (i == joined.size() || joined[i] == ',' || joined[i] == '\0') {
            if (i > start) names.push_back(joined.substr(start, i - start));
            start = i + 1;
            if (i < joined.size() && joined[i] == '\0') break;
        }
    return names;
}

/// The settings listing of `spec` on `config` (check: it is listed).
std::string settings_of(const std::string& spec, const memsub_policy_config& config) {
    std::size_t needed = 0;
    memsub_policy_params(spec.c_str(), &config, nullptr, 0, &needed, nullptr);
    std::string listing(needed, '\0');
    check(memsub_policy_params(spec.c_str(), &config, listing.data(), listing.size(), nullptr,
                               nullptr) == MEMSUB_OK);
    listing.resize(listing.size() - 1); // the NUL
    return listing;
}

void settings(reader& in) {
    memsub_policy_config config{};
    config.sets = 1u << (in.take(1) % 8);
    config.ways = 1 + static_cast<std::uint32_t>(in.take(1) % 16);
    config.line_bytes = 64;
    const auto names = policy_names(config);
    if (names.empty()) return;
    std::string spec = names[in.take(1) % names.size()] + ':';
    while (in.more()) spec += static_cast<char>(in.take(1));
    if (spec.find('\0') != std::string::npos) return; // a C string ends at its NUL
    memsub_policy* p = nullptr;
    memsub_error error{};
    const memsub_status s = memsub_policy_create(spec.c_str(), &config, &p, &error);
    check(s == MEMSUB_OK || s == MEMSUB_CONFIG_ERROR);
    check((s == MEMSUB_OK) == (p != nullptr));
    check(s == MEMSUB_OK || error.message[0] != '\0');
    if (p == nullptr) return;
    memsub_policy_destroy(p);
    const std::string listing = settings_of(spec, config);
    const std::string again = spec.substr(0, spec.find(':') + 1) + listing;
    check(memsub_policy_create(again.c_str(), &config, &p, nullptr) == MEMSUB_OK);
    memsub_policy_destroy(p);
    check(settings_of(again, config) == listing);
}

void policy(reader& in) {
    memsub_policy_config config{};
    config.sets = 1u << (in.take(1) % 4);
    config.ways = 1 + static_cast<std::uint32_t>(in.take(1) % 16);
    config.line_bytes = 64;
    const auto names = policy_names(config);
    if (names.empty()) return;
    memsub_policy* p = nullptr;
    check(memsub_policy_create(names[in.take(1) % names.size()].c_str(), &config, &p, nullptr) ==
          MEMSUB_OK);
    std::vector<std::uint64_t> valid(config.sets, 0); // what the accepted calls made valid
    while (in.more()) {
        const unsigned op = static_cast<unsigned>(in.take(1) % 6);
        const auto set = static_cast<std::uint32_t>(in.take(1) % (config.sets + 1));
        const auto way = static_cast<std::uint32_t>(in.take(1) % (config.ways + 1));
        memsub_access a{};
        a.address = in.take(4) * 64;
        a.pc = in.take(1);
        a.kind = static_cast<std::uint8_t>(in.take(1) % 6);
        const bool in_range = set < config.sets && way < config.ways && a.kind < 5;
        const bool is_valid = in_range && (valid[set] >> way & 1u) != 0;
        switch (op) {
        case 0:
            check((memsub_policy_on_hit(p, set, way, &a) == MEMSUB_OK) == is_valid);
            break;
        case 1:
            check((memsub_policy_on_miss(p, set, &a) == MEMSUB_OK) ==
                  (set < config.sets && a.kind < 5));
            break;
        case 2:
            if (memsub_policy_on_insert(p, set, way, &a) == MEMSUB_OK) {
                check(in_range && !is_valid);
                valid[set] |= std::uint64_t{1} << way;
            } else {
                check(!in_range || is_valid);
            }
            break;
        case 3: {
            memsub_evicted_block b{};
            b.address = a.address;
            b.reason = static_cast<std::uint8_t>(in.take(1) % 6);
            if (memsub_policy_on_evict(p, set, way, &b) == MEMSUB_OK) {
                check(set < config.sets && way < config.ways && (valid[set] >> way & 1u) != 0);
                valid[set] &= ~(std::uint64_t{1} << way);
            }
            break;
        }
        case 4: {
            const std::uint64_t eligible = in.take(2);
            std::uint32_t victim = 0;
            if (memsub_policy_victim(p, set, eligible, &a, &victim) == MEMSUB_OK) {
                check(eligible != 0 && (eligible & ~valid[set]) == 0);
                check((eligible >> victim & 1u) != 0);
            }
            break;
        }
        default: {
            std::uint8_t bypass = 0;
            memsub_policy_should_bypass(p, set, &a, &bypass);
            break;
        }
        }
        if (set < config.sets) {
            std::uint64_t tracked = 0;
            check(memsub_policy_valid_ways(p, set, &tracked) == MEMSUB_OK);
            check(tracked == valid[set]);
        }
    }
    memsub_policy_destroy(p);
}

void dram(reader& in) {
    static const char* const controllers[] = {"fr_fcfs", "fcfs", "partitioned", "hmc_vault",
                                              "flat"};
    memsub_dram_config config{};
    config.controller = controllers[in.take(1) % 5];
    config.channels = 1u << (in.take(1) % 3);
    memsub_dram* d = nullptr;
    if (memsub_dram_create(&config, &d, nullptr) != MEMSUB_OK) return;
    std::uint64_t accepted = 0, drained = 0, arrival = 0, now = 0, next_id = 0;
    auto count = [](void* context, const memsub_completion*) {
        ++*static_cast<std::uint64_t*>(context);
    };
    while (in.more()) {
        memsub_mem_request q{};
        q.id = next_id++;
        q.address = in.take(5);
        arrival += in.take(1) % 16;
        q.arrival_cycle = arrival;
        q.is_write = static_cast<std::uint8_t>(in.take(1) & 1);
        q.requester = static_cast<std::uint32_t>(in.take(1) % 8);
        std::uint8_t result = 0xff;
        check(memsub_dram_enqueue(d, &q, &result) == MEMSUB_OK);
        accepted += result == MEMSUB_ENQUEUE_ACCEPTED;
        now = std::max(now, arrival) + in.take(1) % 64;
        check(memsub_dram_advance_to(d, now) == MEMSUB_OK);
        check(memsub_dram_drain(d, count, &drained, nullptr) == MEMSUB_OK);
        check(drained <= accepted);
    }
    std::uint64_t pending = 0;
    for (int guard = 0;
         guard < 100000 && memsub_dram_pending(d, &pending) == MEMSUB_OK && pending != 0; ++guard) {
        std::uint64_t next = 0;
        check(memsub_dram_next_event_cycle(d, &next) == MEMSUB_OK);
        now = std::max(now, next);
        check(memsub_dram_advance_to(d, now) == MEMSUB_OK);
        check(memsub_dram_drain(d, count, &drained, nullptr) == MEMSUB_OK);
    }
    check(pending == 0 && drained == accepted);
    memsub_dram_destroy(d);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    reader in{data + 1, size - 1};
    switch (data[0] % 4) {
    case 0:
        decompress(in);
        break;
    case 1:
        policy(in);
        break;
    case 2:
        dram(in);
        break;
    default:
        settings(in);
        break;
    }
    return 0;
}
