#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Checks the history page as the browser rendered it (render_history.sh).

usage: history_dom_check.py HISTORY_DOM

HISTORY_DOM is Chromium's dump of History.WritesTheHistoryForTheBrowserTest's history.html once loaded: 30
nightly reports, scan/chunk16@fp32 100x worse (and failing) from revision 21 on, scan/chunk32@fp32's
backward run crashed on night 25. From the DOM:
  - the page ran no script and has the title "scancheck history — nightly";
  - every tensor plot of scan/chunk16@fp32 (h, h_last, da, db, dh0) is an <svg class="trend"> with 30
    scaled-error dots, one per report 0..29; every dot of reports 20..29 lies above (smaller y than) every
    dot of reports 0..19, by at least 30 px between the closest two;
  - those plots carry a red failure marker on reports 20..29 and no other, each with a tooltip <title>
    "fail: <tensor>: bound ratio ... (<revision> <date>)";
  - scan/sequential@fp32's h stays flat (mean y before and after revision 20 within 15 px);
  - scan/chunk32@fp32's backward plots mark report 24 with "error: run failed: worker crashed: signal 11";
  - the x axis names every report by short revision and date.
Prints what it measured; exits 1 on the first failed check.
"""

import html.parser
import pathlib
import re
import sys

WORSE, STABLE, CRASHED = "scan/chunk16@fp32", "scan/sequential@fp32", "scan/chunk32@fp32"
REPORTS, WORSE_FROM = 30, 20
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children, self.text = tag, dict(attrs), parent, [], ""

    def classes(self):
        return self.attrs.get("class", "").split()

    def walk(self):
        yield self
        for child in self.children:
            yield from child.walk()

    def find_all(self, tag=None, cls=None):
        return [n for n in self.walk() if (tag is None or n.tag == tag) and (cls is None or cls in n.classes())]

    def all_text(self):
        return self.text + "".join(child.all_text() for child in self.children)


class Tree(html.parser.HTMLParser):
    """The element tree of a serialised DOM (every non-void element closed, as Chromium writes it)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", [], None)
        self.at = self.root

    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs, self.at)
        self.at.children.append(node)
        if tag not in VOID:
            self.at = node

    def handle_startendtag(self, tag, attrs):
        self.at.children.append(Node(tag, attrs, self.at))

    def handle_endtag(self, tag):
        node = self.at
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.at = node.parent

    def handle_data(self, data):
        self.at.text += data


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def plots(root, backend):
    return {
        svg.attrs.get("data-tensor"): svg
        for svg in root.find_all("svg", "trend")
        if svg.attrs.get("data-backend") == backend
    }


def error_dots(svg):
    """{report: cy} of the plot's scaled-error dots."""
    dots = {}
    for series in svg.find_all("g", "series"):
        if "error" in series.classes():
            for circle in series.find_all("circle", "point"):
                dots[int(circle.attrs["data-report"])] = float(circle.attrs["cy"])
    return dots


def markers(svg):
    """{report: tooltip} of the plot's failure markers."""
    out = {}
    for g in svg.find_all("g", "failure-marker"):
        titles = g.find_all("title")
        out[int(g.attrs["data-report"])] = titles[0].all_text() if titles else ""
    return out


def check_worse(root):
    worse = plots(root, WORSE)
    if sorted(worse) != sorted(["h", "h_last", "da", "db", "dh0"]):
        fail(f"{WORSE} has plots of {sorted(worse)}, expected h, h_last, da, db, dh0")
    for tensor, svg in sorted(worse.items()):
        dots = error_dots(svg)
        if sorted(dots) != list(range(REPORTS)):
            fail(f"{WORSE} {tensor}: error dots of reports {sorted(dots)}, expected one per report 0..{REPORTS - 1}")
        before = [y for r, y in dots.items() if r < WORSE_FROM]
        after = [y for r, y in dots.items() if r >= WORSE_FROM]
        gap = min(before) - max(after)  # y grows downwards: the lowest dot after above the highest before
        print(
            f"{WORSE} {tensor}: {len(dots)} dots, y {min(before):.1f}..{max(before):.1f} before revision "
            f"{WORSE_FROM}, {min(after):.1f}..{max(after):.1f} after: rises by at least {gap:.1f} px"
        )
        if gap < 30:
            fail(f"{WORSE} {tensor}: the dots after revision {WORSE_FROM} do not all lie 30 px above those before")
        marks = markers(svg)
        if sorted(marks) != list(range(WORSE_FROM, REPORTS)):
            fail(f"{WORSE} {tensor}: failure markers on reports {sorted(marks)}, expected {WORSE_FROM}..{REPORTS - 1}")
        for report, tooltip in marks.items():
            if not re.fullmatch(
                rf"fail: {re.escape(tensor)}: bound ratio [\d.]+ > 4 at \[0, 2, 1\] \(\w+\+? [\d-]+\)", tooltip
            ):
                fail(f"{WORSE} {tensor}: report {report}'s marker says '{tooltip}'")


def check_stable(root):
    dots = error_dots(plots(root, STABLE).get("h") or fail(f"no plot of {STABLE} h"))
    before = [y for r, y in dots.items() if r < WORSE_FROM]
    after = [y for r, y in dots.items() if r >= WORSE_FROM]
    if len(dots) != REPORTS or abs(sum(before) / len(before) - sum(after) / len(after)) > 15:
        fail(f"{STABLE} h is not flat: {dots}")
    if any(markers(svg) for svg in plots(root, STABLE).values()):
        fail(f"{STABLE} never failed but its plots carry failure markers")
    print(f"{STABLE} h: flat, no failure marker")


def check_crash(root):
    crashed = plots(root, CRASHED)
    for tensor in ("da", "db", "dh0"):
        marks = markers(crashed.get(tensor) or fail(f"no plot of {CRASHED} {tensor}"))
        if list(marks) != [24] or not marks[24].startswith("error: run failed: worker crashed: signal 11 ("):
            fail(f"{CRASHED} {tensor}: markers {marks}, expected report 24's crash")
    print(f"{CRASHED}: the crash of report 24 marked on its backward plots")


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    tree = Tree()
    tree.feed(pathlib.Path(sys.argv[1]).read_text(encoding="utf-8"))
    root = tree.root
    title = next((n.all_text() for n in root.find_all("title") if n.parent.tag == "head"), "")
    if title != "scancheck history — nightly":
        fail(f"the page's title is '{title}'")
    if root.find_all("script"):
        fail("the page holds a script element")
    check_worse(root)
    check_stable(root)
    check_crash(root)
    labels = [n.all_text() for n in root.find_all("text", "revision")]
    if not labels or not all(re.fullmatch(r"\w{7}\+? 2024-06-\d\d", label) for label in labels):
        fail(f"x axis labels {labels[:5]}... are not 'revision date'")
    plot_count, marker_count = len(root.find_all("svg", "trend")), len(root.find_all("g", "failure-marker"))
    print(f"ok: {plot_count} plots, {marker_count} failure markers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
