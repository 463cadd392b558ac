"""The words for a die with no faces or too many, said alike however the faces are written: a
number of sides the schema refuses (`die: 0`, `die: 1001`) or text the compiler works out
(`die: "0"`, `die: "6..1"`, `die: "1..100000"`); RC310 either way."""

from __future__ import annotations

NO_FACES = "this die has no faces"


def no_faces_hint(low: int | None = None, high: int | None = None) -> str:
    """How to give a die faces: a range written high to low (`6..1`) turned round, else the least
    number of sides."""
    if low is not None and high is not None and low > high:
        return f"a range is written from low to high: {high}..{low}"
    return "a die has at least 1 side: die: 6 rolls 1..6"


def too_many_faces(count: int, limit: int) -> tuple[str, str]:
    """The message and hint for a die of `count` faces, over `limit`."""
    return (
        f"this die has {count:,} faces, over the limit of {limit}",
        f"a die has at most {limit} faces; a larger range is better read from several dice",
    )
