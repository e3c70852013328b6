"""MkDocs hook: docstrings hold doctest examples (``>>>`` lines and their output) as plain
text, which Markdown would reflow into paragraphs (and read ``[1, 2]`` as a link). This hook adds
a Markdown preprocessor that fences every run of doctest lines as a ``pycon`` code block, in the
pages and in the docstrings mkdocstrings renders. Used by ``mkdocs.yml`` (``hooks:``)."""
from __future__ import annotations

import re

from markdown import Extension
from markdown.preprocessors import Preprocessor

FENCE = re.compile(r"^\s*(```|~~~)")


class DoctestFence(Preprocessor):
    """Wrap ``>>>`` runs (prompt, continuation and output lines up to a blank line) in fences;
    lines already inside a fenced block are left alone."""

    def run(self, lines: list[str]) -> list[str]:
        out: list[str] = []
        inside = False
        i = 0
        while i < len(lines):
            line = lines[i]
            if FENCE.match(line):
                inside = not inside
            if inside or not line.lstrip().startswith(">>>"):
                out.append(line)
                i += 1
                continue
            indent = line[: len(line) - len(line.lstrip())]
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i].lstrip())
                i += 1
            out += ["", indent + "```pycon", *[indent + b for b in block], indent + "```", ""]
        return out


class DoctestFenceExtension(Extension):
    def extendMarkdown(self, md) -> None:  # noqa: N802 (Markdown's API)
        md.preprocessors.register(DoctestFence(md), "doctest_fence", 40)


def on_config(config):
    config.markdown_extensions.append(DoctestFenceExtension())
    return config
