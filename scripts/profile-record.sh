#!/usr/bin/env bash
# Profiles record-1080p's job, CaptureKit's `capture record` and ffmpeg on the same input, with
# `perf record`, and prints where each process spends its CPU by shared object: what bounds
# CaptureKit's recording CPU against ffmpeg's (Performance.md, "Recording 1080p"). Release build;
# about a minute once built. Not part of the tests. FRAMES=N changes the input's length (300).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh linux-perf time
swift build -c release --product capture >&2
capture="$(swift build -c release --show-bin-path)/capture"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
frames=${FRAMES:-300}

# The benchmark's input: testsrc2 1080p30 as raw YUYV (ffmpeg reads it as is; CaptureKit's file
# device the same bytes in NUT) and a 440 Hz stereo tone as long.
ffmpeg -hide_banner -loglevel error -f lavfi -i testsrc2=size=1920x1080:rate=30 -frames:v "$frames" -pix_fmt yuyv422 -f rawvideo "$work/in.yuv"
ffmpeg -hide_banner -loglevel error -f rawvideo -pix_fmt yuyv422 -video_size 1920x1080 -framerate 30 -i "$work/in.yuv" -c:v copy -f nut "$work/in.nut"
ffmpeg -hide_banner -loglevel error -f lavfi -i "sine=frequency=440:sample_rate=48000:duration=$((frames / 30))" -ac 2 -c:a pcm_s16le "$work/in.wav"

profile() { # name, command...
    local name=$1; shift
    /usr/bin/time -f "%U %S" -o "$work/$name.time" perf record -q -F 999 -o "$work/$name.data" -- "$@" >/dev/null
    awk -v name="$name" '{ printf "\n%s: %.2f s CPU (user %.2f, system %.2f; with perf\047s own), by shared object:\n", name, $1 + $2, $1, $2 }' "$work/$name.time"
    perf report -i "$work/$name.data" --sort dso --stdio 2>/dev/null | grep -E '^ +[0-9.]+%' | head -8
    echo "  kernel, by symbol:"
    perf report -i "$work/$name.data" --sort sym --dso '[kernel.kallsyms]' --stdio 2>/dev/null | grep -E '^ +[0-9.]+%' | head -4
}

profile "CaptureKit capture record" "$capture" record "$work/ck.mov" --device "file:$work/in.nut" --audio-device "file:$work/in.wav" --unpaced --quiet
profile "ffmpeg" ffmpeg -hide_banner -nostdin -loglevel error -y -f rawvideo -pix_fmt yuyv422 -video_size 1920x1080 -framerate 30 \
    -i "$work/in.yuv" -i "$work/in.wav" -map 0:v:0 -map 1:a:0 -pix_fmt yuv420p -c:v libx264 -preset veryfast -g 30 \
    -c:a aac -b:a 128k "$work/ff.mov"
