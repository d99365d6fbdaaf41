#!/usr/bin/env bash
# Captures Valgrind Lackey memory traces of a few real programs from Debian's packages for the
# multiprogrammed LLC study (examples/studies/llc_explorer/llc_explorer.cpp, --trace per core).
#
#   scripts/capture_llc_traces.sh [OUT_DIR]          (default: traces/llc)
#
# Programs (inputs are generated here, deterministically, so every run traces the same work):
#   xz       xz -6 compressing a 32 MB generated text file (8 MB dictionary, BT4 match finder)
#   bzip2    bzip2 -9 on the same file (900 KB blocks, BWT sorting)
#   gzip     gzip -9 on the same file (32 KB window: a small working set)
#   sort     GNU sort of 1.5 M generated lines (16 MB), in one thread
#   sqlite3  builds a 300 000-row table with random keys and an index on it
# Each trace skips the program's first SKIP records (the dynamic loader, reading the input) and
# keeps the next RECORDS Lackey records (I, L, S, M lines); valgrind is stopped by the pipe when
# enough is kept. Defaults: SKIP=5000000, RECORDS=30000000 (about 430 MB of text and 10-13 M data
# references per trace; a few minutes per program). Override with environment variables, e.g.
#   RECORDS=10000000 scripts/capture_llc_traces.sh /tmp/small
# Missing Debian packages (valgrind, xz-utils, bzip2, gzip, coreutils, sqlite3) are installed
# when run as root (apt-get), otherwise the script says which ones to install and stops.
set -euo pipefail

out="${1:-traces/llc}"
skip="${SKIP:-5000000}"
records="${RECORDS:-30000000}"
programs="${PROGRAMS:-xz bzip2 gzip sort sqlite3}"

packages=(valgrind xz-utils bzip2 gzip coreutils sqlite3 gawk)
is_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
missing=()
for p in "${packages[@]}"; do is_installed "$p" || missing+=("$p"); done
if [ ${#missing[@]} -ne 0 ]; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
        export DEBIAN_FRONTEND=noninteractive
        echo "capture: installing missing Debian packages: ${missing[*]}" >&2
        apt-get update -qq >&2
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
    else
        echo "capture: missing Debian packages: ${missing[*]}" >&2
        echo "capture: install them with:  sudo apt-get install ${missing[*]}" >&2
        exit 1
    fi
fi

mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Deterministic inputs: text drawn from a 4096-word vocabulary (compressible, like real text).
echo "capture: generating inputs in $work" >&2
awk 'BEGIN { srand(2026); for (i = 0; i < 4096; ++i) { w = ""; n = 3 + int(rand() * 8);
       for (j = 0; j < n; ++j) w = w sprintf("%c", 97 + int(rand() * 26)); v[i] = w }
       bytes = 0; while (bytes < 32 * 1024 * 1024) { line = ""; k = 4 + int(rand() * 12);
       for (j = 0; j < k; ++j) line = line v[int(rand() * rand() * 4096)] " ";
       print line; bytes += length(line) + 1 } }' >"$work/text.txt"
awk 'BEGIN { srand(7); for (i = 0; i < 1500000; ++i) printf "%08d %s\n", int(rand() * 1e8), i }' \
    >"$work/lines.txt"
awk 'BEGIN { srand(11); print "BEGIN;"; print "CREATE TABLE t(k INTEGER, v TEXT);";
       for (i = 0; i < 300000; ++i) printf "INSERT INTO t VALUES(%d, %c%d%c);\n",
           int(rand() * 1e9), 39, i, 39;
       print "CREATE INDEX ik ON t(k);"; print "COMMIT;";
       print "SELECT count(*), sum(k % 97) FROM t WHERE k > 500000000;" }' >"$work/load.sql"

capture() { # name, command...
    local name="$1"
    shift
    local file="$out/$name.lackey"
    echo "capture: $name -> $file ($records records after $skip)" >&2
    # Lackey writes its records to the log fd (3 here, through a FIFO); the program's own output
    # is discarded. Valgrind does not stop when its log pipe closes, so once `head` has kept
    # enough records valgrind is killed.
    rm -f "$work/fifo"
    mkfifo "$work/fifo"
    (cd "$work" && exec valgrind --tool=lackey --trace-mem=yes --log-fd=3 "$@" \
        3>"$work/fifo" 1>/dev/null 2>/dev/null) &
    local vg=$!
    set +o pipefail
    grep -E '^(I| [LSM]) ' <"$work/fifo" | tail -n +"$((skip + 1))" | head -n "$records" >"$file"
    set -o pipefail
    kill -KILL "$vg" 2>/dev/null || true # xz traps SIGTERM and keeps going under valgrind
    wait "$vg" 2>/dev/null || true
    local n
    n=$(wc -l <"$file")
    if [ "$n" -lt 1000 ]; then
        echo "capture: $name produced only $n records; is valgrind working?" >&2
        exit 1
    fi
    echo "capture: $name: $n records, $(du -h "$file" | cut -f1)" >&2
}

for p in $programs; do
    case "$p" in
    xz) capture xz xz -6 -T1 -c text.txt ;;
    bzip2) capture bzip2 bzip2 -9 -c text.txt ;;
    gzip) capture gzip gzip -9 -c text.txt ;;
    sort) capture sort sort --parallel=1 -S 256M lines.txt ;;
    sqlite3)
        rm -f "$work/db.sqlite"
        capture sqlite3 sqlite3 db.sqlite ".read load.sql"
        ;;
    *)
        echo "capture: unknown program '$p' (xz bzip2 gzip sort sqlite3)" >&2
        exit 2
        ;;
    esac
done
echo "capture: done; run e.g. llc_explorer --trace $out/xz.lackey --trace $out/sort.lackey ..." >&2
