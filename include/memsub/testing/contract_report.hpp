// memsub::testing — what a contract check returns: deduplicated violations and the passes run.
//
// A violation kind is (check label, pass, rule). It is reported once, with the place of its
// first occurrence and a count, so an illegal victim that recurs 17,000 times is one line:
//   K2 [variable-block] R6: victim outside the eligible mask — 17000 times, first at set 3,
//   entry 9, eligible 0xffff
// The labels K1–K8 are described in testing/contract.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <memsub/core/geometry.hpp>

namespace memsub::testing {

/// One kind of violation found by a contract check.
struct contract_violation {
    /// The contract check that found it: "K1" … "K7" (testing/contract.hpp).
    std::string check;
    /// The pass it was found in: "conventional" or "variable-block".
    std::string pass;
    /// The broken rule, starting with its own label when it has one ("R6: victim outside …").
    std::string rule;
    /// Where it first happened ("set 3, entry 9, eligible 0xf", "access 1024", …).
    std::string first;
    /// What to do about it, when the check knows (may be empty).
    std::string hint;
    std::uint64_t count = 1;

    /// "K2 [conventional] R6: … (set 0, entry 4, eligible 0xf)", or with a count
    /// "K2 [conventional] R6: … — 17000 times, first at set 3, …"; then ": <hint>" if any.
    [[nodiscard]] std::string text() const {
        std::string t = check + " [" + pass + "] " + rule;
        if (count <= 1)
            t += " (" + first + ")";
        else
            t += " \u2014 " + std::to_string(count) + " times, first at " + first;
        if (!hint.empty()) t += ": " + hint;
        return t;
    }
};

/// How a pass ended.
enum class pass_status : std::uint8_t {
    completed, ///< every run of the pass finished
    threw,     ///< building a cache (the policy's constructor, a bad geometry) threw: see K7
    crashed,   ///< its process died from a signal: see K7
    exited,    ///< its process exited before finishing (a sanitizer report, exit()): see K7
    timed_out, ///< it exceeded `contract_options::pass_time_limit_seconds`: see K7
};

[[nodiscard]] constexpr std::string_view to_string(pass_status s) noexcept {
    switch (s) {
    case pass_status::completed:
        return "completed";
    case pass_status::threw:
        return "threw";
    case pass_status::crashed:
        return "crashed";
    case pass_status::exited:
        return "exited early";
    case pass_status::timed_out:
        return "timed out";
    }
    return "?";
}

/// One pass a check ran: a cache organisation, its geometry and how it went.
struct contract_pass {
    std::string name;
    geometry shape{};
    /// What the pass drove when it is not a cache geometry ("64 B lines", "4 partitions x 2
    /// channels, 4096 B pages"); printed instead of `shape` when set.
    std::string description{};
    /// Run in a child process (POSIX fork), so a crash became a K7 violation.
    bool isolated = false;
    pass_status status = pass_status::completed;
    /// Instances built alike and fed the same stream (K3 compares them).
    std::uint32_t runs = 0;
    /// Accesses driven, over all runs (up to the last report of a pass that died).
    std::uint64_t accesses = 0;

    /// "variable-block pass (16 sets, 4 ways, 16 entries per set, 128 B lines, 32 B segments):
    /// completed, 2 runs, 39800 accesses, in a child process".
    [[nodiscard]] std::string text() const {
        std::string t = name + " pass (";
        if (!description.empty()) {
            t += description;
        } else {
            t += std::to_string(shape.sets) + " sets, " + std::to_string(shape.ways) + " ways, " +
                 std::to_string(shape.entries_per_set()) + " entries per set, " +
                 std::to_string(shape.line_bytes) + " B lines";
            if (shape.segments_per_line() > 1)
                t += ", " + std::to_string(shape.segment_size()) + " B segments";
        }
        t += "): " + std::string(to_string(status)) + ", " + std::to_string(runs) + " runs, " +
             std::to_string(accesses) + " accesses, " +
             (isolated ? "in a child process" : "in-process");
        return t;
    }
};

struct contract_report {
    /// One entry per violation kind, in order of first occurrence.
    std::vector<contract_violation> violations;
    /// The passes that ran, in order.
    std::vector<contract_pass> passes;
    /// Accesses driven and misses seen, over all passes and runs.
    std::uint64_t accesses = 0;
    std::uint64_t misses = 0;
    /// Advice that is not a violation: an optional member the subject lacks whose absence a
    /// reader of its results would otherwise misread (e.g. no storage_bits(), which tools show
    /// as unknown metadata rather than as zero bits). One line each, labelled by the rule.
    std::vector<std::string> notes;

    /// No violation (notes do not count).
    [[nodiscard]] bool ok() const noexcept { return violations.empty(); }

    /// Records `count` occurrences of a kind; `first` and `hint` are kept from the first one.
    void add(std::string_view check, std::string_view pass, std::string_view rule,
             std::string_view first, std::uint64_t count = 1, std::string_view hint = {}) {
        for (auto& v : violations)
            if (v.check == check && v.pass == pass && v.rule == rule) {
                v.count += count;
                return;
            }
        violations.push_back({std::string(check), std::string(pass), std::string(rule),
                              std::string(first), std::string(hint), count});
    }

    /// Adds `other`'s violations (counts summed per kind) and totals.
    void merge(const contract_report& other) {
        for (const auto& v : other.violations)
            add(v.check, v.pass, v.rule, v.first, v.count, v.hint);
        notes.insert(notes.end(), other.notes.begin(), other.notes.end());
        accesses += other.accesses;
        misses += other.misses;
    }

    /// Adds only the kinds of `other` this report does not have yet (and its totals).
    void merge_new_kinds(const contract_report& other) {
        for (const auto& v : other.violations)
            if (!has(v.check, v.pass, v.rule)) violations.push_back(v);
        accesses += other.accesses;
        misses += other.misses;
    }

    [[nodiscard]] bool has(std::string_view check, std::string_view pass,
                           std::string_view rule) const noexcept {
        for (const auto& v : violations)
            if (v.check == check && v.pass == pass && v.rule == rule) return true;
        return false;
    }

    /// The passes, then one line per violation kind, then the notes.
    [[nodiscard]] std::string text() const {
        std::string t = std::to_string(passes.size()) + " passes, " +
                        std::to_string(violations.size()) + " violation kinds\n";
        for (const auto& p : passes) t += "  " + p.text() + "\n";
        for (const auto& v : violations) t += v.text() + "\n";
        for (const auto& n : notes) t += "note: " + n + "\n";
        return t;
    }
};

} // namespace memsub::testing
