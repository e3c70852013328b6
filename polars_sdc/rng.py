"""Per-row random numbers: the one generator every randomised method draws from.

A value drawn for a row depends only on ``(seed, stream, row key)``: the seed the user gave,
a stream name (the method and the column, e.g. ``"laplace/age"``) and the row's key — its
position in the frame, or the value of a ``key=`` column. Nothing depends on how the rows
arrive (eager, lazy, streaming batches, ``.over()`` groups, Spark partitions or task
retries), so the same seed and keys give the same numbers everywhere, two columns or two
methods never share a noise vector, and two rows never share one unless they share a key.

The mixing is SplitMix64's finaliser (Steele, Lea & Flood 2014) applied to the key, the
stream hash and the seed in turn; a uniform takes the top 53 bits, shifted to the open
interval (0, 1) so that ``log(u)`` and ``log(1 - u)`` are finite.

>>> import numpy as np
>>> keys = row_positions(4)
>>> u = uniform(7, "demo", keys)
>>> bool(((u > 0) & (u < 1)).all()), np.array_equal(u, uniform(7, "demo", keys))
(True, True)
>>> np.array_equal(u[2:], uniform(7, "demo", keys[2:]))    # a row's value does not depend on its batch
True
"""
from __future__ import annotations

import hashlib

import numpy as np
import polars as pl

from ._errors import SDCError
from ._validation import check_seed

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


