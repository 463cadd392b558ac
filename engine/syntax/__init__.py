"""Text to positioned data: source files and spans, YAML to a `Document`, the JSON Schema check.

Owns every position an author sees (`positions`), reading a ruleset (`document`), validating it
against the shipped JSON Schema (`schema`) and finding the files rulecraft ships (`resources`).
May import: `engine.errors` only. Nothing here knows what an expression or a check means.
"""
