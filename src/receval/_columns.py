"""Column roles: which column of an input table holds the user, the item, the score, ...."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from receval.exceptions import ColumnNotFoundError, InvalidParameterError

__all__ = ["ALIASES", "ROLES", "TABLES", "Columns"]

#: Names accepted for each role, in order of preference, when ``Columns`` leaves it unset.
ALIASES: dict[str, tuple[str, ...]] = {
    "user": ("user_id", "user", "userId", "userID", "uid", "query_id", "qid", "query"),
    "item": ("item_id", "item", "itemId", "itemID", "iid", "movieId", "movie_id", "doc_id",
             "docid", "docno", "document"),
    "score": ("score", "prediction", "pred", "predicted", "predicted_score", "estimate"),
    "rank": ("rank", "position", "pos"),
    "rating": ("rating", "relevance", "grade", "label", "rel", "target"),
    "timestamp": ("timestamp", "time", "ts", "datetime", "date"),
}

#: The roles a column can play.
ROLES: tuple[str, ...] = tuple(ALIASES)

#: The tables whose columns can be named apart from the others: ``evaluate``'s ``recs``,
#: ``truth``, ``train`` and ``item_features``, and the ``data`` of a split or a
#: cross-validation.
TABLES: tuple[str, ...] = ("recs", "truth", "train", "item_features", "data")

#: Other names of the tables in messages (a cross-validation's "fold 2: test" is truth).
_TABLE_NAMES = {"test": "truth", "exclude": "train", "pairs": "truth"}


def _table_keys(table: str) -> list[str]:
    """The entries of :data:`TABLES` whose names apply to the table called ``table``.

    In order of precedence: the table itself, then, for the parts of a cross-validation's
    ``data`` (``"fold 2: train"``), ``data``.
    """
    prefix, _, key = table.rpartition(": ")
    key = _TABLE_NAMES.get(key, key)
    keys = [key] if key in TABLES else []
    return [*keys, "data"] if prefix.startswith("fold ") else keys


def _check_name(name: Any, where: str) -> str | None:
    if name is None or isinstance(name, str):
        return name
    raise InvalidParameterError(
        f"columns=: {where} must be a column name (a string) or None, got "
        f"{type(name).__name__} {name!r}", parameter="columns", examples=[repr(name)])


@dataclass(frozen=True, init=False)
class Columns:
    """Names of the columns that play each role, set once for a call.

    A name set for a role applies to every table of the call that reads that role; a name set
    for one table (``truth_user="user_id"``, or ``truth=Columns(user="user_id")``) wins over
    it in that table only.

    Parameters
    ----------
    user, item, score, rank, rating, timestamp : str, optional
        The column holding each role in every table. ``None`` (the default) looks the role up
        among the default name and its aliases (:data:`ALIASES`); an ambiguous match is an
        error, and so is a name that the table does not have.
    **tables
        Names for one table only, which win over the names above in that table:
        ``recs=``, ``truth=``, ``train=``, ``item_features=`` or ``data=`` (a ``Columns`` or
        a ``{role: column}`` dict), or flat, ``<table>_<role>=`` (``truth_user="user_id"``
        is ``truth=Columns(user="user_id")``). The tables are ``recs`` and ``truth`` of
        :func:`receval.evaluate`, its side inputs ``train`` and ``item_features``, and the
        ``data`` of a split or a cross-validation (whose folds read ``train`` and ``truth``
        names first, then ``data``'s).

    Examples
    --------
    >>> Columns(user="session", item="product")
    Columns(user='session', item='product')
    >>> Columns(user="uid", truth_user="user_id")
    Columns(user='uid', truth=Columns(user='user_id'))
    >>> Columns(user="uid", truth_user="user_id") == Columns(user="uid",
    ...                                                      truth={"user": "user_id"})
    True
    """

    user: str | None
    item: str | None
    score: str | None
    rank: str | None
    rating: str | None
    timestamp: str | None
    recs: Columns | None
    truth: Columns | None
    train: Columns | None
    item_features: Columns | None
    data: Columns | None

    def __init__(self, user: str | None = None, item: str | None = None,
                 score: str | None = None, rank: str | None = None, rating: str | None = None,
                 timestamp: str | None = None, **tables: Any) -> None:
        roles = {"user": user, "item": item, "score": score, "rank": rank, "rating": rating,
                 "timestamp": timestamp}
        for role, name in roles.items():
            object.__setattr__(self, role, _check_name(name, role))
        named: dict[str, dict[str, str | None]] = {
            table: _table_roles(tables.pop(table, None), table) for table in TABLES}
        unknown = [key for key in tables if _split_flat(key) is None]
        if unknown:
            raise InvalidParameterError(
                f"columns= has unknown roles {unknown}; the roles are {list(ROLES)}, for every "
                f"table, or <table>_<role> (e.g. 'truth_user') for one of the tables "
                f"{list(TABLES)}", parameter="columns", examples=unknown)
        for key, name in tables.items():  # the flat form: truth_user="user_id"
            table, role = _split_flat(key) or ("", "")
            if named[table].get(role) not in (None, name):
                raise InvalidParameterError(
                    f"columns=: the {role} column of {table} is set twice ({key}={name!r} "
                    f"and {table}={{'{role}': {named[table][role]!r}}})",
                    parameter="columns", examples=[key])
            named[table][role] = _check_name(name, key)
        for table, roles_named in named.items():
            kept: dict[str, Any] = {r: n for r, n in roles_named.items() if n is not None}
            object.__setattr__(self, table, Columns(**kept) if kept else None)

    def __repr__(self) -> str:
        set_ = [f"{f.name}={getattr(self, f.name)!r}" for f in fields(self)
                if getattr(self, f.name) is not None]
        return f"Columns({', '.join(set_)})"

    @classmethod
    def coerce(cls, value: Columns | Mapping[str, Any] | None) -> Columns:
        """Accept a ``Columns``, a ``{role: column}`` dict (flat or nested) or ``None``."""
        if value is None:
            return cls()
        if isinstance(value, Columns):
            return value
        if isinstance(value, Mapping):
            bad = [k for k in value if not isinstance(k, str)]
            if bad:
                raise InvalidParameterError(
                    f"columns= keys must be role names (strings), got {bad[:5]}",
                    parameter="columns", examples=bad)
            return cls(**value)
        raise InvalidParameterError(
            f"columns= must be a receval.Columns or a dict of role -> column name, "
            f"got {type(value).__name__}", parameter="columns")

    def _own(self, role: str, table: str | None) -> str | None:
        """The key of the per-table entry that names ``role`` for ``table``, if any."""
        for key in [] if table is None else _table_keys(table):
            own = getattr(self, key)
            if own is not None and getattr(own, role) is not None:
                return key
        return None

    def named(self, role: str, table: str | None = None) -> str | None:
        """The column named for ``role`` in ``table`` (its own name first), or None."""
        key = self._own(role, table)
        value = getattr(self, role) if key is None else getattr(getattr(self, key), role)
        return None if value is None else str(value)

    def _setter(self, role: str, table: str) -> str:
        """How the user named ``role`` for ``table`` (for messages)."""
        key = self._own(role, table)
        return f"columns=Columns({role if key is None else f'{key}_{role}'}=...)"

    def resolve(self, role: str, available: Sequence[str], *, table: str,
                required: bool) -> str | None:
        """Return the column of ``available`` that plays ``role`` in ``table``.

        A name set for ``table`` wins over a name set for every table; a name that is set
        must be one of ``available``, whether or not the role is required. Aliases
        (:data:`ALIASES`) are matched exactly first; when none matches exactly, they are
        matched after stripping surrounding spaces and case (``" Item_ID"`` holds the item),
        and two columns that match so are an error naming both.

        Raises
        ------
        ColumnNotFoundError
            The role was set explicitly to a missing column, or it is required and no
            default name or alias is present, or several aliases are present (or, with no
            exact match, several columns match an alias once spaces and case are set aside).
        """
        explicit = self.named(role, table)
        avail = [str(c) for c in available]
        if explicit is not None:
            if explicit not in avail:
                close = [name for name in avail if _normal(name) == _normal(explicit)]
                hint = f" (did you mean {close[0]!r}? names are compared exactly)" \
                    if close else ""
                raise ColumnNotFoundError(
                    f"{table}: the {role} column {explicit!r} (set by "
                    f"{self._setter(role, table)}) is not in the table{hint}; its columns are "
                    f"{avail}", column=explicit, examples=avail)
            return explicit
        found = [name for name in ALIASES[role] if name in avail]
        keys = _table_keys(table)  # none: a table that columns= cannot name apart (a model's)
        only = f" (or {keys[0]}_{role}=... for this table only)" if keys else ""
        if not found:  # no exact match: the aliases after stripping spaces and case
            aliases = {_normal(name) for name in ALIASES[role]}
            found = [name for name in avail if _normal(name) in aliases]
            if len(found) > 1:
                raise ColumnNotFoundError(
                    f"{table}: several columns could hold the {role}: {found} (the same name "
                    f"once spaces and case are set aside); choose one with "
                    f"columns=Columns({role}=...){only}", column=found[0], examples=found)
        if len(found) > 1:
            raise ColumnNotFoundError(
                f"{table}: several columns could hold the {role}: {found}; choose one with "
                f"columns=Columns({role}=...){only}", column=found[0], examples=found)
        if found:
            return found[0]
        if required:
            raise ColumnNotFoundError(
                f"{table}: no {role} column; looked for {list(ALIASES[role])} and found none "
                f"among the table's columns {avail}; name it with "
                f"columns=Columns({role}=...){only}", column=role, examples=avail)
        return None

    def require(self, role: str, available: Sequence[str], *, table: str) -> str:
        """Like :meth:`resolve` for a role the table must have."""
        name = self.resolve(role, available, table=table, required=True)
        if name is None:  # pragma: no cover - resolve raises first
            raise ColumnNotFoundError(f"{table}: no {role} column", column=role)
        return name

    def check_named(self, available: Sequence[str], *, table: str,
                    reads: Sequence[str] = ROLES) -> None:
        """Every column named for ``table`` is one of its columns: never silently ignored.

        A name set for ``table`` itself (``truth_timestamp=...``) is checked whatever the
        table reads; a name set for every table only for the roles in ``reads`` (the table
        reads them, perhaps optionally, as a split reads a timestamp to measure leakage).

        Raises
        ------
        ColumnNotFoundError
            Naming the role, the column and the table's columns.
        """
        for role in ROLES:
            if self._own(role, table) is not None or (
                    role in reads and getattr(self, role) is not None):
                self.resolve(role, available, table=table, required=True)


def _normal(name: str) -> str:
    """A column name as alias matching compares it: without surrounding spaces, lower case."""
    return name.strip().lower()


def _table_roles(value: Any, table: str) -> dict[str, str | None]:
    """The roles named in a per-table value (a Columns, a dict or None)."""
    if value is None:
        return {}
    if isinstance(value, Columns):
        nested = [t for t in TABLES if getattr(value, t) is not None]
        if nested:
            raise InvalidParameterError(
                f"columns=: {table}= names the columns of one table, so it cannot hold "
                f"names for other tables ({', '.join(nested)})", parameter="columns",
                examples=nested)
        return {role: getattr(value, role) for role in ROLES}
    if isinstance(value, Mapping):
        unknown = [str(k) for k in value if k not in ROLES]
        if unknown:
            raise InvalidParameterError(
                f"columns=: {table}= has unknown roles {unknown}; the roles are "
                f"{list(ROLES)}", parameter="columns", examples=unknown)
        return {str(k): _check_name(v, f"{table}_{k}") for k, v in value.items()}
    raise InvalidParameterError(
        f"columns=: {table}= must be a receval.Columns or a dict of role -> column name, got "
        f"{type(value).__name__}", parameter="columns")


def _split_flat(key: str) -> tuple[str, str] | None:
    """``"truth_user"`` -> ``("truth", "user")``; None for a name that is no table's role."""
    for table in TABLES:
        role = key.removeprefix(f"{table}_")
        if role != key and role in ROLES:
            return table, role
    return None
