"""Checks that report text from outside rendered as text (render_hostile_html.sh).

usage: hostile_text_check.py REPORT_DOM REPORT_MD CONTROL_DOM...

REPORT_DOM is Chromium's dump of the hostile report.html once loaded: its <title> must not be PWNED, it
must hold no script or img element and no event-handler attribute, and its text must show the payloads
as written. REPORT_MD is the same report's report.md: no tag of the payloads, and every line of a table
has as many column separators (a '|' without an odd run of backslashes before it) as the table's header.
Each CONTROL_DOM is the dump of a page holding a payload unescaped, which must have come out PWNED: else
this browser runs no script and the check would pass vacuously.

Where cmark-gfm (GitHub's Markdown parser; Debian's cmark-gfm) is installed, report.md is also rendered as
GitHub does, inline HTML allowed: only the elements report.md writes may come out (no emphasis, code,
link or image of the payloads), the payloads show as text, and a table cell keeps its '|'.
"""

import html.parser
import pathlib
import re
import shutil
import subprocess
import sys

SCRIPT = "<script>document.title='PWNED'</script>"
IMAGE = "<img src=x onerror=\"document.title='PWNED'\">"
# The foreign backend of UntrustedText's report: Markdown emphasis if unescaped.
BACKEND = "pwn-ed_:rglru/_PWNED_.x+y-@fp32"


class Dom(html.parser.HTMLParser):
    """The elements, attributes, <title>, table cells and text of a page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.handlers, self.text, self.title, self.cells = set(), [], [], "", []
        self._in_title = self._in_cell = False

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.handlers += [f"<{tag} {name}>" for name, _ in attrs if name.startswith("on")]
        self._in_title = tag == "title" and not self.title
        if tag in ("td", "th"):
            self._in_cell = True
            self.cells.append("")

    def handle_endtag(self, tag):
        self._in_title = False
        self._in_cell = self._in_cell and tag not in ("td", "th")

    def handle_data(self, data):
        self.text.append(data)
        if self._in_title:
            self.title += data
        if self._in_cell:
            self.cells[-1] += data


def parse(path, text=None):
    dom = Dom()
    dom.feed(pathlib.Path(path).read_text(encoding="utf-8") if text is None else text)
    return dom


def column_separators(line):
    return len(re.findall(r"(?<!\\)(?:\\\\)*\|", line))


def markdown_problems(md):
    tags = re.finditer(r"<(?!/?(details|summary)\b)[/!]?[A-Za-z]", md)
    problems = [f"report.md holds a tag: {m.group(0)}" for m in tags]
    header, tables = None, 0
    for line in md.splitlines():
        if not line.startswith("|"):
            header = None
            continue
        if header is None:
            header, tables = column_separators(line), tables + 1
        if column_separators(line) != header:
            problems.append(
                f"report.md table line of {column_separators(line)} column separators, not {header}: {line}"
            )
    if tables < 2:
        problems.append(f"report.md has {tables} tables, not the facts and a verdict table")
    if "| pwn-ed\\_:rglru/\\_PWNED\\_.x+y-@fp32 |" not in md:
        problems.append("report.md has no table row of the foreign backend, escaped")
    return problems


def rendered_markdown_problems(md_path):
    cmark = shutil.which("cmark-gfm")
    if cmark is None:
        print("cmark-gfm is not installed: report.md was not rendered (Debian: apt-get install cmark-gfm)")
        return []
    rendered = subprocess.run(
        [cmark, "--unsafe", "-e", "table", "-e", "strikethrough", "-e", "autolink", md_path],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    dom = parse(md_path, rendered)
    written = {
        "h1",
        "h2",
        "h3",
        "p",
        "strong",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "ul",
        "li",
        "br",
        "details",
        "summary",
    }
    problems = [f"report.md renders a <{tag}> element" for tag in sorted(dom.tags - written)]
    text = "".join(dom.text)
    label = SCRIPT + " | *bold* [x](javascript:alert(1))"
    for payload in (label, SCRIPT, IMAGE, BACKEND):
        if payload not in text:
            problems.append(f"report.md does not render {payload!r} as text")
    if not any(("{pwn,evil}:*|" + SCRIPT) in cell for cell in dom.cells):
        problems.append("report.md's method cell lost its '|' to a column")
    print(f"rendered report.md with {cmark}")
    return problems


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    for control in sys.argv[3:]:
        if parse(control).title != "PWNED":
            print(
                f"the control page {control} did not come out PWNED: this browser ran no script, "
                "so it cannot tell whether the report runs one"
            )
            return 1
    dom = parse(sys.argv[1])
    text = "".join(dom.text)
    problems = []
    # The title shows the label, payload and all, as text; a script that ran made it PWNED.
    if dom.title == "PWNED" or not dom.title.startswith("scancheck tolerance report"):
        problems.append(f"a script ran: the page's title is {dom.title!r}")
    problems += [
        f"the page holds a <{tag}> element" for tag in ("script", "img", "iframe", "object") if tag in dom.tags
    ]
    problems += [f"the page holds an event handler: {h}" for h in dom.handlers]
    for payload in (SCRIPT, IMAGE, BACKEND):
        if payload not in text:
            problems.append(f"the page does not show {payload!r} as text")
    problems += markdown_problems(pathlib.Path(sys.argv[2]).read_text(encoding="utf-8"))
    problems += rendered_markdown_problems(sys.argv[2])
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"no script ran (title {dom.title!r}); the payloads show as text; report.md's tables keep their columns")
    return 0


if __name__ == "__main__":
    sys.exit(main())
