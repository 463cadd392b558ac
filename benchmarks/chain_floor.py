"""How far merging could shrink the reroll chain best play scores (issue 13, item 2).

Best play on Chimera's skill check scores every node of its chain once: dice in the air
("flights"), states where the player chooses, and finished pools ("ends"). Two nodes could be one
if they lead to the same remaining computation. This script solves the check under `optimal`,
records the chain best play scored, and merges it bottom up, exactly (a bisimulation on an acyclic
chain):

  * ends are alike when the check's outcome there is alike (`--ends value`: when the pool's value
    is; `--ends score`: when the objective's score is, the coarsest that best play could use);
  * flights are alike when their landings reach alike nodes with the same chances;
  * choices are alike when their options reach the same set of alike nodes.

It prints the chain's nodes and edges and those of the merged chain: a floor for any merging of
states the solver might do, since no two nodes of the merged chain are alike. The chain is the
node-by-node solver's (what runs without numpy), whether or not numpy is installed.

    python benchmarks/chain_floor.py                    # 20 dice (10 + 10 resolve)
    python benchmarks/chain_floor.py --dice 10 --resolve 6 --ends value
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's engine, whatever the editable install points at

import engine  # noqa: E402
from engine.eval import rerolls  # noqa: E402
from engine.eval.markov import BestPlay, postorder  # noqa: E402


class _Asking(BestPlay[int, Any]):
    """Best play that asks the solver for every node (`RerollSolver._node`, recorded below), as
    the solver's own `packed.PackedPlay` reads the nodes off their codes without asking."""

    def __init__(self, solver: Any, *args: Any) -> None:
        super().__init__(*args)

    def score_from(self, code: int, levels: int) -> None:
        self.best(code)


ENDS = ("outcome", "value", "score")


def scored_chain(dice: int, resolve: int) -> tuple[dict[int, tuple[Any, ...]], Any]:
    """Every node best play scores, as ("end", code), ("flight", landings, weights) or ("choice",
    successors), and a function giving an end's outcome distribution, its value and its score."""
    rs = engine.load("chimera", limits=engine.Limits(max_work=10**12, max_states=10**8))
    chain: dict[int, tuple[Any, ...]] = {}
    solver: list[Any] = []
    node = rerolls.RerollSolver._node

    def recorded(self: Any, code: int) -> Any:
        if not solver:
            solver.append((self, self.play.final, self._score))
        found = node(self, code)
        if found is None:
            chain[code] = ("end", code)
        elif found[0] is None:
            chain[code] = ("flight", tuple(found[1]), tuple(found[2]))
        else:
            chain[code] = ("choice", tuple(found[1]))
        return found

    arrays, play, close = rerolls._arrays, rerolls.PackedPlay, rerolls.RerollSolver.close
    rerolls.PackedPlay = _Asking  # type: ignore[misc]
    rerolls.RerollSolver._node = recorded  # type: ignore[method-assign]
    rerolls._arrays = lambda first_rolls: None  # node by node, numpy or not: the chain best play scores
    # the solver kept open: `end_key` asks it for the ends' outcomes after the solve (closed, it
    # has dropped what works them out, and `--ends outcome` and `--ends score` ended in an
    # AttributeError: hunt 13q)
    rerolls.RerollSolver.close = lambda self: None  # type: ignore[method-assign]
    try:
        rs.distribution("skill", dice=dice, resolve=resolve, policy="optimal")
    finally:
        rerolls.RerollSolver._node = node  # type: ignore[method-assign]
        rerolls.RerollSolver.close = close  # type: ignore[method-assign]
        rerolls._arrays, rerolls.PackedPlay = arrays, play  # type: ignore[misc]
    me, final, score = solver[0]

    def end_key(code: int, how: str) -> Hashable:
        if how == "value":
            return repr(me._final(code))
        outcomes = final(code)
        if how == "outcome":
            return repr(sorted(outcomes.weights.items(), key=repr))
        return repr(score(outcomes))

    return chain, end_key


def merged(chain: dict[int, tuple[Any, ...]], end_key: Any, how: str) -> dict[Hashable, int]:
    """The classes of alike nodes, bottom up: each node's key names its successors' classes."""
    known: set[int] = set()

    def successors(code: int) -> Sequence[int]:
        known.add(code)
        shape = chain.get(code)
        return shape[1] if shape is not None and shape[0] != "end" else ()

    order, cyclic = postorder(list(chain), successors, known)
    assert not cyclic, "best play scores acyclic chains only"
    group: dict[int, int] = {}
    classes: dict[Hashable, int] = {}
    for code in order:  # each after every node it leads to
        shape = chain[code]
        key: Hashable
        if shape[0] == "end":
            key = ("end", end_key(code, how))
        elif shape[0] == "flight":
            chances: Counter[int] = Counter()
            for t, w in zip(shape[1], shape[2]):
                chances[group[t]] += w
            key = ("flight", frozenset(chances.items()))
        else:
            key = ("choice", frozenset(group[t] for t in shape[1]))
        group[code] = classes.setdefault(key, len(classes))
    return classes


def counts(shapes: Sequence[tuple[Any, ...]]) -> tuple[Counter[str], int]:
    """Nodes by kind, and edges (a flight's landings, a choice's options)."""
    kinds = Counter(shape[0] for shape in shapes)
    edges = sum(len(shape[1]) for shape in shapes if shape[0] != "end")
    return kinds, edges


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dice", type=int, default=10)
    parser.add_argument("--resolve", type=int, default=10)
    parser.add_argument("--ends", choices=ENDS, default="outcome", help="when two ends are alike")
    args = parser.parse_args()
    try:
        chain, end_key = scored_chain(args.dice, args.resolve)
    except engine.RulecraftError as exc:  # an input out of its range: the engine's message, no traceback
        raise SystemExit(f"chain_floor.py: {exc}") from None
    classes = merged(chain, end_key, args.ends)
    kinds, edges = counts(list(chain.values()))
    merged_kinds, merged_edges = counts([(key[0], key[1]) for key in classes])
    print(f"Chimera skill, {args.dice} dice + {args.resolve} resolve, optimal; ends alike by {args.ends}")
    print("| chain | nodes | flights | choices and moves | ends | edges |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, k, e in (
        ("scored by best play", kinds, edges),
        ("alike nodes merged", merged_kinds, merged_edges),
    ):
        print(f"| {name} | {sum(k.values()):,} | {k['flight']:,} | {k['choice']:,} | {k['end']:,} | {e:,} |")
    nodes = sum(merged_kinds.values()) / len(chain)
    print(f"merged ÷ scored: nodes {nodes:.3f}, edges {merged_edges / edges:.3f}")


if __name__ == "__main__":
    main()
