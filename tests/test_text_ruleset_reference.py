"""A campaign made of a ruleset loaded from text never finds its ruleset as a file.

Found by hunt 13k: `engine.load(text, name=X)` gave the ruleset the name X, and a campaign made of
it kept X as a file's path wherever a file of that name was there: `name="/etc/passwd"` made a
campaign that opened /etc/passwd and quoted its first line in an error, and `name="chill"` (a
changed copy) bound it to the shipped Chill, which refused every open (RC904). Now a ruleset not
loaded from a file is kept as `<NAME>` and played from the text the campaign keeps; a shipped
ruleset and a file are found again as before.
"""

from __future__ import annotations

from pathlib import Path

import engine
from engine.state.memory import MemoryStore

COIN = """\
rulecraft: 1
name: coin
checks:
  flip: {roll: {d: {die: 2}}, outcomes: [tails, heads], outcome: "'heads' if d == 2 else 'tails'"}
state:
  shared:
    flips: {counter: 0}
actions:
  flip:
    roll: {check: flip}
    effects: [{add: {flips: 1}}]
"""


def test_a_text_rulesets_name_is_never_a_file_found_again(tmp_path: Path) -> None:
    there = tmp_path / "other.yaml"
    there.write_text("root:x:0:0:root:/root:/bin/bash\n")
    store = MemoryStore()
    for name in (str(there), "chill"):
        made = engine.new_campaign(f"c-{len(store.names())}", engine.load(COIN, name=name), store=store)
        assert made.header.ruleset == f"<{name}>"
        opened = engine.open_campaign(made.header.name, store=store)
        opened.act("flip", seed=1)
        assert opened.state()["shared"]["flips"] == 1 and not opened.warnings


def test_a_file_and_a_shipped_ruleset_are_found_again(tmp_path: Path) -> None:
    path = tmp_path / "coin.yaml"
    path.write_text(COIN)
    store = MemoryStore()
    from_file = engine.new_campaign("f", engine.load(path), store=store)
    assert from_file.header.ruleset == str(path.resolve())
    shipped = engine.new_campaign("s", engine.load("chill"), store=store, params={"players": 2})
    assert shipped.header.ruleset == str(engine.load("chill").file)
    assert Path(shipped.header.ruleset).name == "chill.yaml"
    path.write_text(COIN.replace("counter: 0", "counter: 5"))  # the file changed: it is read again
    again = engine.open_campaign("f", store=store, read_only=True)
    assert [d.code for d in again.warnings] == ["RC904"]
