"""Pictures of distributions with matplotlib (an optional extra: `pip install 'rulecraft[plot]'`)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..errors import Advice, Diagnostic, RulecraftError
from ..eval.exact import Distribution
from ..scenes.odds import Odds
from .render import percent


class PlotError(RulecraftError):
    """The picture could not be drawn (matplotlib missing, or an unknown file type)."""


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise PlotError(
            [
                Diagnostic(
                    "RC601",
                    "drawing a plot needs matplotlib, which is not installed",
                    None,
                    "pip install 'rulecraft[plot]'",
                    advice=Advice("extra", "plot"),
                )
            ]
        ) from None
    return plt


def check_plot_path(path: Path) -> None:
    """Refuse a file type we cannot draw before any work is done."""
    if path.suffix.lower() not in (".png", ".svg"):
        raise PlotError(
            [Diagnostic("RC602", f"cannot draw '{path}': the file must end in .png or .svg", None)]
        )


PLOT_OUTCOMES = 100
"""The most outcomes one chart draws (a bar, or a band and a legend entry, each): 3,000 took
matplotlib 14 s to lay out and 40,000 more than a minute and 1.5 GB (hunt 13za), and a chart of
a hundred bars is past reading already."""


def check_plot_size(outcomes: int, check: str) -> None:
    """Refuse a chart of more than `PLOT_OUTCOMES` outcomes before any work is done."""
    if outcomes > PLOT_OUTCOMES:
        raise PlotError(
            [
                Diagnostic(
                    "RC602",
                    f"cannot draw check '{check}': a chart shows at most {PLOT_OUTCOMES} outcomes, "
                    f"and it has {outcomes:,}",
                    None,
                    "print its table (or JSON) without a plot",
                )
            ]
        )


def plot_distribution(dist: Distribution, path: Path, title: str) -> None:
    """A bar chart of one distribution's outcomes, worst to best."""
    check_plot_path(path)
    plt = _pyplot()
    rows = dist.table()
    fig, ax = plt.subplots(figsize=(7, 4))
    names = [s.name for s, _ in rows]
    probs = [float(p) * 100 for _, p in rows]
    bars = ax.bar(names, probs, color="#4c72b0")
    for bar, (_, p) in zip(bars, rows):
        ax.annotate(
            _label(p),
            (bar.get_x() + bar.get_width() / 2, bar.get_height()),
            ha="center",
            va="bottom",
            fontsize=9,
        )
    ax.set_ylabel("probability (%)")
    ax.set_title(title)
    ax.set_ylim(0, max(probs + [1]) * 1.15)
    _save(plt, fig, path)


def plot_sweep(
    name: str, values: Sequence[Any], dists: Sequence[Distribution], path: Path, title: str
) -> None:
    """Stacked areas: how each outcome's chance moves as one input runs over a range."""
    check_plot_path(path)
    plt = _pyplot()
    members = dists[0].outcomes.members
    fig, ax = plt.subplots(figsize=(9, 5))
    series = [[float(d.probability(m)) * 100 for d in dists] for m in members]
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    xs = [float(v) if numeric else float(i) for i, v in enumerate(values)]
    if len(xs) == 1:  # one point: draw it as a narrow band so it can be seen
        xs = [xs[0] - 0.5, xs[0] + 0.5]
        series = [[row[0], row[0]] for row in series]
        values = [values[0], values[0]]
    ax.stackplot(xs, series, labels=[m.name for m in members], alpha=0.85)
    if not numeric:
        ax.set_xticks(xs, [str(v) for v in values])
    ax.set_xlabel(name)
    ax.set_ylabel("probability (%)")
    ax.set_ylim(0, 100)
    ax.set_xlim(min(xs), max(xs))
    ax.set_title(title)
    handles, labels = ax.get_legend_handles_labels()
    ax.legend(
        handles[::-1],
        labels[::-1],
        loc="center left",
        bbox_to_anchor=(1.01, 0.5),
        title="outcome (best on top)",
    )
    _save(plt, fig, path)


def plot_scene(odds: Odds, path: Path, title: str) -> None:
    """Two panels: the chance of each ending, and the chance that the scene ends in each round."""
    check_plot_path(path)
    plt = _pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [1, 2]})
    names = [str(e) for e, _ in odds.endings.items()]
    probs = [float(p) * 100 for _, p in odds.endings.items()]
    left.bar(names, probs, color="#4c72b0")
    left.set_ylabel("probability (%)")
    left.set_ylim(0, 100)
    left.set_title("endings")
    rounds = [r for r, p in odds.rounds.items() if p]
    right.bar(rounds, [float(odds.rounds[r]) * 100 for r in rounds], color="#55a868")
    right.set_xlabel("round in which the scene ends")
    right.set_ylabel("probability (%)")
    mean = f", mean {float(odds.mean_rounds):.2f}" if odds.mean_rounds is not None else ""
    right.set_title(f"length{mean}")
    fig.suptitle(title)
    _save(plt, fig, path)


def plot_grid(
    rows: tuple[str, Sequence[Any]],
    columns: tuple[str, Sequence[Any]],
    values: Sequence[Sequence[Fraction]],
    path: Path,
    title: str,
    what: str,
) -> None:
    """A heat map: `what` (a chance, 0..1) for each pair of values of two settings."""
    check_plot_path(path)
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(1.6 + 1.3 * len(columns[1]), 1.4 + 0.8 * len(rows[1])))
    image = ax.imshow(
        [[float(v) * 100 for v in row] for row in values], cmap="viridis", vmin=0, vmax=100, aspect="auto"
    )
    ax.set_xticks(range(len(columns[1])), [str(v) for v in columns[1]])
    ax.set_yticks(range(len(rows[1])), [str(v) for v in rows[1]])
    ax.set_xlabel(columns[0])
    ax.set_ylabel(rows[0])
    for i, row in enumerate(values):
        for j, v in enumerate(row):
            ax.text(j, i, _label(v), ha="center", va="center", color="white" if v < 0.6 else "black")
    fig.colorbar(image, ax=ax, label=f"{what} (%)")
    ax.set_title(title)
    _save(plt, fig, path)


def _label(p: Fraction) -> str:
    """A chance written on a bar or a cell as the text output writes it (`render.percent`), so a
    chance too small for two decimals is not drawn as 0.00%."""
    return percent(p).strip()


def _save(plt: Any, fig: Any, path: Path) -> None:
    try:
        fig.tight_layout()
        fig.savefig(path)
    except (OSError, ValueError) as exc:
        raise PlotError([Diagnostic("RC603", f"cannot write the plot to '{path}': {exc}", None)]) from None
    finally:
        plt.close(fig)
