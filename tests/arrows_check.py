#!/usr/bin/env python3
"""Every `#include "FOLDER/…"` in src/ follows an arrow of docs/architecture.md's "Allowed arrows".

    arrows_check.py ROOT             checks ROOT/src against ROOT/docs/architecture.md
    arrows_check.py --catches ROOT   checks that the check fails: a copy of ROOT's src/ and docs
                                     with a forbidden include put into util/, which must be named

Exit 0 when every include is allowed; 1 with one line per include that is not (file:line: the
arrow), or when the table is missing, names an unknown folder or has a cycle.
"""

import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s+"([A-Za-z0-9_]+)/')
ROW = re.compile(r"^\|\s*`([^`]+)`\s*\|([^|]*)\|")


def read_table(doc: pathlib.Path) -> dict[str, set[str]]:
    """The "Allowed arrows" table: folder → the folders it may include."""
    allowed: dict[str, set[str]] = {}
    in_section = False
    for line in doc.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            in_section = line.strip("# ").lower() == "allowed arrows"
            continue
        match = ROW.match(line) if in_section else None
        if match:
            targets = re.findall(r"`([^`]+)`", match.group(2))
            allowed[match.group(1).rstrip("/")] = {t.rstrip("/") for t in targets}
    return allowed


def table_problems(allowed: dict[str, set[str]]) -> list[str]:
    problems = [f"{doc_name}: {a} → {b}: {b} has no row" for a, targets in allowed.items()
                for b in sorted(targets) if b not in allowed]
    # A cycle in the table would be a cycle between the libraries: find one by depth-first search.
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(allowed.get(node, ())):
            if state.get(nxt) == 1:
                problems.append(f"{doc_name}: a cycle: {' → '.join(path[path.index(nxt):] + [nxt])}")
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for node in sorted(allowed):
        if node not in state:
            visit(node, [node])
    return problems


def include_problems(src: pathlib.Path, allowed: dict[str, set[str]]) -> list[str]:
    problems = []
    for path in sorted(src.rglob("*")):
        if path.suffix not in (".cpp", ".hpp", ".h", ".cc") or not path.is_file():
            continue
        relative = path.relative_to(src)
        folder = relative.parts[0] if len(relative.parts) > 1 else relative.name
        if folder not in allowed:
            problems.append(f"src/{relative}: folder {folder} has no row in {doc_name}")
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            match = INCLUDE.match(line)
            if match and match.group(1) != folder and match.group(1) not in allowed[folder]:
                problems.append(f"src/{relative}:{number}: {folder} → {match.group(1)} is not an allowed arrow")
    return problems


def check(root: pathlib.Path) -> int:
    doc = root / "docs" / "architecture.md"
    allowed = read_table(doc)
    if not allowed:
        print(f"{doc_name}: no \"Allowed arrows\" table", file=sys.stderr)
        return 1
    problems = table_problems(allowed) + include_problems(root / "src", allowed)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"{len(problems)} problem(s): see {doc_name}, \"Allowed arrows\"", file=sys.stderr)
        return 1
    print(f"arrows: {len(allowed)} folders, every include allowed")
    return 0


def catches(root: pathlib.Path) -> int:
    """The check fails on a copy where util/ includes cli/ (an arrow no table allows)."""
    with tempfile.TemporaryDirectory() as scratch:
        copy = pathlib.Path(scratch)
        shutil.copytree(root / "src", copy / "src")
        (copy / "docs").mkdir()
        shutil.copy(root / "docs" / "architecture.md", copy / "docs" / "architecture.md")
        victim = copy / "src" / "util" / "text.cpp"
        lines = victim.read_text(encoding="utf-8").splitlines(keepends=True)
        lines.insert(1, '#include "cli/cli.hpp"\n')
        victim.write_text("".join(lines), encoding="utf-8")
        run = subprocess.run([sys.executable, __file__, str(copy)], capture_output=True, text=True)
    expected = "src/util/text.cpp:2: util → cli is not an allowed arrow"
    if run.returncode == 1 and expected in run.stderr:
        print(f"the check fails as it should: {expected}")
        return 0
    print(f"the check did not catch the injected include (exit {run.returncode}):\n{run.stdout}{run.stderr}",
          file=sys.stderr)
    return 1


doc_name = "docs/architecture.md"

if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--catches":
        sys.exit(catches(pathlib.Path(sys.argv[2])))
    if len(sys.argv) == 2:
        sys.exit(check(pathlib.Path(sys.argv[1])))
    print(__doc__, file=sys.stderr)
    sys.exit(2)
