"""``receval run study.toml`` and ``receval rerun out/run.json``: experiments as code."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from receval.exceptions import RecevalError

__all__ = ["rerun", "run"]


@click.command()
@click.argument("config", type=click.Path(path_type=Path), required=False)
@click.option("--schema", is_flag=True,
              help="Print the JSON schema of a study config and exit.")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines on stderr.")
def run(config: Path | None, schema: bool, quiet: bool) -> None:
    """Run the study that CONFIG describes (TOML, YAML or JSON); see docs/studies.md.

    Writes tables, report.html and run.json to [outputs] folder. Example:
    receval run study.toml
    """
    import receval as rv
    from receval.cli._common import fail, recorded
    from receval.cli._render import notes

    if schema:
        click.echo(json.dumps(rv.study.config_schema(), indent=2))
        return
    if config is None:
        click.echo("error: give a study config (receval run study.toml), or --schema",
                   err=True)
        sys.exit(2)
    try:
        with recorded() as caught:
            study = rv.run(config, progress=not quiet)
    except RecevalError as exc:
        fail(exc)
        return
    click.echo(repr(study.cv))
    if study.comparison is not None:
        click.echo(study.comparison.to_markdown())
    click.echo(f"outputs: {study.folder}")
    notes(caught, None)


@click.command(name="rerun")
@click.argument("manifest", type=click.Path(path_type=Path))
@click.option("--data", type=click.Path(path_type=Path), default=None,
              help="Where the input file is now, if it moved (its hash is still checked).")
@click.option("--quiet", "-q", is_flag=True, help="No progress lines on stderr.")
def rerun(manifest: Path, data: Path | None, quiet: bool) -> None:
    """Recompute every number of MANIFEST (a run.json) and compare, exactly.

    Exits 0 when every number is the same, 1 naming the first difference (and which input
    or split part changed), 2 on an error.
    """
    import receval as rv
    from receval.cli._common import fail, recorded

    try:
        with recorded():
            result = rv.rerun(manifest, data=data, progress=not quiet)
    except RecevalError as exc:
        fail(exc)
        return
    click.echo(str(result))
    if not result.identical:
        sys.exit(1)
