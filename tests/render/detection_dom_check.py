#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Checks that every verdict table of a rendered report.html says what its verdicts could have seen.

usage: detection_dom_check.py REPORT_DOM

REPORT_DOM is Chromium's dump of report.html once loaded (render_html.sh). Each table of the verdicts
section must have the columns "detects: bound rule", "detects: ensemble rule" and "loosest", and every
backend's line must show, in them, a threshold in ulps with its relative error, the ensemble rule's no
larger than the bound rule's, and the loosest tensor with its case. Prints what it found either way.
"""

import html.parser
import re
import sys

ULP = re.compile(r"^([0-9.e+-]+) ulp\s*([0-9.e+-]+) rel\.$")
LOOSEST = re.compile(r"^([0-9.e+-]+) / ([0-9.e+-]+|-) ulp: \S+ (forward|backward) on c[0-9]+$")


class Tables(html.parser.HTMLParser):
    """The tables inside <section id="verdict-table">: header cells and rows of cell texts."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables, self._in_section, self._cell = [], False, None

    def handle_starttag(self, tag, attrs):
        if tag == "section":
            self._in_section = dict(attrs).get("id") == "verdict-table"
        if not self._in_section:
            return
        if tag == "table":
            self.tables.append({"header": [], "rows": []})
        elif tag == "tr" and self.tables:
            self.tables[-1]["rows"].append([])
        elif tag in ("td", "th") and self.tables:
            self._cell = ""

    def handle_endtag(self, tag):
        if tag == "section":
            self._in_section = False
        if tag in ("td", "th") and self._cell is not None and self.tables:
            table = self.tables[-1]
            (table["header"] if tag == "th" else table["rows"][-1]).append(" ".join(self._cell.split()))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data


def check(dom):
    parser = Tables()
    parser.feed(dom)
    if not parser.tables:
        return ["no verdict table in the page"]
    problems, lines = [], 0
    for table in parser.tables:
        header = table["header"]
        columns = ["detects: bound rule", "detects: ensemble rule", "loosest"]
        if not all(c in header for c in columns):
            problems.append(f"a verdict table lacks the detection columns: {header}")
            continue
        bound, ensemble, loosest = (header.index(c) for c in columns)
        for row in (r for r in table["rows"] if r):
            lines += 1
            b, e = ULP.match(row[bound]), ULP.match(row[ensemble])
            if not b or not e:
                problems.append(f"{row[0]}: no threshold in ulps and relative: {row[bound]!r}, {row[ensemble]!r}")
            elif float(e.group(1)) > float(b.group(1)):
                problems.append(f"{row[0]}: the ensemble rule's threshold exceeds the bound rule's: {row}")
            if not LOOSEST.match(row[loosest]):
                problems.append(f"{row[0]}: no loosest tensor and case: {row[loosest]!r}")
    print(f"{len(parser.tables)} verdict tables, {lines} backend lines checked for their detection thresholds")
    return problems


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        problems = check(f.read())
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
