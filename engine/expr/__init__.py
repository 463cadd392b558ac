"""Expression text to a syntax tree: the Lark grammar, the parser that places every node in the
YAML file, the frozen tree, and the printer that turns a tree back into canonical text.
May import: `engine.errors`, `engine.syntax.positions`, `engine.syntax.names`.
"""
