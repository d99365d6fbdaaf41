#!/usr/bin/env bash
# Runs an example program and checks its exit status and output (ctest driver for the example
# programs' command-line behaviour, registered in examples/CMakeLists.txt).
#
#   expect_run.sh [--code N] [--out RE] [--err RE] [--no-out RE] [--no-err RE] [--file F RE]
#                 [--no-file F] [--no-file-match F RE] [--signal SIG --after SECONDS] [--in DIR]
#                 -- PROGRAM ARGS...
#
# --code N         the exit status must be N (default 0)
# --out/--err RE   stdout/stderr must match the extended regular expression RE (repeatable)
# --no-out/--no-err RE   ... must not match RE
# --file F RE      file F must exist after the run and match RE
# --no-file F      file F must not exist after the run
# --no-file-match F RE   file F must exist after the run and not match RE
# --distinct F RE N   the matches of RE in file F (grep -o) are at least N and all different
# --signal SIG --after S   send SIG to the program S seconds after it starts
# --signal SIG --when-err RE   ... as soon as its stderr matches RE (polled; at most 120 s)
# --in DIR         run in DIR (created; files named by --file are relative to it)
set -uo pipefail

code=0 signal="" after=1 when_err="" dir=""
out_re=() err_re=() no_out_re=() no_err_re=() file_checks=() no_files=() distinct=()
no_file_matches=()
while [[ $# -gt 0 && "$1" != "--" ]]; do
    case "$1" in
    --code) code="$2"; shift 2 ;;
    --out) out_re+=("$2"); shift 2 ;;
    --err) err_re+=("$2"); shift 2 ;;
    --no-out) no_out_re+=("$2"); shift 2 ;;
    --no-err) no_err_re+=("$2"); shift 2 ;;
    --file) file_checks+=("$2" "$3"); shift 3 ;;
    --no-file) no_files+=("$2"); shift 2 ;;
    --no-file-match) no_file_matches+=("$2" "$3"); shift 3 ;;
    --distinct) distinct+=("$2" "$3" "$4"); shift 4 ;;
    --signal) signal="$2"; shift 2 ;;
    --after) after="$2"; shift 2 ;;
    --when-err) when_err="$2"; shift 2 ;;
    --in) dir="$2"; shift 2 ;;
    *) echo "expect_run.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
[[ "${1:-}" == "--" ]] || { echo "expect_run.sh: missing -- PROGRAM" >&2; exit 2; }
shift
if [[ -n "$dir" ]]; then
    rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 2
fi
out="$(mktemp)" err="$(mktemp)"
trap 'rm -f "$out" "$err"' EXIT

if [[ -n "$signal" ]]; then
    # Job control on: a background job of a non-interactive shell would start with SIGINT
    # ignored (and the examples leave an ignored signal ignored).
    set -m
    "$@" >"$out" 2>"$err" &
    pid=$!
    if [[ -n "$when_err" ]]; then
        for ((tries = 0; tries < 1200; ++tries)); do
            grep -Eq -- "$when_err" "$err" && break
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
    else
        sleep "$after"
    fi
    kill -s "$signal" "$pid" 2>/dev/null
    wait "$pid"
    status=$?
else
    "$@" >"$out" 2>"$err"
    status=$?
fi

failed=0
fail() { echo "FAIL: $*"; failed=1; }
[[ "$status" -eq "$code" ]] || fail "exit status $status, expected $code"
for re in "${out_re[@]+"${out_re[@]}"}"; do grep -Eq -- "$re" "$out" || fail "stdout does not match: $re"; done
for re in "${err_re[@]+"${err_re[@]}"}"; do grep -Eq -- "$re" "$err" || fail "stderr does not match: $re"; done
for re in "${no_out_re[@]+"${no_out_re[@]}"}"; do ! grep -Eq -- "$re" "$out" || fail "stdout matches: $re"; done
for re in "${no_err_re[@]+"${no_err_re[@]}"}"; do ! grep -Eq -- "$re" "$err" || fail "stderr matches: $re"; done
for ((i = 0; i < ${#file_checks[@]}; i += 2)); do
    f="${file_checks[i]}" re="${file_checks[i + 1]}"
    if [[ ! -f "$f" ]]; then fail "file $f was not written"; continue; fi
    grep -Eq -- "$re" "$f" || fail "file $f does not match: $re"
done
for f in "${no_files[@]+"${no_files[@]}"}"; do [[ ! -e "$f" ]] || fail "file $f exists"; done
for ((i = 0; i < ${#no_file_matches[@]}; i += 2)); do
    f="${no_file_matches[i]}" re="${no_file_matches[i + 1]}"
    if [[ ! -f "$f" ]]; then fail "file $f was not written"; continue; fi
    ! grep -Eq -- "$re" "$f" || fail "file $f matches: $re"
done
for ((i = 0; i < ${#distinct[@]}; i += 3)); do
    f="${distinct[i]}" re="${distinct[i + 1]}" n="${distinct[i + 2]}"
    if [[ ! -f "$f" ]]; then fail "file $f was not written"; continue; fi
    count="$(grep -oE -- "$re" "$f" | wc -l)"
    dups="$(grep -oE -- "$re" "$f" | sort | uniq -d)"
    [[ "$count" -ge "$n" ]] || fail "file $f has $count matches of $re, expected at least $n"
    [[ -z "$dups" ]] || fail "file $f repeats: $dups"
done
if [[ "$failed" -ne 0 ]]; then
    echo "--- command: $*"
    echo "--- stdout:"; head -c 4000 "$out"
    echo "--- stderr:"; head -c 4000 "$err"
    exit 1
fi
echo "ok: $* (exit $status)"
