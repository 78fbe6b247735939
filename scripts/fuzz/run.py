#!/usr/bin/python3
"""Runs hostile files through the `capture` commands that read files -- probe, thumbnail,
library import and record from a file device -- and reports every run that crashed (killed by
a signal), hung (outlived --timeout), exited with a status capture never uses, printed more
than one line of error, or let one of FFmpeg's own log lines through. Exit status 1 when any
did; the failing files are copied to --findings.

    scripts/fuzz/run.py CAPTURE FILE... [--timeout S] [--findings DIR]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

STATUSES = {0, 1, 64, 65, 66, 69, 73}   # success, failure, usage, data, no input, unavailable, cannot create


def commands(path, scratch):
    return [
        ["probe", path],
        ["thumbnail", path, os.path.join(scratch, "thumbnail.jpg"), "--overwrite"],
        ["library", "import", path, "--root", os.path.join(scratch, "library")],
        ["record", os.path.join(scratch, "record.mov"), "--device", "file:" + path, "--no-audio", "--unpaced", "--duration", "1s", "--quiet"],
    ]


def judge(result, timed_out):
    if timed_out:
        return "hung"
    if result.returncode < 0:
        return f"crashed (signal {-result.returncode})"
    if result.returncode not in STATUSES:
        return f"exit status {result.returncode}"
    errors = result.stderr.decode("utf-8", "replace")
    if " @ 0x" in errors:
        return "an FFmpeg log line reached stderr"
    if "Fatal error" in errors or "Fatal error" in result.stdout.decode("utf-8", "replace"):
        return "a Swift runtime trap"
    if result.returncode != 0 and len(errors.strip().splitlines()) != 1:
        return f"{len(errors.strip().splitlines())} lines of error"
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("capture")
    parser.add_argument("files", nargs="+")
    parser.add_argument("--timeout", type=float, default=30)
    parser.add_argument("--findings", default=None)
    args = parser.parse_args()
    failures = 0
    runs = 0
    for path in args.files:
        scratch = tempfile.mkdtemp(prefix="ck-fuzz-")
        for words in commands(path, scratch):
            runs += 1
            try:
                result = subprocess.run([args.capture] + words, capture_output=True, timeout=args.timeout, stdin=subprocess.DEVNULL)
                verdict = judge(result, False)
            except subprocess.TimeoutExpired:
                result, verdict = None, judge(None, True)
            if verdict:
                failures += 1
                tail = "" if result is None else result.stderr.decode("utf-8", "replace").strip()[-300:]
                print(f"FAIL {verdict}: capture {' '.join(words)}\n  {tail}")
                if args.findings:
                    os.makedirs(args.findings, exist_ok=True)
                    shutil.copy(path, args.findings)
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"{runs} runs over {len(args.files)} files: {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
