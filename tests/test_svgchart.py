"""The server-drawn charts: well-formed SVG, bars in proportion to their chances, names escaped."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

import engine
from engine.tools.svgchart import bar_chart, grouped_bar_chart, sweep_chart

SVG = "{http://www.w3.org/2000/svg}"


def _tree(text: str) -> ET.Element:
    root = ET.fromstring(text)  # raises on anything not well-formed
    assert root.tag == f"{SVG}svg"
    assert root.find(f"{SVG}title") is not None
    return root


def _height(g: ET.Element) -> float:
    rect = g.find(f"{SVG}rect")
    assert rect is not None
    return float(rect.get("height", "nan"))


def _bars(root: ET.Element) -> list[ET.Element]:
    return [g for g in root.iter(f"{SVG}g") if g.get("class") == "bar"]


names = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=20)
chances = st.lists(st.fractions(min_value=0, max_value=1, max_denominator=10**6), min_size=1, max_size=8)


@given(st.lists(names, min_size=1, max_size=8), chances)
def test_bars_are_proportional_and_any_name_survives(labels: list[str], ps: list[Fraction]) -> None:
    bars = list(zip(labels, ps))
    root = _tree(bar_chart("t <&> \"'", bars))
    found = _bars(root)
    assert [g.get("data-outcome") for g in found] == [n for n, _ in bars]
    most = max(p for _, p in bars)
    tallest = max(_height(g) for g in found)
    for g, (name, p) in zip(found, bars):
        h = _height(g)
        assert Fraction(g.get("data-probability", "")) == p
        if most:
            assert abs(h - float(p / most) * tallest) < 1e-3
        else:
            assert h == 0
        title = g.find(f"{SVG}title")
        assert title is not None and title.text is not None and title.text.startswith(name + ":")


def test_a_name_with_markup_is_text_not_markup() -> None:
    evil = '<script>alert(1)</script>"><g class="bar">'
    text = bar_chart(evil, [(evil, Fraction(1, 3)), ("ok", Fraction(2, 3))])
    root = _tree(text)
    assert "<script>" not in text
    assert not any(e.tag.endswith("script") for e in root.iter())
    assert len(_bars(root)) == 2  # the injected <g class="bar"> stayed text
    assert root.find(f"{SVG}title").text == evil  # type: ignore[union-attr]
    labels = [t.text for t in root.iter(f"{SVG}text")]
    assert "33.33%" in labels and "66.67%" in labels
    for chart in (
        sweep_chart(evil, evil, [1, 2], [(evil, [Fraction(1, 2), Fraction(1)])]),
        sweep_chart(evil, evil, [1, 2], [(evil, [Fraction(1, 2), Fraction(1)])], stacked=True),
        grouped_bar_chart(evil, [evil], [(evil, [Fraction(1, 2)])]),
    ):
        assert "<script>" not in chart
        assert not any(e.tag.endswith("script") for e in _tree(chart).iter())


def test_a_real_distribution_charted() -> None:
    rs = engine.load("chill")
    dist = rs.distribution("specific", target=50)
    table = [(s.name, p) for s, p in dist.table()]
    root = _tree(bar_chart("specific", table))
    assert sum(Fraction(g.get("data-probability", "")) for g in _bars(root)) == 1


def test_stacked_areas_reach_the_top_and_lines_follow_the_points() -> None:
    xs = [1, 2, 3]
    series = [
        ("low", [Fraction(1), Fraction(1, 2), Fraction(0)]),
        ("high", [Fraction(0), Fraction(1, 2), Fraction(1)]),
    ]
    stacked = _tree(sweep_chart("s", "skill", xs, series, stacked=True))
    polys = [p.get("points", "").split() for p in stacked.iter(f"{SVG}polygon")]
    assert len(polys) == 2
    tops = {float(pt.split(",")[1]) for pt in polys[1][: len(xs)]}
    assert len(tops) == 1  # the last area's upper edge is 100% at every x
    lines = _tree(sweep_chart("s", "skill", xs, series))
    ys = [float(pt.split(",")[1]) for pt in next(lines.iter(f"{SVG}polyline")).get("points", "").split()]
    assert ys[0] < ys[1] < ys[2]  # "low" falls from 100% to 0%: y grows downwards
    grouped = _tree(grouped_bar_chart("g", ["a", "b"], series))
    assert len(_bars(grouped)) == 4


def test_a_long_title_is_cut_to_the_chart_and_kept_whole_in_its_title() -> None:
    """A check with many fixed inputs makes a long title: drawn whole, it ran off both edges."""
    title = "skill (" + ", ".join(f"input_{i}=1" for i in range(30)) + ") · optimal"
    for width in (320, 640):
        for chart in (
            bar_chart(title, [("a", Fraction(1))], width=width),
            sweep_chart(title, "x", [1, 2], [("a", [Fraction(1), Fraction(1)])], width=width),
            grouped_bar_chart(title, ["g"], [("a", [Fraction(1)])], width=width),
        ):
            root = _tree(chart)
            assert root.find(f"{SVG}title").text == title  # type: ignore[union-attr]
            assert root.get("aria-label") == title
            heading = next(t for t in root.iter(f"{SVG}text") if t.get("font-size") == "14")
            shown = heading.text or ""
            assert shown.endswith("…") and title.startswith(shown[:-1])
            assert len(shown) * 9 <= width - 16  # 14-pixel bold letters fit between the edges
    assert next(t for t in _tree(bar_chart("short", [("a", Fraction(1))])).iter(f"{SVG}text")).text == "short"


def test_a_sweep_s_axis_labels_keep_to_the_chart_and_to_their_room() -> None:
    """A 300-letter input name ran off both edges of the chart, and 16-digit ends were drawn
    every eighth point, one over another (hunt 13zt, 2026-12-07): the name is cut to the plot, and
    labels are spaced so that each has room for its digits (7 pixels a letter, 8 between)."""
    for xs in (list(range(9007199254740000, 9007199254740101)), list(range(0, 121)), [5, 6]):
        root = _tree(sweep_chart("t", "n" * 300, xs, [("a", [Fraction(1, 2)] * len(xs))]))
        texts = [t for t in root.iter(f"{SVG}text") if t.get("text-anchor") == "middle"]
        ticks = [(float(t.get("x") or 0), t.text or "") for t in texts if (t.text or "").isdigit()]
        assert ticks[0][1] == str(xs[0]) and ticks[-1][1] == str(xs[-1])
        assert len(ticks) <= 12 or len(ticks) == 13  # twelve, and the last point's own
        for (x1, a), (x2, b) in zip(ticks, ticks[1:]):
            assert x2 - x1 >= (len(a) + len(b)) / 2 * 7 + 8, (a, b, x2 - x1)
        for x, label in ticks:  # each inside the chart's 640 pixels
            assert x - len(label) * 7 / 2 >= 0 and x + len(label) * 7 / 2 <= 640, (x, label)
        [name] = [t.text or "" for t in texts if (t.text or "").startswith("n")]
        assert name.endswith("…") and len(name) * 7 <= 640 - 48 - 16
