// memsub::explorer — a progress meter on stderr for long runs: at most one line a second, with
// the work done and, when the fraction done is known, the percentage and the time left.
//
// Part of the explorer module (memsub::explorer; needs {fmt}).
#pragma once

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace memsub::explorer {

/// Progress on stderr for a long run, at most once a second: accesses so far and, when the
/// fraction done is known, the percentage and an estimate of the time left (from the rate so
/// far). `finish()` ends the line if anything was printed.
class progress_meter {
public:
    using clock = std::chrono::steady_clock;

    progress_meter(bool enabled, std::string label)
        : enabled_(enabled)
        , label_(std::move(label).substr(0, 40)) {}

    /// `accesses` done so far and, when known, the fraction of the work done.
    void update(std::uint64_t accesses, std::optional<double> fraction) {
        if (!due()) return;
        const double secs = seconds();
        if (fraction && *fraction > 0) {
            const double left = secs * (1.0 - *fraction) / *fraction;
            fmt::print(stderr, "\r{}{:.1f} M {} ({:.0f}%), {:.0f} s, about {} left{}   ", head(),
                       static_cast<double>(accesses) / 1e6, unit_, 100.0 * *fraction, secs,
                       duration_text(left), then_);
        } else {
            fmt::print(stderr, "\r{}{:.1f} M {}, {:.0f} s{}   ", head(),
                       static_cast<double>(accesses) / 1e6, unit_, secs, then_);
        }
    }

    /// A phase measured only by its fraction done (e.g. the OPT bound's pass).
    void update(double fraction) {
        if (!due()) return;
        const double secs = seconds();
        const double f = std::clamp(fraction, 0.0, 1.0);
        if (f > 0)
            fmt::print(stderr, "\r{}{:.0f}%, {:.0f} s, about {} left{}   ", head(), 100.0 * f, secs,
                       duration_text(secs * (1.0 - f) / f), then_);
        else
            fmt::print(stderr, "\r{}{:.0f} s{}   ", head(), secs, then_);
    }

    /// What the counts of update(count, fraction) are ("accesses" unless set).
    void set_unit(std::string unit) { unit_ = std::move(unit); }
    /// Work that follows this meter's and its time left does not include, said after the time
    /// left (e.g. "then the OPT bound"), so the estimate does not promise too much.
    void set_then(std::string_view what) {
        then_ = what.empty() ? std::string() : fmt::format(" ({})", what);
    }

    void finish() {
        if (printed_) fmt::print(stderr, "\n");
        printed_ = false;
    }

    /// "42 s", "3 min 5 s", "2 h 10 min".
    static std::string duration_text(double seconds) {
        const auto s = static_cast<std::uint64_t>(std::max(0.0, seconds) + 0.5);
        if (s < 60) return fmt::format("{} s", s);
        if (s < 3600) return fmt::format("{} min {} s", s / 60, s % 60);
        return fmt::format("{} h {} min", s / 3600, (s % 3600) / 60);
    }

private:
    /// True (and the clock of the last line reset) when a line is due: at most one a second.
    bool due() {
        if (!enabled_) return false;
        const auto now = clock::now();
        if (now - last_ < std::chrono::seconds(1)) return false;
        last_ = now;
        printed_ = true;
        return true;
    }
    [[nodiscard]] double seconds() const {
        return std::chrono::duration<double>(last_ - start_).count();
    }
    [[nodiscard]] std::string head() const {
        return label_.empty() ? std::string("  ") : "  " + label_ + ": ";
    }

    bool enabled_;
    std::string label_;
    std::string unit_ = "accesses";
    std::string then_;
    clock::time_point start_ = clock::now();
    clock::time_point last_ = start_;
    bool printed_ = false;
};

} // namespace memsub::explorer
