#!/usr/bin/env python3
"""REDbot's checks of one answer, asked with the request fields given (REDbot's command line
sends none of its own choosing).

    redbotcheck.py URL [FIELD: VALUE]...

Prints REDbot's notes as text, then one line `bad: N` counting the notes REDbot rates bad;
exits 1 when there is any. Needs `pip install redbot` (scripts/setup installs it).
"""
import sys
from configparser import ConfigParser

import thor
from redbot.formatter import find_formatter
from redbot.resource import HttpResource
from redbot.type import StrHeaderListType


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: redbotcheck.py URL [FIELD: VALUE]...")
    url, fields = sys.argv[1], sys.argv[2:]
    headers: StrHeaderListType = [tuple(part.strip() for part in field.split(":", 1)) for field in fields]
    config = ConfigParser()
    config.read_dict({"redbot": {"enable_local_access": "True"}})
    resource = HttpResource(config["redbot"])
    resource.set_request(url, headers=headers)
    formatter = find_formatter("text", "text", False)(config["redbot"], resource, sys.stdout.write, {"tty_out": False, "descend": False})
    formatter.bind_resource(resource)

    @thor.events.on(formatter)
    def formatter_done():
        thor.stop()

    resource.check()
    thor.run()
    bad = [note for note in resource.response.notes if note.level.value == "bad"]
    print(f"\nbad: {len(bad)}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
