#!/usr/bin/env python3
"""The include graph of a folder's modules has no cycle (a module is NAME.c with
NAME.h; A depends on B when A.c or A.h includes B.h of the same folder).

    python3 tests/static/include_layers.py tracer [--layers]

Exits 1 naming each cycle; with --layers prints the modules by layer (a module's
layer is one more than the highest of what it includes), the layering that
docs/architecture.md describes."""
import os
import re
import sys


def graph(folder):
    names = {f.rsplit(".", 1)[0] for f in os.listdir(folder) if f.endswith((".c", ".h", ".S"))}
    deps = {n: set() for n in names}
    for f in os.listdir(folder):
        if not f.endswith((".c", ".h", ".S")):
            continue
        me = f.rsplit(".", 1)[0]
        for line in open(os.path.join(folder, f), encoding="utf-8"):
            m = re.match(r'\s*#\s*include\s+"([^"]+)\.h"', line)
            if m and m.group(1) in names and m.group(1) != me:
                deps[me].add(m.group(1))
    return deps


def cycles(deps):
    """Tarjan's strongly connected components of more than one module."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(deps[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(deps):
        if v not in index:
            visit(v)
    return out


def layers(deps):
    level = {}

    def of(v):
        if v not in level:
            level[v] = 1 + max((of(w) for w in deps[v]), default=-1)
        return level[v]

    for v in deps:
        of(v)
    return level


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "tracer"
    deps = graph(folder)
    found = cycles(deps)
    for c in found:
        print(f"include cycle in {folder}/: " + " <-> ".join(c))
    if found:
        return 1
    if "--layers" in sys.argv:
        level = layers(deps)
        for k in range(max(level.values()) + 1):
            print(f"{k}: " + " ".join(sorted(v for v in level if level[v] == k)))
    print(f"{folder}/: {len(deps)} modules, no include cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
