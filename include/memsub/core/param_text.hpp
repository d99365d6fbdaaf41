// memsub — a component's params set from text ("rrpv_bits=3,promotion=frequency_priority") and
// listed as text, for hosts that take a configuration as a string: the C interface, the
// Python module, a ChampSim module's environment, a gem5 parameter, a sweep file.
//
// A params struct opts in with a hidden friend that names its fields (next to the fields, so
// the two cannot drift apart):
//
//   struct params {
//       std::uint32_t rrpv_bits = 2;
//       hit_promotion promotion = hit_promotion::hit_priority;
//       template <class V>
//       friend void describe_params(V& v, params& p) {
//           v("rrpv_bits", p.rrpv_bits);
//           v("promotion", p.promotion);
//       }
//   };
//
// Protocol (what `describe_params(v, p)` may do):
//   P1. `v(key, field)` for a field of an unsigned or signed integer type, `bool`, `double`, or
//       an enumeration with `enum_value_names(E{})` found by ADL (a `std::array` of
//       `std::pair<std::string_view, E>`).
//   P2. `v(key, field)` for a field whose type itself has `describe_params`: its keys are
//       `key.inner`; with an empty key they join the outer keys unprefixed (a policy that wraps
//       another's params, as set_dueling does its dual policy's).
//   P3. Keys are unique within a struct after P2's joining, made of [a-z0-9_], and name the
//       field as the header documents it. Fields that text cannot carry (explicit leader-set
//       lists, functors) are simply not named.
// A params type without `describe_params` has no text-settable fields: any text but "" is an
// error naming it.
//
// A policy spec is a name and, after a colon, its settings: "srrip:rrpv_bits=3"
// (spec_policy_name, spec_settings). Text: `key=value` settings separated by commas; a key given
// twice takes the last value. Integers are decimal (or 0x hexadecimal) and must fit the field; bool
// is true/false/1/0/ yes/no/on/off; enumerations take their names. An unknown key, a value that
// does not parse or does not fit throws config_error naming the component, the key, the value and
// the rule (for an unknown key, the keys there are). The component's own constructor still checks
// the ranges it documents. Citation: none (a configuration device).
#pragma once

#include <array>
#include <charconv>
#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include <memsub/core/errors.hpp>

namespace memsub {

namespace detail {
/// A visitor that does nothing: it is what `described_params` checks `describe_params` with.
struct param_probe {
    template <class T>
    void operator()(std::string_view, T&) {}
};
} // namespace detail

/// P0: `P` names its text-settable fields with `describe_params` (see the header comment).
template <class P>
concept described_params = requires(detail::param_probe& v, P& p) {
    describe_params(v, p);
};

/// An enumeration whose values have names (`enum_value_names(E{})` found by ADL).
template <class E>
concept named_enum = std::is_enum_v<E> && requires {
    enum_value_names(E{});
};

/// One text-settable field: its dotted key, its value as text, and what text it takes.
struct param_field {
    std::string key;
    std::string value;
    std::string takes; // "unsigned", "integer", "real", "bool" or "one of a|b|…"
};

namespace detail {

template <class T>
std::string param_value_text(const T& v) {
    if constexpr (std::same_as<T, bool>) {
        return v ? "true" : "false";
    } else if constexpr (named_enum<T>) {
        for (const auto& [name, value] : enum_value_names(T{}))
            if (value == v) return std::string(name);
        return std::to_string(static_cast<std::underlying_type_t<T>>(v));
    } else if constexpr (std::floating_point<T>) {
        std::array<char, 64> buf{};
        const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v);
        return std::string(buf.data(), r.ptr);
    } else {
        return std::to_string(v);
    }
}

template <class T>
std::string param_takes() {
    if constexpr (std::same_as<T, bool>) {
        return "bool";
    } else if constexpr (named_enum<T>) {
        std::string s = "one of ";
        bool first = true;
        for (const auto& entry : enum_value_names(T{})) {
            if (!first) s += '|';
            s += entry.first;
            first = false;
        }
        return s;
    } else if constexpr (std::floating_point<T>) {
        return "real";
    } else if constexpr (std::is_unsigned_v<T>) {
        return "unsigned";
    } else {
        return "integer";
    }
}

/// The rule a value for a field of type T breaks when it does not parse.
template <class T>
std::string param_rule() {
    if constexpr (std::same_as<T, bool>) {
        return "must be true or false (or 1/0, yes/no, on/off)";
    } else if constexpr (named_enum<T>) {
        return "must be " + param_takes<T>();
    } else if constexpr (std::floating_point<T>) {
        return "must be a real number";
    } else {
        return std::string("must be ") + (std::is_unsigned_v<T> ? "an unsigned" : "an") +
               " integer of at most " + std::to_string(sizeof(T) * 8) + " bits";
    }
}

/// Parses `text` into `out`; false when it does not parse or does not fit.
template <class T>
bool parse_param_value(std::string_view text, T& out) {
    if constexpr (std::same_as<T, bool>) {
        for (std::string_view yes : {"true", "1", "yes", "on"})
            if (text == yes) return out = true, true;
        for (std::string_view no : {"false", "0", "no", "off"})
            if (text == no) return out = false, true;
        return false;
    } else if constexpr (named_enum<T>) {
        for (const auto& [name, value] : enum_value_names(T{}))
            if (text == name) return out = value, true;
        return false;
    } else if constexpr (std::floating_point<T>) {
        T v{};
        const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
        if (r.ec != std::errc{} || r.ptr != text.data() + text.size()) return false;
        return out = v, true;
    } else {
        static_assert(std::integral<T>, "P1: a field text can set is an integer, bool, double "
                                        "or a named enumeration");
        int base = 10;
        if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
            text.remove_prefix(2);
            base = 16;
        }
        if (text.empty() || text[0] == '+' || (std::is_unsigned_v<T> && text[0] == '-'))
            return false;
        T v{};
        const auto r = std::from_chars(text.data(), text.data() + text.size(), v, base);
        if (r.ec != std::errc{} || r.ptr != text.data() + text.size()) return false;
        return out = v, true;
    }
}

