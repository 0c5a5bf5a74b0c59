"""``python -m receval.cli``."""

from receval.cli import main

main()
