"""Column roles: which column of an input table holds the user, the item, the score, ...."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

from receval.exceptions import ColumnNotFoundError, InvalidParameterError

__all__ = ["ALIASES", "Columns"]

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


@dataclass(frozen=True)
class Columns:
    """Names of the columns that play each role, set once for a call.

    Parameters
    ----------
    user, item, score, rank, rating, timestamp : str, optional
        The column holding each role. ``None`` (the default) looks the role up among the
        default name and its aliases (:data:`ALIASES`); an ambiguous match is an error.

    Examples
    --------
    >>> Columns(user="session", item="product")
    Columns(user='session', item='product')
    """

    user: str | None = None
    item: str | None = None
    score: str | None = None
    rank: str | None = None
    rating: str | None = None
    timestamp: str | None = None

    def __repr__(self) -> str:
        set_ = [f"{f.name}={getattr(self, f.name)!r}" for f in fields(self)
                if getattr(self, f.name) is not None]
        return f"Columns({', '.join(set_)})"

    @classmethod
    def coerce(cls, value: Columns | dict[str, str] | None) -> Columns:
        """Accept a ``Columns``, a ``{role: column}`` dict or ``None``."""
        if value is None:
            return cls()
        if isinstance(value, Columns):
            return value
        if isinstance(value, dict):
            unknown = sorted(set(value) - {f.name for f in fields(cls)})
            if unknown:
                raise InvalidParameterError(
                    f"columns= has unknown roles {unknown}; the roles are "
                    f"{[f.name for f in fields(cls)]}",
                    parameter="columns", examples=unknown)
            return cls(**value)
        raise InvalidParameterError(
            f"columns= must be a receval.Columns or a dict of role -> column name, "
            f"got {type(value).__name__}", parameter="columns")

    def resolve(self, role: str, available: Sequence[str], *, table: str,
                required: bool) -> str | None:
        """Return the column of ``available`` that plays ``role`` in ``table``.

        Raises
        ------
        ColumnNotFoundError
            The role was set explicitly to a missing column, or it is required and no
            default name or alias is present, or several aliases are present.
        """
        explicit = getattr(self, role)
        avail = list(available)
        if explicit is not None:
            if explicit not in avail:
                raise ColumnNotFoundError(
                    f"{table}: the {role} column {explicit!r} (set by columns=) is not in the "
                    f"table; its columns are {avail}", column=explicit)
            return str(explicit)
        found = [name for name in ALIASES[role] if name in avail]
        if len(found) > 1:
            raise ColumnNotFoundError(
                f"{table}: several columns could hold the {role}: {found}; choose one with "
                f"columns=Columns({role}=...)", column=found[0], examples=found)
        if found:
            return found[0]
        if required:
            raise ColumnNotFoundError(
                f"{table}: no {role} column; looked for {list(ALIASES[role])} and found none "
                f"among the table's columns {avail}; name it with "
                f"columns=Columns({role}=...)", column=role, examples=avail)
        return None

    def require(self, role: str, available: Sequence[str], *, table: str) -> str:
        """Like :meth:`resolve` for a role the table must have."""
        name = self.resolve(role, available, table=table, required=True)
        if name is None:  # pragma: no cover - resolve raises first
            raise ColumnNotFoundError(f"{table}: no {role} column", column=role)
        return name