inline std::string join_key(std::string_view prefix, std::string_view key) {
    if (prefix.empty()) return std::string(key);
    if (key.empty()) return std::string(prefix);
    std::string k(prefix);
    k += '.';
    k += key;
    return k;
}

/// Lists every field (P1) with its key, value and kind; recurses into groups (P2).
struct param_lister {
    std::string prefix;
    std::vector<param_field>* out;

    template <class T>
    void operator()(std::string_view key, T& field) {
        if constexpr (described_params<T>) {
            param_lister inner{join_key(prefix, key), out};
            describe_params(inner, field);
        } else {
            out->push_back({join_key(prefix, key), param_value_text(field), param_takes<T>()});
        }
    }
};

/// Sets the field whose full key is `key` from `value`; `found` tells whether one was.
struct param_setter {
    std::string prefix;
    std::string_view key;
    std::string_view value;
    std::string_view component;
    bool* found;

    template <class T>
    void operator()(std::string_view name, T& field) {
        if (*found) return;
        const std::string full = join_key(prefix, name);
        if constexpr (described_params<T>) {
            // Only a group whose prefix starts the key can hold it.
            if (!full.empty() &&
                !(key.size() > full.size() && key.starts_with(full) && key[full.size()] == '.'))
                return;
            param_setter inner{full, key, value, component, found};
            describe_params(inner, field);
        } else {
            if (full != key) return;
            *found = true;
            if (!parse_param_value(value, field))
                throw config_error(component, key, value, param_rule<T>());
        }
    }
};

} // namespace detail

/// The policy a spec names: "srrip:rrpv_bits=3" names "srrip" (a spec without a colon is a name).
[[nodiscard]] constexpr std::string_view spec_policy_name(std::string_view spec) noexcept {
    return spec.substr(0, spec.find(':'));
}
/// A spec's settings text: "srrip:rrpv_bits=3" has "rrpv_bits=3", "srrip" has "".
[[nodiscard]] constexpr std::string_view spec_settings(std::string_view spec) noexcept {
    const std::size_t colon = spec.find(':');
    return colon == std::string_view::npos ? std::string_view{} : spec.substr(colon + 1);
}

/// Every text-settable field of `p` with its current value, in the order `describe_params`
/// names them. A params type without `describe_params` has none.
template <class P>
[[nodiscard]] std::vector<param_field> param_fields(P p) {
    std::vector<param_field> out;
    if constexpr (described_params<P>) {
        detail::param_lister v{{}, &out};
        describe_params(v, p);
    }
    return out;
}

/// `p`'s fields as a settings text ("k=v,k=v") that `set_params_from_text` takes back.
template <class P>
[[nodiscard]] std::string params_text(const P& p) {
    std::string s;
    for (const auto& f : param_fields(p)) {
        if (!s.empty()) s += ',';
        s += f.key;
        s += '=';
        s += f.value;
    }
    return s;
}

/// Sets `p`'s fields from `text` ("key=value,key=value"; "" changes nothing). Throws
/// config_error naming `component`, the key and the value for a setting that is malformed,
/// names no field (the rule lists the keys there are) or does not parse for its field. Fields
/// already set stay set when a later setting throws, so build from a copy.
template <class P>
void set_params_from_text(P& p, std::string_view text, std::string_view component) {
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find(',', start);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view setting = text.substr(start, end - start);
        start = end + 1;
        if (setting.empty()) continue;
        const std::size_t eq = setting.find('=');
        if (eq == std::string_view::npos || eq == 0)
            throw config_error(component, "params", setting, "each setting must be key=value");
        const std::string_view key = setting.substr(0, eq);
        const std::string_view value = setting.substr(eq + 1);
        bool found = false;
        if constexpr (described_params<P>) {
            detail::param_setter v{{}, key, value, component, &found};
            describe_params(v, p);
        }
        if (!found) {
            std::string keys;
            for (const auto& f : param_fields(p)) {
                keys += keys.empty() ? "" : ", ";
                keys += f.key;
            }
            throw config_error(component, key, value,
                               keys.empty() ? std::string("names no parameter: this component "
                                                          "has none settable by text")
                                            : "names no parameter (there are: " + keys + ")");
        }
    }
}

} // namespace memsub
