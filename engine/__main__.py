"""`rulecraft` and `python -m engine`: the command line, imported inside its Ctrl-C guard.

`import engine` loads nothing of the engine (its names are imported on first use), so this guard
is in place before the ~35 ms of the command line's imports, where a Ctrl-C printed a traceback."""

import sys


def console() -> None:
    try:
        from .cli import console as command_line
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")  # as `cli.main` says it once the command runs
        raise SystemExit(130) from None
    command_line()


if __name__ == "__main__":
    console()
