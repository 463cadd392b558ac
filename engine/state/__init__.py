"""State that lasts across rolls: counters and tallies declared in a ruleset, the actions that
change them, and campaigns that keep them — an append-only log of events in a store (an SQLite
file, or a PostgreSQL database for many processes; the storage sits behind a small interface,
`records.Store`, and `open_store(target)` picks the store a path or URL names).

The evaluators stay pure: an action rolls its check through `engine.eval.sample` and only this
package writes.
May import: the layers below it — `engine.errors`, `engine.syntax`, `engine.expr`, `engine.model`,
`engine.runtime`, `engine.eval`, `engine.compiler`.
"""

from .stores import open_store as open_store
