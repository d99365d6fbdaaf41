// memsub — error types.
//
// Design rule (docs/design.md, 'Errors'): misuse fails at the concept; bad configuration throws
// `config_error` once, from a constructor; bad external input (trace files, compressed payloads)
// throws `input_error` naming where it was found. Hot paths never throw.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace memsub {

/// Thrown from constructors when a configuration value breaks a rule. The message names the
/// component, the parameter, the offending value and the rule, e.g.
/// `memsub::geometry: sets = 1000 violates "must be a power of two"`.
class config_error : public std::invalid_argument {
public:
    config_error(std::string_view component, std::string_view parameter, std::string_view value,
                 std::string_view rule)
        : std::invalid_argument(format(component, parameter, value, rule))
        , component_(component)
        , parameter_(parameter)
        , value_(value)
        , rule_(rule) {}

    config_error(std::string_view component, std::string_view parameter, std::uint64_t value,
                 std::string_view rule)
        : config_error(component, parameter, std::to_string(value), rule) {}

    [[nodiscard]] const std::string& component() const noexcept { return component_; }
    [[nodiscard]] const std::string& parameter() const noexcept { return parameter_; }
    [[nodiscard]] const std::string& value() const noexcept { return value_; }
    [[nodiscard]] const std::string& rule() const noexcept { return rule_; }

private:
    static std::string format(std::string_view component, std::string_view parameter,
                              std::string_view value, std::string_view rule) {
        std::string m{component};
        m += ": ";
        m += parameter;
        m += " = ";
        m += value;
        m += " violates \"";
        m += rule;
        m += '"';
        return m;
    }
    std::string component_, parameter_, value_, rule_;
};

/// Thrown when external input (a trace file, a compressed payload) is malformed. `source` names
/// the input (a file path or a component), `position` the byte offset or line number where the
/// problem was found, `position_kind` says which of the two it is.
class input_error : public std::runtime_error {
public:
    enum class position_kind : std::uint8_t { byte_offset, line_number, bit_offset };

    input_error(std::string_view source, position_kind kind, std::uint64_t position,
                std::string_view problem)
        : std::runtime_error(format(source, kind, position, problem))
        , source_(source)
        , kind_(kind)
        , position_(position)
        , problem_(problem) {}

    [[nodiscard]] const std::string& source() const noexcept { return source_; }
    [[nodiscard]] position_kind kind() const noexcept { return kind_; }
    [[nodiscard]] std::uint64_t position() const noexcept { return position_; }
    [[nodiscard]] const std::string& problem() const noexcept { return problem_; }

private:
    static std::string format(std::string_view source, position_kind kind, std::uint64_t position,
                              std::string_view problem) {
        std::string m{source};
        switch (kind) {
        case position_kind::byte_offset:
            m += ": at byte offset ";
            break;
        case position_kind::line_number:
            m += ": at line ";
            break;
        case position_kind::bit_offset:
            m += ": at bit offset ";
            break;
        }
        m += std::to_string(position);
        m += ": ";
        m += problem;
        return m;
    }
    std::string source_;
    position_kind kind_;
    std::uint64_t position_;
    std::string problem_;
};

/// Throws `config_error(component, parameter, value, rule)` unless `ok`. A policy's constructor
/// (the library's and a user's alike) checks each configuration rule in one line with it:
/// `memsub::require(p.ways >= 1, "my_policy", "ways", p.ways, "must be >= 1");`.
inline void require(bool ok, std::string_view component, std::string_view parameter,
                    std::uint64_t value, std::string_view rule) {
    if (!ok) throw config_error(component, parameter, value, rule);
}

} // namespace memsub
