// memsub::explorer — gnuplot output: the plot format follows the file's name (.png, .svg or
// .pdf; any other name is an option_error at parse time), and a script is rendered with the
// installed gnuplot, or kept with a note saying how to render it when gnuplot is missing.
//
// Part of the explorer module (memsub::explorer; needs {fmt}).
#pragma once

#include <memsub/explorer/cli.hpp>

#include <fmt/core.h>

#include <cctype>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace memsub::explorer {

/// The gnuplot terminal for a plot file, chosen by its extension (.png, .svg, .pdf; case
/// insensitive); nullopt for any other name, which the examples reject at parse time.
inline std::optional<std::string> gnuplot_terminal_for(std::string_view file) {
    const auto dot = file.find_last_of('.');
    const auto slash = file.find_last_of('/');
    if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash))
        return std::nullopt;
    std::string ext(file.substr(dot + 1));
    for (auto& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (ext == "png") return std::string("pngcairo");
    if (ext == "svg") return std::string("svg dynamic");
    if (ext == "pdf") return std::string("pdfcairo");
    return std::nullopt;
}

/// The one rule for plot files in every program: the format follows the name, .png, .svg or
/// .pdf (case insensitive); any other name is an option_error at parse time, before any work,
/// naming the option. Returns the gnuplot terminal for the name.
inline std::string plot_terminal_or_throw(std::string_view flag, std::string_view file) {
    auto terminal = gnuplot_terminal_for(file);
    if (!terminal)
        throw option_error(fmt::format(
            "{} {}: unknown plot format; name the file .png, .svg or .pdf", flag, file));
    return std::move(*terminal);
}

/// `s` as a gnuplot single-quoted string (a quote doubled).
inline std::string gnuplot_quoted(std::string_view s) {
    std::string q = "'";
    for (const char c : s) q += c == '\'' ? std::string("''") : std::string(1, c);
    return q + "'";
}

/// Runs gnuplot on the script `script`, which draws `plot`. Without gnuplot it says on stderr
/// how to render it later and returns false; a failing gnuplot throws std::runtime_error.
inline bool render_with_gnuplot(const std::string& script, const std::string& plot) {
    if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) {
        fmt::print(stderr, "gnuplot not found (Debian: gnuplot-nox); render with: gnuplot {}\n",
                   script);
        return false;
    }
    std::string cmd = "gnuplot '"; // the shell's single quotes: a quote is '\''
    for (const char c : script) cmd += c == '\'' ? std::string("'\\''") : std::string(1, c);
    cmd += "'";
    if (std::system(cmd.c_str()) != 0)
        throw std::runtime_error(fmt::format("gnuplot failed on {} (drawing {})", script, plot));
    return true;
}

} // namespace memsub::explorer