# -- the row mixer: written once, run by numpy here and compiled by Numba in kernels/masking.py --
def mix(z: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser (Steele, Lea & Flood 2014) on uint64, wrapping arithmetic: elementwise
    on a numpy array here; :mod:`polars_sdc.kernels.masking` compiles this same function for one
    uint64 at a time, so both give the same bits. A row's 64 bits are
    ``mix(mix(key * GOLDEN + h) ^ h)`` with ``h`` the :func:`stream_hash`."""
    z = z ^ (z >> np.uint64(30))
    z = z * _M1
    z = z ^ (z >> np.uint64(27))
    z = z * _M2
    return z ^ (z >> np.uint64(31))


def unit(z: np.ndarray) -> np.ndarray:
    """64 random bits -> a uniform in the open interval (0, 1): the top 53 bits, plus a half
    (numpy arrays here, one uint64 in the compiled kernels)."""
    return (np.float64(z >> np.uint64(11)) + 0.5) * (1.0 / 9007199254740992.0)


# -- the stream names: every randomised method's streams, declared here only ---------------------
#: stream name patterns by use (``str.format`` fields); :func:`stream` fills them. A value
#: drawn for a row depends on (seed, stream name, row key), so renaming a stream changes every
#: release made with it: tests/test_rng.py pins the names.
STREAMS: dict[str, str] = {
    "laplace": "laplace/{column}",                 # laplace.py, spark/laplace.py
    "add_noise": "add_noise/{column}",             # masking/add_noise.py (normal: two sub-streams)
    "pram": "pram/{column}",                       # masking/pram.py, spark/masking.py: each row's draw
    "pram_pd": "pram/{column}/pd/{stratum}",       # masking/pram.py: pd drawn per category, per stratum
    "rank_swap": "rank_swap/{column}",             # masking/rank_swap.py: the partner of each rank
    "swap_records_donor": "swap_records/donor{level}",  # masking/record_swap.py: donor keys per level
    "swap_records_select": "swap_records/select",  # the households selected
    "swap_records_total": "swap_records/total",    # rounding of the number to swap
    "swap_records_extra": "swap_records/extra",    # the extra households
}


def stream(use: str, **fields: object) -> str:
    """The stream name of ``use`` (a key of :data:`STREAMS`) with its fields filled in.

    >>> stream("laplace", column="age"), stream("pram_pd", column="sex", stratum=0)
    ('laplace/age', 'pram/sex/pd/0')
    """
    return STREAMS[use].format(**fields)


def normal_streams(name: str) -> tuple[str, str]:
    """The two sub-streams of a normal draw on stream ``name`` (Box-Muller's two uniforms)."""
    return name + "/n1", name + "/n2"


def stream_hash(seed: int, stream: str) -> np.uint64:
    """A 64-bit constant for ``(seed, stream)``; seeds are non-negative integers < 2**64."""
    if seed is None:
        raise SDCError("seed must be a non-negative integer; draw one with rng.fresh_seed()")
    seed = check_seed(seed)
    digest = hashlib.blake2b(f"{int(seed)}\x00{stream}".encode("utf-8"), digest_size=8).digest()
    return np.uint64(int.from_bytes(digest, "little"))


def row_positions(n: int, start: int = 0) -> np.ndarray:
    """Row keys ``start .. start + n - 1`` (uint64): the default key, a row's position."""
    return np.arange(start, start + n, dtype=np.uint64)


def row_keys(key: pl.Series) -> np.ndarray:
    """Row keys from a key column: integers by value, strings by a stable 64-bit hash (the same
    in every process and Polars version). The column must have no nulls and no repeated value:
    two rows with one key would get the same noise.

    >>> row_keys(pl.Series("id", [3, 1, 2])).tolist()
    [3, 1, 2]
    >>> row_keys(pl.Series("id", [1, 1]))
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: key column 'id': value 1 appears more than once; a key must identify one row
    """
    name = key.name
    if key.null_count():
        raise key_null_error(name, key.null_count())
    dup = key.filter(key.is_duplicated())
    if dup.len():
        raise key_duplicate_error(name, dup[0])
    dtype = key.dtype
    check_key_dtype(name, dtype)
    if dtype.is_integer():
        return key.cast(pl.Int64, strict=False).to_numpy().view(np.uint64) if dtype != pl.UInt64 \
            else key.to_numpy().astype(np.uint64, copy=False)
    if dtype in (pl.String, pl.Categorical) or isinstance(dtype, pl.Enum):
        values = key.cast(pl.String).to_list()
        return np.fromiter(
            (int.from_bytes(hashlib.blake2b(v.encode("utf-8"), digest_size=8).digest(), "little") for v in values),
            dtype=np.uint64, count=len(values),
        )
    raise AssertionError(dtype)  # pragma: no cover - check_key_dtype refused it


def key_null_error(name: str, nulls: int, where: str = "") -> SDCError:
    """The one message (:func:`row_keys`; Spark's key checks) for ``nulls`` null values in the
    key column ``name`` (``where``: which frame, e.g. ``" (release)"``)."""
    return SDCError(f"key column {name!r}{where}: {nulls} null value(s); a key must identify every row")


def key_duplicate_error(name: str, value: object, where: str = "") -> SDCError:
    """The one message (:func:`row_keys`; Spark's key checks) for a ``value`` repeated in the
    key column ``name``."""
    return SDCError(f"key column {name!r}{where}: value {value!r} appears more than once; a key must identify one row")


def check_key_dtype(name: str, dtype: pl.DataType) -> None:
    """A key column is an integer or string column (a float is refused: two keys could round to
    one). Checked before any draw, and on the Spark driver before any job.

    >>> check_key_dtype("id", pl.Float64)
    Traceback (most recent call last):
    ...
    polars_sdc._errors.SDCError: key column 'id': dtype Float64 cannot be a key; use an integer or string column
    """
    if dtype.is_integer() or dtype in (pl.String, pl.Categorical) or isinstance(dtype, pl.Enum):
        return
    raise SDCError(f"key column {name!r}: dtype {dtype} cannot be a key; use an integer or string column")


def bits(seed: int, stream: str, keys: np.ndarray) -> np.ndarray:
    """64 random bits per key (uint64)."""
    h = stream_hash(seed, stream)
    with np.errstate(over="ignore"):
        return mix(mix(np.asarray(keys, dtype=np.uint64) * GOLDEN + h) ^ h)


def uniform(seed: int, stream: str, keys: np.ndarray) -> np.ndarray:
    """Uniform(0, 1) per key, never exactly 0 or 1 (53-bit resolution)."""
    return unit(bits(seed, stream, keys))


def laplace(seed: int, stream: str, keys: np.ndarray, scale: float = 1.0) -> np.ndarray:
    """Laplace(0, scale) per key, by inversion of the CDF.

    >>> x = laplace(1, "t", row_positions(200_000))
    >>> round(float(np.mean(np.abs(x))), 2)      # E|X| = scale
    1.0
    """
    u = uniform(seed, stream, keys) - 0.5
    return -scale * np.sign(u) * np.log1p(-2.0 * np.abs(u))


def normal(seed: int, stream: str, keys: np.ndarray) -> np.ndarray:
    """Standard normal per key (Box-Muller on two independent sub-streams).

    >>> z = normal(1, "t", row_positions(200_000))
    >>> round(float(z.mean()), 2), round(float(z.std()), 2)
    (0.0, 1.0)
    """
    s1, s2 = normal_streams(stream)
    u1 = uniform(seed, s1, keys)
    u2 = uniform(seed, s2, keys)
    return np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)


def fresh_seed() -> int:
    """A seed from the operating system's entropy, for calls made without ``seed=``."""
    return int(np.random.SeedSequence().entropy) % (1 << 63)
