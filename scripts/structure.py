#!/usr/bin/env python3
"""Measures the code's shape: the table of the renovation (docs/architecture.md).

    python3 scripts/structure.py            # the table
    python3 scripts/structure.py --cycles   # also print every file cycle
    python3 scripts/structure.py --long     # also list long files and functions

Rules (the same ones a reader with grep and wc would apply):
- non-test lines: a file's lines before its first `#[cfg(test)]`;
- a function's length: from its `fn` line to the line of its closing brace;
- a file imports another when its non-test code names a path (`crate::a::b`,
  `super::x`, `self::x`) that resolves to the other file; a path ending at a
  `mod.rs` that re-exports the named item (`pub use x::Item`) resolves to the
  child file it comes from; comments do not count; a `mod x;` declaration is
  not an import, nor is a parent's use of its own children by bare name;
- a circle: a strongly connected set of two or more files in that graph.
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SRC = os.path.join(ROOT, "src")


def rust_files(d):
    out = []
    for base, _, names in os.walk(d):
        for n in names:
            if n.endswith(".rs"):
                out.append(os.path.join(base, n))
    return sorted(out)


def non_test(text):
    if "#![cfg(test)]" in text:
        return ""  # a file of tests only (`mod tests;` beside the code)
    i = text.find("#[cfg(test)]")
    return text if i < 0 else text[:i]


def strip_comments(code):
    code = re.sub(r"/\*.*?\*/", "", code, flags=re.S)
    out = []
    for line in code.split("\n"):
        # drop // comments outside string literals (good enough for this tree)
        in_str = False
        cut = len(line)
        i = 0
        while i < len(line):
            c = line[i]
            if c == '"' and (i == 0 or line[i - 1] != "\\"):
                in_str = not in_str
            elif not in_str and line.startswith("//", i):
                cut = i
                break
            i += 1
        out.append(line[:cut])
    return "\n".join(out)


def module_path(f):
    """src/a/b.rs -> ['a','b']; src/a/mod.rs -> ['a']; src/lib.rs -> []."""
    rel = os.path.relpath(f, SRC)[:-3].split(os.sep)
    if rel[-1] == "mod" or rel == ["lib"] or rel == ["main"]:
        rel = rel[:-1]
    return rel


def build_index(files):
    by_mod = {}
    for f in files:
        mp = tuple(module_path(f))
        if os.path.basename(f) == "main.rs":
            continue
        by_mod[mp] = f
    # inline modules declared in a file (`mod x {`) belong to that file
    return by_mod


def reexports(f, text):
    """name -> child module segment, for `pub use child::...::Name` lines of a file."""
    out = {}
    for m in re.finditer(r"pub(?:\([^)]*\))?\s+use\s+([^;]+);", text):
        tree = m.group(1).replace("\n", " ")
        for path in expand_use(tree):
            segs = [s.strip() for s in path.split("::") if s.strip()]
            if len(segs) >= 2 and segs[0] not in ("crate", "super", "self"):
                name = segs[-1].split(" as ")[-1].strip()
                out[name] = segs[0]
            elif len(segs) >= 3 and segs[0] == "self":
                out[segs[-1].split(" as ")[-1].strip()] = segs[1]
    return out


def expand_use(tree):
    """Expands a use tree `a::{b, c::{d, e}}` into paths."""
    tree = tree.strip()
    i = tree.find("{")
    if i < 0:
        return [tree]
    prefix = tree[:i]
    depth = 0
    parts, cur = [], ""
    body = tree[i + 1 : tree.rfind("}")]
    for c in body:
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        if c == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += c
    parts.append(cur)
    out = []
    for p in parts:
        p = p.strip()
        if not p:
            continue
        for e in expand_use(p):
            out.append(prefix + e if e != "self" else prefix.rstrip(":"))
    return out


PATH_RE = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")


def paths_in(code):
    paths = []
    for m in re.finditer(r"\buse\s+([^;]+);", code):
        paths += expand_use(m.group(1).replace("\n", " "))
    code_wo_use = re.sub(r"\buse\s+[^;]+;", "", code)
    for m in PATH_RE.finditer(code_wo_use):
        paths.append(m.group(1) + m.group(2))
    return paths


def resolve(f, path, by_mod, rex):
    segs = [s.strip().split(" as ")[0].strip() for s in path.split("::")]
    segs = [s for s in segs if s]
    if not segs:
        return None
    here = module_path(f)
    if segs[0] == "crate":
        base, rest = [], segs[1:]
    elif segs[0] in ("super", "self"):
        base = list(here)
        rest = segs
        while rest and rest[0] in ("super", "self"):
            if rest[0] == "super":
                base = base[:-1]
            rest = rest[1:]
    else:
        return None
    cur = list(base)
    target = by_mod.get(tuple(cur))
    for s in rest:
        nxt = tuple(cur + [s])
        if nxt in by_mod:
            cur = list(nxt)
            target = by_mod[nxt]
            continue
        # an item of `target`: follow a re-export to the child that defines it
        child = rex.get(target, {}).get(s)
        if child and tuple(cur + [child]) in by_mod:
            target = by_mod[tuple(cur + [child])]
        break
    return target


def graph(files):
    by_mod = build_index(files)
    texts = {f: strip_comments(non_test(open(f).read())) for f in files}
    rex = {f: reexports(f, texts[f]) for f in files}
    g = {}
    for f in files:
        if os.path.basename(f) == "main.rs":
            continue
        deps = set()
        for p in paths_in(texts[f]):
            t = resolve(f, p, by_mod, rex)
            if t and t != f:
                deps.add(t)
        g[f] = deps
    return g


def sccs(g):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in g.get(v, ()):
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

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def long_functions(files, limit=120):
    out = []
    for f in files:
        lines = non_test(open(f).read()).split("\n")
        i = 0
        while i < len(lines):
            line = lines[i]
            m = re.match(r"^(\s*)(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?fn\s+(\w+)", line)
            if m:
                indent = m.group(1)
                j = i
                # the closing brace at the same indent
                while j < len(lines) and not (lines[j].startswith(indent + "}") and (len(lines[j]) == len(indent) + 1 or not lines[j][len(indent) + 1 :].strip() or lines[j][len(indent)+1:].strip().startswith("//"))):
                    if j > i and lines[j].rstrip().endswith(";") and lines[i].rstrip().endswith(";"):
                        break
                    j += 1
                n = j - i + 1
                if n > limit:
                    out.append((n, os.path.relpath(f, ROOT), m.group(2)))
                i += 1
                continue
            i += 1
    return sorted(out, reverse=True)


def count(pattern, files):
    rx = re.compile(pattern)
    return sum(len(rx.findall(non_test(open(f).read()))) for f in files)


def main():
    files = rust_files(SRC)
    big = sorted(
        ((len(non_test(open(f).read()).rstrip("\n").split("\n")), os.path.relpath(f, ROOT)) for f in files if not f.endswith("vcor_table.rs")),
        reverse=True,
    )
    big = [b for b in big if b[0] > 600]
    longf = long_functions(files)
    cyc = sccs(graph(files))
    exp = rust_files(os.path.join(SRC, "experiments"))
    cols = count(r'\.col\("', exp)
    sreads = count(r"\.s\(\s*[\w.\[\]]+\s*,", exp)
    rstring = count(r"Result<[^<>]*(?:<[^<>]*>)?[^<>]*,\s*String>", files)
    unreach = count(r"unreachable!\(", files)
    tree_files = []
    for d in ("src", "tests", "docs"):
        for base, _, names in os.walk(os.path.join(ROOT, d)):
            tree_files += [os.path.join(base, n) for n in names]
    facts = issue = 0
    for f in tree_files:
        try:
            t = open(f).read()
        except (UnicodeDecodeError, IsADirectoryError):
            continue
        facts += len(re.findall(r"facts" r" file", t, re.I))
        issue += len(re.findall(r"\bissues? #?\d+", t, re.I))
    print("| measure | value |")
    print("|---|---|")
    print(f"| files over 600 non-test lines (vcor_table.rs aside) | {len(big)} |")
    print(f"| functions over 120 lines | {len(longf)} |")
    print(f"| file circles (strongly connected sets) | {len(cyc)} ({sum(len(c) for c in cyc)} files) |")
    print(f"| `.col(\"…\")` / `.s(` reads in experiments/ | {cols} / {sreads} |")
    print(f"| `Result<_, String>` outside tests | {rstring} |")
    print(f"| `unreachable!(` outside tests | {unreach} |")
    print(f"| \"facts{' '}file\" / \"issue N\" in src, tests, docs | {facts} / {issue} |")
    if "--long" in sys.argv:
        for n, f in big:
            print(f"  file {n:5} {f}")
        for n, f, name in longf:
            print(f"  fn   {n:5} {f} {name}")
    if "--cycles" in sys.argv:
        for c in cyc:
            print("  circle: " + ", ".join(os.path.relpath(x, SRC) for x in c))


if __name__ == "__main__":
    main()
