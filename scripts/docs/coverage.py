#!/usr/bin/env python3
"""Counts the public symbols of the symbol graphs under DIR that carry no doc comment.

Synthesized members (an enum's `hashValue`, `==` from Equatable, …) are left out: their source
is the compiler, not ours. Exits 1, listing each undocumented symbol with its file and line,
unless every other public symbol is documented.

    scripts/docs/coverage.py DIR
"""
import glob
import json
import os
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    total, missing = 0, []
    for path in sorted(glob.glob(os.path.join(sys.argv[1], "**", "*.symbols.json"), recursive=True)):
        with open(path) as file:
            graph = json.load(file)
        for symbol in graph["symbols"]:
            if "::SYNTHESIZED::" in symbol["identifier"]["precise"]:
                continue
            total += 1
            if not symbol.get("docComment", {}).get("lines"):
                where = symbol.get("location", {})
                uri = where.get("uri", "?").split("/Sources/")[-1]
                line = where.get("position", {}).get("line", -1) + 1
                missing.append(f"  Sources/{uri}:{line}: {'.'.join(symbol['pathComponents'])}"
                               f" ({symbol['kind']['displayName']})")
    documented = total - len(missing)
    print(f"coverage: {documented} of {total} public symbols documented"
          f" ({100.0 * documented / max(total, 1):.1f} %)")
    if missing:
        print("coverage: undocumented:\n" + "\n".join(missing), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
