#!/usr/bin/env python3
"""Checks the rules of docs/ARCHITECTURE.md that a script can check, over the library's sources
(the layers are spread over five targets — CaptureKitCore: Core and Support; CaptureKitMedia:
Media; CaptureKitLibrary: Library; CaptureKit: Devices … Manager; CaptureKitPreview: Preview —
so the compiler already keeps each target from using one above it; this check adds the order
of the layers inside CaptureKit and the rules below):

1. No file names a type of a layer above its own (the layer rule).
2. One type name is declared in one folder only (one of each concept).
3. Every `@unchecked Sendable` says why, in a `// Unchecked Sendable: <reason>.` comment on the
   line before or after it (the allowed reasons are listed in docs/ARCHITECTURE.md).

The layers, lowest first, are LAYERS below (docs/ARCHITECTURE.md explains each). A file may use
types of its own layer and of the layers below. In a layer made of sibling folders (one per
backend, output or preview), a sibling may use the layer's own top-level files but not another
sibling, and the top-level files may not use the siblings.

The check reads declarations, not the compiler's index: a type is recognised by its top-level
`class`/`struct`/`enum`/`protocol`/`actor`/`typealias` and a use by the type's name outside
comments and string literals. Members added by an extension in a higher layer are not seen;
the layer rule applies to them all the same.

Usage: scripts/check-architecture.py [--graph]   (run from the repository's root)
"""
import collections
import os
import re
import sys

ROOTS = ["Sources/CaptureKitCore", "Sources/CaptureKitMedia", "Sources/CaptureKitLibrary", "Sources/CaptureKit",
         "Sources/CaptureKitPreview"]
LAYERS = ["Core", "Support", "Media", "Library", "Devices", "Backends", "Discovery",
          "Session", "Outputs", "Manager", "Preview"]
# The target each layer's folder belongs to (the rest are in CaptureKit).
TARGETS = {"Core": "CaptureKitCore", "Support": "CaptureKitCore", "Media": "CaptureKitMedia",
           "Library": "CaptureKitLibrary", "Preview": "CaptureKitPreview"}

DECLARATION = re.compile(
    r"^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private|final|indirect|nonisolated)\s+)*"
    r"(?:class|struct|enum|protocol|actor|typealias)\s+([A-Z]\w*)", re.M)
NOISE = re.compile(r'//[^\n]*|/\*.*?\*/|"""(?:.|\n)*?"""|"(?:\\.|[^"\\\n])*"', re.S)
NAME = re.compile(r"\b[A-Z]\w*\b")


def place(path):
    """(layer index, sibling folder or None) of a source file."""
    root = next(root for root in ROOTS if path.startswith(root + os.sep))
    parts = os.path.relpath(path, root).split(os.sep)
    if len(parts) == 1:
        return -1, None   # a target's own top-level file (CaptureKit's re-export of the core)
    if parts[0] not in LAYERS:
        sys.exit(f"check-architecture: {path} is in no layer; add its folder to LAYERS and docs/ARCHITECTURE.md")
    if os.path.basename(root) != TARGETS.get(parts[0], "CaptureKit"):
        sys.exit(f"check-architecture: {path}: the {parts[0]} layer belongs in Sources/{TARGETS.get(parts[0], 'CaptureKit')}")
    return LAYERS.index(parts[0]), (parts[1] if len(parts) > 2 else None)


def label(where):
    layer, sibling = where
    return (LAYERS[layer] if layer >= 0 else "(target root)") + (f"/{sibling}" if sibling else "")


def allowed(user, used):
    if used[0] != user[0]:
        return used[0] < user[0]
    return used[1] is None or used[1] == user[1]


def main():
    sources = {}
    for directory, _, names in (entry for root in ROOTS for entry in os.walk(root)):
        for name in names:
            if name.endswith(".swift"):
                path = os.path.join(directory, name)
                with open(path, encoding="utf-8") as file:
                    sources[path] = file.read()
    owners = collections.defaultdict(set)
    for path, text in sources.items():
        for match in DECLARATION.finditer(text):
            owners[match.group(1)].add(place(path))
    failures = []
    for name, places in sorted(owners.items()):
        if len(places) > 1:
            failures.append(f"{name} is declared in {', '.join(sorted(map(label, places)))}: one of each concept")
    for path, text in sorted(sources.items()):
        lines = text.split("\n")
        for number, line in enumerate(lines):
            if "@unchecked Sendable" not in line or line.lstrip().startswith("//"):
                continue
            near = lines[max(0, number - 1):number + 2]
            if not any("// Unchecked Sendable: " in other for other in near):
                failures.append(f"{path}:{number + 1} is @unchecked Sendable without a '// Unchecked Sendable: <reason>.' beside it")
    graph = collections.defaultdict(set)
    for path, text in sorted(sources.items()):
        user = place(path)
        for name in sorted(set(NAME.findall(NOISE.sub("", text)))):
            for used in owners.get(name, ()):
                if used == user:
                    continue
                graph[(label(user), label(used))].add(name)
                if not allowed(user, used):
                    failures.append(f"{path} ({label(user)}) uses {name} of {label(used)}, a layer above it")
    if "--graph" in sys.argv:
        for (user, used), names in sorted(graph.items()):
            print(f"{user} -> {used}: {', '.join(sorted(names))}")
    for failure in failures:
        print(f"check-architecture: {failure}", file=sys.stderr)
    if failures:
        print(f"check-architecture: {len(failures)} problem(s); the layer order is in docs/ARCHITECTURE.md", file=sys.stderr)
        return 1
    print(f"check-architecture: {len(sources)} files in {len(LAYERS)} layers, no upward use, every @unchecked Sendable explained")
    return 0


if __name__ == "__main__":
    sys.exit(main())
