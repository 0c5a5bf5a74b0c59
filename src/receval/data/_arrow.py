"""Arrow tables to pandas, the one way every reader converts them."""

from __future__ import annotations

from typing import Any

import pandas as pd

__all__ = ["arrow_to_pandas"]


def arrow_to_pandas(table: Any) -> pd.DataFrame:
    """Arrow -> pandas keeping strings Arrow-backed (no per-row Python objects)."""
    import pyarrow as pa

    def mapper(t: Any) -> Any:
        if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
            return pd.ArrowDtype(t)
        return None

    return table.to_pandas(types_mapper=mapper, ignore_metadata=True)
