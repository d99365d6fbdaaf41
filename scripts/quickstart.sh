#!/usr/bin/env bash
# memsub quick start.
#   scripts/quickstart.sh explore [explorer options]  build (Release) and run the LLC policy explorer
#   scripts/quickstart.sh test                         build everything and run the whole test suite
# Missing Debian packages are installed when run as root (apt-get); otherwise the script says
# which ones to install and stops. `test` also needs valgrind (the explorer is checked against
# valgrind's cachegrind) and pybind11-dev, python3-dev, python3-numpy and python3-pytest (the
# Python module and its tests). gnuplot is optional (the programs' --plot, memory_explorer's .png and
# .pdf CDFs and compressibility's plot render with it): it is installed along with the rest as
# root, and only noted when missing otherwise.
# ccache is optional too: when it is there, CMake compiles through it (MEMSUB_CCACHE), so a
# second build of unchanged sources takes seconds; it is installed as root, never required.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake g++ make libboost-dev libxsimd-dev xtl-dev libbenchmark-dev doctest-dev libfmt-dev zlib1g-dev liblzma-dev)
test_packages=(valgrind pybind11-dev python3-dev python3-numpy python3-pytest)
optional_packages=(gnuplot-nox) # --plot only
build_cache_packages=(ccache)     # faster rebuilds only

is_installed() {
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

ensure_packages() {
    local missing=() optional=()
    for p in "${packages[@]}"; do
        is_installed "$p" || missing+=("$p")
    done
    # Any gnuplot will do (gnuplot-qt, gnuplot-x11, a local build): look for the command.
    command -v gnuplot >/dev/null 2>&1 || optional+=("${optional_packages[@]}")
    local cache=()
    command -v ccache >/dev/null 2>&1 || cache+=("${build_cache_packages[@]}")
    # Without root nothing is installed and a missing ccache is not worth a note.
    [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null || cache=()
    [ ${#missing[@]} -eq 0 ] && [ ${#optional[@]} -eq 0 ] && [ ${#cache[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
        export DEBIAN_FRONTEND=noninteractive
        echo "memsub: installing missing Debian packages: ${missing[*]} ${optional[*]} ${cache[*]}" >&2
        apt-get update -qq >&2
        if [ ${#missing[@]} -ne 0 ]; then
            apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
        fi
        if [ ${#optional[@]} -ne 0 ] &&
            ! apt-get install -y -qq --no-install-recommends "${optional[@]}" >&2; then
            echo "memsub: note: could not install ${optional[*]} (optional: --plot only)" >&2
        fi
        if [ ${#cache[@]} -ne 0 ] &&
            ! apt-get install -y -qq --no-install-recommends "${cache[@]}" >&2; then
            echo "memsub: note: could not install ${cache[*]} (optional: faster rebuilds)" >&2
        fi
    elif [ ${#missing[@]} -ne 0 ]; then
        echo "memsub: missing Debian packages: ${missing[*]}" >&2
        echo "memsub: install them with:  sudo apt-get install ${missing[*]} ${optional[*]}" >&2
        exit 1
    else
        echo "memsub: note: gnuplot not found (optional, for --plot): sudo apt-get install ${optional[*]}" >&2
    fi
}

cmd="${1:-}"
[ $# -gt 0 ] && shift
case "$cmd" in
explore)
    ensure_packages
    cmake --preset release >/dev/null
    cmake --build --preset release --target explorer
    exec ./build/release/examples/explorer "$@"
    ;;
test)
    packages+=("${test_packages[@]}")
    ensure_packages
    cmake --workflow --preset dev
    ;;
*)
    echo "usage: scripts/quickstart.sh explore [explorer options] | test" >&2
    exit 2
    ;;
esac
