#!/usr/bin/env bash
# Every public name in the concept headers is documented: runs Doxygen on the concept headers
# alone (docs/Doxyfile.concepts) and fails, naming file:line, on each undocumented name.
#
#   scripts/check_api_docs.sh [OUTPUT_DIR]      (CMake target memsub_api_docs_concepts; CI)
#
# The concept headers are include/memsub/*/concept.hpp and include/memsub/*/*_concept.hpp.
# Public = outside any `detail` namespace. Two sources of findings:
#   - Doxygen's own warnings (WARN_IF_UNDOCUMENTED, every warning an error): structs, classes,
#     their members, functions, variables, type aliases and enums.
#   - Doxygen 1.9.4 does not warn about concepts, namespaces, enumerators or structs without
#     documented members, and it checks a namespace's functions only once the namespace is
#     documented, so this script reads the XML Doxygen writes and reports each of those that has
#     neither a brief nor a detailed description. The root namespace `memsub` is exempt: no
#     concept header declares anything directly in it.
# OUTPUT_DIR (default build/api-docs-check) receives the XML and warnings.log; it is emptied
# first, so a non-empty folder this script did not write is refused.
# Exit status: 0 when everything is documented, 1 when something is not, 2 when doxygen is
# missing (Debian package `doxygen`) or OUTPUT_DIR is refused.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build/api-docs-check}
case "$out" in /*) ;; *) out=$PWD/$out ;; esac

if ! command -v doxygen >/dev/null 2>&1; then
    echo "check_api_docs.sh: doxygen not found; install it (Debian: apt-get install doxygen)" >&2
    exit 2
fi

if [ -n "$(ls -A "$out" 2>/dev/null)" ] && [ ! -e "$out/findings.txt" ]; then
    echo "check_api_docs.sh: $out is not empty and not an earlier output of this script" >&2
    exit 2
fi
cd "$root"
headers=(include/memsub/*/concept.hpp include/memsub/*/*_concept.hpp)
rm -rf "$out"
mkdir -p "$out"
export MEMSUB_API_CHECK_INPUT="${headers[*]}" MEMSUB_API_CHECK_OUTPUT="$out"

doxygen_status=0
doxygen docs/Doxyfile.concepts >"$out/doxygen.out" 2>&1 || doxygen_status=$?
findings=$out/findings.txt
# Doxygen's warnings, with paths relative to the repository.
grep -v '^[[:space:]]*$' "$out/warnings.log" 2>/dev/null | sed "s|^$root/||" >"$findings" || true

# Concepts, namespaces, classes and enumerators without a description, from the XML. Each
# compound is one file; a description is present when a <para> sits inside its
# <briefdescription> or <detaileddescription>. Enumerators carry no location of their own: they
# are reported at their enum's line.
for xml in "$out"/xml/{concept,namespace,struct,class,union}*.xml; do
    [ -e "$xml" ] || continue
    awk -v root="$root/" '
        function where(line) {
            match(line, /file="[^"]*"/); f = substr(line, RSTART + 6, RLENGTH - 7)
            match(line, / line="[^"]*"/); l = substr(line, RSTART + 7, RLENGTH - 8)
            sub("^" root, "", f)
            return f ":" l
        }
        /<compounddef / { match($0, /kind="[^"]*"/); kind = substr($0, RSTART + 6, RLENGTH - 7) }
        /<compoundname>/ {
            name = $0; sub(/.*<compoundname>/, "", name); sub(/<\/compoundname>.*/, "", name)
        }
        /<memberdef / { depth = 1; enum_name = ""; n_bare = 0 }
        /<\/memberdef>/ { depth = 0 }
        depth == 1 && /<qualifiedname>/ {
            enum_name = $0; sub(/.*<qualifiedname>/, "", enum_name)
            sub(/<\/qualifiedname>.*/, "", enum_name)
        }
        /<enumvalue / { in_value = 1; value_doc = 0; value = "" }
        in_value && /<name>/ {
            value = $0; sub(/.*<name>/, "", value); sub(/<\/name>.*/, "", value)
        }
        in_value && /<para>/ { value_doc = 1 }
        /<\/enumvalue>/ { in_value = 0; if (!value_doc) bare[++n_bare] = value }
        depth == 1 && /<location / {
            for (i = 1; i <= n_bare; ++i)
                print where($0) ": error: enumerator " enum_name "::" bare[i] " is not documented."
            n_bare = 0
        }
        depth == 0 && /<(brief|detailed)description>/ { in_own = 1 }
        depth == 0 && in_own && /<para>/ { own_doc = 1 }
        depth == 0 && /<\/(brief|detailed)description>/ { in_own = 0 }
        depth == 0 && /<location / && !/<memberdef/ { own_location = where($0) }
        END {
            if (own_doc || name == "memsub" || name ~ /(^|::)detail(::|$)/) exit
            print (own_location == "" ? "(no location)" : own_location) ": error: " kind " " \
                name " is not documented."
        }' "$xml"
done >"$out/xml_findings.txt"
# A class Doxygen already reported ("Compound X is not documented") is not reported twice.
while IFS= read -r finding; do
    case "$finding" in
    *": error: struct "* | *": error: class "* | *": error: union "*)
        name=${finding#*: error: * }
        name=${name% is not documented.}
        grep -qF "Compound $name is not documented" "$findings" && continue
        ;;
    esac
    printf '%s\n' "$finding"
done <"$out/xml_findings.txt" >>"$findings"

if [ -s "$findings" ]; then
    sort -u "$findings" | sort -t: -k1,1 -k2,2n
    echo "check_api_docs.sh: $(sort -u "$findings" | wc -l) undocumented public name(s) in the" \
        "concept headers (log: $out)" >&2
    exit 1
fi
if [ "$doxygen_status" -ne 0 ]; then
    cat "$out/doxygen.out" >&2
    echo "check_api_docs.sh: doxygen failed (exit $doxygen_status) without a warning" >&2
    exit 1
fi
echo "check_api_docs.sh: every public name in the ${#headers[@]} concept headers is documented"
