"""``python -m ssdlab ...`` is ``ssdlab ...``."""

import sys

from ssdlab.cli import main

main(["ssdlab", *sys.argv[1:]])
