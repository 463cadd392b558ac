"""The ruleset format version, checked before anything else so that a file written for
another format gets one clear message instead of a page of schema errors."""

from __future__ import annotations

from ..errors import CompileError, Diagnostic, shown
from ..syntax.document import Document
from ..syntax.positions import Span

SUPPORTED_VERSIONS = (1,)


def check_version(doc: Document) -> None:
    """Refuse a file written for a format this rulecraft does not read, before anything else."""
    data = doc.data if isinstance(doc.data, dict) else {}
    version = data.get("rulecraft")
    if type(version) is int and version in SUPPORTED_VERSIONS:
        return
    if version is None:
        first = next(
            (
                i + 1
                for i, line in enumerate(doc.source.lines)
                if line.strip() and not line.lstrip().startswith("#")
            ),
            1,
        )
        message, span = (
            "this file does not say which ruleset format it is written for",
            Span(doc.source, first, 1),
        )
    else:
        message, span = f"unsupported format version {shown(version)}", doc.span(("rulecraft",))
    reads = f"this rulecraft reads format {', '.join(map(str, SUPPORTED_VERSIONS))}"
    if type(version) is int and version > SUPPORTED_VERSIONS[-1]:
        # written for a later rulecraft: rewriting the version would not make it read the file
        hint = f"the file is written for a newer rulecraft: upgrade rulecraft to read it ({reads})"
    else:
        hint = f"start the file with 'rulecraft: {SUPPORTED_VERSIONS[-1]}' ({reads})"
    raise CompileError([Diagnostic("RC003", message, span, hint)])
