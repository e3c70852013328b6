"""The README's and the docs pages' code runs and prints what they show.

Every ```python block of README.md, then of each page of docs/ (in the order of mkdocs.yml's
nav, pages not in the nav last), runs in order in one namespace (like a notebook: a page may use
what the README or an earlier page defined):

- a block of ``>>>`` lines is a doctest: each shown result is compared with what the statement
  prints and its value (``<BLANKLINE>`` for an empty line; ``# doctest: +ELLIPSIS`` lets ``...``
  match anything; a shown ``Traceback`` compares the exception line);
- any other python block followed directly by a plain ``` block: what it prints, then the
  value of its last line, is compared with that block (a frame as Polars prints it; the "shape:" line and the dtype
  row only if the README shows them);
- a line ``expression   # 87.54`` inside a block: the value, rounded to the digits shown;
- the ``$ polars-sdc ...`` output block: the command is run, every line compared (the
  ``time`` line only by its form);
- the census table "SSE/SST in percent": every cell is recomputed.

A block that needs files the reader has (``people.parquet`` ...) is skipped, by the
substrings in ``SKIP``. A failure names the README line, what the README shows and what the
code gives now, so a README number that changed on purpose (new noise, a new method) is
updated by copying the "got" text. To print every block's current output with its README
line numbers: ``PYTHONPATH=$PWD python tests/test_readme.py``.
"""
from __future__ import annotations

import ast
import contextlib
import doctest
import io
import math
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def doc_pages() -> list[Path]:
    """docs/*.md in the order of mkdocs.yml's nav (then any page the nav does not list)."""
    docs = ROOT / "docs"
    nav = re.findall(r"([\w./-]+\.md)\s*$", (ROOT / "mkdocs.yml").read_text(), flags=re.M) \
        if (ROOT / "mkdocs.yml").exists() else []
    ordered = [docs / n for n in nav if (docs / n).exists()]
    return ordered + sorted(p for p in docs.rglob("*.md") if p not in ordered)
# blocks about the reader's own files, and the Spark tour and cluster set-up (a cluster session, which
# would also outlive the block in this process; tests/test_spark.py
# runs the same calls in Spark local mode)
SKIP = ("people.parquet", "people.csv", "sdcs.", "SparkSession.builder")
FLOAT_REL = 1e-12  # a shown float (full repr) and the value agree to this relative error


@dataclass
class Block:
    lang: str
    line: int  # README line of the block's first content line (1-based)
    text: str

    @property
    def lines(self) -> list[str]:
        return self.text.splitlines()


def parse_blocks(text: str) -> list[Block]:
    """Fenced blocks in order, with the README line where each one's content starts."""
    blocks, lang, start, buf = [], None, 0, []
    for no, line in enumerate(text.splitlines(), 1):
        fence = re.match(r"^```(\w*)\s*$", line)
        if fence and lang is None:
            lang, start, buf = fence.group(1), no + 1, []
        elif line.strip() == "```" and lang is not None:
            blocks.append(Block(lang, start, "\n".join(buf)))
            lang = None
        elif lang is not None:
            buf.append(line)
    return blocks


# -- rendering and comparing ------------------------------------------------------------------
def render(value, expected: str) -> str:
    """``value`` as the README shows it: frames as Polars prints them, in the README's style."""
    if isinstance(value, (pl.DataFrame, pl.Series)):
        hide_types = not any(set(line.strip(" │┆")) == {"-"} or "---" in line for line in expected.splitlines())
        hide_shape = not expected.lstrip().startswith("shape:")
        with pl.Config(tbl_hide_dataframe_shape=hide_shape, tbl_hide_column_data_types=hide_types, tbl_rows=50):
            return str(value)
    if isinstance(value, str):
        return value
    return repr(value)


def _same_line(want: str, got: str) -> bool:
    if want.rstrip() == got.rstrip():
        return True
    try:
        w, g = float(want), float(got)
    except ValueError:
        return False
    return math.isclose(w, g, rel_tol=FLOAT_REL, abs_tol=0.0)


def diff(where: str, first_line: int, want: str, got: str, page: str = "README.md") -> list[str]:
    """One message per differing line: the page's line number, shown text, current text."""
    W, G = want.splitlines(), got.splitlines()
    out = []
    for i in range(max(len(W), len(G))):
        w = W[i] if i < len(W) else "<nothing>"
        g = G[i] if i < len(G) else "<nothing>"
        if not _same_line(w, g):
            out.append(f"{page} line {first_line + i} ({where}):\n    README shows: {w}\n    code gives:   {g}")
    if out:
        out.append(f"current text for {where} (to paste into the README):\n" + got)
    return out


