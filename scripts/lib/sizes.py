#!/usr/bin/env python3
"""Sizes of Swift source: files over a line limit, functions (func, init, deinit, subscript,
accessors aside) over another, and types with more methods than a budget. Used by scripts/test (the limits of issue 42 for the targets that
do I/O and grow fastest) and by hand:

    scripts/lib/sizes.py check Sources/DepotStore Client/Sources/DepotClient Sources/DepotServer
    scripts/lib/sizes.py report Client/Sources/DepotClient the longest functions, and lines per folder

A small brace counter, written by hand: no Swift parser is on the machine's package list for
Python, and swift-syntax would make the lint step build a tool first. It skips comments and
string literals (single-line and multi-line), which is all Depot's code needs of it.

A type's methods are its `func`, `init` and `subscript` declarations, static ones too, in its
body and in every extension of it in the roots checked (issue 59: a type split over small files
is still one type; Hummingbird's and GRDB's types keep well under the budget). A nested type
counts apart, by its full name (`Outer.Inner`).

Exceptions are listed in scripts/lib/sizes-exceptions, one `path`, `path:function` or
`type:Name` a line,
each with a reason after `#`; the check fails on an exception that no longer exceeds its limit,
so the list only shrinks."""

import os, re, sys

FILE_LIMIT = 300
FUNCTION_LIMIT = 60
METHOD_BUDGET = 25
TYPE = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|package|final|indirect|nonisolated)\s+)*"
    r"(struct|class|enum|actor|extension|protocol)\s+([\w.]+)"
)
DECLARATION = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|package|static|class|override|mutating|"
    r"nonisolated|final|convenience|required|dynamic|@inlinable|@usableFromInline)\s+)*"
    r"(func\s+([^\s(<]+)|init[?!]?\s*[(<]|deinit\b|subscript\s*[(<])"
)


def code_lines(text):
    """The lines of `text` with comments and string literals blanked out, keeping line numbers."""
    out, in_block, in_multiline = [], 0, False
    for line in text.split("\n"):
        result, i = [], 0
        while i < len(line):
            if in_multiline:
                end = line.find('"""', i)
                if end < 0:
                    i = len(line)
                else:
                    in_multiline, i = False, end + 3
                continue
            if in_block:
                if line.startswith("*/", i):
                    in_block, i = in_block - 1, i + 2
                elif line.startswith("/*", i):
                    in_block, i = in_block + 1, i + 2
                else:
                    i += 1
                continue
            if line.startswith("//", i):
                break
            if line.startswith("/*", i):
                in_block, i = 1, i + 2
                continue
            if line.startswith('"""', i):
                in_multiline, i = True, i + 3
                continue
            if line[i] == '"':
                i += 1
                depth = 0  # parentheses of an interpolation
                while i < len(line):
                    if line[i] == "\\" and i + 1 < len(line) and line[i + 1] == "(":
                        depth, i = depth + 1, i + 2
                    elif line[i] == "\\":
                        i += 2
                    elif depth and line[i] == "(":
                        depth, i = depth + 1, i + 1
                    elif depth and line[i] == ")":
                        depth, i = depth - 1, i + 1
                    elif line[i] == '"' and not depth:
                        i += 1
                        break
                    else:
                        i += 1
                result.append('""')
                continue
            result.append(line[i])
            i += 1
        out.append("".join(result))
    return out


def functions(path):
    """(name, first line, length in lines) of each function with a body in the file."""
    lines = code_lines(open(path, encoding="utf-8").read())
    found = []
    for number, line in enumerate(lines):
        match = DECLARATION.match(line)
        if not match:
            continue
        name = match.group(2) or match.group(1).split("(")[0].split("<")[0].strip()
        depth, opened, end = 0, False, None
        for index in range(number, len(lines)):
            text = lines[index]
            if index > number and not opened and DECLARATION.match(text):
                break  # a requirement without a body
            for char in text:
                if char == "{":
                    depth, opened = depth + 1, True
                elif char == "}":
                    depth -= 1
                    if opened and depth == 0:
                        end = index
                        break
            if end is not None:
                break
        if end is not None:
            found.append((name, number + 1, end - number + 1))
    return found


