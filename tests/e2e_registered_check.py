#!/usr/bin/env python3
"""Every tests/e2e/test_e2e_*.cpp is run by some ctest test.

The e2e binary holds every file, but ctest runs it one file at a time (--source-file=…), so a file
left out of tests/e2e/CMakeLists.txt compiles and never runs: three did, for weeks.
  tests/e2e_registered_check.py SOURCE_DIR BUILD_DIR
"""
import json
import pathlib
import subprocess
import sys


def main() -> int:
    source, build = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    shown = subprocess.run(["ctest", "--show-only=json-v1"], cwd=build, capture_output=True, text=True, check=True)
    commands = [" ".join(test.get("command", [])) for test in json.loads(shown.stdout).get("tests", [])]
    files = sorted(p.name for p in (source / "tests" / "e2e").glob("test_e2e_*.cpp"))
    missing = [name for name in files if not any(f"--source-file=*{name}" in command for command in commands)]
    for name in missing:
        print(f"tests/e2e/{name} is run by no ctest test: add it to tests/e2e/CMakeLists.txt", file=sys.stderr)
    if not files:
        print("no tests/e2e/test_e2e_*.cpp found under " + str(source), file=sys.stderr)
        return 1
    print(f"{len(files) - len(missing)} of {len(files)} e2e files run by ctest")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
