"""The `mdae-rimis` command of the wheel: the same command line as the cargo-built binary
(`driver::cli_main`), its output, diagnostics and exit codes."""

from __future__ import annotations

import signal
import sys

from . import _native


def main() -> None:
    # Ctrl-C stops the run at once, as it stops the binary (the GIL is released inside).
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.stdout.flush()
    sys.exit(_native.main(["mdae-rimis", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
