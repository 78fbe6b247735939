#!/usr/bin/python3
"""SIGKILL a recording at random moments beside CPU hogs; measure what each file lost.

Each run starts `capture record OUT --verbose` (default camera and preset: the virtual camera
at 1920x1080 without hardware), waits for its "started at capture time T0 s" line (the capture
clock is CLOCK_MONOTONIC, shared with this script), watches (ffprobe, again and again) for the
first fragment to become readable, kills it with SIGKILL after a random 1.5-6 s, then checks
the file with tools nobody here wrote:
  - it plays: `ffmpeg -v error -xerror -i OUT -f null -` exits 0;
  - its loss: (kill time - T0) - the end of its last video frame (ffprobe packets);
  - its first fragment was readable within --max-loss of T0.

usage: scripts/crash-under-load.py [--capture PATH] [--kills N] [--hogs N]
                                   [--containers mov,mp4,mkv] [--seed S] [-- RECORD-ARGS...]
Exit status 0 when every file plays, lost at most --max-loss seconds (default 1.0) and had its
first fragment readable within that time.
"""
import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time


def video_end(path):
    """End of the last video frame ffprobe can read, in seconds (0 if none)."""
    result = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                             "packet=pts_time,duration_time", "-of", "csv=p=0", path],
                            capture_output=True, text=True, timeout=120)
    end = 0.0
    for line in result.stdout.splitlines():
        fields = [field.strip() for field in line.split(",")]
        try:
            pts = float(fields[0])
        except ValueError:
            continue
        try:
            duration = float(fields[1]) if len(fields) > 1 else 0.0
        except ValueError:
            duration = 0.0  # fragments may carry no duration for their last frames
        end = max(end, pts + duration)
    return end


def plays(path):
    result = subprocess.run(["ffmpeg", "-v", "error", "-xerror", "-i", path, "-f", "null", "-"],
                            capture_output=True, text=True, timeout=300)
    return result.returncode == 0, result.stderr.strip().splitlines()[:3]


def one_run(capture, path, record_args, delay):
    child = subprocess.Popen([capture, "record", path, "--verbose"] + record_args,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    start = None
    log = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = child.stderr.readline()
        if not line:
            break
        log.append(line.rstrip())
        if "started at capture time" in line:
            start = float(line.split("started at capture time")[1].split()[0])
            break
    if start is None:
        child.kill()
        child.wait()
        return {"error": "no start line: " + " | ".join(log[-3:])}
    # Keep reading its log so the pipe never fills; the lines say what the pace did.
    reader = subprocess.Popen(["cat"], stdin=child.stderr, stdout=subprocess.PIPE, text=True)
    # When the first fragment could be read (ffprobe finds a frame), looked for until 2 s in.
    first = None
    while first is None and time.clock_gettime(time.CLOCK_MONOTONIC) - start < 2.0:
        if os.path.exists(path) and video_end(path) > 0:
            first = time.clock_gettime(time.CLOCK_MONOTONIC) - start
    time.sleep(max(0.0, start + delay - time.clock_gettime(time.CLOCK_MONOTONIC)))
    kill_time = time.clock_gettime(time.CLOCK_MONOTONIC)
    child.send_signal(signal.SIGKILL)
    child.wait()
    lines = reader.communicate(timeout=30)[0].splitlines()
    recorded = kill_time - start
    end = video_end(path) if os.path.exists(path) else 0.0
    ok, errors = plays(path) if os.path.getsize(path) > 0 else (False, ["empty file"])
    return {"recorded": recorded, "end": end, "loss": recorded - end, "plays": ok, "errors": errors, "first": first,
            "size": os.path.getsize(path), "pace": [l for l in lines if "encoder" in l or "preset" in l]}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--capture", default=".build/release/capture")
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--hogs", type=int, default=2)
    parser.add_argument("--containers", default="mov,mp4,mkv")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-loss", type=float, default=1.0)
    parser.add_argument("record_args", nargs="*")
    options = parser.parse_args()
    random.seed(options.seed)
    hogs = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(options.hogs)]
    failures = 0
    try:
        with tempfile.TemporaryDirectory() as folder:
            for container in options.containers.split(","):
                losses, firsts = [], []
                for index in range(options.kills):
                    path = os.path.join(folder, f"killed-{index}.{container}")
                    result = one_run(options.capture, path, options.record_args, random.uniform(1.5, 6.0))
                    if "error" in result:
                        print(f"{container} #{index}: {result['error']}")
                        failures += 1
                        continue
                    losses.append(result["loss"])
                    firsts.append(result["first"] if result["first"] is not None else float("inf"))
                    late = result["first"] is None or result["first"] > options.max_loss
                    bad = not result["plays"] or result["loss"] > options.max_loss or late
                    failures += bad
                    first = "never" if result["first"] is None else f"{result['first']:.2f} s"
                    print(f"{container} #{index}: first fragment readable at {first}, killed at {result['recorded']:.2f} s, "
                          f"plays to {result['end']:.2f} s, lost {result['loss']:.2f} s, {result['size']} bytes"
                          + ("" if result["plays"] else f", DOES NOT PLAY: {result['errors']}")
                          + (f"  [{'; '.join(p.split(': ', 2)[-1] for p in result['pace'])}]" if result["pace"] else "")
                          + ("  FAIL" if bad else ""), flush=True)
                if losses:
                    losses.sort()
                    firsts.sort()
                    print(f"{container}: loss median {losses[len(losses) // 2]:.2f} s, max {losses[-1]:.2f} s "
                          f"over {len(losses)} kills; first fragment readable after at most {firsts[-1]:.2f} s", flush=True)
    finally:
        for hog in hogs:
            hog.kill()
    print(f"load average {os.getloadavg()[0]:.2f}; {failures} failing runs")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
