"""Data sets: the MovieLens archives as GroupLens distributes them, and a seeded sample.

>>> import receval as rv
>>> ratings = rv.datasets.sample_ratings(50, 40, seed=1)    # nothing downloaded
>>> ratings.columns.tolist()
['user_id', 'item_id', 'rating', 'timestamp']

``rv.datasets.movielens(name, path=...)`` reads a local archive or folder;
``download=True`` fetches it into a cache first. See ``docs/datasets.md``.
"""

from receval.datasets._movielens import NAMES, MovieLens, movielens
from receval.datasets._sample import GENRES, sample_genres, sample_ratings

__all__ = ["GENRES", "NAMES", "MovieLens", "movielens", "sample_genres", "sample_ratings"]
