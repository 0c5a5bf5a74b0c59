"""The seeded sample data of ``receval demo``: MovieLens-like ratings and a genre per item.

Nothing is downloaded and nothing is read: every value is drawn from
``numpy.random.default_rng(seed)``, so the same arguments give the same tables in any process
(for the same numpy version).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import pandas as pd

from receval.exceptions import InvalidParameterError

__all__ = ["GENRES", "sample_genres", "sample_ratings"]

#: The genres :func:`sample_genres` draws from.
GENRES = ("action", "comedy", "drama", "horror", "romance", "scifi", "thriller", "kids")


def _count(parameter: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < low:
        raise InvalidParameterError(f"{parameter} must be an integer >= {low}, got {value!r}",
                                    parameter=parameter, examples=[value])
    return int(value)


def sample_ratings(n_users: int = 600, n_items: int = 400, *, seed: int = 7) -> pd.DataFrame:
    """A seeded, MovieLens-like table of ratings: ``user_id, item_id, rating, timestamp``.

    The data of ``receval demo`` and of the documentation's examples. How it is drawn, all
    from ``numpy.random.default_rng(seed)``:

    - item popularity is Zipf-like, ``p_j ∝ j**-0.9`` over popularity ranks ``j = 1..n_items``
      (ranks assigned to item ids by a random permutation), and each item has a latent
      quality ``q_j ~ N(0, 0.8²)``;
    - user ``u`` rates ``c_u = min(5 + NB(2, 0.08), n_items // 2)`` distinct items, drawn
      without replacement proportionally to popularity (Gumbel top-``c_u``);
    - the rating is ``clip(round(3.4 + b_u + q_j + e), 1, 5)`` with a user bias
      ``b_u ~ N(0, 0.6²)`` and noise ``e ~ N(0, 0.9²)``: integers 1..5;
    - the time is uniform over the year 2024, to the second.

    Every (user, item) pair occurs at most once.

    Parameters
    ----------
    n_users : int
        Users, numbered ``1..n_users`` (at least 1).
    n_items : int
        Items, numbered ``1001..1000 + n_items`` (at least 2; the items a user can rate are
        at most ``n_items // 2``, so some items may have no rating).
    seed : int
        The seed (default 7, the demo's).

    Returns
    -------
    pandas.DataFrame
        Columns ``user_id`` (int64), ``item_id`` (int64), ``rating`` (int64) and
        ``timestamp`` (naive datetime), sorted by user and time.

    Examples
    --------
    >>> import receval as rv
    >>> ratings = rv.datasets.sample_ratings(50, 40, seed=1)
    >>> ratings.columns.tolist()
    ['user_id', 'item_id', 'rating', 'timestamp']
    >>> int(ratings["user_id"].nunique())
    50
    """
    n_users = _count("n_users", n_users, 1)
    n_items = _count("n_items", n_items, 2)
    rng = np.random.default_rng(_count("seed", seed, 0))
    pop = 1.0 / np.arange(1, n_items + 1) ** 0.9
    pop /= pop.sum()
    item_perm = rng.permutation(n_items)  # popularity rank -> item id
    quality = rng.normal(0.0, 0.8, n_items)
    counts = np.minimum(5 + rng.negative_binomial(2, 0.08, n_users), n_items // 2)
    # Gumbel top-c: each user's c items drawn without replacement, proportionally to pop
    keys = np.log(pop)[None, :] + rng.gumbel(size=(n_users, n_items))
    order = np.argsort(-keys, axis=1)
    take = np.arange(n_items)[None, :] < counts[:, None]
    user = np.broadcast_to(np.arange(n_users)[:, None], order.shape)[take]
    item = item_perm[order[take]]
    bias = rng.normal(0.0, 0.6, n_users)
    raw = 3.4 + bias[user] + quality[item] + rng.normal(0.0, 0.9, len(user))
    rating = np.clip(np.rint(raw), 1, 5).astype(np.int64)
    start = pd.Timestamp("2024-01-01").value // 10**9
    ts = start + rng.integers(0, 365 * 24 * 3600, len(user))
    frame = pd.DataFrame({"user_id": user + 1, "item_id": item + 1001, "rating": rating,
                          "timestamp": pd.to_datetime(ts, unit="s")})
    return frame.sort_values(["user_id", "timestamp"], ignore_index=True)


def sample_genres(ratings: Any, *, seed: int = 7) -> pd.DataFrame:
    """One genre per item of ``ratings``, drawn uniformly from :data:`GENRES` (seeded).

    A long ``(item_id, genre)`` table, one row per item in increasing id order, as
    ``rv.evaluate(item_features=...)`` reads it (diversity, serendipity, ...).

    Parameters
    ----------
    ratings : pandas.DataFrame
        A table with an ``item_id`` column, such as :func:`sample_ratings`'s.
    seed : int
        The seed (default 7, the demo's).

    Returns
    -------
    pandas.DataFrame
        Columns ``item_id`` and ``genre``.
    """
    if not isinstance(ratings, pd.DataFrame) or "item_id" not in ratings.columns:
        raise InvalidParameterError(
            f"ratings must be a pandas DataFrame with an item_id column (such as "
            f"rv.datasets.sample_ratings()), got {type(ratings).__name__}",
            parameter="ratings")
    items = np.sort(ratings["item_id"].unique())
    return pd.DataFrame({"item_id": items, "genre": np.random.default_rng(
        _count("seed", seed, 0)).choice(list(GENRES), len(items))})
