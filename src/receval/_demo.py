"""An embedded, seeded sample data set and two baselines, for ``receval demo`` and the docs.

Nothing is downloaded: :func:`sample_ratings` builds users, items with a long-tail popularity,
ratings and timestamps from a seed; :func:`temporal_split` holds out each user's latest
ratings; :func:`random_recommender` and :func:`popular_recommender` are the two baselines of
seed 004 (random scores vs a model), and :func:`item_mean_predictor` /
:func:`global_mean_predictor` are the two rating baselines.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = [
    "global_mean_predictor",
    "item_mean_predictor",
    "popular_recommender",
    "random_recommender",
    "sample_ratings",
    "temporal_split",
]


def sample_ratings(n_users: int = 600, n_items: int = 400, *, seed: int = 7) -> pd.DataFrame:
    """A MovieLens-like table of ratings: ``user_id, item_id, rating, timestamp``.

    Items have Zipf-like popularity (a few items get most ratings) and a latent quality;
    users have a bias and a number of ratings drawn from a long-tailed distribution.
    Ratings are integers 1..5. Every (user, item) pair occurs at most once.
    """
    rng = np.random.default_rng(seed)
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


def temporal_split(ratings: pd.DataFrame, test_fraction: float = 0.2
                   ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Hold out the latest ``test_fraction`` of each user's ratings (at least one)."""
    ordered = ratings.sort_values(["user_id", "timestamp"], kind="stable")
    pos = ordered.groupby("user_id").cumcount()
    size = ordered.groupby("user_id")["item_id"].transform("size")
    n_test = np.maximum(1, np.floor(size * test_fraction)).astype(int)
    is_test = pos >= size - n_test
    return ordered[~is_test].reset_index(drop=True), ordered[is_test].reset_index(drop=True)


def _top_k_unseen(train: pd.DataFrame, users: np.ndarray, item_scores: pd.Series, k: int,
                  per_user_noise: np.ndarray | None = None) -> pd.DataFrame:
    """Top ``k`` items by score for each user, excluding the items the user rated in train."""
    items = item_scores.index.to_numpy()
    scores = np.broadcast_to(item_scores.to_numpy(), (len(users), len(items))).copy()
    if per_user_noise is not None:
        scores = per_user_noise
    seen_u = np.searchsorted(users, train["user_id"].to_numpy())
    seen_i = np.searchsorted(items, train["item_id"].to_numpy())
    ok = (seen_u < len(users)) & (seen_i < len(items))
    scores[seen_u[ok], seen_i[ok]] = -np.inf
    top = np.argsort(-scores, axis=1, kind="stable")[:, :k]
    return pd.DataFrame({
        "user_id": np.repeat(users, k),
        "item_id": items[top].ravel(),
        "score": np.take_along_axis(scores, top, axis=1).ravel(),
    })


def random_recommender(train: pd.DataFrame, users: np.ndarray, k: int = 10, *,
                       seed: int = 0) -> pd.DataFrame:
    """Recommend ``k`` unseen items per user uniformly at random (random scores)."""
    items = np.sort(train["item_id"].unique())
    rng = np.random.default_rng(seed)
    noise = rng.random((len(users), len(items)))
    return _top_k_unseen(train, np.sort(users), pd.Series(0.0, index=items), k, noise)


def popular_recommender(train: pd.DataFrame, users: np.ndarray, k: int = 10) -> pd.DataFrame:
    """Recommend the ``k`` most-rated unseen items (score = number of ratings in train)."""
    counts = train.groupby("item_id").size().astype(float).sort_index()
    return _top_k_unseen(train, np.sort(users), counts, k)


def global_mean_predictor(train: pd.DataFrame, pairs: pd.DataFrame) -> pd.DataFrame:
    """Predict every rating as the mean training rating."""
    return pairs[["user_id", "item_id"]].assign(score=float(train["rating"].mean()))


def item_mean_predictor(train: pd.DataFrame, pairs: pd.DataFrame, *,
                        shrinkage: float = 5.0) -> pd.DataFrame:
    """Predict each rating as the item's mean, shrunk towards the global mean."""
    mu = float(train["rating"].mean())
    stats = train.groupby("item_id")["rating"].agg(["sum", "count"])
    est = (stats["sum"] + shrinkage * mu) / (stats["count"] + shrinkage)
    score = pairs["item_id"].map(est).fillna(mu).to_numpy(dtype=float)
    return pairs[["user_id", "item_id"]].assign(score=score)
