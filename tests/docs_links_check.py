#!/usr/bin/env python3
"""Every relative link of the repository's Markdown files names a file that exists and, with a
`#fragment`, a heading of that file (GitHub's anchors: lower case, punctuation but `-` and `_`
left out, spaces as `-`, a repeated heading numbered `-1`, `-2`, …).

    docs_links_check.py ROOT             checks every Markdown file git knows of under ROOT
    docs_links_check.py --catches ROOT   checks that the check fails: a copy of ROOT's Markdown
                                         files with a link to a heading that is not there

Exit 0 when every link resolves; 1 with one line per link that does not (file:line: the link).
docs/decisions.md keeps the headings of the decisions that moved to docs/decisions/, so that
links to docs/decisions.md#… from outside the repository resolve too; this check keeps the links
inside it honest.
"""

import collections
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

LINK = re.compile(r"\[[^\]]*\]\(([^()\s]+)\)")


def anchor(heading: str) -> str:
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: pathlib.Path) -> set[str]:
    seen: collections.Counter[str] = collections.Counter()
    found = set()
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        heading = None if fenced else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            name = anchor(heading.group(1))
            found.add(name if seen[name] == 0 else f"{name}-{seen[name]}")
            seen[name] += 1
    return found


def markdown_files(root: pathlib.Path) -> list[str]:
    """The Markdown files git knows of (tracked or new, not ignored); without git, every one found
    outside hidden and build folders."""
    try:
        run = subprocess.run(["git", "-C", str(root), "ls-files", "-co", "--exclude-standard", "*.md"],
                             capture_output=True, text=True)
        if run.returncode == 0:
            return run.stdout.split()
    except OSError:
        pass
    found = (path.relative_to(root) for path in root.rglob("*.md"))
    return sorted(str(path) for path in found
                  if not any(part.startswith((".", "build")) for part in path.parts))


def check(root: pathlib.Path, listed: list[str]) -> int:
    cache: dict[pathlib.Path, set[str]] = {}
    problems = []
    count = 0
    for name in listed:
        path = root / name
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        # code spans and fenced blocks hold no links
        text = re.sub(r"```.*?```", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
        text = re.sub(r"`[^`\n]*`", "", text)
        for match in LINK.finditer(text):
            target = match.group(1)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
                continue
            line = text.count("\n", 0, match.start()) + 1
            file_part, _, fragment = target.partition("#")
            dest = (path.parent / file_part).resolve() if file_part else path.resolve()
            count += 1
            if not dest.exists():
                problems.append(f"{name}:{line}: {target}: no such file")
            elif fragment and dest.suffix == ".md":
                if dest not in cache:
                    cache[dest] = anchors(dest)
                if fragment not in cache[dest]:
                    problems.append(f"{name}:{line}: {target}: no such heading")
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"docs links: {count} relative links in {len(listed)} Markdown files, {len(problems)} broken")
    return 1 if problems else 0


def catches(root: pathlib.Path) -> int:
    """The check fails on a copy where README.md links a heading docs/decisions.md does not have."""
    listed = markdown_files(root)
    with tempfile.TemporaryDirectory() as scratch:
        copy = pathlib.Path(scratch)
        for name in listed:
            if (root / name).is_file():
                (copy / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(root / name, copy / name)
        readme = copy / "README.md"
        readme.write_text(readme.read_text(encoding="utf-8") + "\n[gone](docs/decisions.md#no-such-decision)\n",
                          encoding="utf-8")
        run = subprocess.run([sys.executable, __file__, "--files", str(copy), *listed],
                             capture_output=True, text=True)
    expected = "docs/decisions.md#no-such-decision: no such heading"
    if run.returncode == 1 and expected in run.stderr:
        print(f"the check fails as it should: {expected}")
        return 0
    print(f"the check did not catch the broken link (exit {run.returncode}):\n{run.stdout}{run.stderr}",
          file=sys.stderr)
    return 1


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--catches":
        sys.exit(catches(pathlib.Path(sys.argv[2])))
    if len(sys.argv) >= 3 and sys.argv[1] == "--files":  # the copy --catches made, which git does not know
        sys.exit(check(pathlib.Path(sys.argv[2]), sys.argv[3:]))
    if len(sys.argv) == 2:
        root = pathlib.Path(sys.argv[1])
        sys.exit(check(root, markdown_files(root)))
    print(__doc__, file=sys.stderr)
    sys.exit(2)
