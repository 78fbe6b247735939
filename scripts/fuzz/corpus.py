#!/usr/bin/python3
"""Makes the hostile-file corpus: small media files of every kind capture reads (made by
ffmpeg and libheif's heif-enc, not by us), and mutations of each as an attacker or a broken disk makes them:
truncations, bit flips, zeroed and 0xFF ranges, huge 32-bit fields, header-only copies and
repeated chunks. Deterministic for a given --seed, so a finding can be made again.

    scripts/fuzz/corpus.py OUTDIR [--mutations N] [--seed S] [--no-seeds]
"""
import argparse
import os
import random
import subprocess
import sys

# name -> ffmpeg arguments after the inputs; every seed is a second or less and tiny
SEEDS = {
    "h264-aac.mp4": ["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac"],
    "mjpeg-pcm.mov": ["-c:v", "mjpeg", "-c:a", "pcm_s16le"],
    "mpeg4-opus.mkv": ["-c:v", "mpeg4", "-c:a", "libopus"],
    "still.jpg": ["-frames:v", "1", "-an"],
    "still.png": ["-frames:v", "1", "-an"],
    "frames.y4m": ["-an", "-pix_fmt", "yuv420p"],
    "tone.wav": ["-vn"],
}
INPUTS = ["-f", "lavfi", "-i", "testsrc=s=64x48:r=10:d=1", "-f", "lavfi", "-i", "sine=f=440:d=1"]


def make_seeds(outdir):
    paths = []
    for name, args in SEEDS.items():
        path = os.path.join(outdir, name)
        if not os.path.exists(path):
            subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y"] + INPUTS + ["-shortest"] + args + [path], check=True)
        paths.append(path)
    # HEIF goes through libheif, not FFmpeg: its seed is made by libheif's own encoder.
    heif = os.path.join(outdir, "still.heic")
    if not os.path.exists(heif):
        subprocess.run(["heif-enc", "-q", "50", "-o", heif, os.path.join(outdir, "still.png")], check=True,
                       stdout=subprocess.DEVNULL)
    paths.append(heif)
    return paths


def mutate(data, rng):
    """One mutation, and its name."""
    data = bytearray(data)
    kind = rng.choice(["truncate", "flip", "zero", "ones", "huge", "header", "repeat", "empty"])
    n = len(data)
    if kind == "truncate" and n > 1:
        del data[rng.randrange(1, n):]
    elif kind == "flip":
        for _ in range(rng.randint(1, 16)):
            i = rng.randrange(n)
            data[i] ^= 1 << rng.randrange(8)
    elif kind in ("zero", "ones") and n > 1:
        start = rng.randrange(n)
        length = rng.randint(1, min(4096, n - start))
        data[start:start + length] = bytes([0 if kind == "zero" else 0xFF]) * length
    elif kind == "huge" and n >= 8:
        # Sizes and counts are 32-bit fields in most containers: make one absurd.
        i = rng.randrange(0, n - 4)
        data[i:i + 4] = rng.choice([b"\xff\xff\xff\xff", b"\x7f\xff\xff\xff", b"\x00\x00\x00\x00", b"\x80\x00\x00\x00"])
    elif kind == "header":
        del data[min(n, rng.choice([8, 16, 32, 64, 512])):]
    elif kind == "repeat" and n > 16:
        start = rng.randrange(n // 2)
        chunk = data[start:start + rng.randint(1, 1024)]
        data[start:start] = chunk * rng.randint(2, 8)
    elif kind == "empty":
        data = bytearray()
    return bytes(data), kind


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("outdir")
    parser.add_argument("--mutations", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-seeds", action="store_true", help="write only the mutations")
    args = parser.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    seeds_dir = os.path.join(args.outdir, "seeds")
    os.makedirs(seeds_dir, exist_ok=True)
    seeds = make_seeds(seeds_dir)
    rng = random.Random(args.seed)
    written = [] if args.no_seeds else list(seeds)
    for path in seeds:
        original = open(path, "rb").read()
        stem, ext = os.path.splitext(os.path.basename(path))
        for index in range(args.mutations):
            data, kind = mutate(original, rng)
            out = os.path.join(args.outdir, f"{stem}.s{args.seed}.{index}.{kind}{ext}")
            with open(out, "wb") as f:
                f.write(data)
            written.append(out)
    print("\n".join(written))


if __name__ == "__main__":
    sys.exit(main())
