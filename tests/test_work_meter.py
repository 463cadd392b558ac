"""The work meter's shares: one part of a request (the linter's exact evaluation of one
combination) runs on a budget of its own, cut from what the request has left, and its units are
then counted in the request's."""

from __future__ import annotations

import time

import pytest

from engine.errors import LimitError
from engine.runtime.work import Work


def test_a_share_holds_no_more_than_is_left_and_keeps_the_deadline() -> None:
    whole = Work(100, 5.0)
    whole.charge(70)
    share = whole.share(1_000)
    assert (share.limit, share.seconds, share.until) == (30, 5.0, whole.until)
    assert whole.share(10).limit == 10 and whole.share(10).used == 0
    assert Work(100).share(50).until is None


def test_a_share_is_checked_alone_and_then_counted_whole() -> None:
    whole = Work(100)
    share = whole.share(40)
    share.charge(25)
    assert whole.used == 0  # nothing reaches the request until it is counted
    whole.count(share)
    assert (whole.used, whole.left) == (25, 75)
    spent = whole.share(1_000)  # 75 left
    with pytest.raises(LimitError):
        spent.charge(80)  # one charge past its own limit: refused there
    whole.count(spent)  # counted without a second refusal: the caller tests `left`
    assert whole.used == 105 and whole.left == 0
    assert whole.share(10).limit == 0


def test_a_share_stops_at_the_requests_deadline() -> None:
    whole = Work(10**9, 0.0, until=time.monotonic() - 1)
    share = whole.share(10**9)
    with pytest.raises(LimitError, match="deadline"):
        share.check_clock()
