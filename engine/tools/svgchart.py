"""Charts of distributions drawn as SVG text, with no plotting library: what the playground shows.

The server draws them so that the page needs no charting script, and a bot may fetch the same
picture. Each function takes plain data (names and exact fractions), so it knows nothing of
checks or rulesets. Every name that reaches the picture comes from a ruleset an anonymous
author sent, so each is escaped (`_text`, `_attr`); a name with `<` or `"` is drawn as written,
never read as markup. Every mark carries a `<title>` (its name and chance), which screen
readers say and browsers show on hover.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from xml.sax.saxutils import escape, quoteattr

from ..eval.dist import fraction_text
from .render import exact
from .render import percent as shown_percent

# Colours worst to best, picked to stay apart for the common colour blindnesses (Okabe–Ito's,
# its yellow darkened to show on white).
PALETTE = ("#d55e00", "#e69f00", "#cbb400", "#009e73", "#56b4e9", "#0072b2", "#cc79a7", "#999999")
FONT = "system-ui, -apple-system, 'Segoe UI', sans-serif"


def _text(value: str) -> str:
    return escape(value)


def _attr(value: str) -> str:
    return quoteattr(value)


def percent(p: Fraction) -> str:
    """A chance as the chart writes it: as text does (`render.percent`: two decimals, a tiny
    chance in scientific form, never 0.00% for one that is not 0), without its padding."""
    return shown_percent(p).strip()


def _fraction(p: Fraction) -> str:
    """A chance exact, as the chart's data carries it (in hexadecimal past Python's bound on
    decimal text: `fraction_text`)."""
    return str(p.numerator) if p.denominator == 1 else fraction_text(p)


def colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def _open(width: int, height: int, title: str, kind: str) -> list[str]:
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label={_attr(title)} class={_attr(kind)} '
        f'font-family="{FONT}" font-size="12">',
        f"<title>{_text(title)}</title>",
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="{width / 2:.1f}" y="18" text-anchor="middle" font-size="14" '
        f'font-weight="600">{_text(_short(title, width - 16, TITLE_LETTER))}</text>',
    ]


LETTER = 7
"""About how many pixels a letter of a 12-pixel label takes (the font is the reader's own)."""
TITLE_LETTER = 9
"""The same for the chart's 14-pixel bold title (a long check name would run off both edges)."""


def _short(name: str, room: float, letter: int = LETTER) -> str:
    """A label cut to the room it has; the full name stays in the `<title>` (and `aria-label`)."""
    most = max(3, int(room // letter))
    return name if len(name) <= most else name[: most - 1] + "…"


def bar_chart(
    title: str, bars: Sequence[tuple[str, Fraction]], *, width: int = 640, height: int = 320
) -> str:
    """One bar per outcome, worst first, its height proportional to its chance (the tallest bar
    fills the plot), labelled with the outcome and its percentage."""
    top, bottom, left, right = 34, 44, 16, 16
    plot_h = height - top - bottom
    plot_w = width - left - right
    most = max((p for _, p in bars), default=Fraction(0)) or Fraction(1)
    slot = plot_w / max(len(bars), 1)
    bar_w = slot * 0.7
    base = top + plot_h
    out = _open(width, height, title, "rc-chart rc-bars")
    out.append(f'<line x1="{left}" y1="{base}" x2="{width - right}" y2="{base}" stroke="#444"/>')
    for i, (name, p) in enumerate(bars):
        h = float(p / most) * plot_h
        x = left + i * slot + (slot - bar_w) / 2
        cx = x + bar_w / 2
        label = f"{name}: {percent(p)} ({exact(p)})"
        out.append(
            f'<g class="bar" data-outcome={_attr(name)} data-probability="{_fraction(p)}">'
            f"<title>{_text(label)}</title>"
            f'<rect x="{x:.2f}" y="{base - h:.4f}" width="{bar_w:.2f}" height="{h:.4f}" '
            f'fill="{colour(i)}" stroke="#333" stroke-width="0.5"/>'
            f'<text x="{cx:.2f}" y="{base - h - 4:.2f}" text-anchor="middle">{_text(percent(p))}</text>'
            f'<text x="{cx:.2f}" y="{base + 16}" text-anchor="middle">{_text(_short(name, slot))}</text>'
            "</g>"
        )
    out.append("</svg>")
    return "\n".join(out)


def grouped_bar_chart(
    title: str,
    groups: Sequence[str],
    series: Sequence[tuple[str, Sequence[Fraction]]],
    *,
    width: int = 640,
    height: int = 340,
) -> str:
    """Outcomes along the bottom, one bar per series inside each (a policy, say): how much the
    choice changes each outcome's chance, side by side on one scale."""
    top, bottom, left, right = 34, 46, 16, 16
    plot_h = height - top - bottom
    plot_w = width - left - right
    height += 16 * legend_rows([name for name, _ in series], plot_w)
    most = max((p for _, ps in series for p in ps), default=Fraction(0)) or Fraction(1)
    slot = plot_w / max(len(groups), 1)
    bar_w = slot * 0.8 / max(len(series), 1)
    base = top + plot_h
    out = _open(width, height, title, "rc-chart rc-grouped")
    out.append(f'<line x1="{left}" y1="{base}" x2="{width - right}" y2="{base}" stroke="#444"/>')
    for g, group in enumerate(groups):
        x0 = left + g * slot + slot * 0.1
        for s, (name, ps) in enumerate(series):
            p = ps[g]
            h = float(p / most) * plot_h
            x = x0 + s * bar_w
            out.append(
                f'<g class="bar" data-outcome={_attr(group)} data-series={_attr(name)} '
                f'data-probability="{_fraction(p)}"><title>{_text(f"{group}, {name}: {percent(p)}")}</title>'
                f'<rect x="{x:.2f}" y="{base - h:.4f}" width="{bar_w * 0.92:.2f}" height="{h:.4f}" '
                f'fill="{colour(s + 3)}" stroke="#333" stroke-width="0.5"/></g>'
            )
        out.append(
            f'<text x="{x0 + slot * 0.4:.2f}" y="{base + 16}" text-anchor="middle">'
            f"{_text(_short(group, slot))}</text>"
        )
    out.extend(_legend([name for name, _ in series], left, width - right, base + 38, offset=3))
    out.append("</svg>")
    return "\n".join(out)


def _legend(names: Sequence[str], left: float, right: float, y: float, offset: int = 0) -> list[str]:
    """A key of coloured squares and names from `left`, wrapping onto a new row 16 pixels down
    before it would pass `right` (the caller leaves room for `legend_rows`)."""
    out = ['<g class="legend">']
    x = left
    for i, name in enumerate(names):
        label = _short(name, 160)
        room = 24 + len(label) * 7
        if x > left and x + room > right:
            x, y = left, y + 16
        out.append(
            f'<rect x="{x:.1f}" y="{y - 10:.1f}" width="10" height="10" fill="{colour(i + offset)}"/>'
            f'<text x="{x + 14:.1f}" y="{y - 1:.1f}">{_text(label)}</text>'
        )
        x += room
    out.append("</g>")
    return out


def legend_rows(names: Sequence[str], width: float) -> int:
    """How many rows `_legend` takes for `names` in `width` pixels."""
    rows, x = 1, 0.0
    for name in names:
        room = 24 + len(_short(name, 160)) * LETTER
        if x > 0 and x + room > width:
            rows, x = rows + 1, 0.0
        x += room
    return rows


def sweep_chart(
    title: str,
    x_name: str,
    xs: Sequence[int],
    series: Sequence[tuple[str, Sequence[Fraction]]],
    *,
    stacked: bool = False,
    width: int = 640,
    height: int = 340,
) -> str:
    """Each outcome's chance as the input `x_name` runs over `xs`: one line per outcome, or, with
    `stacked`, areas worst first that add up to the whole at every point."""
    top, bottom, left, right = 34, 62, 48, 16
    plot_h = height - top - bottom
    plot_w = width - left - right
    height += 16 * (legend_rows([name for name, _ in series], plot_w) - 1)
    base = top + plot_h
    span = max(len(xs) - 1, 1)

    def px(i: int) -> float:
        return left + (plot_w * i / span if len(xs) > 1 else plot_w / 2)

    def py(p: Fraction | float) -> float:
        return base - float(p) * plot_h

    out = _open(width, height, title, "rc-chart rc-sweep" + (" rc-stacked" if stacked else ""))
    for tick in (0, 25, 50, 75, 100):
        y = py(tick / 100)
        out.append(
            f'<line x1="{left}" y1="{y:.2f}" x2="{width - right}" y2="{y:.2f}" stroke="#ddd"/>'
            f'<text x="{left - 6}" y="{y + 4:.2f}" text-anchor="end">{tick}%</text>'
        )
    # at most 12 labels, and each with room for its digits (16-digit ends ran into one another)
    widest = max((len(str(x)) for x in xs), default=1) * LETTER + 8
    # points between two labels that do not touch, an end's label moved in from the chart's edge
    moved = max(0.0, widest / 2 - left) + max(0.0, widest / 2 - right)
    need = math.ceil((widest + moved) / (plot_w / span))
    step = max(1, -(-len(xs) // 12), need)
    last = len(xs) - 1
    for i, x in enumerate(xs):
        if (i % step == 0 and last - i >= max(step / 2, need)) or i == last:
            half = len(str(x)) * LETTER / 2  # kept inside the chart: an end's label ran off its edge
            at = max(half + 2, min(width - half - 2, px(i)))
            out.append(f'<text x="{at:.2f}" y="{base + 16}" text-anchor="middle">{x}</text>')
    out.append(
        f'<text x="{left + plot_w / 2:.1f}" y="{base + 32}" text-anchor="middle">'
        f"{_text(_short(x_name, plot_w))}</text>"
    )
    below = [Fraction(0)] * len(xs)
    for s, (name, ps) in enumerate(series):
        summary = ", ".join(f"{x_name}={x}: {percent(p)}" for x, p in zip(xs, ps))
        head = f'<g class="series" data-outcome={_attr(name)}><title>{_text(f"{name} — {summary}")}</title>'
        if stacked:
            upper = [b + p for b, p in zip(below, ps)]
            ring = [f"{px(i):.2f},{py(u):.2f}" for i, u in enumerate(upper)]
            ring += [f"{px(i):.2f},{py(b):.2f}" for i, b in reversed(list(enumerate(below)))]
            out.append(
                head + f'<polygon points="{" ".join(ring)}" fill="{colour(s)}" fill-opacity="0.85" '
                'stroke="#333" stroke-width="0.5"/></g>'
            )
            below = upper
        else:
            points = " ".join(f"{px(i):.2f},{py(p):.2f}" for i, p in enumerate(ps))
            dots = "".join(
                f'<circle cx="{px(i):.2f}" cy="{py(p):.2f}" r="2.5" fill="{colour(s)}"/>'
                for i, p in enumerate(ps)
            )
            out.append(
                head + f'<polyline points="{points}" fill="none" stroke="{colour(s)}" stroke-width="2"/>'
                f"{dots}</g>"
            )
    out.extend(_legend([name for name, _ in series], left, width - right, base + 54))
    out.append("</svg>")
    return "\n".join(out)
