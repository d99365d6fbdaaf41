#!/usr/bin/env bash
# memsub quick start.
#   scripts/quickstart.sh explore [explorer options]  build (Release) and run the LLC policy explorer
#   scripts/quickstart.sh test                         build everything and run the whole test suite
# Missing Debian packages are installed when run as root (apt-get); otherwise the script says
# which ones to install and stops.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake g++ make libboost-dev libxsimd-dev xtl-dev libbenchmark-dev doctest-dev libfmt-dev
          gnuplot-nox)

ensure_packages() {
    local missing=()
    for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
        echo "memsub: installing missing Debian packages: ${missing[*]}" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >&2
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
    else
        echo "memsub: missing Debian packages: ${missing[*]}" >&2
        echo "memsub: install them with:  sudo apt-get install ${missing[*]}" >&2
        exit 1
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
    ensure_packages
    cmake --workflow --preset dev
    ;;
*)
    echo "usage: scripts/quickstart.sh explore [explorer options] | test" >&2
    exit 2
    ;;
esac