# -- running blocks ---------------------------------------------------------------------------
def run_cell(source: str, env: dict, first_line: int, page: str = "README.md"):
    """Exec a block like a notebook cell; return the value of a final expression (or None).
    Lines of the form ``expr  # number`` are checked on the way; their mismatches returned."""
    tree = ast.parse(source)
    problems = []
    src_lines = source.splitlines()
    last = None
    for k, node in enumerate(tree.body):
        is_last = k == len(tree.body) - 1
        if isinstance(node, ast.Expr):
            value = eval(compile(ast.Expression(node.value), README.name, "eval"), env)
            comment = re.search(r"#\s*(-?\d+(?:\.\d+)?)\s*$", src_lines[node.end_lineno - 1])
            if comment:
                shown = comment.group(1)
                digits = len(shown.split(".")[1]) if "." in shown else 0
                got = f"{float(value):.{digits}f}"
                if got != shown:
                    problems.append(f"{page} line {first_line + node.end_lineno - 1}: "
                                    f"`{ast.unparse(node.value)}` is shown as {shown}, the code gives {got}")
            if is_last:
                last = value
        else:
            exec(compile(ast.Module([node], []), README.name, "exec"), env)
    return last, problems


def run_doctest_block(block: Block, env: dict, page: str = "README.md") -> list[str]:
    """``>>>`` statements with their shown results."""
    problems, lines, i = [], block.lines, 0
    while i < len(lines):
        if not lines[i].startswith(">>> "):
            i += 1
            continue
        start, stmt = i, [lines[i][4:]]
        i += 1
        while i < len(lines) and lines[i].startswith("... "):
            stmt.append(lines[i][4:])
            i += 1
        want = []
        while i < len(lines) and not lines[i].startswith(">>> ") and lines[i].strip():
            want.append(lines[i])
            i += 1
        code = "\n".join(stmt)
        ellipsis = "doctest: +ELLIPSIS" in code
        code = re.sub(r"\s+#[^\n'\"]*$", "", code)
        printed = io.StringIO()
        try:
            with contextlib.redirect_stdout(printed):
                try:
                    value = eval(compile(code, README.name, "eval"), env)
                except SyntaxError:  # a statement: "single" shows an expression's value, as doctest does
                    try:
                        compiled = compile(code, README.name, "single")
                    except SyntaxError:
                        compiled = compile(code, README.name, "exec")
                    exec(compiled, env)
                    value = None
        except Exception as e:  # shown as doctest shows it: the exception line is compared
            if not (want and want[0].startswith("Traceback (most recent call last)")):
                raise
            name = type(e).__qualname__ if type(e).__module__ == "builtins" else f"{type(e).__module__}.{type(e).__qualname__}"
            got = "\n".join([want[0], "...", f"{name}: {e}"])
            want = [want[0], "...", want[-1]]
            problems += diff(f"`{code}`", block.line + start + 1, "\n".join(want), got, page)
            continue
        out = printed.getvalue()
        out = out[:-1] if out.endswith("\n") else out  # print's newline; a blank line shows as <BLANKLINE>
        got = "\n".join(x if x.strip() else "<BLANKLINE>" for x in out.split("\n")) if out else ""
        if value is not None:
            got = (got + "\n" if got else "") + render(value, "\n".join(want))
        if ellipsis and doctest.OutputChecker().check_output("\n".join(want) + "\n", got + "\n", doctest.ELLIPSIS):
            continue
        problems += diff(f"`{code}`", block.line + start + 1, "\n".join(want), got, page)
    return problems


def run_cli_block(block: Block, page: str = "README.md") -> list[str]:
    """A ``$ polars-sdc ...`` transcript: run the command, compare every line (time: its form)."""
    import shlex

    from polars_sdc import cli

    argv = shlex.split(block.lines[0][2:])[1:]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = cli.main(argv)
    got = buf.getvalue().rstrip("\n")
    want = "\n".join(block.lines[1:])
    mask = lambda s: re.sub(r"^(\s*time\s+)\d+\.\d{3} s$", r"\1<t> s", s, flags=re.M)  # noqa: E731
    problems = [] if code == 0 else [f"{page} line {block.line}: `{block.lines[0][2:]}` exited with {code}"]
    return problems + diff(f"`{block.lines[0][2:]}`", block.line + 1, mask(want), mask(got), page)


def readme_problems(show: bool = False, text: str | None = None, env: dict | None = None,
                    page: str = "README.md") -> list[str]:
    """Run the README (or ``text``); every mismatch as a message (``show``: print each output)."""
    blocks = parse_blocks(README.read_text() if text is None else text)
    env = {"__name__": "__readme__"} if env is None else env
    problems: list[str] = []
    for b, nxt in zip(blocks, blocks[1:] + [None]):
        if b.lang == "" and b.lines and b.lines[0].startswith("$ polars-sdc "):
            problems += run_cli_block(b, page)
            continue
        if b.lang != "python" or any(s in b.text for s in SKIP):
            continue
        if b.text.lstrip().startswith(">>>"):
            found = run_doctest_block(b, env, page)
            problems += found
            if show:
                print(f"--- {page} line {b.line}: doctest block, {len(found)} difference(s)")
            continue
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            value, found = run_cell(b.text, env, b.line, page)
        problems += found
        if nxt is not None and nxt.lang == "" and (value is not None or printed.getvalue()):
            got = printed.getvalue() + ("" if value is None else render(value, nxt.text))
            got = got.rstrip("\n")
            problems += diff(f"the output of the block at line {b.line}", nxt.line, nxt.text, got, page)
            if show:
                print(f"--- {page} line {nxt.line} (output of the block at line {b.line}):\n{got}")
    return problems


