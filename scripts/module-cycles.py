#!/usr/bin/env python3
"""Print import cycles between sibling modules of the crate (exit 1 if there are any).

Every `crate::a::b` / `super::x` / `self::x` path in a module's source is resolved to the module
it names. Within each parent module, a child C1 depends on a sibling C2 when any file in C1's
subtree names anything in C2's subtree; a cycle is a strongly connected set of two or more
siblings (e.g. `cli -> commands -> cli`). A child naming its parent (`super::`) is not a cycle.

Usage: scripts/module-cycles.py [SRC_DIR]   (default: src)
"""
import os
import re
import sys

src = sys.argv[1] if len(sys.argv) > 1 else "src"


def module_of(path):
    rel = os.path.relpath(path, src)[:-3].split(os.sep)
    if rel[-1] in ("mod", "lib", "main"):
        rel = rel[:-1]
    return tuple(rel)


files = {}
for root, _, names in os.walk(src):
    for n in names:
        if n.endswith(".rs"):
            p = os.path.join(root, n)
            files[module_of(p)] = p
modules = set(files)
# Inline `mod x { … }` blocks (tests) belong to their file's module.

PATH = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
GROUP = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)*)::\{([^;]*?)\}", re.S)


def resolve(mod, head, rest):
    if head == "crate":
        base = ()
    elif head == "super":
        base = mod[:-1]
    else:
        base = mod
    parts = [p for p in rest.split("::") if p]
    while parts and parts[0] == "super":
        base = base[:-1]
        parts = parts[1:]
    target = base
    for p in parts:
        if target + (p,) in modules:
            target = target + (p,)
        else:
            break
    return target


deps = {m: set() for m in modules}
for mod, path in files.items():
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"//[^\n]*", "", text)
    for m in PATH.finditer(text):
        deps[mod].add(resolve(mod, m.group(1), m.group(2)))
    for m in GROUP.finditer(text):
        for item in re.split(r"[,\s]+", m.group(3)):
            name = item.split("::")[0].strip("{} ")
            if name:
                deps[mod].add(resolve(mod, m.group(1), m.group(2) + "::" + name))

cycles = []
parents = {m[:-1] for m in modules if m}
for parent in sorted(parents):
    children = sorted(m for m in modules if len(m) == len(parent) + 1 and m[:-1] == parent)
    edges = {c: set() for c in children}
    for mod, targets in deps.items():
        if mod[: len(parent) + 1] not in edges:
            continue
        src_child = mod[: len(parent) + 1]
        for t in targets:
            if len(t) > len(parent) and t[: len(parent)] == parent:
                dst = t[: len(parent) + 1]
                if dst != src_child and dst in edges:
                    edges[src_child].add(dst)
    # Tarjan's strongly connected components.
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
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

    for c in children:
        if c not in index:
            visit(c)
    cycles.extend(out)

for comp in cycles:
    print("cycle: " + " <-> ".join("::".join(c) or "crate" for c in comp))
print(f"{len(modules)} modules, {len(cycles)} cycles between siblings")
sys.exit(1 if cycles else 0)
