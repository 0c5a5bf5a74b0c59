"""``python -m receval``."""

from receval.cli import main

main()
