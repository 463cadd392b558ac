"""`rulecraft serve`: the JSON HTTP API over the same `Ruleset` the command line uses.

`create_app` (app.py) builds the FastAPI app: settings and limits, the bounded process pool for
exact solves (workers.py), the routers (routes_*.py), the static playground. Nothing here knows a
game; every answer is a `Ruleset`'s or a tool's, turned into JSON (jobs.py) and typed (models.py).
FastAPI is an optional extra (`rulecraft[serve]`): importing `engine` never imports this package.
May import: every package below it (`engine`'s public names, `engine.api`, `engine.tools`,
`engine.errors`), as `engine.cli` does; never `engine.cli`.
"""
