"""``python -m scoring``: see :mod:`scoring.cli.main`."""

import sys

if __name__ == "__main__":
    try:
        from scoring.cli.main import main
    except KeyboardInterrupt:  # Ctrl-C while the libraries load: nothing started, nothing written
        sys.stderr.write("interrupted: no output file was written.\n")
        sys.exit(130)
    sys.exit(main())
