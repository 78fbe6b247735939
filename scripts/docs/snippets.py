#!/usr/bin/env python3
"""Type-checks every ```swift code block of the documentation against the built modules.

The blocks come from the README, the DocC catalogs' articles (Sources/*/*.docc/**/*.md) and, with
--symbols, from the doc comments in the symbol graphs under DIR (what scripts/docs.sh
extracts). Each block is a client of the library on its own: `import CaptureKit` (and
`import CaptureKitPreview` for that module's catalog and symbols) comes first, and the block
becomes the body of `func snippet() async throws`, unless a line of it starts with
`extension ` or `@main` at column 0, when it is a source file of its own. An article's block
declares everything it uses (a reader copies it whole); a doc comment's block may also use the
names in CONTEXT, the values a reader of that symbol's page has at hand. A block preceded by
the line `<!-- not compiled: REASON -->` (foreign code, such as the AVFoundation code a porting
guide starts from) is counted, not checked. Exits 1 with each failing block's errors, given
at the block's own file and line.

    scripts/docs/snippets.py [--symbols DIR] [--build .build/debug] [--jobs N]
"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SKIP = re.compile(r"^\s*<!--\s*not compiled:\s*(.+?)\s*-->\s*$")
FILE_LEVEL = re.compile(r"^(extension |@main\b)", re.M)
# What doc-comment examples may use undeclared: one meaning per name, across the whole API.
CONTEXT = ("session: CaptureSession, camera: CaptureDevice, microphone: CaptureDevice, "
           "library: MediaLibrary, url: URL, photoOutput: CapturePhotoOutput, "
           "movieOutput: CaptureMovieFileOutput, connection: CaptureConnection, "
           "sampleBuffer: SampleBuffer")


class Block:
    """One ```swift block: where it is written, which modules it is a client of, its code."""

    def __init__(self, where, line, modules, code, context=""):
        self.where, self.line, self.modules, self.code = where, line, modules, code
        self.context = context


def fenced_blocks(lines):
    """(first code line index, code, skip reason) for each ```swift fence in `lines`."""
    index = 0
    while index < len(lines):
        opening = lines[index].strip()
        if opening.startswith("```") and opening[3:].strip() == "swift":
            indent = lines[index][: len(lines[index]) - len(lines[index].lstrip())]
            previous = lines[index - 1] if index > 0 else ""
            reason = SKIP.match(previous)
            start, index = index + 1, index + 1
            while index < len(lines) and lines[index].strip() != "```":
                index += 1
            code = "\n".join(l[len(indent):] if l.startswith(indent) else l.lstrip() for l in lines[start:index])
            yield start, code, reason.group(1) if reason else None
        index += 1


def modules_for(name):
    return ["CaptureKit"] + (["CaptureKitPreview"] if name == "CaptureKitPreview" else [])


def article_blocks(skipped):
    articles = sorted(glob.glob(os.path.join(ROOT, "Sources", "*", "*.docc", "**", "*.md"), recursive=True))
    for path in [os.path.join(ROOT, "README.md")] + articles:
        catalog = os.path.basename(os.path.dirname(path)).removesuffix(".docc")
        with open(path) as file:
            lines = file.read().split("\n")
        for start, code, reason in fenced_blocks(lines):
            where = os.path.relpath(path, ROOT)
            if reason:
                skipped.append(f"{where}:{start}: {reason}")
            else:
                yield Block(where, start + 1, modules_for(catalog), code)


def comment_blocks(directory, skipped):
    seen = set()
    for path in sorted(glob.glob(os.path.join(directory, "**", "*.symbols.json"), recursive=True)):
        with open(path) as file:
            graph = json.load(file)
        module = graph["module"]["name"]
        for symbol in graph["symbols"]:
            comment = symbol.get("docComment")
            # Inherited and re-exported comments appear under several symbols: check each once.
            if not comment or not comment.get("lines") or not comment.get("uri"):
                continue
            key = (comment["uri"], comment["lines"][0].get("range", {}).get("start", {}).get("line"))
            if key in seen:
                continue
            seen.add(key)
            lines = [l["text"] for l in comment["lines"]]
            first = comment["lines"][0].get("range", {}).get("start", {}).get("line", 0)
            where = "Sources/" + comment["uri"].split("/Sources/")[-1]
            for start, code, reason in fenced_blocks(lines):
                if reason:
                    skipped.append(f"{where}:{first + start}: {reason}")
                else:
                    yield Block(where, first + start + 1, modules_for(module), code, CONTEXT)


def source_for(block):
    """The compilable file for `block`, and the line of the file its first code line is on."""
    imports = [l for l in block.code.split("\n") if re.match(r"^import \w+$", l)]
    body = [l for l in block.code.split("\n") if l not in imports]
    header = [f"import {m}" for m in block.modules if f"import {m}" not in imports] + imports
    if FILE_LEVEL.search(block.code):
        # The import lines stay where they are, so the block's lines keep their numbers.
        text = [f"import {m}" for m in block.modules if f"import {m}" not in imports] + block.code.split("\n")
        return "\n".join(text) + "\n", len(text) - len(block.code.split("\n")) + 1, {}
    # Hoisted imports leave the body's lines out of step: map each file line back.
    lines, mapping = list(header) + [f"func snippet({block.context}) async throws {{"], {}
    for number, line in enumerate(block.code.split("\n")):
        if line in imports:
            continue
        lines.append(line)
        mapping[len(lines)] = block.line + number
    lines.append("}")
    return "\n".join(lines) + "\n", None, mapping


def check(block, arguments, scratch, number):
    text, offset, mapping = source_for(block)
    path = os.path.join(scratch, f"Snippet{number}.swift")
    with open(path, "w") as file:
        file.write(text)
    # A file-level block is a library's file (it may hold `@main`), the others a main file.
    mode = ["-parse-as-library"] if offset is not None else []
    result = subprocess.run(["swiftc", "-typecheck", "-swift-version", "6", *mode, *arguments, path],
                            capture_output=True, text=True)
    if result.returncode == 0:
        return None

    def relocate(match):
        line = int(match.group(1))
        mapped = mapping.get(line) if offset is None else block.line + line - offset
        return f"{block.where}:{mapped if mapped else '?'}:"

    errors = [re.sub(r"^" + re.escape(path) + r":(\d+):", relocate, l)
              for l in (result.stderr + result.stdout).split("\n") if ": error:" in l]
    return "\n".join(errors) or result.stderr.strip()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--symbols", help="symbol graphs whose doc comments to check too")
    parser.add_argument("--build", default=os.path.join(ROOT, ".build", "debug"))
    parser.add_argument("--jobs", type=int, default=2)
    options = parser.parse_args()
    modules = os.path.join(options.build, "Modules")
    if not os.path.isdir(modules):
        sys.exit(f"snippets: no built modules in {options.build} (swift build first)")
    maps = glob.glob(os.path.join(ROOT, "Sources", "*", "module.modulemap"))
    maps += glob.glob(os.path.join(options.build, "C*.build", "module.modulemap"))
    arguments = ["-I", modules] + [a for m in maps for a in ("-Xcc", f"-fmodule-map-file={m}")]

    skipped = []
    blocks = list(article_blocks(skipped))
    if options.symbols:
        blocks += list(comment_blocks(options.symbols, skipped))
    with tempfile.TemporaryDirectory() as scratch, \
            concurrent.futures.ThreadPoolExecutor(max_workers=options.jobs) as pool:
        failures = [f for f in pool.map(lambda p: check(p[1], arguments, scratch, p[0]), enumerate(blocks)) if f]
    print(f"snippets: {len(blocks) - len(failures)} of {len(blocks)} swift blocks compile"
          f" ({len(skipped)} marked not compiled)")
    for reason in skipped:
        print(f"  not compiled: {reason}")
    if failures:
        print("\n".join(failures), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