def book_problems(show: bool = False) -> list[str]:
    """The README, then every docs page, in one namespace; every mismatch as a message."""
    env: dict = {"__name__": "__readme__"}
    problems = readme_problems(show, env=env)
    for path in doc_pages():
        page = path.relative_to(ROOT).as_posix()
        problems += readme_problems(show, text=path.read_text(), env=env, page=page)
    return problems


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the CLI demo writes its file here
    return tmp_path


@pytest.mark.filterwarnings("error::polars_sdc._signature.SDCDeprecationWarning")   # no old name (tests/test_naming.py)
def test_readme_and_docs_blocks_print_what_they_show(in_tmp):
    problems = book_problems()
    assert not problems, "\n".join(problems)


def test_docs_pages_are_all_in_the_book():
    pages = doc_pages()
    assert sorted(pages) == sorted((ROOT / "docs").rglob("*.md")) and len(set(pages)) == len(pages)
    assert len(pages) >= 8


def test_checker_reports_each_changed_line():
    # a small README in the same style, with three wrong outputs and one right one
    text = "\n".join([
        "# t", "```python", ">>> 2 * 3", "7", ">>> x = 0.1 + 0.2", ">>> x", "0.30000000000000004", "```",
        "```python", "import polars as pl", "y = 2.0 ** 0.5   # 1.41", "y * y     # 2.01", "```",
        "```python", 'pl.DataFrame({"a": [1, 2]})', "```", "```",
        "┌─────┐", "│ a   │", "│ --- │", "│ i64 │", "╞═════╡", "│ 1   │", "│ 3   │", "└─────┘", "```",
        "```python", 'print("ok")', "```", "```", "ok", "```",
    ])
    problems = readme_problems(text=text)
    assert len([p for p in problems if p.startswith("README.md line")]) == 3, problems
    assert "README.md line 4 (`2 * 3`)" in problems[0] and "code gives:   6" in problems[0]
    assert any(p.startswith("README.md line 12: `y * y` is shown as 2.01, the code gives 2.00") for p in problems)
    assert any(p.startswith("README.md line 24 (the output of the block at line 15)") and "│ 2   │" in p
               for p in problems)
    assert any(p.startswith("current text for") for p in problems)  # the text to paste


# -- the census table -------------------------------------------------------------------------
def census_table() -> tuple[int, list[int], list[tuple[str, list[str]]]]:
    """(README line of the first row, the k of each column, rows of (label, shown cells))."""
    lines = README.read_text().splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("| method | k = "))
    ks = [int(c.split("=")[1]) for c in lines[head].strip("|").split("|")[1:]]
    rows, i = [], head + 2
    while i < len(lines) and lines[i].startswith("|"):
        cells = [c.strip() for c in lines[i].strip().strip("|").split("|")]
        rows.append((cells[0], cells[1:]))
        i += 1
    return head + 3, ks, rows


def method_of(label: str) -> dict:
    """partition() arguments for a table row, read from its label."""
    refine = "mil" if "+ MIL" in label else None
    order = re.search(r'order="([\w-]+)"', label)
    if order:
        return {"method": "mhm", "order": order.group(1), "refine": refine}
    if label.startswith("V-MDAV"):
        return {"method": "vmdav", "gamma": 1.0, "refine": refine}
    if label.startswith("MDAV"):
        return {"method": "mdav", "refine": refine}
    raise AssertionError(f"README census table: no rule for the row {label!r}; add one to method_of()")


def test_readme_census_table():
    from polars_sdc import datasets

    census = datasets.census()
    first, ks, rows = census_table()
    assert ks == [3, 4, 5, 10] and len(rows) >= 9
    problems = []
    for r, (label, shown) in enumerate(rows):
        kwargs = method_of(label)
        for k, cell in zip(ks, shown):
            g = census.sdc.partition(k, **kwargs)
            got = f"{100 * census.sdc.ilssdm(groups=g):.4f}"
            if got != cell:
                problems.append(f"README.md line {first + r}, {label[:40]!r}, k = {k}: shown {cell}, computed {got}")
    assert not problems, "\n".join(problems)


if __name__ == "__main__":  # print the current outputs, for updating the README by hand
    import tempfile

    os.chdir(tempfile.mkdtemp())
    found = book_problems(show=True)
    print("\n".join(found) if found else "README and docs match the code")
    sys.exit(1 if found else 0)
