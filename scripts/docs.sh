#!/usr/bin/env bash
# Builds the DocC reference and guides into a static site, with the toolchain alone:
# swift-symbolgraph-extract reads the built modules, `docc convert` renders each product's
# catalog (Sources/CaptureKit/CaptureKit.docc, Sources/CaptureKitPreview/CaptureKitPreview.docc)
# with warnings as errors, `docc merge` joins them under one landing page. Fails when a public
# symbol has no doc comment (scripts/docs/coverage.py), a code block of an article or a doc
# comment does not compile (scripts/docs/snippets.py) or a DocC warning appears.
#
#   scripts/docs.sh [--no-build] [--output DIR] [--preview [PORT]]
#
#   --no-build      use the modules already in .build/debug (what the tests do: a build is
#                   running around them)
#   --output DIR    where the site goes (default .build/docs-site)
#   --preview PORT  afterwards serve the site on http://127.0.0.1:PORT/documentation/ (8000)
set -euo pipefail
cd "$(dirname "$0")/.."
build=1 output=.build/docs-site preview=
while [ $# -gt 0 ]; do
    case "$1" in
        --no-build) build= ;;
        --output) output="$2"; shift ;;
        --preview) preview=8000; if [[ "${2:-}" =~ ^[0-9]+$ ]]; then preview="$2"; shift; fi ;;
        -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "docs.sh: unknown argument $1 (see --help)" >&2; exit 64 ;;
    esac
    shift
done
if [ -n "$build" ]; then swift build --target CaptureKitPreview; fi
bin=.build/debug
[ -d "$bin/Modules" ] || { echo "docs.sh: no built modules in $bin (run without --no-build)" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The C modules CaptureKit imports internally, for the extractor to load the Swift modules.
maps=()
for map in Sources/*/module.modulemap "$bin"/C*.build/module.modulemap; do
    [ -f "$map" ] && maps+=(-Xcc "-fmodule-map-file=$PWD/$map")
done
extract() { # module, extra flags…
    mkdir -p "$work/symbols/$1"
    swift-symbolgraph-extract -module-name "$1" -I "$bin/Modules" "${maps[@]}" \
        -target "$(uname -m)-unknown-linux-gnu" -minimum-access-level public \
        -emit-extension-block-symbols -output-dir "$work/symbols/$1" "${@:2}"
}
# CaptureKit re-exports its lower layers: one reference, as applications import it.
extract CaptureKit -experimental-allowed-reexported-modules=CaptureKitCore,CaptureKitMedia,CaptureKitLibrary
extract CaptureKitPreview
python3 scripts/docs/coverage.py "$work/symbols"
python3 scripts/docs/snippets.py --symbols "$work/symbols" --build "$bin"

convert() { # module, extra flags…
    local log="$work/$1.log" status=0
    docc convert "Sources/$1/$1.docc" --additional-symbol-graph-dir "$work/symbols/$1" \
        --output-dir "$work/$1.doccarchive" --fallback-display-name "$1" \
        --fallback-bundle-identifier "org.capturekit.$1" --warnings-as-errors \
        --transform-for-static-hosting --enable-experimental-external-link-support "${@:2}" \
        >"$log" 2>&1 || status=$?
    # Any diagnostic fails the build, not only those DocC counts as warnings.
    if [ $status -ne 0 ] || grep -qE "(warning|error):" "$log"; then
        cat "$log" >&2; echo "docs.sh: DocC diagnostics in $1's documentation" >&2; exit 1
    fi
}
convert CaptureKit
convert CaptureKitPreview --dependency "$work/CaptureKit.doccarchive"
docc merge "$work/CaptureKit.doccarchive" "$work/CaptureKitPreview.doccarchive" \
    --synthesized-landing-page-name "CaptureKit Documentation" --output-path "$work/site" >"$work/merge.log" 2>&1 \
    || { cat "$work/merge.log" >&2; exit 1; }
rm -rf "$output"
mkdir -p "$(dirname "$output")"
cp -R "$work/site" "$output"
pages=$(find "$output/data/documentation" -name '*.json' | wc -l)
echo "docs.sh: $pages pages in $output (open documentation/capturekit/ from a web server)"
if [ -n "$preview" ]; then
    echo "docs.sh: serving http://127.0.0.1:$preview/documentation/capturekit/ (Ctrl-C stops)"
    exec /usr/bin/python3 -m http.server "$preview" --bind 127.0.0.1 --directory "$output"
fi
