"""``python -m ssdlab.report --out DIR``: the site, as ``ssdlab report`` builds it."""

import sys

from ssdlab.report import main

sys.exit(main(prog="python -m ssdlab.report"))
