"""A coverage-guided fuzz harness for long runs (issue 11, item 6), with atheris. Not run by pytest
(its name does not start with `test_`) nor by CI, which does not install atheris.

Arbitrary bytes become YAML text given to `engine.load`; when the text loads, every check is
linted, rolled with a seeded RNG (its roll then replayed from its own dice) and solved exactly,
under small `Limits` — the law of `_law.py`. A `RulecraftError` is the engine refusing cleanly
and is fine; any other exception is a crash, and so is a case running past the law's bound (an
alarm raises `Hang`).

    pip install -e '.[fuzz]'
    python tests/fuzz/atheris_harness.py -max_total_time=3600 -rss_limit_mb=2048 fuzz-corpus/

`fuzz-corpus/` (any folder; made if missing) keeps the inputs that reached new code, so a run
goes on from where the last stopped; seed it with the shipped rulesets (`cp rulesets/*.yaml
fuzz-corpus/`) for a head start. Other libFuzzer flags work as usual (`-jobs=2 -workers=2`, `-dict=`,
`-only_ascii=1`); a crash is written to `crash-<hash>` and replays with
`python tests/fuzz/atheris_harness.py crash-<hash>`.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]

import atheris  # noqa: E402

with atheris.instrument_imports():
    from _law import load_and_obey  # noqa: E402

    import engine  # noqa: F401, E402


def one(data: bytes) -> None:
    """One input: the bytes as text (undecodable bytes replaced), then the law."""
    fdp = atheris.FuzzedDataProvider(data)
    seed = fdp.ConsumeIntInRange(0, 2**16)
    text = fdp.ConsumeUnicodeNoSurrogates(len(data))
    load_and_obey(text, seed)


def main() -> None:
    atheris.Setup(sys.argv, one)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