def methods(path):
    """(type name, declaration line) of each method declared directly in a type's or an
    extension's body; protocols' requirements are not a type's methods."""
    lines = code_lines(open(path, encoding="utf-8").read())
    found, stack, depth, pending = [], [], 0, None  # stack: (name, depth inside its body, counted)
    for number, line in enumerate(lines):
        match = TYPE.match(line)
        if match and match.group(2) not in ("func", "var", "let", "subscript"):  # `class func` is a method
            kind, name = match.group(1), match.group(2)
            outer = stack[-1][0] if stack and kind != "extension" else None
            pending = (f"{outer}.{name}" if outer else name, kind != "protocol")
        elif DECLARATION.match(line) and stack and stack[-1][1] == depth and stack[-1][2]:
            found.append((stack[-1][0], number + 1))
        for char in line:
            if char == "{":
                depth += 1
                if pending:
                    stack.append((pending[0], depth, pending[1]))
                    pending = None
            elif char == "}":
                if stack and stack[-1][1] == depth:
                    stack.pop()
                depth -= 1
    return found


def swift_files(roots):
    for root in roots:
        for folder, _, names in os.walk(root):
            for name in sorted(names):
                if name.endswith(".swift"):
                    yield os.path.join(folder, name)


def exceptions(path):
    listed = {}
    if os.path.exists(path):
        for line in open(path, encoding="utf-8"):
            entry = line.split("#")[0].strip()
            if entry:
                listed[entry] = line.split("#", 1)[1].strip() if "#" in line else ""
    return listed


def check(roots):
    listed = exceptions(os.path.join(os.path.dirname(__file__), "sizes-exceptions"))
    problems, used = [], set()
    for path in swift_files(roots):
        count = open(path, encoding="utf-8").read().count("\n")
        if count > FILE_LIMIT:
            if path in listed:
                used.add(path)
            else:
                problems.append(f"{path}: {count} lines, over {FILE_LIMIT}")
        for name, line, length in functions(path):
            if length > FUNCTION_LIMIT:
                key = f"{path}:{name}"
                if key in listed:
                    used.add(key)
                else:
                    problems.append(f"{path}:{line}: {name} is {length} lines, over {FUNCTION_LIMIT}")
    counts, first = {}, {}
    for path in swift_files(roots):
        for name, line in methods(path):
            counts[name] = counts.get(name, 0) + 1
            first.setdefault(name, f"{path}:{line}")
    for name, count in sorted(counts.items()):
        key = f"type:{name}"
        if count > METHOD_BUDGET:
            if key in listed:
                used.add(key)
            else:
                problems.append(f"{first[name]}: {name} has {count} methods, over {METHOD_BUDGET} (its body and extensions)")
        elif key in listed:
            problems.append(f"scripts/lib/sizes-exceptions lists {key}, which is within its budget now: remove the line")
    for key in listed:
        if key not in used and any(key.startswith(root.rstrip("/") + "/") for root in roots):
            problems.append(f"scripts/lib/sizes-exceptions lists {key}, which is within its limit now: remove the line")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


def report(roots):
    rows = []
    for path in swift_files(roots):
        rows += [(length, f"{path}:{line} {name}") for name, line, length in functions(path)]
    for length, where in sorted(rows, reverse=True)[:10]:
        print(f"{length:5} {where}")
    folders = {}
    counts = {}
    for path in swift_files(roots):
        for name, _ in methods(path):
            counts[name] = counts.get(name, 0) + 1
    for name, count in sorted(counts.items(), key=lambda item: -item[1])[:10]:
        print(f"{count:5} methods  {name}")
    for path in swift_files(roots):
        folder = os.path.dirname(path)
        lines, files = folders.get(folder, (0, 0))
        folders[folder] = (lines + open(path, encoding="utf-8").read().count("\n"), files + 1)
    for folder, (lines, files) in sorted(folders.items()):
        print(f"{lines:6} lines {files:3} files  {folder}")


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("check", "report"):
        print(__doc__)
        sys.exit(2)
    sys.exit(check(sys.argv[2:]) if sys.argv[1] == "check" else report(sys.argv[2:]))
