"""What authors use around the evaluators: the linter, a ruleset's own examples, text rendering
of results and traces, plots, and the starter ruleset.

Tools are clients of the loaded `engine.api.Ruleset`, as the command line and the server are.
May import: every package below it and `engine.api`; never `engine.cli`.
"""
