"""Python's cycle collector paused while a solver builds its tables.

An exact solve of a reroll chain keeps hundreds of thousands of small tuples (scores, moves,
packed states' options), none of which refer back to one another. The cycle collector does not
know that: as they pile up it runs its full pass again and again over everything alive, and on
a 20-die optimal solve those passes were a sixth of the time. While any thread is inside
`collector_paused` the collector is off; when the last one leaves, it is back as it was (an
embedder that had switched it off keeps it off; one that switches it while a solve runs in
another thread has that switch undone when the solve ends). Nothing is leaked by the pause:
reference counting frees what it always frees, and what only the collector can free (a cycle
some other thread made meanwhile) is freed by its next pass. A solve is bounded by the
request's work budget and deadline, and so is the pause.

An exact request keeps the pause until its evaluator has let its solvers go (`Sequential.close`:
best play calls back into its solver, a reference cycle), so reference counting frees the tables
before the collector resumes, and it has no pass to make over them, then or later.
"""

from __future__ import annotations

import gc
import threading
from types import TracebackType

_lock = threading.Lock()
_inside = 0
_was_on = False


class _Paused:
    """The cycle collector off for the length of a `with` block (nested and threaded blocks share
    one pause, counted). A class, not a generator: best play enters it once per choice it is
    asked about."""

    __slots__ = ()

    def __enter__(self) -> None:
        global _inside, _was_on
        with _lock:
            if _inside == 0:
                _was_on = gc.isenabled()
                gc.disable()
            _inside += 1

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        global _inside
        with _lock:
            _inside -= 1
            if _inside == 0 and _was_on:
                gc.enable()


collector_paused = _Paused()
"""`with collector_paused:` runs its block with the cycle collector off."""
