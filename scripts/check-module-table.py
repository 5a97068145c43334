#!/usr/bin/env python3
"""Holds docs/ARCHITECTURE.md's module table to the code.

The table (| module | depends on | imports Glibc |) is where a newcomer learns the layers. This
check fails when it says something Package.swift or the sources do not:
  - a library target under Sources/ that has no row, or a row for a module that is no target;
  - "depends on" differs from the target's dependencies in Package.swift;
  - "depends on" differs from the package modules the target's sources import;
  - "imports Glibc" says yes where no source imports Glibc, or no where one does;
  - a library imports Foundation (the table's note says none does).
Each problem names the module, the dependency and what to change. Run from anywhere:
    scripts/check-module-table.py
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = "docs/ARCHITECTURE.md"
HEADER = re.compile(r"^\|\s*module\s*\|\s*depends on\s*\|\s*imports Glibc\s*\|\s*$")
IMPORT = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?"
    r"import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?(\w+)"
)


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as handle:
        return handle.read()


def table_rows():
    """module -> (dependencies, imports Glibc, line number) from the doc's module table."""
    rows = {}
    lines = read(DOC).splitlines()
    start = next((i for i, line in enumerate(lines) if HEADER.match(line)), None)
    if start is None:
        sys.exit(f"{DOC}: no module table (a header row `| module | depends on | imports Glibc |`); "
                 "scripts/check-module-table.py reads it")
    for number, line in enumerate(lines[start + 2:], start + 3):
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 3:
            sys.exit(f"{DOC}:{number}: a module table row needs three cells: {line}")
        module, depends, glibc = cells
        # Parenthesised words explain; the comma-separated names outside them are the dependencies.
        names = [name.strip() for name in re.sub(r"\([^)]*\)", "", depends).split(",")]
        dependencies = {name for name in names if name and not name.startswith("nothing")}
        rows[module] = (dependencies, glibc.lower().startswith("yes"), number)
    return rows


def bracketed(text, start):
    """The text inside the brackets that open at text[start]."""
    depth = 0
    for index in range(start, len(text)):
        depth += {"[": 1, "]": -1}.get(text[index], 0)
        if depth == 0:
            return text[start + 1:index]
    return text[start + 1:]


def package_targets():
    """name -> (kind, dependencies, path or None) for every target Package.swift declares."""
    text = re.sub(r"//[^\n]*", "", read("Package.swift"))
    declarations = list(re.finditer(r"\.(target|executableTarget|testTarget)\(\s*name:\s*\"([^\"]+)\"", text))
    targets = {}
    for index, match in enumerate(declarations):
        end = declarations[index + 1].start() if index + 1 < len(declarations) else len(text)
        body = text[match.end():end]
        dependencies = set()
        found = re.search(r"dependencies:\s*\[", body)
        if found:
            dependencies = set(re.findall(r"\"([^\"]+)\"", bracketed(body, found.end() - 1)))
        path = re.search(r"path:\s*\"([^\"]+)\"", body)
        targets[match.group(2)] = (match.group(1), dependencies, path.group(1) if path else None)
    return targets


def imports(directory):
    """module -> first `file:line` that imports it, over the Swift files under `directory`."""
    found = {}
    for folder, _, files in sorted(os.walk(os.path.join(ROOT, directory))):
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8") as handle:
                for number, line in enumerate(handle, 1):
                    match = IMPORT.match(line)
                    if match:
                        found.setdefault(match.group(1), f"{os.path.relpath(path, ROOT)}:{number}")
    return found


def main():
    rows = table_rows()
    targets = package_targets()
    problems = []
    libraries = {
        name for name, (kind, _, path) in targets.items()
        if kind == "target" and path is None
        and any(file.endswith(".swift") for _, _, files in os.walk(os.path.join(ROOT, "Sources", name)) for file in files)
    }
    for name in sorted(libraries - rows.keys()):
        problems.append(f"{name}: a library target in Package.swift with no row in {DOC}'s module table; "
                        f"add `| {name} | … | … |`")
    for name in sorted(rows.keys() - libraries):
        problems.append(f"{name}: {DOC}:{rows[name][2]} has a row for it, but Package.swift declares no "
                        "library target of that name under Sources/; remove the row or fix its name")
    for module in sorted(rows.keys() & libraries):
        documented, glibc, line = rows[module]
        where = f"{DOC}:{line}"
        for name in sorted(documented - targets.keys()):
            problems.append(f"{module}: {where} names {name} as a dependency, which is no target in Package.swift")
        declared = targets[module][1]
        for name in sorted(declared - documented):
            problems.append(f"{module}: Package.swift declares the dependency {name}, which {where} leaves out; "
                            "add it to the row's \"depends on\", or drop it from Package.swift")
        for name in sorted((documented & targets.keys()) - declared):
            problems.append(f"{module}: {where} says it depends on {name}, which Package.swift does not declare; "
                            "add it to the target's dependencies, or drop it from the row")
        imported = imports(os.path.join("Sources", module))
        ours = {name: place for name, place in imported.items() if name in targets}
        for name in sorted(ours.keys() - documented):
            problems.append(f"{module}: {ours[name]} imports {name}, which {where} leaves out; "
                            "add it to the row (and Package.swift), or stop importing it")
        for name in sorted((documented & targets.keys()) - ours.keys()):
            problems.append(f"{module}: {where} says it depends on {name}, but no file under Sources/{module} "
                            "imports it; drop it from the row and from Package.swift")
        if glibc and "Glibc" not in imported:
            problems.append(f"{module}: {where} says it imports Glibc, but no file under Sources/{module} does; "
                            "say no in the row")
        if not glibc and "Glibc" in imported:
            problems.append(f"{module}: {imported['Glibc']} imports Glibc, but {where} says it does not; "
                            "call ChatSystem's wrapper instead, or say yes in the row")
        for name in sorted(name for name in imported if name.startswith("Foundation")):
            problems.append(f"{module}: {imported[name]} imports {name}, but {DOC} says no library imports "
                            "Foundation; remove the import")
    if problems:
        for problem in problems:
            print(f"check-module-table: {problem}", file=sys.stderr)
        print(f"check-module-table: {len(problems)} difference(s) between {DOC}'s module table and the code",
              file=sys.stderr)
        return 1
    print(f"check-module-table: {len(rows)} modules in {DOC} agree with Package.swift and their imports")
    return 0


if __name__ == "__main__":
    sys.exit(main())
