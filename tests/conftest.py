"""Test-session setup.

When a hypothesis test fails (a strict xfail included), hypothesis' pytest plugin imports
`hypothesis.extra._patching`, which imports libcst, which (with mypy_extensions >= 1.1) emits a
DeprecationWarning. Under `filterwarnings = error` that warning is raised inside a pytest hook and
ends the whole run with INTERNALERROR instead of a test report. Importing the module once here,
with that one warning ignored, keeps the report intact; every other warning is still an error.
"""

from __future__ import annotations

import warnings

with warnings.catch_warnings():
    warnings.filterwarnings(
        "ignore", message=r"mypy_extensions\.TypedDict is deprecated", category=DeprecationWarning
    )
    try:
        import hypothesis.extra._patching  # noqa: F401
    except ImportError:  # libcst is optional for hypothesis; without it there is nothing to pre-import
        pass
