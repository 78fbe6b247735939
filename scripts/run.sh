#!/usr/bin/env bash
# The main job: records a movie from the default camera and microphone (the built-in virtual
# devices when the machine has none), takes a photo, saves both into the media library and
# writes the movie's 100-pixel cover image; prints where everything went.
#   OUT=dir       where the movie, photo and cover go (default: out/)
#   LIBRARY=dir   the media library's root (default: the user's, under ~/Pictures and ~/Videos)
#   SECONDS_=n    how long to record (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release --product capture >&2
# libcamera's cameras (a Raspberry Pi camera module): the library capture loads on first use
swift build -c release --product CaptureKitLibCamera >&2
out="${OUT:-out}"
mkdir -p "$out"
library=()
[ -n "${LIBRARY:-}" ] && library=(--root "$LIBRARY")
capture=.build/release/capture
stamp=$(date +%Y%m%d-%H%M%S)

echo "== devices"
$capture devices
echo "== movie (${SECONDS_:-5} s) from the default camera and microphone"
$capture record "$out/movie-$stamp.mov" --duration "${SECONDS_:-5}s" --quiet --save-to-library "${library[@]}"
echo "== photo"
$capture photo "$out/photo-$stamp.jpg" --save-to-library "${library[@]}"
echo "== done: movie $out/movie-$stamp.mov, photo $out/photo-$stamp.jpg, cover $out/movie-$stamp.mov.cover.jpg"
