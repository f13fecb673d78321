#!/usr/bin/env python3
"""What scripts/test-s3 asks of docs/export-and-mirrors.md and of the buckets, with the standard library only.

    s3check.py block GUIDE NAME VAR=VALUE...
        Prints the fenced block that follows `<!-- scripts/test-s3 runs this block: NAME -->` in
        GUIDE, as written, but for its first line that is not a comment: the reader's own
        values (`B=my-depot-bucket U=https://…`), replaced by the VAR=VALUE given, which must
        name the same variables in the same order.
    s3check.py keys URL
        Prints the keys of the bucket at URL, listed anonymously (ListObjectsV2), one a line.
    s3check.py headers ORIGIN FOLDER BUCKET_URL...
        For every file of the export FOLDER (dot names aside), compares the Content-Type,
        Content-Encoding (none, for a variant too: it is its own object) and Cache-Control each
        bucket answers to an anonymous GET with what ORIGIN (`depot serve`)
        answers for the same path. Prints the number of objects compared; each difference goes
        to standard error, and the exit status is then 1.

Requests go straight to the address given (no proxy). GET rather than HEAD: moto judges an
anonymous HEAD by an `s3:HeadObject` action no bucket policy can grant (AWS needs
`s3:GetObject` for both), so its HEAD answers 403 where its GET answers 200.
"""

import os
import re
import shlex
import sys
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ElementTree

opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def die(message):
    print(f"s3check: {message}", file=sys.stderr)
    sys.exit(2)


def block(guide, name, assignments):
    marker = f"<!-- scripts/test-s3 runs this block: {name} -->"
    lines = open(guide, encoding="utf-8").read().split("\n")
    found = [number for number, line in enumerate(lines) if line.strip() == marker]
    if len(found) != 1:
        die(f"{guide} has {len(found)} lines {marker}, not one")
    fence = re.match(r"^(\s*)```", lines[found[0] + 1]) if found[0] + 1 < len(lines) else None
    if not fence:
        die(f"{guide}: no fenced block right after {marker}")
    indent = fence.group(1)
    body = []
    for line in lines[found[0] + 2 :]:
        if line.strip() == "```":
            break
        if line and not line.startswith(indent):
            die(f"{guide}: the block {name} has a line left of its fence: {line!r}")
        body.append(line[len(indent) :])
    else:
        die(f"{guide}: the block {name} is not closed")
    values = next((number for number, line in enumerate(body) if line.strip() and not line.lstrip().startswith("#")), None)
    match = values is not None and re.fullmatch(r"((?:[A-Z][A-Z0-9_]*=\S+\s+)*[A-Z][A-Z0-9_]*=\S+)\s*(#.*)?", body[values])
    if not match:
        die(f"{guide}: the block {name} does not begin with its values (NAME=value ...)")
    names = [word.split("=", 1)[0] for word in match.group(1).split()]
    given = [assignment.split("=", 1) for assignment in assignments]
    if names != [variable for variable, _ in given]:
        die(f"{guide}: the block {name} sets {' '.join(names)}; scripts/test-s3 gives {' '.join(v for v, _ in given)}")
    body[values] = " ".join(f"{variable}={shlex.quote(value)}" for variable, value in given)
    print("\n".join(body))


def get(url):
    """(status, headers, body) of an anonymous GET."""
    try:
        with opener.open(urllib.request.Request(url), timeout=30) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def keys(url):
    namespace = {"s3": "http://s3.amazonaws.com/doc/2006-03-01/"}
    found, token = [], None
    while True:
        query = {"list-type": "2"} | ({"continuation-token": token} if token else {})
        status, _, body = get(f"{url}?{urllib.parse.urlencode(query)}")
        if status != 200:
            die(f"listing {url} anonymously answered {status}")
        tree = ElementTree.fromstring(body)
        found += [key.text for key in tree.findall("s3:Contents/s3:Key", namespace)]
        token = tree.findtext("s3:NextContinuationToken", namespaces=namespace)
        if tree.findtext("s3:IsTruncated", namespaces=namespace) != "true" or not token:
            break
    print("\n".join(sorted(found)))


def headers(origin, folder, buckets):
    paths = sorted(
        path
        for directory, _, names in os.walk(folder)
        for path in (os.path.relpath(os.path.join(directory, name), folder) for name in names)
        if not any(part.startswith(".") for part in path.split(os.sep))
    )
    differences = 0
    for path in paths:
        status, expected, _ = get(f"{origin}/{path}")
        if status != 200:
            die(f"the origin answered {status} for {path}")
        for bucket in buckets:
            status, answered, _ = get(f"{bucket}/{path}")
            for field in ("Content-Type", "Content-Encoding", "Cache-Control"):
                if status != 200 or answered.get(field) != expected.get(field):
                    differences += 1
                    print(f"{bucket}/{path}: {status}, {field} {answered.get(field)!r}; the origin sends {expected.get(field)!r}", file=sys.stderr)
    if differences:
        sys.exit(1)
    print(len(paths))


if __name__ == "__main__":
    command, arguments = (sys.argv[1], sys.argv[2:]) if len(sys.argv) > 1 else (None, [])
    if command == "block" and len(arguments) >= 3:
        block(arguments[0], arguments[1], arguments[2:])
    elif command == "keys" and len(arguments) == 1:
        keys(arguments[0])
    elif command == "headers" and len(arguments) >= 3:
        headers(arguments[0], arguments[1], arguments[2:])
    else:
        die("usage: s3check.py block GUIDE NAME VAR=VALUE... | keys URL | headers ORIGIN FOLDER BUCKET_URL...")
