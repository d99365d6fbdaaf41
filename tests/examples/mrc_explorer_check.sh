#!/usr/bin/env bash
# mrc_explorer's exact curves against the explorer (ctest, examples/CMakeLists.txt):
#
#   mrc_explorer_check.sh EXPLORER MRC_EXPLORER DATA_DIR WORK_DIR
#
# For every geometry S sets x W ways of each case, a point of each exact curve must equal the
# explorer's miss count for that geometry on the same input: sa_lru at (S, W) = the explorer's
# lru row, sa_opt at (S, W) = its opt row, and the fully associative lru / opt curves at capacity
# S x W = its fa_lru / fa_opt rows (--fully-associative). The points are read from the two
# programs' CSV files by column name. The inputs: the real lackey excerpt at 8- and 16-byte
# lines (conflicts at small geometries), a generated lackey trace of line-crossing references
# (counted once per reference, at the largest distance of their lines) and the built-in workload
# (sized, in both programs, for S x W lines). At least one compared point must differ between
# LRU and OPT, so the comparison can tell the curves apart.
set -uo pipefail
explorer="$1" mrc="$2" data="$3" work="$4"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 2

failures=0 compared=0 lru_opt_differ=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# misses FILE KEY=VALUE...: the `misses` column of the one row whose named columns hold the
# given values (an empty value matches an empty cell). The first column (the trace label, quoted
# when it holds a comma) is not compared.
misses() {
    local file="$1"
    shift
    awk -F, -v want="$*" '
        function fields(line, out,    n) {
            sub(/^"([^"]|"")*"/, "trace", line) # the quoted label: one field
            n = split(line, out, ",")
            return n
        }
        NR == 1 { n = fields($0, head); for (i = 1; i <= n; ++i) col[head[i]] = i; next }
        {
            fields($0, f)
            k = split(want, pairs, " ")
            ok = 1
            for (i = 1; i <= k; ++i) {
                split(pairs[i], kv, "=")
                if (!(kv[1] in col)) { print "no column " kv[1] > "/dev/stderr"; exit 3 }
                if (f[col[kv[1]]] != kv[2]) { ok = 0; break }
            }
            if (ok) { print f[col["misses"]]; found++ }
        }
        END { if (found != 1) { print "rows matching " want ": " found+0 > "/dev/stderr"; exit 4 } }
    ' "$file"
}

# check NAME LINE_BYTES MAX_SETS MAX_WAYS "S:W ..." INPUT_ARGS...
check() {
    local name="$1" line_bytes="$2" max_sets="$3" max_ways="$4" geometries="$5"
    shift 5
    local g s w builtin=()
    for g in $geometries; do
        s="${g%:*}" w="${g#*:}"
        [[ "${1:-}" == --* ]] && builtin=(--workload-lines $((s * w))) # no trace: the built-in mix
        local m="$name-$s-$w.mrc.csv" e="$name-$s-$w.explorer.csv"
        "$mrc" --quiet --curves lru,sa_lru,opt,sa_opt --line-bytes "$line_bytes" \
            --sets "1..$max_sets" --ways "$max_ways" --max-capacity 4096 "${builtin[@]}" \
            --csv "$m" "$@" >/dev/null || { fail "$name: mrc_explorer exited $?"; continue; }
        "$explorer" --quiet --policies lru --fully-associative --line-bytes "$line_bytes" \
            --sets "$s" --ways "$w" --csv "$e" "$@" >/dev/null ||
            { fail "$name: explorer exited $?"; continue; }
        local pairs=("sa_lru lru sets=$s ways=$w" "sa_opt opt sets=$s ways=$w"
                     "lru fa_lru sets= ways= capacity_lines=$((s * w))"
                     "opt fa_opt sets= ways= capacity_lines=$((s * w))")
        local lru_m="" opt_m=""
        for p in "${pairs[@]}"; do
            read -r curve policy keys <<<"$p"
            local got want
            got="$(misses "$m" curve="$curve" $keys)" || { fail "$name $s x $w: no $curve point"; continue; }
            want="$(misses "$e" policy="$policy")" || { fail "$name $s x $w: no $policy row"; continue; }
            compared=$((compared + 1))
            if [[ "$got" != "$want" ]]; then
                fail "$name $s x $w: mrc_explorer $curve $keys = $got misses, explorer $policy = $want"
            fi
            [[ "$curve" == sa_lru ]] && lru_m="$got"
            [[ "$curve" == sa_opt ]] && opt_m="$got"
        done
        [[ -n "$lru_m" && -n "$opt_m" && "$lru_m" != "$opt_m" ]] && lru_opt_differ=$((lru_opt_differ + 1))
    done
}

# A lackey trace with many line-crossing references: 4000 loads and stores of 4, 8 or 16 bytes at
# 4-byte alignment over 96 16-byte lines, drawn by a fixed LCG (the same file every run).
awk 'BEGIN {
    x = 12345
    for (i = 0; i < 4000; ++i) {
        x = (x * 1103515245 + 12345) % 2147483648; line = int(x / 65536) % 96
        x = (x * 1103515245 + 12345) % 2147483648; offset = 4 * (int(x / 65536) % 4)
        x = (x * 1103515245 + 12345) % 2147483648; size = 2 ^ (2 + int(x / 65536) % 3)
        printf "I  04000%03x,4\n %s %08x,%d\n", i % 4096, (i % 5 == 0 ? "S" : "L"),
               268435456 + 16 * line + offset, size
    }
}' >crossing.lackey

check crossing16 16 64 8 "1:4 4:2 8:8 16:3 64:1" "$work/crossing.lackey"
check crossing8 8 64 8 "2:8 8:4 32:2" "$work/crossing.lackey"
check lackey16 16 8 4 "1:1 1:3 2:2 4:3 8:4" "$data/lackey_true_excerpt.txt"
check lackey8 8 8 4 "1:2 2:4 4:1 8:3" "$data/lackey_true_excerpt.txt"
check builtin 64 256 8 "1:8 16:2 64:4 32:3 256:8" --accesses 30000 --seed 7

if ((lru_opt_differ == 0)); then fail "no geometry where LRU and OPT differ: the check is blind"; fi
if ((failures > 0)); then
    echo "-- $failures failure(s) in $compared points" >&2
    exit 1
fi
echo "-- ok: $compared points equal the explorer's ($lru_opt_differ geometries where OPT < LRU)"
